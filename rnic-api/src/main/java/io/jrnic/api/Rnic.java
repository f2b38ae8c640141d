package io.jrnic.api;

import java.lang.foreign.MemorySegment;

/**
 * An open RNIC (Verbs 1.0 §5.1, §9.2.1). Every resource is scoped to the RNIC that created it
 * (V-RNIC-1); {@link #close()} frees all of them (V-RNIC-12, V-RNIC-13).
 *
 * <p>Thread safety: all methods are thread safe.
 */
public interface Rnic extends AutoCloseable {
    /**
     * Query RNIC (Verbs §9.2.1.2).
     *
     * @return the attributes
     * @throws VerbsException INVALID_RNIC_HANDLE when closed
     */
    RnicAttributes query();

    /**
     * Allocate PD (Verbs §9.2.2.1).
     *
     * @return the new protection domain
     * @throws VerbsException INSUFFICIENT_RESOURCES, INVALID_RNIC_HANDLE
     */
    ProtectionDomain allocatePd();

    /**
     * Create CQ (Verbs §9.2.3.1).
     *
     * @param minEntries minimum number of entries (at least 1)
     * @param handlerId  Completion Event Handler Identifier from
     *                   {@link #setCompletionEventHandler(int, CompletionEventHandler)}, 0 for none
     * @return the CQ; {@link CompletionQueue#capacity()} gives the entries allocated
     * @throws VerbsException CQ_DEPTH_EXCEEDS_CAPABILITY, INVALID_COMPLETION_HANDLER_ID,
     *                        INSUFFICIENT_RESOURCES, INVALID_RNIC_HANDLE
     */
    CompletionQueue createCq(int minEntries, int handlerId);

    /**
     * Create CQ without a Completion Event Handler.
     *
     * @param minEntries minimum number of entries
     * @return the CQ
     */
    default CompletionQueue createCq(int minEntries) {
        return createCq(minEntries, 0);
    }

    /**
     * Set Completion Event Handler (Verbs §9.4.1): id 0 and a handler registers a new handler and
     * returns its identifier; a non-zero id and a handler replaces it; a non-zero id and null clears it.
     *
     * @param handlerId 0 or an identifier returned earlier
     * @param handler   the handler, or null to clear
     * @return the (new or unchanged) identifier
     * @throws VerbsException INVALID_COMPLETION_HANDLER_ID, INSUFFICIENT_RESOURCES, INVALID_RNIC_HANDLE
     */
    int setCompletionEventHandler(int handlerId, CompletionEventHandler handler);

    /**
     * Set Asynchronous Event Handler (Verbs §9.4.2): replaces the single handler; null turns
     * asynchronous notification off. Events raised while no handler is set are lost (§8.3.3).
     *
     * @param handler the handler or null
     * @throws VerbsException INVALID_RNIC_HANDLE
     */
    void setAsyncEventHandler(AsyncEventHandler handler);

    /**
     * Allocates native memory owned by the RNIC (freed by {@link #close()}), suitable for
     * registration.
     *
     * @param byteSize  size in bytes
     * @param alignment alignment (power of two)
     * @return a zeroed native segment usable from any thread
     * @throws VerbsException INVALID_RNIC_HANDLE
     */
    MemorySegment allocateMemory(long byteSize, long alignment);

    /**
     * The RNIC's connection manager (Verbs §6.6): listens and connects queue pairs of this RNIC over
     * TCP. Its event loops and sockets belong to the RNIC and are shut down by {@link #close()}.
     *
     * @return the connection manager (the same object on every call)
     * @throws VerbsException INVALID_RNIC_HANDLE when closed
     */
    ConnectionManager connectionManager();

    /**
     * Whether the RNIC is open.
     *
     * @return false after {@link #close()}
     */
    boolean isOpen();

    /**
     * Close RNIC (Verbs §9.2.1.3): destroys every resource, frees RNIC-allocated memory and makes
     * the name available again. Idempotent.
     */
    @Override
    void close();
}
