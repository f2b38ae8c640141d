package io.jrnic.core.wq;

import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.core.mem.SoftProtectionDomain;

import java.util.ArrayDeque;

/**
 * The posted receive WQEs of an RQ or S-RQ: a FIFO of WQEs taken from a preallocated pool, so
 * posting and consuming allocate nothing. A WQE returns to the pool once its completion entry is
 * written; its slot in the depth accounting is released when that entry is polled.
 *
 * <p>As a QP's private RQ it is the QP's {@link ReceiveSource} itself; inside an S-RQ its WQEs
 * name the S-RQ as their source, so that they go back through the S-RQ's accounting.
 *
 * <p>Thread safety: not thread safe; guarded by the owning QP's or S-RQ's lock.
 */
public final class ReceiveQueue implements ReceiveSource<Object> {
    public final WorkQueueAccount account = new WorkQueueAccount();
    private final ArrayDeque<ReceiveWqe> free;
    private final ArrayDeque<ReceiveWqe> posted;
    private final int maxSge;
    private final SoftProtectionDomain pd;
    private final ReceiveSource<?> source;
    private int depth;
    private int pooled;

    /**
     * Creates a queue with {@code depth} preallocated WQEs.
     *
     * @param depth  the depth
     * @param maxSge SGEs per WQE
     * @param pd     the PD the WQEs' SGEs are checked against (V-SRQ-26)
     * @param source the source the WQEs go back to: the S-RQ that holds this queue, or null for a
     *               QP's private RQ (then this queue itself)
     */
    public ReceiveQueue(int depth, int maxSge, SoftProtectionDomain pd, ReceiveSource<?> source) {
        this.maxSge = maxSge;
        this.pd = pd;
        this.source = source == null ? this : source;
        this.free = new ArrayDeque<>(depth);
        this.posted = new ArrayDeque<>(depth);
        grow(depth);
    }

    private void grow(int newDepth) {
        while (pooled < newDepth) {
            free.addLast(new ReceiveWqe(maxSge));
            pooled++;
        }
        depth = newDepth;
    }

    public int depth() {
        return depth;
    }

    public int maxSge() {
        return maxSge;
    }

    public int available() {
        return posted.size();
    }

    /**
     * Immediate checks of PostRQ (Verbs §9.3.1.2, Figure 34) without changing anything.
     *
     * @param wr the request
     */
    void check(ReceiveWorkRequest wr) {
        if (wr == null) {
            throw new NullPointerException("receive work request is null");
        }
        int n = wr.sgeCount();
        if (n > maxSge) {
            throw new VerbsException(VerbsStatus.INVALID_SGL_LENGTH, n + " SGEs exceed the queue's " + maxSge);
        }
        if (n < 1) {
            throw new VerbsException(VerbsStatus.INVALID_SGL_FORMAT, "a receive needs at least one SGE (Verbs §9.3.1.2)");
        }
        for (int i = 0; i < n; i++) {
            if (wr.sgeLength(i) < 0) {
                throw new VerbsException(VerbsStatus.INVALID_SGL_FORMAT, "SGE " + i + " has negative length");
            }
        }
        if (account.outstanding() >= depth) {
            throw new VerbsException(VerbsStatus.TOO_MANY_WRS_POSTED, "queue full: " + depth + " WRs outstanding");
        }
    }

    /**
     * Checks and enqueues a copy of {@code wr}.
     *
     * @param wr the request
     * @return the WQE
     */
    public ReceiveWqe post(ReceiveWorkRequest wr) {
        check(wr);
        ReceiveWqe w = free.pollFirst();
        w.copyFrom(wr);
        w.pd = pd;
        w.account = account;
        w.source = source;
        account.acquire();
        posted.addLast(w);
        return w;
    }

    /**
     * Dequeues the oldest posted WQE.
     *
     * @return the WQE or null when none is posted
     */
    public ReceiveWqe take() {
        return posted.pollFirst();
    }

    /**
     * A private RQ has one consumer: the same as {@link #take()}.
     *
     * @param consumer ignored
     * @return the WQE or null when none is posted
     */
    @Override
    public ReceiveWqe take(Object consumer) {
        return take();
    }

    /**
     * Removes every posted WQE, oldest first, handing each to {@code sink}.
     *
     * @param sink receives each WQE
     */
    public void drainTo(java.util.function.Consumer<ReceiveWqe> sink) {
        ReceiveWqe w;
        while ((w = posted.pollFirst()) != null) {
            sink.accept(w);
        }
    }

    /**
     * Returns a WQE whose completion entry was written to the pool.
     *
     * @param w the WQE
     */
    @Override
    public void recycle(ReceiveWqe w) {
        free.addLast(w);
    }

    /**
     * Resizes (Verbs §6.1.3, §6.3.2): refused below the outstanding count.
     *
     * @param newDepth the new depth
     */
    public void resize(int newDepth) {
        if (newDepth < account.outstanding()) {
            throw new VerbsException(VerbsStatus.SHRINK_TOO_MANY_ELEMENTS, "depth " + newDepth + " below "
                    + account.outstanding() + " outstanding WRs");
        }
        grow(newDepth);
    }
}
