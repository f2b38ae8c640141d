package io.jrnic.core;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.SrqAttributes;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared receive queue (Verbs 1.0 §6.3): WQEs posted here are consumed by any attached QP in
 * arrival order ("arrival ordering" dequeuing, §6.3.5); each consumed WQE completes on the CQ of
 * the consuming QP's RQ. The S-RQ Limit event fires once when the number of available WQEs drops
 * below the armed limit (§6.3.8).
 *
 * <p>Thread safety: thread safe (monitor). Lock order: QP lock, then S-RQ lock, then CQ lock.
 */
final class SoftSharedReceiveQueue implements SharedReceiveQueue {
    private final SoftRnic rnic;
    final SoftProtectionDomain pd;
    private final ReceiveQueue queue;
    final AtomicInteger attachedQps = new AtomicInteger();
    private int limit;
    private boolean limitArmed;
    private volatile boolean destroyed;

    SoftSharedReceiveQueue(SoftRnic rnic, SoftProtectionDomain pd, int maxWrs, int maxSge, int limit) {
        this.rnic = rnic;
        this.pd = pd;
        this.queue = new ReceiveQueue(maxWrs, maxSge, pd, this);
        this.limit = limit;
        this.limitArmed = limit > 0; // V-SRQ-36
    }

    boolean destroyed() {
        return destroyed;
    }

    int maxSge() {
        return queue.maxSge();
    }

    private void checkUsable() {
        rnic.checkOpen();
        if (destroyed) {
            throw new VerbsException(VerbsStatus.INVALID_SRQ_HANDLE, "S-RQ was destroyed");
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest wr) {
        synchronized (this) {
            checkUsable();
            queue.post(wr);
        }
    }

    @Override
    public int postReceive(ReceiveWorkRequest[] wrs, int offset, int count) {
        synchronized (this) {
            checkUsable();
            for (int i = 0; i < count; i++) {
                try {
                    queue.post(wrs[offset + i]);
                } catch (VerbsException e) {
                    throw new VerbsException(e.status(), "WR " + i + " of the list: " + e.getMessage(), i);
                }
            }
            return count;
        }
    }

    /**
     * Dequeues one WQE for an incoming Send on a QP and fires the limit event when the available
     * count drops below the armed limit.
     *
     * @return the WQE or null when the S-RQ is empty or destroyed
     */
    ReceiveWqe take() {
        ReceiveWqe w;
        synchronized (this) {
            if (destroyed) {
                return null;
            }
            w = queue.take();
            if (w != null && limitArmed && queue.available() < limit) {
                limitArmed = false; // V-SRQ-37: one shot until re-armed
                rnic.events.raise(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, this));
            }
        }
        return w;
    }

    /**
     * Returns a consumed WQE to the pool after its completion entry was written.
     *
     * @param w the WQE
     */
    synchronized void recycle(ReceiveWqe w) {
        queue.recycle(w);
    }

    @Override
    public int modify(int maxWrs, int newLimit, boolean armLimit) {
        try {
            synchronized (this) {
                checkUsable();
                int depth = maxWrs == UNCHANGED ? queue.depth() : maxWrs;
                int lim = newLimit == UNCHANGED ? limit : newLimit;
                if (depth < 1 || (maxWrs != UNCHANGED && maxWrs < 0) || (newLimit != UNCHANGED && newLimit < 0)) {
                    throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "maxWrs " + maxWrs + ", limit " + newLimit);
                }
                if (depth > rnic.maxSrqWrs()) {
                    throw new VerbsException(VerbsStatus.MAX_WRS_EXCEED_CAPABILITY, depth + " > " + rnic.maxSrqWrs());
                }
                if (lim > depth) {
                    // V-SRQ-40 (armed limit above a shrunken depth) and V-SRQ-41 (limit above depth)
                    throw new VerbsException(maxWrs != UNCHANGED && newLimit == UNCHANGED && limitArmed
                            ? VerbsStatus.INVALID_MODIFIER : VerbsStatus.SRQ_LIMIT_OUT_OF_RANGE,
                            "S-RQ limit " + lim + " above max WRs " + depth);
                }
                if (depth != queue.depth()) {
                    queue.resize(depth); // throws SHRINK_TOO_MANY_ELEMENTS unchanged (V-SRQ-10)
                }
                limit = lim;
                if (armLimit) {
                    limitArmed = lim > 0; // V-SRQ-39: re-arming an armed limit is allowed
                }
                return queue.depth();
            }
        } finally {
            rnic.events.drain();
        }
    }

    @Override
    public synchronized SrqAttributes query() {
        checkUsable();
        return new SrqAttributes(queue.depth(), queue.maxSge(), pd.id(), limit, limitArmed,
                queue.account.outstanding(), queue.available());
    }

    @Override
    public void close() {
        rnic.destroySrq(this);
    }

    /** Marks destroyed: posted WQEs never complete (V-SRQ-13). */
    synchronized void destroy() {
        destroyed = true;
        queue.drainTo(queue::recycle);
    }

    @Override
    public String toString() {
        return "SRQ[" + System.identityHashCode(this) + "]";
    }
}
