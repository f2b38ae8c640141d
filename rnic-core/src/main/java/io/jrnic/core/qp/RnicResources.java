package io.jrnic.core.qp;

import io.jrnic.api.RnicConfig;
import io.jrnic.api.RnicExtension;
import io.jrnic.core.engine.PersistenceExecutor;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.mem.MemoryManager;
import io.jrnic.core.mem.StagTable;

import java.util.Set;

/**
 * The RNIC-wide collaborators of the Verbs objects (queue pairs, CQs, S-RQs) and of the connection
 * manager, handed to each at creation: the configuration, the event dispatcher, the STag table and
 * memory manager (whose lock guards STag state), the persistence executor, and the {@link Owner} that the objects tell when they
 * go. The objects hold this, never the RNIC itself, so that they sit below it: the RNIC wires them
 * together and is the only class that knows them all (docs/architecture.md).
 *
 * <p>Thread safety: immutable; the collaborators document their own.
 *
 * @param config      the RNIC's configuration (a snapshot taken at open)
 * @param extensions  the protocol extensions the RNIC offers (read on the data path: no copy per call)
 * @param events      delivers asynchronous events and completion notifications outside the locks
 * @param stags       the STag table (RFC 5040 §8.1.1)
 * @param memory      registration, windows, fast-register and invalidation (Verbs ch. 7)
 * @param persistence runs the commit draft's forces to persistence off the event loops
 * @param owner       the RNIC's side: lifecycle and resource bookkeeping
 */
public record RnicResources(RnicConfig config, Set<RnicExtension> extensions, EventDispatcher events,
                            StagTable stags, MemoryManager memory, PersistenceExecutor persistence, Owner owner) {
    /**
     * The RNIC as its Verbs objects see it: whether it is open, and where a destroyed object is
     * unregistered. Owned here (below the RNIC) so that the calls upward need no RNIC type.
     *
     * <p>Thread safety: implementations are thread safe.
     */
    public interface Owner {
        /**
         * Refuses a Verb on a closed RNIC.
         *
         * @throws io.jrnic.api.VerbsException INVALID_RNIC_HANDLE once the RNIC was closed
         */
        void checkOpen();

        /**
         * Whether Close RNIC has started (a destroyed CQ then says so).
         *
         * @return true once close began
         */
        boolean closing();

        /**
         * Whether the calling thread is one of the RNIC's event loops (where nothing may block).
         *
         * @return true on an event loop
         */
        boolean onEventLoop();

        /**
         * Destroy QP: the RNIC forgets the QP and releases what it charged for it.
         *
         * @param qp the QP being destroyed
         */
        void destroyQp(SoftQueuePair qp);

        /**
         * Destroy CQ (the RNIC refuses it while QPs use the CQ).
         *
         * @param cq the CQ being destroyed
         */
        void destroyCq(SoftCompletionQueue cq);

        /**
         * Destroy S-RQ (the RNIC refuses it while QPs use the S-RQ).
         *
         * @param srq the S-RQ being destroyed
         */
        void destroySrq(SoftSharedReceiveQueue srq);

        /**
         * An engine of this RNIC generated a Terminate: Close RNIC waits for its link to close.
         *
         * @param engine the engine
         */
        void terminateClosing(QpEngine engine);

        /**
         * An engine's link closed: Close RNIC no longer waits for it.
         *
         * @param engine the engine
         */
        void terminateClosed(QpEngine engine);
    }

    /**
     * The RNIC's name.
     *
     * @return the name of {@link #config()}
     */
    public String name() {
        return config.name();
    }

    /**
     * Whether the RNIC offers a protocol extension: the operations of one it does not offer are
     * refused at post and on the wire (RFC 7306 §1.1).
     *
     * @param extension the extension
     * @return whether it is among {@link #extensions()}
     */
    public boolean offers(RnicExtension extension) {
        return extensions.contains(extension);
    }

    /**
     * Refuses a Verb on a closed RNIC ({@link Owner#checkOpen()}).
     */
    public void checkOpen() {
        owner.checkOpen();
    }

    /**
     * Whether the calling thread is one of the RNIC's event loops ({@link Owner#onEventLoop()}).
     *
     * @return true on an event loop
     */
    public boolean onEventLoop() {
        return owner.onEventLoop();
    }
}
