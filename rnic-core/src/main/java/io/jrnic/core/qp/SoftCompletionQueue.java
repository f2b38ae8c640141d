package io.jrnic.core.qp;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.NotifyType;
import io.jrnic.api.Opcode;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.link.DrivableExecutor;
import io.jrnic.core.wq.WorkQueueAccount;

import io.jrnic.api.QpState;
import io.jrnic.api.internal.ApiAccess;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion queue (Verbs 1.0 §5.3): a preallocated ring of completion entries held in
 * parallel primitive arrays (no object per completion), with one-shot notification arming
 * (§8.2.5) and atomic resize (§5.3.3).
 *
 * <pre>
 *   head ─► [e0][e1][e2] ... [e(count-1)]   (indices modulo capacity)
 *   add() writes at (head + count) % capacity; poll() reads at head
 * </pre>
 *
 * <p>Thread safety: thread safe; insertion, polling, arming and resizing are serialized by the
 * CQ's monitor, which makes "poll until empty, arm, poll again" free of lost wake-ups
 * (V-WRP-62). Lock order: a QP's lock may be held when the CQ's is taken, never the reverse.
 * Blocking polls wait on the same monitor; {@link #add}, a failing QP and {@link #destroy} wake them.
 */
public final class SoftCompletionQueue implements CompletionQueue {
    private static final ApiAccess API = ApiAccess.get();
    /** Polling mode: how long a blocking poll drives the connections before it waits on the monitor. */
    static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private final RnicResources rnic;
    private final int maxEntries;
    /** Work queues (SQs, RQs) associated with this CQ (Destroy CQ refuses while non-zero). */
    public final AtomicInteger associations = new AtomicInteger();

    private long[] wrIds;
    private Opcode[] opcodes;
    private WorkCompletionStatus[] statuses;
    private int[] lengths;
    private SoftQueuePair[] qps;
    private int[] invalidated;
    private boolean[] invalidatedFlags;
    private WorkQueueAccount[] accounts;
    private boolean[] immediateFlags;
    private long[] immediates;
    private int head;
    private int count;
    private boolean armedNext;
    private boolean armedSolicited;
    private boolean overflowReported;
    private volatile int handlerId;
    private volatile boolean destroyed;
    /**
     * IoMode.POLLING: the executors of the connections whose QPs feed this CQ; a poll that finds the
     * CQ empty drives them first (copy on write, read without the monitor: no allocation per poll).
     */
    private volatile DrivableExecutor[] drivers = NO_DRIVERS;
    private static final DrivableExecutor[] NO_DRIVERS = new DrivableExecutor[0];
    /** Threads blocked in poll(timeout)/take (guarded by this): add() wakes only when there are any. */
    private int waiters;
    /** QPs of this CQ that entered Error, in the order they failed (guarded by this; see failure()). */
    private final List<SoftQueuePair> failedQps = new ArrayList<>(2);

    public SoftCompletionQueue(RnicResources rnic, int capacity, int handlerId, int maxEntries) {
        this.rnic = rnic;
        this.maxEntries = maxEntries;
        this.handlerId = handlerId;
        allocate(capacity);
    }

    private void allocate(int capacity) {
        wrIds = new long[capacity];
        opcodes = new Opcode[capacity];
        statuses = new WorkCompletionStatus[capacity];
        lengths = new int[capacity];
        qps = new SoftQueuePair[capacity];
        invalidated = new int[capacity];
        invalidatedFlags = new boolean[capacity];
        accounts = new WorkQueueAccount[capacity];
        immediateFlags = new boolean[capacity];
        immediates = new long[capacity];
    }

    public boolean destroyed() {
        return destroyed;
    }

    private void checkUsable() {
        rnic.checkOpen();
        if (destroyed) {
            throw new VerbsException(VerbsStatus.INVALID_CQ_HANDLE, rnic.owner().closing() ? "CQ was destroyed: the RNIC was closed"
                    : "CQ was destroyed");
        }
    }

    @Override
    public synchronized int capacity() {
        return wrIds.length;
    }

    @Override
    public int handlerId() {
        return handlerId;
    }

    /**
     * Number of entries currently on the CQ.
     *
     * @return the count
     */
    synchronized int size() {
        return count;
    }

    /**
     * Adds a completion entry (Verbs §8.2.3). Arms fire here (§8.2.5): "next" on any entry,
     * "solicited" on a solicited receive or any completion in error.
     *
     * @return false when the CQ is full (overflow, the entry is not added)
     */
    synchronized boolean add(long wrId, Opcode opcode, WorkCompletionStatus status, int length, SoftQueuePair qp,
                             boolean stagInvalidated, int invalidatedStag, WorkQueueAccount account,
                             boolean solicited) {
        return add(wrId, opcode, status, length, qp, stagInvalidated, invalidatedStag, account, solicited, false, 0);
    }

    /**
     * Adds a completion that may carry RFC 7306 Immediate Data.
     *
     * @param immediate     whether {@code immediateData} is part of the completion
     * @param immediateData the 8 bytes of an Immediate Data message
     * @return false when the CQ is full (the entry is lost)
     */
    synchronized boolean add(long wrId, Opcode opcode, WorkCompletionStatus status, int length, SoftQueuePair qp,
                             boolean stagInvalidated, int invalidatedStag, WorkQueueAccount account,
                             boolean solicited, boolean immediate, long immediateData) {
        if (destroyed) {
            return true; // V-CQ-27: nothing is returned after destroy; nothing to report either
        }
        if (count == wrIds.length) {
            if (!overflowReported) {
                overflowReported = true;
                rnic.events().raise(new AsyncEvent(AsyncEventType.CQ_OVERFLOW_DETECTED, this));
            }
            return false;
        }
        int i = (head + count) % wrIds.length;
        wrIds[i] = wrId;
        opcodes[i] = opcode;
        statuses[i] = status;
        lengths[i] = length;
        qps[i] = qp;
        invalidatedFlags[i] = stagInvalidated;
        invalidated[i] = invalidatedStag;
        accounts[i] = account;
        immediateFlags[i] = immediate;
        immediates[i] = immediateData;
        count++;
        if (waiters > 0) {
            notifyAll();
        }
        if (armedNext || (armedSolicited && (solicited || status != WorkCompletionStatus.SUCCESS))) {
            armedNext = false;
            armedSolicited = false;
            rnic.events().notify(this);
        }
        return true;
    }

    /**
     * Polling mode: a QP that feeds this CQ was connected over a drivable event loop; polls of this
     * CQ run that loop's work from now on. Called with the QP's lock held (QP before CQ).
     *
     * @param driver the connection's executor
     */
    public synchronized void addDriver(DrivableExecutor driver) {
        DrivableExecutor[] current = drivers;
        for (DrivableExecutor d : current) {
            if (d == driver) {
                return; // QPs on one loop share it
            }
        }
        DrivableExecutor[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = driver;
        drivers = grown;
    }

    /**
     * Runs the receive (and any queued) work of this CQ's connections on the polling thread, with the
     * CQ's monitor not held (that work adds completions under it); a loop another thread runs is
     * skipped. Returns whether any driver exists.
     */
    private boolean drive() {
        DrivableExecutor[] d = drivers;
        for (DrivableExecutor driver : d) {
            driver.drive();
        }
        return d.length != 0;
    }

    @Override
    public boolean poll(WorkCompletion out) {
        if (pollOnce(out)) {
            return true;
        }
        return drive() && pollOnce(out);
    }

    private boolean pollOnce(WorkCompletion out) {
        synchronized (this) {
            checkUsable();
            if (count == 0) {
                return false;
            }
            reap(out);
        }
        return true;
    }

    @Override
    public int poll(WorkCompletion[] out, int offset, int max) {
        int n = pollOnce(out, offset, max);
        if (n == 0 && drive()) {
            n = pollOnce(out, offset, max);
        }
        return n;
    }

    private int pollOnce(WorkCompletion[] out, int offset, int max) {
        int n = 0;
        synchronized (this) {
            checkUsable();
            while (n < max && count > 0) {
                reap(out[offset + n]);
                n++;
            }
        }
        return n;
    }

    @Override
    public boolean poll(WorkCompletion out, long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        long spun = spinDriving(out, nanos);
        if (spun < 0) {
            return true;
        }
        return await(out, nanos - spun, true);
    }

    @Override
    public WorkCompletion take(WorkCompletion out) throws InterruptedException {
        if (spinDriving(out, Long.MAX_VALUE) >= 0) {
            await(out, 0, false);
        }
        return out;
    }

    /**
     * Polling mode, before a blocking poll waits on the monitor: polls and drives the CQ's
     * connections for up to {@link #SPIN_NANOS} (the latency path of an application that waits for
     * each completion), then leaves the waiting to the monitor and the connections to their I/O
     * threads, which take over once nobody drives them.
     *
     * @return -1 when a completion was reaped into {@code out}, else the nanoseconds spent
     */
    private long spinDriving(WorkCompletion out, long nanos) throws InterruptedException {
        if (drivers.length == 0 || rnic.onEventLoop()) {
            return 0; // event-loop mode; or inside a drive, where await() says why it must not wait
        }
        long start = System.nanoTime();
        long limit = Math.min(nanos, SPIN_NANOS);
        do {
            if (poll(out)) {
                return -1;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - start < limit);
        for (DrivableExecutor driver : drivers) {
            driver.yieldToIoThread(); // we are about to wait: the I/O threads serve the sockets meanwhile
        }
        return System.nanoTime() - start;
    }

    /**
     * The blocking poll: waits on the CQ's monitor (no allocation) until a completion arrives,
     * the time is up, a QP of the CQ fails with the CQ empty, or the CQ is destroyed.
     */
    private synchronized boolean await(WorkCompletion out, long nanos, boolean timed) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = timed ? System.nanoTime() + nanos : 0;
        while (true) {
            checkUsable();
            if (count > 0) {
                reap(out);
                return true;
            }
            SoftQueuePair failed = failure();
            if (failed != null) {
                throw new VerbsException(VerbsStatus.INVALID_QP_STATE, "QP " + failed.id() + " of this CQ is in Error"
                        + " and its flushed work requests were all reaped: no completion will come from it (destroy"
                        + " it, or Modify it to Idle, to wait on the CQ again)");
            }
            long left = 0;
            if (timed) {
                left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
            }
            if (rnic.onEventLoop()) {
                throw new IllegalStateException("a blocking poll on an event loop of the RNIC (a callback) would stall"
                        + " the connections it serves: poll without waiting, or wait on another thread");
            }
            waiters++;
            try {
                if (timed) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } else {
                    wait();
                }
            } finally {
                waiters--;
            }
        }
    }

    /**
     * A QP of this CQ that is in Error; its flush put every outstanding WR on its CQs before it was
     * recorded here (Verbs §6.2.4), so with this CQ empty nothing more will come from it.
     */
    private SoftQueuePair failure() {
        for (int k = 0; k < failedQps.size(); k++) {
            SoftQueuePair q = failedQps.get(k);
            if (q.state() == QpState.ERROR) {
                return q;
            }
        }
        return null;
    }

    /**
     * A QP using this CQ entered Error and was flushed (called with the QP's lock held): wakes the
     * blocked polls so that they return the flushed completions or report the failure.
     */
    synchronized void queuePairFailed(SoftQueuePair qp) {
        if (!failedQps.contains(qp)) {
            failedQps.add(qp);
        }
        notifyAll();
    }

    /** A QP using this CQ was destroyed: it can fail no more. */
    public synchronized void queuePairGone(SoftQueuePair qp) {
        failedQps.remove(qp);
    }

    private void reap(WorkCompletion out) {
        int i = head;
        API.set(out, wrIds[i], opcodes[i], statuses[i], lengths[i], qps[i], invalidatedFlags[i], invalidated[i]);
        if (immediateFlags[i]) {
            API.immediateData(out, immediates[i]);
        }
        WorkQueueAccount account = accounts[i];
        qps[i] = null;
        accounts[i] = null;
        head = (head + 1) % wrIds.length;
        count--;
        overflowReported = false;
        if (account != null) {
            account.release(); // V-WRP-7, V-SRQ-23: the WQ slot becomes reusable when its WC is reaped
        }
    }

    @Override
    public void requestNotification(NotifyType type) {
        if (type == null) {
            throw new VerbsException(VerbsStatus.INVALID_NOTIFY_TYPE, "notification type is required");
        }
        synchronized (this) {
            checkUsable();
            // V-WRP-61: several requests collapse into one arm; "next" wins over "solicited"
            if (type == NotifyType.NEXT_COMPLETION) {
                armedNext = true;
            } else {
                armedSolicited = true;
            }
        }
    }

    @Override
    public int resize(int minEntries) {
        synchronized (this) {
            checkUsable();
            if (minEntries < 1 || minEntries > maxEntries) {
                throw new VerbsException(VerbsStatus.CQ_DEPTH_EXCEEDS_CAPABILITY,
                        "CQ entries " + minEntries + " outside 1.." + maxEntries);
            }
            if (minEntries < count) {
                throw new VerbsException(VerbsStatus.SHRINK_TOO_MANY_ELEMENTS,
                        minEntries + " entries requested but " + count + " completions are on the CQ (V-CQ-23)");
            }
            long[] w = wrIds;
            Opcode[] o = opcodes;
            WorkCompletionStatus[] s = statuses;
            int[] l = lengths;
            SoftQueuePair[] q = qps;
            int[] inv = invalidated;
            boolean[] invf = invalidatedFlags;
            WorkQueueAccount[] a = accounts;
            boolean[] imf = immediateFlags;
            long[] im = immediates;
            int oldCap = w.length;
            allocate(minEntries);
            for (int k = 0; k < count; k++) { // V-CQ-20: no completion is lost
                int from = (head + k) % oldCap;
                wrIds[k] = w[from];
                opcodes[k] = o[from];
                statuses[k] = s[from];
                lengths[k] = l[from];
                qps[k] = q[from];
                invalidated[k] = inv[from];
                invalidatedFlags[k] = invf[from];
                accounts[k] = a[from];
                immediateFlags[k] = imf[from];
                immediates[k] = im[from];
            }
            head = 0;
            return minEntries;
        }
    }

    @Override
    public void close() {
        rnic.owner().destroyCq(this);
    }

    /** Marks the CQ destroyed and drops its entries (called by the RNIC with the checks done). */
    public synchronized void destroy() {
        destroyed = true;
        count = 0;
        failedQps.clear();
        notifyAll(); // blocked polls end with INVALID_CQ_HANDLE
        java.util.Arrays.fill(qps, null);
        java.util.Arrays.fill(accounts, null);
    }

    @Override
    public String toString() {
        return "CQ[" + System.identityHashCode(this) + "]";
    }
}
