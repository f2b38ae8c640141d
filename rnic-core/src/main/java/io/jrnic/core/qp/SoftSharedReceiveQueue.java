package io.jrnic.core.qp;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.SrqAttributes;
import io.jrnic.api.SrqConsumption;
import io.jrnic.api.SrqFairShare;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.wq.ReceiveQueue;
import io.jrnic.core.wq.ReceiveSource;
import io.jrnic.core.wq.ReceiveWqe;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared receive queue (Verbs 1.0 §6.3): WQEs posted here are consumed by any attached QP in
 * arrival order ("arrival ordering" dequeuing, §6.3.5); each consumed WQE completes on the CQ of
 * the consuming QP's RQ. The S-RQ Limit event fires once when the number of available WQEs drops
 * below the armed limit (§6.3.8).
 *
 * <p>Fair share (RFC 5040 §8.1.2 item 8, RFC 5042 §6.4.3.1, docs/verbs.md "Fair share"): every
 * take is accounted to the consuming QP, which keeps a {@link Consumer} record: WQEs taken, WQEs
 * in process (taken, completion not yet written) and its takes among the last {@code window}
 * takes of the S-RQ, a ring of consumer records. The {@link SrqFairShare} policy is checked before
 * each take; a QP over its share gets one {@link AsyncEventType#SRQ_FAIR_SHARE_EXCEEDED} event and,
 * when the policy terminates, no WQE: its Send then fails with "no buffer available" and its
 * stream is terminated while the WQE stays for the other QPs. Taking allocates nothing once a QP
 * has its record (made at its first take).
 *
 * <p>Graceful receive overflow (Verbs §13.2, V-WRP-65/66, docs/engine.md "Graceful receive
 * overflow"): a QP whose Send finds the S-RQ empty and whose link holds such Sends joins the
 * <em>waiters</em> ({@link #awaitWqe}), an intrusive FIFO through the consumer records. A post then
 * grants the posted WQEs to the waiters in the order they were held, one WQE per waiting QP: a
 * granted WQE is reserved (other QPs' takes see {@code available - reserved}) until the granted
 * QP takes it on its own event loop, woken through the {@link Runnable} it enlisted with. A QP the
 * fair-share policy refuses is not held (RFC 5042 §6.4.3.1: it is terminated as before), and a QP
 * that leaves ({@link #detach}, {@link #cancelWait}) gives its grant to the next waiter. Posting
 * and granting allocate nothing.
 *
 * <pre>
 *  waiters:  head ─► [q2] ─► [q5] ─► [q1] ◄─ tail      post 2 WQEs: q2, q5 granted (reserved = 2),
 *                                                        each woken; q1 keeps waiting
 * </pre>
 *
 * <pre>
 *  window ring (size W):  [q1][q2][q1][q1][q3][q1]...   pos ─► next slot to overwrite
 *  take by q:  evicted = ring[pos]; q.inWindow + 1 - (evicted == q) &gt; shareLimit(W) ?
 * </pre>
 *
 * <p>Thread safety: thread safe (monitor). Lock order: QP lock, then S-RQ lock, then CQ lock.
 */
public final class SoftSharedReceiveQueue implements SharedReceiveQueue, ReceiveSource<SoftQueuePair> {
    private final RnicResources rnic;
    public final SoftProtectionDomain pd;
    private final ReceiveQueue queue;
    public final AtomicInteger attachedQps = new AtomicInteger();
    private int limit;
    private boolean limitArmed;
    private volatile boolean destroyed;

    private SrqFairShare policy;
    /** Accounting of each QP that took a WQE, until it is destroyed. */
    private final IdentityHashMap<SoftQueuePair, Consumer> consumers = new IdentityHashMap<>();
    /** Which consumer holds each WQE in process; removed when the WQE is recycled. */
    private final IdentityHashMap<ReceiveWqe, Consumer> holders;
    /** Consumers of the last {@code window.length} takes; null slots are not filled yet. */
    private Consumer[] window;
    private int windowPos;
    /** QPs holding a Send for want of a WQE, in the order they were held (V-WRP-65). */
    private Consumer waitHead;
    private Consumer waitTail;
    /** Posted WQEs granted to woken waiters and not taken yet: not for the other QPs. */
    private int reserved;

    /** Per-QP accounting of S-RQ consumption; guarded by the S-RQ's monitor. */
    private static final class Consumer {
        final SoftQueuePair qp;
        long taken;
        int inProcess;
        int inWindow;
        long exceeded;
        /** Over its share at its last take: the event fired and is not raised again until it is back. */
        boolean over;
        /** Its last take was refused by the fair-share policy (terminate): it must not be held. */
        boolean refused;
        /** Among the waiters (graceful receive overflow); linked through prevWaiter/nextWaiter. */
        boolean waiting;
        /** A posted WQE is reserved for it until its next take. */
        boolean granted;
        Consumer prevWaiter;
        Consumer nextWaiter;
        /** Schedules the QP's retry on its own event loop; only enqueues, takes no jrnic lock. */
        Runnable wake;

        Consumer(SoftQueuePair qp) {
            this.qp = qp;
        }
    }

    public SoftSharedReceiveQueue(RnicResources rnic, SoftProtectionDomain pd, int maxWrs, int maxSge, int limit,
                           SrqFairShare policy) {
        this.rnic = rnic;
        this.pd = pd;
        this.queue = new ReceiveQueue(maxWrs, maxSge, pd, this);
        this.limit = limit;
        this.limitArmed = limit > 0; // V-SRQ-36
        this.holders = new IdentityHashMap<>(maxWrs);
        this.policy = policy;
        this.window = new Consumer[windowSize(policy, maxWrs)];
    }

    private static int windowSize(SrqFairShare p, int depth) {
        return p.window() > 0 ? p.window() : depth;
    }

    public boolean destroyed() {
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
            grantWaiters();
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
                    grantWaiters(); // the WRs before the bad one were posted
                    throw new VerbsException(e.status(), "WR " + i + " of the list: " + e.getMessage(), i);
                }
            }
            grantWaiters();
            return count;
        }
    }

    /**
     * Dequeues one WQE for an incoming Send on {@code qp}: checks the fair-share policy, accounts
     * the take to the QP and fires the limit event when the available count drops below the armed
     * limit. Events are raised here and delivered by the caller's drain.
     *
     * @param qp the consuming QP (called under its lock)
     * <p>WQEs granted to waiting QPs are not available to the others; a granted QP takes its own.
     *
     * @param qp the consuming QP (called under its lock)
     * @return the WQE, or null when the S-RQ is empty (for this QP) or destroyed, or when the policy
     *         refuses the QP a WQE beyond its fair share
     */
    @Override
    public ReceiveWqe take(SoftQueuePair qp) {
        synchronized (this) {
            if (destroyed) {
                return null;
            }
            Consumer c = consumer(qp);
            c.refused = false;
            if (queue.available() - reserved + (c.granted ? 1 : 0) <= 0) {
                return null;
            }
            Consumer evicted = window[windowPos];
            int inWindowAfter = c.inWindow + 1 - (evicted == c ? 1 : 0);
            if (policy.limited() && overShare(c, inWindowAfter)) {
                c.exceeded++;
                if (!c.over) {
                    c.over = true; // one event per excursion above the share
                    rnic.events().raise(new AsyncEvent(AsyncEventType.SRQ_FAIR_SHARE_EXCEEDED, qp));
                }
                if (policy.terminate()) {
                    // RFC 5042 §6.4.3.1: no buffer for this stream, the others keep theirs; it is
                    // terminated, not held, so it leaves the waiters and passes its grant on
                    c.refused = true;
                    leave(c);
                    return null;
                }
            } else {
                c.over = false;
            }
            ReceiveWqe w = queue.take();
            if (c.granted) {
                c.granted = false;
                reserved--;
            }
            if (c.waiting) {
                unlink(c); // a WQE posted while it enlisted was found by its second look
            }
            if (evicted != null) {
                evicted.inWindow--;
            }
            window[windowPos] = c;
            windowPos = windowPos + 1 == window.length ? 0 : windowPos + 1;
            c.inWindow++;
            c.taken++;
            c.inProcess++;
            holders.put(w, c);
            if (limitArmed && queue.available() < limit) {
                limitArmed = false; // V-SRQ-37: one shot until re-armed
                rnic.events().raise(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, this));
            }
            return w;
        }
    }

    private Consumer consumer(SoftQueuePair qp) {
        Consumer c = consumers.get(qp);
        if (c == null) {
            c = new Consumer(qp); // once per QP, at its first Send
            consumers.put(qp, c);
        }
        return c;
    }

    /**
     * Graceful receive overflow (V-WRP-65): {@code qp} found no WQE for a Send and holds it. Enlists
     * the QP at the tail of the waiters (once: a QP already waiting or granted keeps its place), so
     * that a later post wakes it. The caller takes again after this call (a WQE posted in between
     * is found then) and holds the Send only while {@link #waitsForWqe} is true.
     *
     * @param qp   the QP (called on its event loop, without its lock)
     * @param wake schedules the QP's retry on its event loop; it must only enqueue work
     * @return false when the QP must not wait: the S-RQ or the QP is destroyed, or the fair-share
     *         policy just refused the QP (RFC 5042 §6.4.3.1, it is terminated as without the option)
     */
    public boolean awaitWqe(SoftQueuePair qp, Runnable wake) {
        synchronized (this) {
            // Destroy QP marks the QP before it detaches it here: a QP enlisting after its
            // detach sees the mark, so no record of a destroyed QP is made again
            if (destroyed || qp.destroyed()) {
                return false;
            }
            Consumer c = consumer(qp);
            if (c.refused) {
                return false;
            }
            c.wake = wake;
            if (!c.waiting && !c.granted) {
                c.waiting = true;
                c.prevWaiter = waitTail;
                if (waitTail == null) {
                    waitHead = c;
                } else {
                    waitTail.nextWaiter = c;
                }
                waitTail = c;
            }
            return true;
        }
    }

    /**
     * Whether {@code qp} is among the waiters or holds a granted WQE (a Send it holds will be
     * retried).
     *
     * @param qp the QP
     * @return true while the QP waits for a WQE
     */
    public synchronized boolean waitsForWqe(SoftQueuePair qp) {
        Consumer c = consumers.get(qp);
        return c != null && (c.waiting || c.granted);
    }

    /**
     * The QP no longer holds a Send (it stopped, left RTS, or its Send failed): it leaves the
     * waiters, and a WQE granted to it goes to the next waiter.
     *
     * @param qp the QP
     */
    public synchronized void cancelWait(SoftQueuePair qp) {
        Consumer c = consumers.get(qp);
        if (c != null) {
            leave(c);
        }
    }

    /** Unlinks a waiter and passes a grant on (under the monitor). */
    private void leave(Consumer c) {
        if (c.waiting) {
            unlink(c);
        }
        if (c.granted) {
            c.granted = false;
            reserved--;
            grantWaiters();
        }
    }

    private void unlink(Consumer c) {
        if (c.prevWaiter == null) {
            waitHead = c.nextWaiter;
        } else {
            c.prevWaiter.nextWaiter = c.nextWaiter;
        }
        if (c.nextWaiter == null) {
            waitTail = c.prevWaiter;
        } else {
            c.nextWaiter.prevWaiter = c.prevWaiter;
        }
        c.prevWaiter = null;
        c.nextWaiter = null;
        c.waiting = false;
    }

    /**
     * Grants unreserved WQEs to the waiters, oldest first, one each, and wakes them (under the
     * monitor: a wake only enqueues the retry on the QP's own event loop, so no lock is taken).
     * Allocates nothing.
     */
    private void grantWaiters() {
        while (waitHead != null && queue.available() - reserved > 0) {
            Consumer c = waitHead;
            unlink(c);
            c.granted = true;
            reserved++;
            c.wake.run();
        }
    }

    /** Waiting QPs, oldest first (tests). */
    public synchronized List<SoftQueuePair> waiters() {
        List<SoftQueuePair> l = new ArrayList<>();
        for (Consumer c = waitHead; c != null; c = c.nextWaiter) {
            l.add(c.qp);
        }
        return l;
    }

    /** Posted WQEs granted to woken waiters and not yet taken (tests). */
    public synchronized int reserved() {
        return reserved;
    }

    private boolean overShare(Consumer c, int inWindowAfter) {
        if (policy.maxInProcess() > 0 && c.inProcess >= policy.maxInProcess()) {
            return true; // the take would hold one more than allowed (RFC 5042 "high-water")
        }
        // a share only means something against other consumers
        return attachedQps.get() > 1 && inWindowAfter > policy.shareLimit(window.length);
    }

    /**
     * Returns a consumed WQE to the pool after its completion entry was written (or its QP was
     * destroyed): it is no longer in process for its consumer.
     *
     * @param w the WQE
     */
    @Override
    public synchronized void recycle(ReceiveWqe w) {
        Consumer c = holders.remove(w);
        if (c != null) {
            c.inProcess--;
        }
        queue.recycle(w);
    }

    /**
     * Forgets the accounting of a destroyed QP (its WQEs were recycled by its destruction); its
     * takes stay in the window until they slide out. A QP destroyed while holding a Send leaves the
     * waiters, and a WQE granted to it goes to the next waiter.
     *
     * @param qp the QP
     */
    public synchronized void detach(SoftQueuePair qp) {
        Consumer c = consumers.remove(qp);
        if (c != null) {
            leave(c);
        }
    }

    @Override
    public void fairShare(SrqFairShare newPolicy) {
        Objects.requireNonNull(newPolicy, "policy");
        synchronized (this) {
            checkUsable();
            if (newPolicy.window() > rnic.config().maxSrqWrs()) {
                throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "fair-share window " + newPolicy.window()
                        + " above the RNIC's " + rnic.config().maxSrqWrs() + " S-RQ WRs");
            }
            policy = newPolicy;
            resizeWindow(windowSize(newPolicy, queue.depth()));
            for (Consumer c : consumers.values()) {
                c.over = false;
            }
        }
    }

    @Override
    public synchronized SrqFairShare fairShare() {
        checkUsable();
        return policy;
    }

    /** Keeps the most recent takes that fit a new window size (none is lost when it grows). */
    private void resizeWindow(int size) {
        if (size == window.length) {
            return;
        }
        Consumer[] next = new Consumer[size];
        int n = Math.min(size, window.length);
        // newest first: the slot before windowPos is the most recent take
        for (int i = 0; i < n; i++) {
            int from = Math.floorMod(windowPos - 1 - i, window.length);
            next[n - 1 - i] = window[from];
        }
        for (int i = n; i < window.length; i++) {
            Consumer dropped = window[Math.floorMod(windowPos - 1 - i, window.length)];
            if (dropped != null) {
                dropped.inWindow--;
            }
        }
        window = next;
        windowPos = n == size ? 0 : n;
    }

    @Override
    public SrqConsumption consumption(QueuePair qp) {
        synchronized (this) {
            checkUsable();
            if (!(qp instanceof SoftQueuePair q) || q.srq != this) {
                throw new VerbsException(VerbsStatus.INVALID_QP_HANDLE, qp + " does not use " + this);
            }
            Consumer c = consumers.get(q);
            int shareLimit = policy.shareLimit(window.length);
            return c == null ? new SrqConsumption(q.id(), 0, 0, 0, window.length, shareLimit, 0)
                    : new SrqConsumption(q.id(), c.taken, c.inProcess, c.inWindow, window.length, shareLimit,
                    c.exceeded);
        }
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
                if (depth > rnic.config().maxSrqWrs()) {
                    throw new VerbsException(VerbsStatus.MAX_WRS_EXCEED_CAPABILITY, depth + " > " + rnic.config().maxSrqWrs());
                }
                if (lim > depth) {
                    // V-SRQ-40 (armed limit above a shrunken depth) and V-SRQ-41 (limit above depth)
                    throw new VerbsException(maxWrs != UNCHANGED && newLimit == UNCHANGED && limitArmed
                            ? VerbsStatus.INVALID_MODIFIER : VerbsStatus.SRQ_LIMIT_OUT_OF_RANGE,
                            "S-RQ limit " + lim + " above max WRs " + depth);
                }
                if (depth != queue.depth()) {
                    queue.resize(depth); // throws SHRINK_TOO_MANY_ELEMENTS unchanged (V-SRQ-10)
                    resizeWindow(windowSize(policy, depth));
                }
                limit = lim;
                if (armLimit) {
                    limitArmed = lim > 0; // V-SRQ-39: re-arming an armed limit is allowed
                }
                return queue.depth();
            }
        } finally {
            rnic.events().drain();
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
        rnic.owner().destroySrq(this);
    }

    /** Marks destroyed: posted WQEs never complete (V-SRQ-13). */
    public synchronized void destroy() {
        destroyed = true;
        queue.drainTo(queue::recycle);
        consumers.clear();
        holders.clear();
        waitHead = null;
        waitTail = null;
        reserved = 0;
        Arrays.fill(window, null);
    }

    @Override
    public String toString() {
        return "SRQ[" + System.identityHashCode(this) + "]";
    }
}
