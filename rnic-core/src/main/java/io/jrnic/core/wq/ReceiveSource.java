package io.jrnic.core.wq;

/**
 * Where a QP takes the receive WQEs of incoming Sends from (Verbs 1.0 §8.1.1, §6.1.3): its own
 * RQ ({@link ReceiveQueue}) or the S-RQ it is attached to. Every WQE remembers the source it was
 * posted to ({@link ReceiveWqe#source}) and goes back there once its completion entry is written,
 * whichever QP consumed it. The work-queue classes own this interface and the S-RQ implements it,
 * so that they do not depend on the S-RQ class (issue 10).
 *
 * <p>Thread safety: called under the consuming QP's lock. A private RQ relies on that lock; an
 * S-RQ, shared by several QPs, synchronizes on itself (lock order: QP, then S-RQ).
 *
 * @param <C> the consumer a take is accounted to: the S-RQ's fair share needs to know which QP
 *            took a WQE; a private RQ has one consumer and ignores it
 */
public interface ReceiveSource<C> {
    /**
     * Dequeues the oldest WQE available to {@code consumer}.
     *
     * @param consumer the consuming QP
     * @return the WQE, or null when none is available to it
     */
    ReceiveWqe take(C consumer);

    /**
     * Takes back a WQE this source handed out, after its completion entry was written (or its QP
     * was destroyed); it returns to the preallocated pool (nothing is allocated).
     *
     * @param w the WQE
     */
    void recycle(ReceiveWqe w);
}
