package io.jrnic.api;

import java.lang.foreign.MemorySegment;

/**
 * An open RNIC (Verbs 1.0 §5.1, §9.2.1). Every resource is scoped to the RNIC that created it
 * (V-RNIC-1); {@link #close()} frees all of them (V-RNIC-12, V-RNIC-13).
 *
 * <pre>{@code
 * try (Rnic rnic = Rnic.open(new RnicConfig())) {   // finds rnic-core through ServiceLoader
 *     ProtectionDomain pd = rnic.allocatePd();
 *     ...
 * }
 * }</pre>
 *
 * <p>Threads: the RNIC calls the application back on its own threads. Connection request
 * handlers, the stages of {@link ConnectionManager} and {@link Connection}, asynchronous event
 * handlers and completion event handlers run on a connection's event loop when the network caused
 * them (an arriving message, a closed stream) and on the application's thread when a verb it called
 * did (a Modify QP to Error, a post to a QP in Error). An event loop serves many connections:
 * a callback must not block it (no {@link CompletionQueue#take}, no waiting on a stage; hand such
 * work to another thread). {@link #close()} from a callback is allowed (it is carried out on a new
 * thread).
 *
 * <p>Thread safety: all methods are thread safe.
 */
public interface Rnic extends AutoCloseable {
    /**
     * Open RNIC (Verbs §9.2.1.1) with the implementation found on the class path or module path
     * ({@link java.util.ServiceLoader} of {@link io.jrnic.api.spi.RnicProvider}; rnic-core provides
     * the software RNIC), so that an application compiles against rnic-api alone. An RNIC without a
     * {@link RnicConfig#name(String) name} gets a unique one ({@code jrnic0}, {@code jrnic1}, ...).
     *
     * @param config the configuration (read once)
     * @return the open RNIC
     * @throws VerbsException        INVALID_MODIFIER for a bad limit, BLOCK_LIST_MODE_NOT_SUPPORTED,
     *                               RNIC_IN_USE when an RNIC of the configured name is open
     * @throws IllegalStateException when no implementation is on the class path or module path
     */
    static Rnic open(RnicConfig config) {
        java.util.Objects.requireNonNull(config, "config");
        return RnicProviders.provider().open(config);
    }

    /**
     * The RNIC's name: the configured one, or the one assigned to an unnamed RNIC.
     *
     * @return the name, unique among the open RNICs of the JVM
     */
    String name();

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
     * Reads the RNIC's traffic counters into a caller-owned holder, without allocating: the sum of
     * {@link QueuePair#counters(Counters)} over every queue pair it created, destroyed ones included
     * (docs/observability.md). Readable after {@link #close()} too.
     *
     * @param into the holder to fill (every counter is overwritten)
     * @return {@code into}
     */
    Counters counters(Counters into);

    /**
     * The traffic counters in a new holder ({@link #counters(Counters)}).
     *
     * @return a snapshot
     */
    default Counters counters() {
        return counters(new Counters());
    }

    /**
     * Whether the RNIC is open.
     *
     * @return false after {@link #close()}
     */
    boolean isOpen();

    /**
     * Close RNIC (Verbs §9.2.1.3): destroys every resource, frees RNIC-allocated memory and makes
     * the name available again. It ends the connections and waits for the RNIC's event loops to
     * terminate; threads blocked in {@link CompletionQueue#take} wake with INVALID_CQ_HANDLE.
     * A connection whose queue pair generated a Terminate (destroyed or not) first finishes its
     * graceful close, so that the Terminate reaches the peer (RFC 5040 §6.2.1): until the peer's
     * FIN, at most the connection's {@link ConnectionSettings#closeTimeout()}.
     * Idempotent: a second call waits for the first to finish.
     *
     * <p>Called from a callback on one of the RNIC's event loops (which cannot wait for itself to
     * terminate), the close is started on a new thread and this method returns at once;
     * {@link #isOpen()} turns false when it has finished.
     */
    @Override
    void close();
}
