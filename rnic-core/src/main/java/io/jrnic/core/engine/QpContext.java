package io.jrnic.core.engine;

import io.jrnic.api.QpState;
import io.jrnic.api.RnicExtension;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.mem.StagTable;

/**
 * What the engine of one connected QP may know about the QP and the RNIC it serves: the seam that
 * keeps the engine below the Verbs objects. The engine asks; it never reaches the QP, its queues or
 * the RNIC itself. Facts fixed at creation (QP number, PD, rights, the RNIC's limits and extensions)
 * and the two that change under the engine's feet (the IRD a Modify QP may lower, the QP state) are
 * all here; everything the engine tells the QP goes the other way, through {@link QpTransport.Upcalls}.
 *
 * <p>Thread safety: implementations answer from any thread without blocking: the engine calls them
 * on its event loop. {@link #ird()} and {@link #state()} are volatile reads; a Modify QP racing an
 * inbound request may be seen either side of it (Verbs §6.5, V-IRD-11).
 */
public interface QpContext {
    /**
     * Returns the RNIC's name (the JFR events and logs name the QP by RNIC name and QP number).
     *
     * @return the RNIC's name
     */
    String rnicName();

    /**
     * Returns the QP number (a window bound to this QP is valid only for it, RFC 5042 §5).
     *
     * @return the QP number
     */
    int qpId();

    /**
     * Returns the QP's protection domain (a region is valid only for QPs of its PD, RFC 5042 §5).
     *
     * @return the QP's protection domain
     */
    SoftProtectionDomain pd();

    /**
     * Returns whether the QP may use the RNIC's physical address space (STag 0, Verbs §7.2.1).
     *
     * @return whether the QP may use the RNIC's physical address space
     */
    boolean privileged();

    /**
     * Returns whether inbound RDMA Read Requests are enabled (Verbs §6.1.1).
     *
     * @return whether inbound RDMA Read Requests are enabled
     */
    boolean inboundRead();

    /**
     * Returns whether inbound RDMA Writes (and Read Responses into this QP's sinks) are enabled.
     *
     * @return whether inbound RDMA Writes
     */
    boolean inboundWrite();

    /**
     * Returns the current IRD: the inbound Read/atomic requests the QP accepts at a time (RFC 5040 §6.1).
     *
     * @return the current IRD
     */
    int ird();

    /**
     * Returns the QP's current Verbs state.
     *
     * @return the QP's current Verbs state
     */
    QpState state();

    /**
     * Returns the RNIC's STag table, where every tagged access is resolved and checked.
     *
     * @return the RNIC's STag table, where every tagged access is resolved and checked
     */
    StagTable stags();

    /**
     * Returns the QP's traffic counters; the engine is their only writer (docs/observability.md).
     *
     * @return the QP's traffic counters; the engine is their only writer
     */
    QpCounters trafficCounters();

    /**
     * Returns the largest ORD the RNIC supports (sizes the ORD queue once).
     *
     * @return the largest ORD the RNIC supports
     */
    int maxOrd();

    /**
     * Returns the largest IRD the RNIC supports (sizes the IRD queue once).
     *
     * @return the largest IRD the RNIC supports
     */
    int maxIrd();

    /**
     * Whether the RNIC offers an extension.
     *
     * @param extension an RNIC extension
     * @return whether the RNIC offers it (the opcodes of an extension not offered are refused, RFC 7306 §1.1)
     */
    boolean offers(RnicExtension extension);

    /**
     * Returns the executor that makes placed bytes persistent (the commit draft's Flush).
     *
     * @return the executor that makes placed bytes persistent
     */
    PersistenceExecutor persistence();

    /**
     * Returns the QP's place among the waiters of its S-RQ (graceful receive overflow, V-WRP-65).
     *
     * @return the place, or null when the QP has its own receive queue
     */
    SharedReceiveWait sharedReceiveWait();

    /**
     * The engine's QP generated a Terminate, whose graceful close is now under way: until the link
     * closes, Close RNIC waits for it, so that the Terminate reaches the peer (RFC 5040 §6.2.1,
     * R-TERM-034). Any thread.
     *
     * @param engine the engine whose link is closing
     */
    void terminateClosing(QpEngine engine);

    /**
     * The engine's link has closed (once per connection, on the loop): Close RNIC no longer waits
     * for it.
     *
     * @param engine the engine whose link closed
     */
    void terminateClosed(QpEngine engine);

    /**
     * A QP's waiting place at its S-RQ: a QP that found no WQE for a Send joins the S-RQ's waiters and
     * holds the Send until a post wakes it (V-WRP-65). The S-RQ's fair-share policy may refuse it.
     *
     * <p>Thread safety: called on the QP's event loop, without the QP's lock.
     */
    interface SharedReceiveWait {
        /**
         * Joins the waiters, once.
         *
         * @param wake schedules the retry on the QP's event loop; it must only enqueue work
         * @return false when the QP must not wait (destroyed, or refused by the fair-share policy)
         */
        boolean await(Runnable wake);

        /**
         * Returns whether the QP still waits (or holds a grant).
         *
         * @return whether the QP still waits
         */
        boolean waiting();

        /** Leaves the waiters; a grant held goes to the next waiter. */
        void cancel();
    }
}
