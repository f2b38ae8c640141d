package io.jrnic.test;

import io.jrnic.api.Access;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.Rnic;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Mixed, verifiable traffic between two queue pairs through the public API, for the reliability
 * judges (fault injection, soak): every operation the API has, data whose every byte is known, and
 * bookkeeping of every work request posted so that each must complete exactly once.
 *
 * <p>The requester posts Send, Send with Invalidate, Immediate Data, RDMA Write, RDMA Read, Atomic
 * FetchAdd and CmpSwap, Atomic Write, RDMA Flush and RDMA Verify to the responder; the responder
 * sends Sends back. Source regions hold a pattern with no zero byte, so a zero in a target means
 * "not written". What completes successfully is checked at once (a Read's data, an atomic's
 * original value, a receive's payload against the message it must be, in order); what the Writes
 * placed is checked by {@link #checkPlaced(boolean)} against a shadow of the target.
 */
final class Traffic {
    static final long RECV_BASE = 1L << 40;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong NATIVE_LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Sizes of one workload. */
    record Sizes(int region, int maxSend, int maxWrite, int maxRead, int receiveSlots, int verifyMax, int readLanes) {
    }

    /** One end: its resources and regions. */
    static final class Side {
        final String name;
        final Rnic rnic;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion src;   // pattern, read by the peer, source of this end's Writes and Sends
        final MemoryRegion dst;   // target of the peer's Writes
        final MemoryRegion sink;  // target of this end's Reads
        final MemoryRegion rcv;   // receive slots
        final MemoryRegion atom;  // atomics target (the peer's) and results (this end's)
        final MemoryRegion victim; // invalidated by the peer's Send with Invalidate
        final List<MemoryRegion> regions;
        final Map<Long, SendWorkRequest> outstanding = new HashMap<>(); // wrId -> a copy of what was posted
        final ArrayDeque<Long> receives = new ArrayDeque<>(); // posted receive wrIds, in order
        final ArrayDeque<Message> expected = new ArrayDeque<>(); // messages the peer sent, in order
        final byte[] dstShadow; // what the peer's Writes put into dst (0: not written)
        long nextWrId = 1;
        long nextRecv = RECV_BASE;
        int completions;

        Side(String name, Rnic rnic, ProtectionDomain pd, CompletionQueue cq, QueuePair qp, Sizes sizes, long seed) {
            this.name = name;
            this.rnic = rnic;
            this.pd = pd;
            this.cq = cq;
            this.qp = qp;
            src = register(sizes.region(), Access.REMOTE_READ, Access.VERIFIABLE);
            fill(src.memory(), seed);
            dst = register(sizes.region(), Access.REMOTE_WRITE, Access.FLUSHABLE_GLOBAL);
            // iWARP: the Read Response is tagged to the sink; one lane per Read in flight
            sink = register((long) sizes.readLanes() * Math.max(1, sizes.maxRead()), Access.REMOTE_WRITE);
            rcv = register((long) sizes.receiveSlots() * Math.max(1, sizes.maxSend()));
            atom = register(4096, Access.REMOTE_ATOMIC, Access.REMOTE_WRITE);
            victim = register(64, Access.REMOTE_WRITE);
            regions = List.of(src, dst, sink, rcv, atom, victim);
            dstShadow = new byte[sizes.region()];
        }

        private MemoryRegion register(long size, Access... remote) {
            MemorySegment memory = rnic.allocateMemory(size, 4096);
            Access[] rights = new Access[remote.length + 2];
            rights[0] = Access.LOCAL_READ;
            rights[1] = Access.LOCAL_WRITE;
            System.arraycopy(remote, 0, rights, 2, remote.length);
            return pd.registration(memory).access(rights).register();
        }

        /** Deregisters the regions, destroys QP and CQ and frees the PD: fails if anything is left. */
        void destroy() {
            qp.close();
            cq.close();
            for (MemoryRegion r : regions) {
                r.close();
            }
            pd.close();
        }

        @Override
        public String toString() {
            return name + " qp " + qp.id() + " " + qp.state();
        }
    }

    /** A message the receiver must see, in order. */
    record Message(Opcode opcode, int offset, int length, long immediate, int invalidated) {
    }

    private final Side req;
    private final Side resp;
    private final Sizes sizes;
    private final Random random;
    private final ArrayDeque<Long> atomicValues = new ArrayDeque<>(); // expected originals, in post order
    private long atomicCurrent; // the responder's atom[0] after every atomic posted so far
    private int dstCursor; // next free byte of resp.dst for non-overlapping Writes
    private boolean victimUsed;
    private final boolean overlapWrites;
    private final SendWorkRequest wr = new SendWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();
    private final List<String> failures = new ArrayList<>();
    private final List<WorkCompletion> log = new ArrayList<>();
    private final boolean[] laneBusy;
    private int resultSlot;

    /**
     * @param overlapWrites false: each byte of the responder's dst is written at most once (a fault
     *                      run, where a Write may be partly placed); true: Writes land anywhere
     *                      (the soak, which checks every byte exactly)
     */
    Traffic(Side req, Side resp, Sizes sizes, Random random, boolean overlapWrites) {
        this.req = req;
        this.resp = resp;
        this.sizes = sizes;
        this.random = random;
        this.overlapWrites = overlapWrites;
        this.laneBusy = new boolean[sizes.readLanes()];
    }

    /** A sink lane no Read in flight uses, or -1 (a lane is free again at the Read's completion). */
    private int freeLane() {
        for (int i = 0; i < laneBusy.length; i++) {
            if (!laneBusy[i]) {
                return i;
            }
        }
        return -1;
    }

    Side requester() {
        return req;
    }

    Side responder() {
        return resp;
    }

    /** The failures found so far (empty: all good). */
    List<String> failures() {
        return failures;
    }

    private final List<String> trace = new ArrayList<>();

    /** Every completion reaped, as "side/QP state when reaped:wrId opcode status", in order. */
    List<String> trace() {
        return trace;
    }

    /** Every completion reaped, in order (for the report of a failing case). */
    List<WorkCompletion> log() {
        return log;
    }

    /** Posts receives on both ends until each has {@code n} outstanding. */
    void postReceives(int n) {
        for (Side s : List.of(req, resp)) {
            while (s.receives.size() < n) {
                long id = s.nextRecv++;
                int slot = (int) ((id - RECV_BASE) % sizes.receiveSlots());
                int slotSize = Math.max(1, sizes.maxSend());
                MemorySegment m = s.rcv.memory();
                s.qp.postReceive(new ReceiveWorkRequest().wrId(id)
                        .sge(s.rcv.stag(), m.address() + (long) slot * slotSize, slotSize));
                s.receives.add(id);
            }
        }
    }

    /**
     * Posts {@code n} random operations from the requester and {@code back} Sends from the
     * responder. The caller keeps the totals within the queue depths.
     *
     * @return false when a post was refused (the QP left RTS): the rest is not posted
     */
    boolean post(int n, int back) {
        try {
            for (int i = 0; i < n; i++) {
                postOne(req, resp, pick());
            }
            for (int i = 0; i < back; i++) {
                postOne(resp, req, Opcode.SEND);
            }
            return true;
        } catch (VerbsException e) {
            // INVALID_QP_STATE: a fault moved the QP out of RTS while we posted (Verbs §9.3.1.1)
            return false;
        }
    }

    /** Posts one RDMA Flush of the whole dst (an ordering point: earlier Writes are placed). */
    void postFlush() {
        postOne(req, resp, Opcode.RDMA_FLUSH);
    }

    private Opcode pick() {
        return switch (random.nextInt(12)) {
            case 0, 1 -> Opcode.SEND;
            case 2 -> victimUsed ? Opcode.SEND : Opcode.SEND_INVALIDATE;
            case 3 -> Opcode.IMMEDIATE_DATA;
            case 4, 5 -> Opcode.RDMA_WRITE;
            case 6, 7 -> freeLane() >= 0 ? Opcode.RDMA_READ : Opcode.RDMA_WRITE;
            case 8 -> Opcode.ATOMIC_FETCH_ADD;
            case 9 -> Opcode.ATOMIC_CMP_SWAP;
            case 10 -> random.nextBoolean() ? Opcode.ATOMIC_WRITE : Opcode.RDMA_FLUSH;
            default -> Opcode.RDMA_VERIFY;
        };
    }

    private void postOne(Side from, Side to, Opcode op) {
        long id = from.nextWrId++;
        commit.clear();
        wr.reset().wrId(id);
        MemorySegment src = from.src.memory();
        int region = sizes.region();
        switch (op) {
            case SEND, SEND_INVALIDATE -> {
                int len = size(sizes.maxSend());
                int off = random.nextInt(region - len + 1);
                wr.opcode(op);
                if (len > 0) {
                    wr.sge(from.src.stag(), src.address() + off, len);
                }
                int invalidated = 0;
                if (op == Opcode.SEND_INVALIDATE) {
                    commit.add(() -> victimUsed = true);
                    invalidated = to.victim.stag();
                    wr.invalidateStag(invalidated);
                }
                Message m = new Message(op, off, len, 0, invalidated);
                commit.add(() -> to.expected.add(m));
            }
            case IMMEDIATE_DATA -> {
                long value = random.nextLong();
                wr.immediateData(value, random.nextBoolean());
                Message m = new Message(Opcode.IMMEDIATE_DATA, 0, 0, value, 0);
                commit.add(() -> to.expected.add(m));
            }
            case RDMA_WRITE -> {
                int len = size(sizes.maxWrite());
                int off = random.nextInt(region - len + 1);
                int at;
                if (overlapWrites) {
                    at = random.nextInt(region - len + 1);
                } else {
                    if (dstCursor + len > region) {
                        len = 0;
                    }
                    at = dstCursor;
                    int next = dstCursor + len;
                    commit.add(() -> dstCursor = next);
                }
                wr.opcode(Opcode.RDMA_WRITE).remote(to.dst.stag(), to.dst.memory().address() + at);
                if (len > 0) {
                    wr.sge(from.src.stag(), src.address() + off, len);
                }
                int n = len;
                commit.add(() -> MemorySegment.copy(src, ValueLayout.JAVA_BYTE, off, to.dstShadow, at, n));
            }
            case RDMA_READ -> {
                int len = Math.max(1, size(sizes.maxRead()));
                int lane = freeLane();
                int at = lane * sizes.maxRead();
                int off = random.nextInt(region - len + 1);
                from.sink.memory().asSlice(at, len).fill((byte) 0); // a Read that does not land shows
                wr.opcode(Opcode.RDMA_READ).sge(from.sink.stag(), from.sink.memory().address() + at, len)
                        .remote(to.src.stag(), to.src.memory().address() + off);
                long[] plan = {at, off, len, lane};
                commit.add(() -> {
                    readPlan.put(key(from, id), plan);
                    laneBusy[lane] = true;
                });
            }
            case ATOMIC_FETCH_ADD, ATOMIC_CMP_SWAP -> {
                int slot = 1 + (resultSlot++ % 200); // distinct from every atomic in flight (ORD <= 200)
                MemorySegment result = from.atom.memory();
                result.set(NATIVE_LONG, slot * 8L, 0x5A5A_5A5A_5A5A_5A5AL);
                wr.sge(from.atom.stag(), result.address() + slot * 8L, 8)
                        .remote(to.atom.stag(), to.atom.memory().address());
                long original = atomicCurrent;
                long after;
                if (op == Opcode.ATOMIC_FETCH_ADD) {
                    long add = random.nextInt(1000) + 1;
                    wr.fetchAdd(add);
                    after = original + add;
                } else {
                    after = random.nextLong();
                    wr.compareSwap(original, after);
                }
                long[] plan = {slot, original};
                commit.add(() -> {
                    atomicCurrent = after;
                    atomicPlan.put(key(from, id), plan);
                });
            }
            case ATOMIC_WRITE -> {
                long value = random.nextLong() | 1; // never 0: 0 means not written
                int slot = 256 + random.nextInt(200);
                wr.atomicWrite(to.atom.stag(), to.atom.memory().address() + slot * 8L, value);
                commit.add(() -> atomicWrites.put(slot, value));
            }
            case RDMA_FLUSH -> wr.flush(to.dst.stag(), to.dst.memory().address(), region,
                    SendWorkRequest.FLUSH_GLOBAL_VISIBILITY); // persistence needs file-mapped memory
            case RDMA_VERIFY -> {
                int len = 1 + random.nextInt(Math.max(1, Math.min(region, sizes.verifyMax())));
                int off = random.nextInt(region - len + 1);
                wr.verify(to.src.stag(), to.src.memory().address() + off, len,
                        sha256(to.src.memory().asSlice(off, len)));
            }
            default -> throw new IllegalArgumentException(op.toString());
        }
        wr.signaled(true);
        from.qp.postSend(wr); // an Immediate Error (the QP left RTS under a fault) posts nothing
        from.outstanding.put(id, new SendWorkRequest().wrId(id).opcode(wr.opcode()));
        for (Runnable r : commit) {
            r.run();
        }
    }

    private final List<Runnable> commit = new ArrayList<>();

    private final Map<Long, long[]> readPlan = new HashMap<>();
    private final Map<Long, long[]> atomicPlan = new HashMap<>();
    private final Map<Integer, Long> atomicWrites = new HashMap<>();

    private static long key(Side s, long id) {
        return (id << 1) | (s.name.equals("active") ? 0 : 1);
    }

    private int size(int max) {
        // sizes spread over the orders of magnitude, 0 included
        if (max <= 0) {
            return 0;
        }
        int bits = 32 - Integer.numberOfLeadingZeros(max);
        int b = random.nextInt(bits + 1);
        return b == 0 ? 0 : Math.min(max, random.nextInt(1 << (b - 1), (1 << b)) );
    }

    /** The bookkeeping of both ends, for a failure report. */
    String describe() {
        StringBuilder b = new StringBuilder();
        for (Side s : List.of(req, resp)) {
            b.append(s.name).append(" QP ").append(s.qp.id()).append(' ').append(s.qp.state())
                    .append(": SQ outstanding ").append(new java.util.TreeSet<>(s.outstanding.keySet()))
                    .append(", receives outstanding ").append(s.receives.size())
                    .append(", messages expected ").append(s.expected.size()).append("; ");
        }
        return b.toString();
    }

    /** Number of work requests still waiting for their completion, both ends. */
    int outstanding() {
        return req.outstanding.size() + req.receives.size() + resp.outstanding.size() + resp.receives.size();
    }

    /**
     * Reaps completions of both ends (each checked, as {@link #reap}) until every SQ work request
     * of both ends has completed, or for at most {@code millis}: what a stall's progress timeout
     * must bring about by itself (receives are left, the stall may hold their messages).
     *
     * @return true when no SQ work request is outstanding on either end
     */
    boolean reapSends(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            for (Side s : List.of(req, resp)) {
                while (s.cq.poll(wc)) {
                    check(s, wc);
                }
            }
            if (req.outstanding.isEmpty() && resp.outstanding.isEmpty()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Side waitOn = !req.outstanding.isEmpty() ? req : resp;
            try {
                if (waitOn.cq.poll(wc, 20, TimeUnit.MILLISECONDS)) {
                    check(waitOn, wc);
                }
            } catch (VerbsException e) {
                // the QP failed and every completion it owes is already in its CQ: nothing more comes
                if (!waitOn.outstanding.isEmpty()) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /**
     * Reaps completions of both ends until every work request posted has completed, or until
     * nothing comes for {@code quietMillis}. Each completion is checked (known, once, content).
     *
     * @param includeReceives whether to wait for the receives too (false: only the SQ work and
     *                        the receives the peer's messages consume)
     * @return true when everything waited for completed
     */
    boolean reap(boolean includeReceives, long quietMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(quietMillis);
        while (true) {
            boolean got = false;
            for (Side s : List.of(req, resp)) {
                while (s.cq.poll(wc)) {
                    got = true;
                    check(s, wc);
                }
            }
            if (got) {
                deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(quietMillis);
            }
            if (pending(includeReceives) == 0) {
                return true;
            }
            // a QP in Idle processes nothing (Verbs §6.2.1): what it still owes comes only after
            // a Modify, so wait on the other end only
            Side waitOn = null;
            for (Side s : List.of(req, resp)) {
                if (waitOn == null && pending(s, includeReceives) > 0 && s.qp.state() != QpState.IDLE) {
                    waitOn = s;
                }
            }
            if (waitOn == null || System.nanoTime() > deadline) {
                return false;
            }
            try {
                if (waitOn.cq.poll(wc, 20, TimeUnit.MILLISECONDS)) {
                    check(waitOn, wc);
                    deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(quietMillis);
                }
            } catch (VerbsException e) {
                // the QP failed and every completion it owes is already in its CQ (CompletionQueue#poll):
                // work still owed by it now is a lost completion
                if (pending(waitOn, includeReceives) > 0) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private int pending(boolean includeReceives) {
        return pending(req, includeReceives) + pending(resp, includeReceives);
    }

    /**
     * Whether an end still owes completions that {@link #reap} waits for: SQ work requests, or
     * receives for messages its peer posted (whether or not the peer's Sends were flushed since).
     */
    boolean owes(Side s) {
        return pending(s, false) > 0;
    }

    private int pending(Side s, boolean includeReceives) {
        int receives = includeReceives ? s.receives.size() : Math.min(s.receives.size(), s.expected.size());
        return s.outstanding.size() + receives;
    }

    /** Drains whatever is left in both CQs (after the QPs are in Error or Idle): must be nothing unknown. */
    void drain() {
        for (Side s : List.of(req, resp)) {
            while (s.cq.poll(wc)) {
                check(s, wc);
            }
        }
    }

    private void check(Side s, WorkCompletion c) {
        if (!overlapWrites) { // a fault case keeps its few completions for the report; the soak keeps none
            log.add(new WorkCompletion().copyFrom(c));
            trace.add(s.name.charAt(0) + "/" + s.qp.state() + ":" + c.wrId() + " " + c.opcode() + " " + c.status());
        }
        s.completions++;
        long id = c.wrId();
        WorkCompletionStatus st = c.status();
        if (id >= RECV_BASE) {
            Long head = s.receives.poll();
            if (head == null || head != id) {
                failures.add(s.name + ": receive completion " + c + " not the oldest outstanding receive " + head
                        + " (unknown, duplicate or out of order)");
                return;
            }
            if (st != WorkCompletionStatus.SUCCESS) {
                return; // flushed, or the error of the episode: the message (if any) is not consumed
            }
            Message m = s.expected.poll();
            if (m == null) {
                failures.add(s.name + ": receive " + c + " succeeded but the peer sent no message for it");
                return;
            }
            checkReceive(s, c, m);
            return;
        }
        SendWorkRequest posted = s.outstanding.remove(id);
        if (posted == null) {
            failures.add(s.name + ": completion " + c + " of a work request not outstanding (unknown or second completion)");
            return;
        }
        if (posted.opcode() == Opcode.RDMA_READ) {
            long[] p = readPlan.get(key(s, id));
            if (p != null) {
                laneBusy[(int) p[3]] = false;
            }
        }
        if (c.opcode() != posted.opcode()) {
            failures.add(s.name + ": completion " + c + " has opcode " + c.opcode() + ", posted " + posted.opcode());
        }
        if (st != WorkCompletionStatus.SUCCESS) {
            return;
        }
        Side peer = s == req ? resp : req;
        switch (posted.opcode()) {
            case RDMA_READ -> {
                long[] p = readPlan.remove(key(s, id));
                long mismatch = s.sink.memory().asSlice(p[0], p[2]).mismatch(peer.src.memory().asSlice(p[1], p[2]));
                if (mismatch >= 0) {
                    failures.add(s.name + ": Read " + id + " of " + p[2] + " bytes differs at byte " + mismatch);
                }
            }
            case ATOMIC_FETCH_ADD, ATOMIC_CMP_SWAP -> {
                long[] p = atomicPlan.remove(key(s, id));
                long got = s.atom.memory().get(NATIVE_LONG, p[0] * 8);
                if (got != p[1]) {
                    failures.add(s.name + ": " + posted.opcode() + " " + id + " returned " + got + ", expected " + p[1]);
                }
            }
            default -> {
                // Send, Write, Flush, Verify (a hash mismatch would have terminated), Atomic Write
            }
        }
    }

    private void checkReceive(Side s, WorkCompletion c, Message m) {
        Side peer = s == req ? resp : req;
        if (m.opcode() == Opcode.IMMEDIATE_DATA) {
            if (!c.hasImmediateData() || c.immediateData() != m.immediate()) {
                failures.add(s.name + ": receive " + c + " should carry immediate data " + m.immediate());
            }
            return;
        }
        if (c.byteLength() != m.length()) {
            failures.add(s.name + ": receive " + c + " has " + c.byteLength() + " bytes, the Send had " + m.length());
            return;
        }
        int slot = (int) ((c.wrId() - RECV_BASE) % sizes.receiveSlots());
        long at = (long) slot * Math.max(1, sizes.maxSend());
        long mismatch = s.rcv.memory().asSlice(at, m.length()).mismatch(peer.src.memory().asSlice(m.offset(), m.length()));
        if (mismatch >= 0) {
            failures.add(s.name + ": receive " + c.wrId() + " differs from the Send at byte " + mismatch);
        }
        if (m.opcode() == Opcode.SEND_INVALIDATE && (!c.stagInvalidated() || c.invalidatedStag() != m.invalidated())) {
            failures.add(s.name + ": Send with Invalidate of " + m.invalidated() + " completed as " + c);
        }
    }

    /**
     * Checks what the requester's Writes and Atomic Writes left in the responder's memory.
     *
     * @param exact true: every byte must be as written (the connection survived); false: each
     *              written byte is its value or still 0 (a cut may drop the rest of a Write), and
     *              no byte that no Write named changed
     */
    void checkPlaced(boolean exact) {
        MemorySegment dst = resp.dst.memory();
        byte[] shadow = resp.dstShadow;
        long first = dst.mismatch(MemorySegment.ofArray(shadow));
        for (int i = (int) first; first >= 0 && i < shadow.length; i++) {
            byte got = dst.get(ValueLayout.JAVA_BYTE, i);
            byte want = shadow[i];
            if (got != want && (exact || got != 0 || want == 0)) {
                failures.add(resp.name + ": dst byte " + i + " is " + got + ", written " + want
                        + (exact ? "" : " (or 0)"));
                return;
            }
        }
        for (Map.Entry<Integer, Long> e : atomicWrites.entrySet()) {
            long got = resp.atom.memory().get(NATIVE_LONG, e.getKey() * 8L);
            if (got != e.getValue() && (exact || got != 0)) {
                failures.add(resp.name + ": Atomic Write slot " + e.getKey() + " holds " + got + ", written " + e.getValue());
            }
        }
        if (exact && resp.atom.memory().get(NATIVE_LONG, 0) != atomicCurrent) {
            failures.add(resp.name + ": atomics target holds " + resp.atom.memory().get(NATIVE_LONG, 0)
                    + " after every atomic, expected " + atomicCurrent);
        }
    }

    /** Forgets the placed-byte shadow (the soak after a check: the next Writes start over). */
    void resetAtomicWrites() {
        atomicWrites.clear();
    }

    private static final int PATTERN = 1 << 21;
    private static final byte[] NOISE = noise(PATTERN + PATTERN / 2);

    /** Fills {@code m} with a seeded window of a fixed noise pattern that has no zero byte. */
    static void fill(MemorySegment m, long seed) {
        long at = 0;
        int start = (int) Math.floorMod(seed, (long) PATTERN / 2);
        while (at < m.byteSize()) {
            int n = (int) Math.min(PATTERN, m.byteSize() - at);
            MemorySegment.copy(NOISE, start, m, ValueLayout.JAVA_BYTE, at, n);
            at += n;
        }
    }

    private static byte[] noise(int n) {
        byte[] b = new byte[n];
        long x = 0x9E37_79B9_7F4A_7C15L;
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b[i] = (byte) (1 + Math.floorMod(x, 255)); // never 0: 0 means "not written"
        }
        return b;
    }

    private static byte[] sha256(MemorySegment range) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(range.asByteBuffer());
            return d.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
