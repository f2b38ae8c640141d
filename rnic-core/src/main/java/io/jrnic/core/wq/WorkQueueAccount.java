package io.jrnic.core.wq;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the outstanding work requests of one work queue (SQ, RQ or S-RQ): posted and whose
 * completion has not been retrieved yet (Verbs 1.0 §8.2.1, V-WRP-7, V-SRQ-19). Posting checks
 * it against the depth; polling a CQE (or completing an unsignaled WR successfully) releases it.
 *
 * <p>Thread safety: thread safe (atomic counter).
 */
public final class WorkQueueAccount {
    private final AtomicInteger outstanding = new AtomicInteger();

    /**
     * One more WR posted.
     */
    public void acquire() {
        outstanding.incrementAndGet();
    }

    /**
     * {@code n} more WRs posted: a post list counts its WRs with one atomic update (issue 11).
     *
     * @param n WRs, not negative
     */
    public void acquire(int n) {
        outstanding.addAndGet(n);
    }

    /**
     * One WR's completion was retrieved (or it needs none).
     */
    public void release() {
        outstanding.decrementAndGet();
    }

    /**
     * {@code n} WRs need no completion retrieved any more: the unsignaled successes of one pass
     * over the SQ, released with one atomic update (issue 11).
     *
     * @param n WRs, not negative
     */
    public void release(int n) {
        if (n != 0) {
            outstanding.addAndGet(-n);
        }
    }

    /**
     * Current number of outstanding WRs.
     *
     * @return the count
     */
    public int outstanding() {
        return outstanding.get();
    }
}
