package io.jrnic.api;

/**
 * A reusable Receive work request (Verbs 1.0 §9.3.1.2): WR ID and the data sink SGL.
 *
 * <p>Thread safety: not thread safe; copied by the post verbs, so it may be reused immediately.
 */
public final class ReceiveWorkRequest extends ScatterGatherList {
    private long wrId;

    /** Creates a request with room for 16 SGEs. */
    public ReceiveWorkRequest() {
        this(16);
    }

    /**
     * Creates a request.
     *
     * @param maxSge SGE capacity
     */
    public ReceiveWorkRequest(int maxSge) {
        super(maxSge);
    }

    /**
     * Clears the WR ID and the SGL.
     *
     * @return this
     */
    public ReceiveWorkRequest reset() {
        wrId = 0;
        clearSges();
        return this;
    }

    /**
     * Sets the 64-bit WR ID returned in the completion.
     *
     * @param wrId the id
     * @return this
     */
    public ReceiveWorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /**
     * The WR ID.
     *
     * @return the id
     */
    public long wrId() {
        return wrId;
    }

    /**
     * Appends a data sink SGE (needs Local Write, Verbs §7.4.1).
     *
     * @param stag   the STag
     * @param to     the TO
     * @param length bytes
     * @return this
     */
    public ReceiveWorkRequest sge(int stag, long to, int length) {
        appendSge(stag, to, length);
        return this;
    }
}
