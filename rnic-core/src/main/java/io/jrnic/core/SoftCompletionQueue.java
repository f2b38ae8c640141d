package io.jrnic.core;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.NotifyType;
import io.jrnic.api.Opcode;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;

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
 */
final class SoftCompletionQueue implements CompletionQueue {
    private final SoftRnic rnic;
    private final int maxEntries;
    /** Work queues (SQs, RQs) associated with this CQ (Destroy CQ refuses while non-zero). */
    final AtomicInteger associations = new AtomicInteger();

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

    SoftCompletionQueue(SoftRnic rnic, int capacity, int handlerId, int maxEntries) {
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

    boolean destroyed() {
        return destroyed;
    }

    private void checkUsable() {
        rnic.checkOpen();
        if (destroyed) {
            throw new VerbsException(VerbsStatus.INVALID_CQ_HANDLE, "CQ was destroyed");
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
                rnic.events.raise(new AsyncEvent(AsyncEventType.CQ_OVERFLOW_DETECTED, this));
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
        if (armedNext || (armedSolicited && (solicited || status != WorkCompletionStatus.SUCCESS))) {
            armedNext = false;
            armedSolicited = false;
            rnic.events.notify(this);
        }
        return true;
    }

    @Override
    public boolean poll(WorkCompletion out) {
        synchronized (this) {
            checkUsable();
            if (count == 0) {
                return false;
            }
            take(out);
        }
        return true;
    }

    @Override
    public int poll(WorkCompletion[] out, int offset, int max) {
        int n = 0;
        synchronized (this) {
            checkUsable();
            while (n < max && count > 0) {
                take(out[offset + n]);
                n++;
            }
        }
        return n;
    }

    private void take(WorkCompletion out) {
        int i = head;
        out.set(wrIds[i], opcodes[i], statuses[i], lengths[i], qps[i], invalidatedFlags[i], invalidated[i]);
        if (immediateFlags[i]) {
            out.immediateData(immediates[i]);
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
        rnic.destroyCq(this);
    }

    /** Marks the CQ destroyed and drops its entries (called by the RNIC with the checks done). */
    synchronized void destroy() {
        destroyed = true;
        count = 0;
        java.util.Arrays.fill(qps, null);
        java.util.Arrays.fill(accounts, null);
    }

    @Override
    public String toString() {
        return "CQ[" + System.identityHashCode(this) + "]";
    }
}
