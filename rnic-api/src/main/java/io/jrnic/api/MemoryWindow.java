package io.jrnic.api;

/**
 * A memory window (Verbs 1.0 §7.10): allocated in a PD, bound to a range of a VA-based region by
 * a Bind work request on a QP's SQ, after which it belongs to that QP rather than the PD
 * (§7.10.2). {@link #close()} is Deallocate STag, allowed while bound (§7.10.5).
 *
 * <p>Thread safety: all methods are thread safe.
 */
public interface MemoryWindow extends AutoCloseable {
    /**
     * The current STag (index &lt;&lt; 8 | key of the last bind).
     *
     * @return the STag
     */
    int stag();

    /**
     * The 24-bit STag index (never 0).
     *
     * @return the index
     */
    default int stagIndex() {
        return stag() >>> 8;
    }

    /**
     * Query Memory Window (Verbs §9.2.6.8).
     *
     * @return a snapshot
     * @throws VerbsException INVALID_STAG_INDEX after deallocation
     */
    MemoryWindowAttributes query();

    /**
     * Deallocate STag of the window (Verbs §7.9); implicitly unbinds a Valid window.
     *
     * @throws VerbsException INVALID_STAG_INDEX when already deallocated
     */
    @Override
    void close();
}
