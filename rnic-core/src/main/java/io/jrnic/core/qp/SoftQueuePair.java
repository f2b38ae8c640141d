package io.jrnic.core.qp;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.Counters;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairAttributes;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.CommitDraft;
import io.jrnic.core.engine.JfrEvents;
import io.jrnic.core.engine.PersistenceExecutor;
import io.jrnic.core.engine.QpContext;
import io.jrnic.core.engine.QpCounters;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.engine.QpTransport;
import io.jrnic.core.link.DrivableExecutor;
import io.jrnic.core.mem.InvalidateRefusal;
import io.jrnic.core.mem.MemoryManager;
import io.jrnic.core.mem.QpMemoryView;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.mem.StagTable;
import io.jrnic.core.wq.ReceiveQueue;
import io.jrnic.core.wq.ReceiveSource;
import io.jrnic.core.wq.ReceiveWqe;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.core.wq.SendWqeChain;
import io.jrnic.core.wq.WorkQueueAccount;
import io.jrnic.rdmap.AtomicOps;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

/**
 * A queue pair: the Verbs 1.0 §6.2 state machine, the SQ ring and its in-order processing, the
 * RQ (or the S-RQ link), flushing, and the upcalls of the transport seam ({@link QpTransport}).
 *
 * <pre>
 *  SQ ring (counters grow forever, slot = counter % capacity; the data path keeps each
 *  counter's slot beside it, so that it divides by nothing):
 *    sqHead ─ completed up to here ─ sqNext ─ processed, awaiting completion ─ sqTail ─ free
 *  Idle ──Modify──► RTS ──Modify / FIN──► Closing ──close done──► Idle
 *    │               ├──Modify / error──► Terminate ──LLP closed──► Error ──Modify──► Idle
 *    └──Modify──► Error ◄──Modify / LLP failure──┘
 * </pre>
 *
 * Local memory work requests (Bind, Fast-Register, Invalidate Local STag) take effect in SQ order
 * when processed; wire ones are handed to the transport. Completions are generated in posting
 * order (Verbs §8.2.2 rule 2). On entering Error every incomplete WQE completes FLUSHED exactly
 * once, except the one that caused the error, which keeps its own status (§6.2.4).
 *
 * <p>Size: over 800 lines, on purpose. What remains here is what shares the QP's lock and its
 * rings: posting, SQ processing in order, completion, Modify/Query/Destroy, and the engine's
 * upcalls, which complete WQEs of those rings. What does not share them lives apart: the state
 * machine ({@link QpStateMachine}), the engine's view ({@link io.jrnic.core.engine.QpContext}),
 * the memory view ({@link io.jrnic.core.mem.QpMemoryView}), the receive source
 * ({@link io.jrnic.core.wq.ReceiveSource}).
 *
 * <p>Thread safety: thread safe. Every operation runs under the QP's lock; events and
 * notifications are delivered after it is released.
 */
public final class SoftQueuePair implements QueuePair, QpMemoryView {
    private final RnicResources rnic;
    private final int id;
    private final SoftProtectionDomain pd;
    public final SoftCompletionQueue sendCq;
    public final SoftCompletionQueue receiveCq;
    public final SoftSharedReceiveQueue srq;
    private final int maxSendSge;
    private final int maxWriteSge;
    private final int maxInline;
    private final boolean inboundRead;
    private final boolean inboundWrite;
    private final boolean bindWindows;
    private final boolean privileged;
    private final boolean signalAll;
    private final Object lock = new Object();

    /** The Verbs state machine; the only place that assigns the QP state. */
    private final QpStateMachine machine = new QpStateMachine(new Transitions());
    /** The LLP stream and stream message of a Modify to RTS in progress (for attachStream). */
    private QpTransport pendingTransport;
    private MemorySegment pendingStreamMessage;
    /** Traffic counters, written by the engine of the QP's connection (docs/observability.md). */
    public final QpCounters counters = new QpCounters();
    private volatile boolean destroyed;
    private volatile int ird;
    private int ord;
    private int rqLimit;
    private boolean rqLimitArmed;
    /** Written under the lock; volatile for {@link #progress()}, which reads it after the lock. */
    private volatile QpTransport transport;
    private Link link;
    /**
     * A PostSQ is processing the SQ (guarded by lock): its hand-overs are {@link QpTransport#transmitPosted},
     * because its thread calls {@link #progress()} once it released the lock.
     */
    private boolean posting;
    /** What this QP's engine may know of it (the engine never holds the QP itself). */
    private final QpContext context = new EngineContext();
    /** Told once when the QP leaves its LLP stream (SoftConnection.closed()); guarded by lock. */
    private Runnable streamClosedListener;
    /** The stream is gone: the listener waits for the QP to reach Idle or Error (or its destruction). */
    private Runnable streamClosedDue;
    private TerminateMessage terminateMessage;

    private final WorkQueueAccount sqAccount = new WorkQueueAccount();
    private SendWqe[] sq;
    private long sqHead;
    private long sqNext;
    private long sqTail;
    /** The slots of sqHead, sqNext and sqTail (counter % sq.length), advanced with their counters. */
    private int sqHeadSlot;
    private int sqNextSlot;
    private int sqTailSlot;
    /** Wire WQEs processed in this pass, not yet handed to the transport (linked by txNext). */
    private final SendWqeChain processed = new SendWqeChain();
    private int readsOutstanding;
    private boolean processing;
    private boolean reprocess;

    private final ReceiveQueue rq;
    /** Where incoming Sends take their WQEs: {@link #rq} or {@link #srq}. */
    private final ReceiveSource<? super SoftQueuePair> receiveSource;
    private final ArrayDeque<ReceiveWqe> inProgress;

    /** Windows bound to this QP; guarded by {@link MemoryManager#lock}. */
    int boundWindows;

    public SoftQueuePair(RnicResources rnic, int id, SoftProtectionDomain pd, QueuePairConfig c) {
        this.rnic = rnic;
        this.id = id;
        this.pd = pd;
        this.sendCq = (SoftCompletionQueue) c.sendCq();
        this.receiveCq = (SoftCompletionQueue) c.receiveCq();
        this.srq = (SoftSharedReceiveQueue) c.srq();
        this.maxSendSge = c.maxSendSge();
        this.maxWriteSge = c.maxWriteSge();
        this.maxInline = c.maxInlineData();
        this.inboundRead = c.inboundRead();
        this.inboundWrite = c.inboundWrite();
        this.bindWindows = c.bindWindows();
        this.privileged = c.privileged();
        this.signalAll = c.signalAll();
        this.ird = c.ird();
        this.ord = c.ord();
        this.rqLimit = srq == null ? 0 : c.rqLimit();
        this.rqLimitArmed = rqLimit > 0; // V-SRQ-42: armed at creation iff > 0
        this.sq = newSlots(c.sqDepth());
        this.rq = srq == null ? new ReceiveQueue(c.rqDepth(), c.maxReceiveSge(), pd, null) : null;
        this.receiveSource = srq != null ? srq : rq;
        this.inProgress = new ArrayDeque<>(srq == null ? c.rqDepth() : 16);
    }

    private SendWqe[] newSlots(int n) {
        SendWqe[] slots = new SendWqe[n];
        int sges = Math.max(1, Math.max(maxSendSge, maxWriteSge));
        for (int i = 0; i < n; i++) {
            slots[i] = new SendWqe(sges, maxInline);
        }
        return slots;
    }

    // ---- accessors used by the memory checks ------------------------------------------------

    @Override
    public int id() {
        return id;
    }

    @Override
    public SoftProtectionDomain pd() {
        return pd;
    }

    public RnicResources rnic() {
        return rnic;
    }

    /**
     * The current IRD (read by the engine's receive path without the lock: a Modify racing with an
     * inbound Read Request may see either value, Verbs §6.5 V-IRD-11).
     *
     * @return the IRD
     */
    int ird() {
        return ird;
    }

    @Override
    public boolean privileged() {
        return privileged;
    }

    @Override
    public boolean bindWindows() {
        return bindWindows;
    }

    @Override
    public boolean inboundRead() {
        return inboundRead;
    }

    @Override
    public boolean inboundWrite() {
        return inboundWrite;
    }

    @Override
    public void addBoundWindows(int delta) {
        boundWindows += delta;
    }

    /**
     * Whether Destroy QP ran (any thread).
     *
     * @return true once the QP was destroyed
     */
    boolean destroyed() {
        return destroyed;
    }

    @Override
    public QpState state() {
        return machine.state();
    }

    private void checkUsable() {
        rnic.checkOpen();
        if (destroyed) {
            throw new VerbsException(VerbsStatus.INVALID_QP_HANDLE, "QP " + id + " was destroyed");
        }
    }

    // ---- posting ------------------------------------------------------------------------------

    /**
     * After a post, with the QP's lock released: in polling mode the posting thread runs the
     * transmit work it queued (docs/transport.md "Polling mode"); with no lock held, because that work
     * takes this and other QPs' locks and CQs' monitors.
     */
    private void progress() {
        QpTransport t = transport;
        if (t != null) {
            t.progress();
        }
    }

    /**
     * A post released the QP's lock: its transmit runs ({@link #progress()}), then the events it
     * and the transmit raised go to their handlers. A post's hand-over
     * ({@link QpTransport#transmitPosted}) counts on that progress() and nobody else can run it
     * meanwhile, so it comes first: a handler that blocks or throws cannot hold the QP's transmit.
     */
    private void released() {
        try {
            progress();
        } finally {
            rnic.events().drain();
        }
    }

    @Override
    public void postSend(SendWorkRequest wr) {
        try {
            synchronized (lock) {
                checkUsable();
                enqueueSend(wr, 0);
                sqAccount.acquire();
                afterSendPost();
            }
        } finally {
            released();
        }
    }

    @Override
    public int postSend(SendWorkRequest[] wrs, int offset, int count) {
        try {
            synchronized (lock) {
                checkUsable();
                int posted = 0;
                try {
                    for (; posted < count; posted++) {
                        enqueueSend(wrs[offset + posted], posted);
                    }
                } catch (VerbsException e) {
                    throw new VerbsException(e.status(), "WR " + posted + " of the list: " + e.getMessage(), posted);
                } finally {
                    if (posted > 0) {
                        sqAccount.acquire(posted); // the list's WRs, counted at once (issue 11)
                        afterSendPost();
                    }
                }
                return count;
            }
        } finally {
            released();
        }
    }

    /**
     * Immediate checks of PostSQ (Verbs §9.3.1.1, Figure 34), then the copy into a slot. The caller
     * counts the WR in {@code sqAccount} after it: a list's WRs in one update.
     *
     * @param pending WRs of the same post enqueued before this one and not counted yet
     */
    private void enqueueSend(SendWorkRequest wr, int pending) {
        if (wr == null) {
            throw new NullPointerException("send work request is null");
        }
        if (machine.state() == QpState.TERMINATE) {
            throw new VerbsException(VerbsStatus.INVALID_QP_STATE, "PostSQ in Terminate (V-QPS-49)");
        }
        Opcode op = wr.opcode();
        if (op == null || op == Opcode.RECEIVE) {
            throw new VerbsException(VerbsStatus.INVALID_OPERATION_TYPE, "opcode " + op + " cannot be posted to an SQ");
        }
        int n = wr.sgeCount();
        if (op.isSend() && n > maxSendSge || op == Opcode.RDMA_WRITE && n > maxWriteSge) {
            throw new VerbsException(VerbsStatus.INVALID_SGL_LENGTH, n + " SGEs exceed the QP's limit for " + op);
        }
        if (op.isRead() && n != 1) {
            throw new VerbsException(VerbsStatus.INVALID_SGL_FORMAT, op + " needs exactly one local SGE, had " + n);
        }
        if (op.isCommitDraft()) {
            CommitDraft.checkPost(context, op, n);
        }
        if (op.isAtomic()) {
            checkAtomicPost(wr, n);
        }
        if (op.isImmediateData()) {
            checkImmediatePost(n);
        }
        if (op.isWire()) {
            for (int i = 0; i < n; i++) {
                if (wr.sgeLength(i) < 0) {
                    throw new VerbsException(VerbsStatus.INVALID_SGL_FORMAT, "SGE " + i + " has negative length");
                }
            }
        }
        boolean inline = wr.inline() && (op.isSend() || op == Opcode.RDMA_WRITE);
        if (inline && wr.totalLength() > maxInline) {
            throw new VerbsException(VerbsStatus.INVALID_SGL_LENGTH, "inline data of " + wr.totalLength()
                    + " bytes exceeds the QP's " + maxInline);
        }
        if ((op.isLocalMemory() && op != Opcode.INVALIDATE_LOCAL_STAG) && wr.addressType() == null) {
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, op + " needs an address type");
        }
        if (op == Opcode.FAST_REGISTER && wr.fastRegisterMemory() != null && wr.fastRegisterMemory().isNative()) {
            MemoryManager.checkAccessibleFromAnyThread(wr.fastRegisterMemory(), "Fast-Register memory"); // issue 9 item 8
        }
        if (sqAccount.outstanding() + pending >= sq.length) {
            throw new VerbsException(VerbsStatus.TOO_MANY_WRS_POSTED, "SQ full: " + sq.length + " WRs outstanding");
        }
        SendWqe w = sq[sqTailSlot];
        w.copyFrom(wr, signalAll);
        w.inline = inline;
        if (inline) {
            gatherInline(w);
        }
        sqTail++;
        sqTailSlot = nextSlot(sqTailSlot);
    }

    /**
     * PostSQ checks of an RFC 7306 atomic: the RNIC offers {@link RnicExtension#ATOMICS}, and the
     * one local SGE is the 8-byte result buffer. The remote TO is not checked here: its alignment
     * is a property of the remote buffer, which the responder checks (RFC 7306 §8.2, 0/2/0x07).
     */
    private void checkAtomicPost(SendWorkRequest wr, int n) {
        if (!rnic.offers(RnicExtension.ATOMICS)) {
            throw new VerbsException(VerbsStatus.INVALID_OPERATION_TYPE, wr.opcode()
                    + " needs the RNIC extension ATOMICS (RFC 7306 §5), which this RNIC does not offer");
        }
        if (n != 1 || wr.sgeLength(0) != AtomicOps.OPERAND_SIZE) {
            throw new VerbsException(VerbsStatus.INVALID_SGL_FORMAT, wr.opcode()
                    + " needs exactly one 8-byte local SGE for the original value, had " + n + " SGEs"
                    + (n == 1 ? " of " + wr.sgeLength(0) + " bytes" : ""));
        }
        if (wr.inline()) {
            throw new VerbsException(VerbsStatus.INVALID_OPERATION_TYPE, wr.opcode() + " cannot be inline");
        }
    }

    /** PostSQ checks of RFC 7306 Immediate Data: the extension is offered and the WR has no SGE. */
    private void checkImmediatePost(int n) {
        if (!rnic.offers(RnicExtension.IMMEDIATE_DATA)) {
            throw new VerbsException(VerbsStatus.INVALID_OPERATION_TYPE, "Immediate Data needs the RNIC"
                    + " extension IMMEDIATE_DATA (RFC 7306 §6), which this RNIC does not offer");
        }
        if (n != 0) {
            throw new VerbsException(VerbsStatus.INVALID_SGL_LENGTH,
                    "Immediate Data carries its 8 bytes in the WR, not in SGEs; had " + n + " SGEs");
        }
    }

    /** Copies inline payload into the WQE at post time; a bad SGE is reported when processed. */
    private void gatherInline(SendWqe w) {
        int at = 0;
        for (int i = 0; i < w.sgeCount; i++) {
            int len = w.lengths[i];
            WorkCompletionStatus st = rnic.stags().resolveLocal(w.stags[i], w.tos[i], len, pd, privileged,
                    AccessRights.LOCAL_READ, w.sgeMemory, w.sgeOffset, i);
            if (st != null) {
                w.postError = st;
                return;
            }
            if (len > 0) {
                MemorySegment.copy(w.sgeMemory[i], ValueLayout.JAVA_BYTE, w.sgeOffset[i], w.inlineData, at, len);
                at += len;
            }
        }
        w.inlineLength = at;
    }

    private void afterSendPost() {
        switch (machine.state()) {
            case RTS -> {
                posting = true;
                try {
                    processSq();
                } finally {
                    posting = false;
                }
            }
            // Verbs §6.2.5 Figure 11: a PostSQ in Closing is flushed, the LLP reset, Bad Close
            case CLOSING -> machine.input(QpStateMachine.Input.POST_WHILE_CLOSING);
            case ERROR -> flushAll(); // enqueued, then flushed (V-QPS-64)
            default -> {
                // Idle: queued, not processed (V-QPS-7)
            }
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest wr) {
        try {
            synchronized (lock) {
                checkReceivePost();
                rq.post(wr);
                afterReceivePost();
            }
        } finally {
            released();
        }
    }

    @Override
    public int postReceive(ReceiveWorkRequest[] wrs, int offset, int count) {
        try {
            synchronized (lock) {
                checkReceivePost();
                int posted = 0;
                try {
                    for (; posted < count; posted++) {
                        rq.post(wrs[offset + posted]);
                    }
                } catch (VerbsException e) {
                    throw new VerbsException(e.status(), "WR " + posted + " of the list: " + e.getMessage(), posted);
                } finally {
                    if (posted > 0) {
                        afterReceivePost();
                    }
                }
                return count;
            }
        } finally {
            released();
        }
    }

    private void checkReceivePost() {
        checkUsable();
        if (srq != null) {
            throw new VerbsException(VerbsStatus.RQ_ASSOCIATED_WITH_SRQ, "QP " + id + " uses an S-RQ (V-SRQ-17)");
        }
        if (machine.state() == QpState.TERMINATE) {
            throw new VerbsException(VerbsStatus.INVALID_QP_STATE, "PostRQ in Terminate (V-QPS-49)");
        }
    }

    private void afterReceivePost() {
        if (machine.state() == QpState.CLOSING || machine.state() == QpState.ERROR) {
            flushReceives(); // V-QPS-76, V-QPS-64
        } else if (transport != null) {
            transport.receivePosted(); // V-WRP-65: a Send held for lack of a receive WQE is retried
        }
    }

    // ---- SQ processing ------------------------------------------------------------------------

    private SendWqe slot(long counter) {
        return sq[(int) (counter % sq.length)];
    }

    /** The slot after {@code slot}: the ring's cursors advance without a division. */
    private int nextSlot(int slot) {
        int next = slot + 1;
        return next == sq.length ? 0 : next;
    }

    /** Processes SQ WQEs in order while in RTS (Verbs §6.2.2, §8.2.2), honouring fences and ORD. */
    private void processSq() {
        if (processing) {
            reprocess = true;
            return;
        }
        processing = true;
        try {
            do {
                reprocess = false;
                while (machine.state() == QpState.RTS && sqNext < sqTail) {
                    SendWqe w = sq[sqNextSlot];
                    if (w.localFence && w.opcode == Opcode.INVALIDATE_LOCAL_STAG && sqHead != sqNext) {
                        break; // V-WRP-39: wait until every earlier WR completed
                    }
                    if (w.readFence && (w.opcode.isSend() || w.opcode == Opcode.RDMA_WRITE
                            || w.opcode.isImmediateData() || w.opcode.isAtomic()) && readsOutstanding > 0) {
                        break; // V-WRP-38; RFC 7306 §7: atomics are fenced like Reads, Immediate Data like Sends
                    }
                    if (w.opcode.consumesOrd() && ord > 0 && readsOutstanding >= ord) {
                        break; // V-IRD-9, RFC 7306 §5.2: Reads and atomics share ORD; stall, SQ stays in order
                    }
                    sqNext++;
                    sqNextSlot = nextSlot(sqNextSlot);
                    if (!w.opcode.isWire()) {
                        transmitChain(); // the wire WRs before a memory WR take their SGEs first (SQ order)
                    }
                    WorkCompletionStatus error = execute(w);
                    if (error != null) {
                        transmitChain();
                        w.status = error;
                        w.done = true;
                        completeSends();
                        enterTerminate(new TerminateMessage(TerminateMessage.LOCAL_CATASTROPHIC, true, null));
                        break;
                    }
                    if (w.opcode.isWire()) {
                        w.inFlight = true;
                        if (w.opcode.consumesOrd()) {
                            readsOutstanding++; // Reads, atomics and the commit draft's requests share ORD
                        }
                        processed.add(w); // handed over with the rest of this pass
                    } else {
                        w.status = WorkCompletionStatus.SUCCESS;
                        w.done = true;
                    }
                }
                completeSends();
            } while (reprocess && machine.state() == QpState.RTS);
        } finally {
            transmitChain(); // the pass's wire WQEs, in one hand-over; also when something threw
            processing = false;
        }
    }

    /**
     * Hands the processed wire WQEs to the transport in one call (a post list: one hand-over); a
     * post's, whose thread calls {@link #progress()} after the lock, as such.
     */
    private void transmitChain() {
        SendWqe first = processed.takeAll();
        if (first == null) {
            return;
        }
        if (posting) {
            transport.transmitPosted(first);
        } else {
            transport.transmitAll(first);
        }
    }

    /**
     * Local part of processing one WQE: the Figure 23 checks of wire WRs and the effect of
     * memory WRs.
     *
     * @return null on success, else the completion status
     */
    private WorkCompletionStatus execute(SendWqe w) {
        if (w.postError != null) {
            return w.postError;
        }
        Opcode op = w.opcode;
        if (op.isSend() || op == Opcode.RDMA_WRITE) {
            if (!w.inline) {
                for (int i = 0; i < w.sgeCount; i++) {
                    // V-MR-75; the lookup also resolves the SGE here, at its SQ position, for the engine
                    WorkCompletionStatus st = rnic.stags().resolveLocal(w.stags[i], w.tos[i], w.lengths[i], pd,
                            privileged, AccessRights.LOCAL_READ, w.sgeMemory, w.sgeOffset, i);
                    if (st != null) {
                        return st;
                    }
                }
                w.sgesResolved = true;
            }
            if (w.totalLength() > 0xFFFF_FFFFL) {
                return WorkCompletionStatus.TOTAL_LENGTH_TOO_BIG; // V-WR-41
            }
            if (op == Opcode.RDMA_WRITE && w.remoteStag >>> 8 == 0) {
                return WorkCompletionStatus.INVALID_STAG; // V-WR-50
            }
            return null;
        }
        if (op.isRead()) {
            if (ord == 0) {
                return WorkCompletionStatus.ZERO_RDMA_READ_RESOURCES; // V-WRP-28
            }
            // V-MR-83: no local rights check; V-WR-50: STag 0 refused; V-WRP-41: zero length needs no STag
            if (w.lengths[0] != 0 && (w.stags[0] >>> 8 == 0 || w.remoteStag >>> 8 == 0)) {
                return WorkCompletionStatus.INVALID_STAG;
            }
            return null;
        }
        if (op.isCommitDraft()) {
            return CommitDraft.checkRequest(context, w, ord);
        }
        if (op.isAtomic()) {
            if (ord == 0) {
                return WorkCompletionStatus.ZERO_RDMA_READ_RESOURCES; // RFC 7306 §5.2: atomics need ORD
            }
            if (w.remoteStag >>> 8 == 0) {
                return WorkCompletionStatus.INVALID_STAG; // V-WR-50: STag 0 is never remote
            }
            // the result buffer: the original value is written there (V-MR-76 Local Write)
            return rnic.stags().checkLocal(w.stags[0], w.tos[0], w.lengths[0], pd, privileged, AccessRights.LOCAL_WRITE);
        }
        if (op.isImmediateData()) {
            return null; // RFC 7306 §6: no local memory
        }
        return switch (op) {
            case BIND_MW -> rnic.memory().bind(this, w.windowStag, w.regionStag, w.bindVirtualAddress, w.bindLength,
                    w.addressType, w.accessRights);
            case FAST_REGISTER -> rnic.memory().fastRegister(this, w.regionStag, w.fastRegisterMemory,
                    w.fastRegisterVirtualAddress, w.addressType, w.accessRights, w.verifyHash);
            case INVALIDATE_LOCAL_STAG -> rnic.memory().invalidateLocal(this, w.invalidateStag);
            default -> WorkCompletionStatus.INVALID_WQE;
        };
    }

    /**
     * Emits SQ completions in posting order (Verbs §8.2.2 rule 2). The successful unsignaled WRs
     * need no WC (V-WRP-45): they leave the SQ's count together, with one atomic update (issue 11),
     * when the pass ends (also when it ends in an exception).
     */
    private void completeSends() {
        int unsignaled = 0;
        try {
            while (sqHead < sqNext) {
                SendWqe w = sq[sqHeadSlot];
                if (!w.done) {
                    return;
                }
                sqHead++;
                sqHeadSlot = nextSlot(sqHeadSlot); // before emitting: emitting may re-enter through a state change
                if (w.status == WorkCompletionStatus.SUCCESS && !w.signaled) {
                    unsignaled++;
                } else if (!sendCq.add(w.wrId, w.opcode, w.status, 0, this, false, 0, sqAccount, false)) {
                    sqAccount.release();
                    cqOverflow(AsyncEventType.CQ_SQ_ERROR);
                }
            }
        } finally {
            sqAccount.release(unsignaled);
        }
    }

    private void completeReceives() {
        while (!inProgress.isEmpty() && inProgress.peekFirst().done) {
            emitReceive(inProgress.pollFirst());
        }
    }

    private void emitReceive(ReceiveWqe w) {
        // RFC 7306 §6.1: an Immediate Data message completes the receive with its 8 bytes (AMB-32)
        Opcode op = !w.immediate ? Opcode.RECEIVE : w.solicited ? Opcode.IMMEDIATE_DATA_SE : Opcode.IMMEDIATE_DATA;
        boolean added = receiveCq.add(w.wrId, op, w.status, w.byteLength, this, w.stagInvalidated,
                w.invalidatedStag, w.account, w.solicited, w.immediate, w.immediateData);
        if (!added) {
            w.account.release();
        }
        recycle(w);
        if (!added) {
            cqOverflow(AsyncEventType.CQ_RQ_ERROR);
        }
    }

    private void recycle(ReceiveWqe w) {
        w.source.recycle(w);
    }

    /** CQ overflow (Verbs §8.3.3 Figure 24 CQ/SQ, CQ/RQ error): the entry is lost, QP to Terminate. */
    private void cqOverflow(AsyncEventType event) {
        machine.input(QpStateMachine.Input.ASYNC_ERROR, new TerminateMessage(event.terminateCode(), true, null), event);
    }

    // ---- state changes ------------------------------------------------------------------------

    private void raise(AsyncEventType type) {
        rnic.events().raise(new AsyncEvent(type, this));
    }

    /** A local error (V-TERM-*): in RTS, the QP terminates (V-QPS-44..46). */
    private void enterTerminate(TerminateMessage message) {
        machine.input(QpStateMachine.Input.LOCAL_ERROR, message, null);
    }

    private void detach() {
        if (link != null) {
            link.active = false;
            if (streamClosedListener != null) {
                // told once the QP is in the state this detach leads to (Idle, Error; see
                // stateChanged), never before: any thread may drain the RNIC's events the moment
                // the listener is queued, and it reads the QP's state (Idle after a graceful close)
                streamClosedDue = streamClosedListener;
                streamClosedListener = null;
            }
        }
        link = null;
        transport = null;
        readsOutstanding = 0;
    }

    /** Queues the stream-closed listener once the stream is gone (outside the locks, by the next drain). */
    private void tellStreamClosed() {
        Runnable listener = streamClosedDue;
        if (listener != null) {
            streamClosedDue = null;
            rnic.events().run(listener);
        }
    }

    private void resetTransport() {
        QpTransport t = transport;
        detach();
        if (t != null) {
            t.reset();
        }
    }

    /**
     * Remote Termination (Verbs §6.6.2.4, Figure 36, V-ERR-46): the SQ WR in progress when the
     * peer's Terminate arrived, the oldest one handed to the LLP and not yet complete (a Send type
     * or Write not yet accepted by the LLP, a Read or atomic awaiting its response), completes with
     * Remote Termination Error now, as the WR that ended the RTS state (§6.2.2.3); the WRs behind
     * it, and every receive (Figure 36 does not list Receive for the status), are flushed on Error
     * (§6.2.4: one non-Flushed error status per episode, V-ERR-59). With no WR in progress nothing
     * completes here (docs/engine.md "Remote termination").
     */
    private void failWorkInProgress() {
        for (long c = sqHead; c < sqNext; c++) {
            SendWqe w = slot(c);
            if (w.done) {
                continue;
            }
            if (w.inFlight) {
                w.inFlight = false;
                if (w.opcode.consumesOrd()) {
                    readsOutstanding--;
                }
                w.status = WorkCompletionStatus.REMOTE_TERMINATION_ERROR;
                w.done = true;
                completeSends();
            }
            return;
        }
    }

    /**
     * Registers the listener told once when this QP has left its current LLP stream and reached the
     * state that follows (Idle after a graceful close, else Error; or its destruction), through the
     * event dispatcher; at once when it is not on a stream.
     *
     * @param listener run outside the QP's locks
     */
    public void onStreamClosed(Runnable listener) {
        try {
            synchronized (lock) {
                if (link == null) {
                    rnic.events().run(listener);
                } else {
                    streamClosedListener = listener;
                }
            }
        } finally {
            rnic.events().drain();
        }
    }

    private void flushAll() {
        for (long c = sqHead; c < sqTail; c++) {
            SendWqe w = slot(c);
            if (!w.done) {
                w.done = true;
                w.inFlight = false;
                w.status = WorkCompletionStatus.FLUSHED;
            }
        }
        sqNext = sqTail;
        sqNextSlot = sqTailSlot;
        completeSends();
        flushReceives();
    }

    private void flushReceives() {
        for (ReceiveWqe w : inProgress) {
            if (!w.done) {
                w.done = true;
                w.status = WorkCompletionStatus.FLUSHED;
            }
        }
        completeReceives();
        if (rq != null) { // V-SRQ-33: unused S-RQ WQEs are never flushed
            ReceiveWqe w;
            while ((w = rq.take()) != null) {
                w.done = true;
                w.status = WorkCompletionStatus.FLUSHED;
                emitReceive(w);
            }
        }
    }

    // ---- Modify / Query / Destroy -------------------------------------------------------------

    @Override
    public QueuePairAttributes modify(QueuePairModification m) {
        java.util.Objects.requireNonNull(m, "modification");
        try {
            synchronized (lock) {
                checkUsable();
                applyModify(m);
                return snapshot();
            }
        } finally {
            rnic.events().drain();
        }
    }

    /**
     * Modify QP to {@code next} if, and only if, this QP is in RTS on {@code stream}: the teardown
     * shorthands of a connection ({@code Connection.disconnect()}, {@code abort()}), which modify
     * nothing once the QP has left RTS or that connection's stream. The check and the Modify are one
     * step under the QP's lock: checked apart, the QP could finish a graceful close (Closing, then
     * Idle, {@code closed()} completing with Idle) in between, and the Modify to Error meant for RTS
     * would then take the Idle QP to Error (docs/reliability.md, FaultInjectionTest case 726).
     *
     * @param stream the LLP stream the QP must still be on
     * @param next   {@link QpState#CLOSING} or {@link QpState#ERROR}
     * @return whether the QP was modified
     * @throws VerbsException when the QP was destroyed or the RNIC closed
     */
    public boolean modifyInRts(QpTransport stream, QpState next) {
        try {
            synchronized (lock) {
                checkUsable();
                if (transport != stream || machine.state() != QpState.RTS) {
                    return false;
                }
                applyModify(new QueuePairModification().nextState(next));
                return true;
            }
        } finally {
            rnic.events().drain();
        }
    }

    private void applyModify(QueuePairModification m) {
        QpState next = m.nextState();
        if (next == null) {
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "next QP state is a required attribute (V-QP-20)");
        }
        QpState cur = machine.state();
        if (!QpStateMachine.modifyAllowed(cur, next)) {
            throw new VerbsException(VerbsStatus.INVALID_QP_STATE_CHANGE, cur + " -> " + next + " is not allowed");
        }
        boolean attributes = cur == QpState.IDLE && next != QpState.ERROR || cur == QpState.RTS && next == QpState.RTS;
        int unset = QueuePairModification.UNSET;
        boolean anyAttr = m.ord() != unset || m.ird() != unset || m.sqDepth() != unset || m.rqDepth() != unset
                || m.rqLimit() != unset || m.armRqLimitRequested();
        if (anyAttr && !attributes) {
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "no attribute may change on " + cur + " -> " + next);
        }
        boolean toRts = cur == QpState.IDLE && next == QpState.RTS;
        if ((m.llpStream() != null || m.streamMessage() != null) && !toRts) {
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "LLP stream only on Idle -> RTS");
        }
        checkRange(m.ord(), rnic.config().maxOrd(), VerbsStatus.ORD_EXCEEDS_CAPABILITY, "ORD");
        checkRange(m.ird(), rnic.config().maxIrd(), VerbsStatus.IRD_EXCEEDS_CAPABILITY, "IRD");
        if (m.sqDepth() != unset) {
            checkDepth(m.sqDepth(), sqAccount.outstanding());
        }
        boolean rqResize = m.rqDepth() != unset && rq != null; // with an S-RQ it has no effect (V-QP-23)
        if (rqResize) {
            checkDepth(m.rqDepth(), rq.account.outstanding());
        }
        if (m.rqLimit() != unset || m.armRqLimitRequested()) {
            if (srq == null) {
                throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "QP RQ Limit needs an S-RQ");
            }
            if (m.rqLimit() != unset && (m.rqLimit() < 0 || m.rqLimit() > srq.query().maxWrs())) {
                throw new VerbsException(VerbsStatus.QP_RQ_LIMIT_OUT_OF_RANGE, "QP RQ Limit " + m.rqLimit());
            }
        }
        QpTransport newTransport = null;
        if (toRts) {
            if (!(m.llpStream() instanceof QpTransport t) || !t.established()) {
                throw new VerbsException(VerbsStatus.INVALID_LLP_STREAM_HANDLE,
                        "Idle -> RTS needs an established jrnic transport as LLP Stream Handle (V-QPS-12)");
            }
            if (m.streamMessage() != null && t instanceof QpEngine) {
                // Verbs §6.2.1.2: the message goes in streaming mode, before iWARP mode begins; a
                // QpEngine's stream is already in MPA Full Operation (docs/connection-management.md)
                throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "an MPA stream is already in iWARP mode: the"
                        + " Stream Message Buffer is sent before the MPA Request, through ConnectionManager.connect(qp,"
                        + " socketChannel, settings, privateData, streamMessage)");
            }
            newTransport = t;
        }
        if (cur == QpState.ERROR && (sqHead < sqTail || !inProgress.isEmpty())) {
            throw new VerbsException(VerbsStatus.RI_STILL_FLUSHING, "WQEs are still being flushed (V-QPS-68)");
        }
        // all checks passed: apply (all or nothing, V-QP-25)
        if (m.ord() != unset) {
            ord = m.ord();
        }
        if (m.ird() != unset) {
            ird = m.ird();
        }
        if (m.sqDepth() != unset && m.sqDepth() != sq.length) {
            resizeSq(m.sqDepth());
        }
        if (rqResize) {
            rq.resize(m.rqDepth());
        }
        if (m.rqLimit() != unset) {
            rqLimit = m.rqLimit();
        }
        if (m.armRqLimitRequested()) {
            rqLimitArmed = rqLimit > 0; // V-NOTE-6: re-arming an armed limit is allowed
        }
        pendingTransport = newTransport;
        pendingStreamMessage = m.streamMessage();
        machine.input(switch (next) {
            case IDLE -> QpStateMachine.Input.MODIFY_IDLE;
            case RTS -> QpStateMachine.Input.MODIFY_RTS;
            case CLOSING -> QpStateMachine.Input.MODIFY_CLOSING;
            case TERMINATE -> QpStateMachine.Input.MODIFY_TERMINATE;
            case ERROR -> QpStateMachine.Input.MODIFY_ERROR;
        });
        pendingTransport = null;
        pendingStreamMessage = null;
    }

    private static void checkRange(int value, int max, VerbsStatus tooBig, String what) {
        if (value == QueuePairModification.UNSET) {
            return;
        }
        if (value < 0) {
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, what + " " + value + " is negative");
        }
        if (value > max) {
            throw new VerbsException(tooBig, what + " " + value + " exceeds the RNIC maximum " + max);
        }
    }

    private void checkDepth(int depth, int outstanding) {
        if (depth < 1) {
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "queue depth " + depth + " below 1");
        }
        if (depth > rnic.config().maxQpWrs()) {
            throw new VerbsException(VerbsStatus.MAX_WRS_EXCEED_CAPABILITY, "depth " + depth + " exceeds "
                    + rnic.config().maxQpWrs());
        }
        if (depth < outstanding) {
            throw new VerbsException(VerbsStatus.SHRINK_TOO_MANY_ELEMENTS, "depth " + depth + " below "
                    + outstanding + " outstanding WRs (V-QP-29)");
        }
    }

    private void resizeSq(int depth) {
        SendWqe[] old = sq;
        SendWqe[] slots = new SendWqe[depth];
        for (long c = sqHead; c < sqTail; c++) {
            slots[(int) (c % depth)] = old[(int) (c % old.length)];
        }
        int sges = Math.max(1, Math.max(maxSendSge, maxWriteSge));
        for (int i = 0; i < depth; i++) {
            if (slots[i] == null) {
                slots[i] = new SendWqe(sges, maxInline);
            }
        }
        sq = slots;
        sqHeadSlot = (int) (sqHead % depth);
        sqNextSlot = (int) (sqNext % depth);
        sqTailSlot = (int) (sqTail % depth);
    }

    @Override
    public QueuePairAttributes query() {
        synchronized (lock) {
            checkUsable();
            return snapshot();
        }
    }

    private QueuePairAttributes snapshot() {
        QpState s = machine.state();
        boolean withSrq = srq != null;
        return new QueuePairAttributes(id, s, pd.id(), sendCq, receiveCq, srq, sq.length, withSrq ? 0 : rq.depth(),
                maxSendSge, maxWriteSge, withSrq ? 0 : rq.maxSge(), maxInline, ird, ord, inboundRead, inboundWrite,
                bindWindows, privileged, signalAll, rqLimit, rqLimitArmed, transport,
                s == QpState.TERMINATE || s == QpState.ERROR ? terminateMessage : null);
    }

    @Override
    public Counters counters(Counters into) {
        return counters.readInto(into);
    }

    @Override
    public void close() {
        rnic.owner().destroyQp(this);
    }

    /**
     * Destroy QP (Verbs §6.1.4): refused while windows are bound; otherwise the QP stops at once
     * and its outstanding WRs produce no further completions.
     *
     * @param force true on Close RNIC (no window check)
     */
    public void destroy(boolean force) {
        synchronized (lock) {
            checkUsable();
            synchronized (rnic.memory().lock) {
                if (boundWindows > 0 && !force) {
                    throw new VerbsException(VerbsStatus.MWS_STILL_BOUND_TO_QP, boundWindows
                            + " windows bound to QP " + id + " (V-QP-35)");
                }
            }
            resetTransport(); // V-QP-33
            tellStreamClosed(); // destroyed in a connected state: no Idle or Error follows
            destroyed = true;
            for (ReceiveWqe w : inProgress) {
                w.account.release(); // consumed S-RQ WQEs must not leak S-RQ capacity
                recycle(w);
            }
            inProgress.clear();
        }
    }

    /**
     * Terminate code of a receive completion error the transport reported (Verbs §8.3.2 Figure
     * 23): an invalid STag carries its RDMAP code, every other RQ error is 0x0000. A refused remote
     * invalidation brings its own code ({@link InvalidateRefusal}).
     */
    private static int terminateCodeOf(WorkCompletionStatus status) {
        return switch (status) {
            case INVALID_STAG -> 0x0100;
            case INVALIDATE_STAG_PD_OR_ACCESS_ERROR -> 0x0103;
            case ACCESS_VIOLATION -> 0x0109;
            default -> TerminateMessage.LOCAL_CATASTROPHIC;
        };
    }

    /** What the state machine's transitions do to this QP's stream and queues (under the QP's lock). */
    private final class Transitions implements QpStateMachine.Actions {
        @Override
        public boolean workOutstanding() {
            return sqHead < sqTail || transport.remoteReadsInProgress();
        }

        @Override
        public void attachStream() {
            transport = pendingTransport;
            link = new Link();
            transport.start(context, link, pendingStreamMessage);
            DrivableExecutor driver = transport.driver();
            if (driver != null && driver.drivesOnPoll()) { // IoMode.POLLING: polls of these CQs run this connection's receive work
                sendCq.addDriver(driver);
                receiveCq.addDriver(driver);
            }
            processSq(); // V-QPS-22: WQEs posted in Idle start now
        }

        @Override
        public void closeStream() {
            transport.close();
        }

        @Override
        public void flushReceives() {
            SoftQueuePair.this.flushReceives();
        }

        @Override
        public void resetStream() {
            resetTransport();
        }

        @Override
        public void detachStream() {
            detach();
        }

        @Override
        public void sendTerminate(TerminateMessage message) {
            terminateMessage = message;
            transport.terminate(message); // V-QPS-45/46: the Terminate, then the LLP close
        }

        @Override
        public void keepTerminate(TerminateMessage message) {
            terminateMessage = message;
        }

        @Override
        public void failWorkInProgress() {
            SoftQueuePair.this.failWorkInProgress();
        }

        @Override
        public void flushAll() {
            SoftQueuePair.this.flushAll();
            // blocked CQ polls: return the flushed completions, then report that no more will come
            sendCq.queuePairFailed(SoftQueuePair.this);
            if (receiveCq != sendCq) {
                receiveCq.queuePairFailed(SoftQueuePair.this);
            }
        }

        @Override
        public void raise(AsyncEventType type) {
            SoftQueuePair.this.raise(type);
        }

        @Override
        public void stateChanged(QpState from, QpState to) {
            JfrEvents.qpStateChange(rnic.name(), id, from, to);
            if (to == QpState.IDLE || to == QpState.ERROR) {
                tellStreamClosed();
            }
        }
    }

    /** The QP as its engine sees it: facts and two volatile reads, never the QP's lock or queues. */
    private final class EngineContext implements QpContext, QpContext.SharedReceiveWait {
        @Override
        public String rnicName() {
            return rnic.name();
        }

        @Override
        public int qpId() {
            return id;
        }

        @Override
        public SoftProtectionDomain pd() {
            return pd;
        }

        @Override
        public boolean privileged() {
            return privileged;
        }

        @Override
        public boolean inboundRead() {
            return inboundRead;
        }

        @Override
        public boolean inboundWrite() {
            return inboundWrite;
        }

        @Override
        public int ird() {
            return ird;
        }

        @Override
        public QpState state() {
            return machine.state();
        }

        @Override
        public StagTable stags() {
            return rnic.stags();
        }

        @Override
        public QpCounters trafficCounters() {
            return counters;
        }

        @Override
        public int maxOrd() {
            return rnic.config().maxOrd();
        }

        @Override
        public int maxIrd() {
            return rnic.config().maxIrd();
        }

        @Override
        public boolean offers(RnicExtension extension) {
            return rnic.offers(extension);
        }

        @Override
        public PersistenceExecutor persistence() {
            return rnic.persistence();
        }

        @Override
        public void terminateClosing(QpEngine engine) {
            rnic.owner().terminateClosing(engine);
        }

        @Override
        public void terminateClosed(QpEngine engine) {
            rnic.owner().terminateClosed(engine);
        }

        @Override
        public SharedReceiveWait sharedReceiveWait() {
            return srq == null ? null : this;
        }

        @Override
        public boolean await(Runnable wake) {
            return srq.awaitWqe(SoftQueuePair.this, wake);
        }

        @Override
        public boolean waiting() {
            return srq.waitsForWqe(SoftQueuePair.this);
        }

        @Override
        public void cancel() {
            srq.cancelWait(SoftQueuePair.this);
        }
    }

    // ---- transport upcalls --------------------------------------------------------------------

    /** The upcall endpoint handed to one transport attachment; inert once detached. */
    private final class Link implements QpTransport.Upcalls {
        boolean active = true;

        /** An LLP or engine event for the state machine, under the QP's lock, events after it. */
        private void input(QpStateMachine.Input input) {
            input(input, null, null);
        }

        private void input(QpStateMachine.Input input, TerminateMessage message, AsyncEventType event) {
            try {
                synchronized (lock) {
                    if (active) {
                        machine.input(input, message, event);
                    }
                }
            } finally {
                rnic.events().drain();
            }
        }

        @Override
        public void sendCompleted(SendWqe w, WorkCompletionStatus status) {
            try {
                synchronized (lock) {
                    if (!active) {
                        return;
                    }
                    WorkCompletionStatus st = finish(w, status);
                    if (st == null) {
                        return;
                    }
                    completeSends();
                    if (st != WorkCompletionStatus.SUCCESS) {
                        enterTerminate(new TerminateMessage(TerminateMessage.LOCAL_CATASTROPHIC, true, null));
                    } else {
                        processSq();
                    }
                }
            } finally {
                rnic.events().drain();
            }
        }

        @Override
        public void sendsCompleted(SendWqe first) {
            try {
                synchronized (lock) {
                    if (!active) {
                        return;
                    }
                    SendWqe w = first;
                    while (w != null) {
                        SendWqe next = w.txNext;
                        w.txNext = null;
                        finish(w, WorkCompletionStatus.SUCCESS);
                        w = next;
                    }
                    completeSends();
                    processSq();
                }
            } finally {
                rnic.events().drain();
            }
        }

        /**
         * Marks a WQE in flight as done with {@code status} (a Read with Invalidate Local invalidates
         * its sink first, V-WRP-32), under the lock.
         *
         * @return the status it completes with, or null when it was not in flight (flushed meanwhile:
         *         it completed once already)
         */
        private WorkCompletionStatus finish(SendWqe w, WorkCompletionStatus status) {
            if (!w.inFlight || w.done) {
                return null;
            }
            w.inFlight = false;
            WorkCompletionStatus st = status;
            if (w.opcode.consumesOrd()) {
                readsOutstanding--;
            }
            if (st == WorkCompletionStatus.SUCCESS && w.opcode == Opcode.RDMA_READ_INVALIDATE) {
                // V-WRP-32: invalidate after the data is placed, before the WC is visible
                WorkCompletionStatus inv = rnic.memory().invalidateLocal(SoftQueuePair.this, w.stags[0]);
                if (inv != null) {
                    st = inv;
                }
            }
            w.status = st;
            w.done = true;
            return st;
        }

        @Override
        public ReceiveWqe takeReceive() {
            try {
                synchronized (lock) {
                    if (!active || machine.state() != QpState.RTS) {
                        return null;
                    }
                    ReceiveWqe w = receiveSource.take(SoftQueuePair.this);
                    if (w == null) {
                        return null;
                    }
                    inProgress.addLast(w);
                    if (srq != null && rqLimitArmed && inProgress.size() > rqLimit) {
                        rqLimitArmed = false; // V-SRQ-43: one shot
                        raise(AsyncEventType.QP_RQ_LIMIT_REACHED);
                    }
                    for (int i = 0; i < w.sgeCount; i++) {
                        // V-MR-76 Local Write; V-SRQ-26 S-RQ PD; V-SRQ-28 STag 0 per consuming QP
                        WorkCompletionStatus st = rnic.stags().checkLocal(w.stags[i], w.tos[i], w.lengths[i], w.pd,
                                privileged, AccessRights.LOCAL_WRITE);
                        if (st != null) {
                            w.done = true;
                            w.status = st;
                            completeReceives();
                            enterTerminate(new TerminateMessage(TerminateMessage.LOCAL_CATASTROPHIC, true, null));
                            return null;
                        }
                    }
                    return w;
                }
            } finally {
                rnic.events().drain();
            }
        }

        @Override
        public void receiveCompleted(ReceiveWqe w, WorkCompletionStatus status, int byteLength, boolean solicited,
                                     int invalidatedStag) {
            try {
                synchronized (lock) {
                    if (!active || w.done || !inProgress.contains(w)) {
                        return;
                    }
                    WorkCompletionStatus st = status;
                    int terminateCode = terminateCodeOf(st);
                    if (st == WorkCompletionStatus.SUCCESS && invalidatedStag != 0) {
                        // V-WRP-31: after placement, before the receive completes
                        InvalidateRefusal refused = rnic.memory().invalidateRemote(SoftQueuePair.this, invalidatedStag);
                        if (refused != null) {
                            st = refused.status;
                            terminateCode = refused.terminateCode; // RFC 5040 §5.3
                        }
                    }
                    w.done = true;
                    w.status = st;
                    w.byteLength = byteLength;
                    w.solicited = solicited;
                    w.stagInvalidated = invalidatedStag != 0;
                    w.invalidatedStag = invalidatedStag;
                    completeReceives();
                    if (st != WorkCompletionStatus.SUCCESS) {
                        enterTerminate(new TerminateMessage(terminateCode, true, null));
                    }
                }
            } finally {
                rnic.events().drain();
            }
        }

        @Override
        public void remoteClosed() {
            input(QpStateMachine.Input.LLP_REMOTE_CLOSE);
        }

        @Override
        public void closeCompleted() {
            input(QpStateMachine.Input.LLP_CLOSE_COMPLETE);
        }

        @Override
        public void streamAborted(SendWqe w, WorkCompletionStatus status) {
            try {
                synchronized (lock) {
                    if (!active) {
                        return;
                    }
                    if (w != null && w.inFlight && !w.done) {
                        w.inFlight = false;
                        w.status = status;
                        w.done = true;
                    }
                    // Verbs §6.4 #1: the stream is already reset; Figure 24 Local QP Catastrophic
                    // Error, and the QP goes to Error without a Terminate (every other WQE flushed)
                    machine.input(QpStateMachine.Input.STREAM_ABORTED);
                }
            } finally {
                rnic.events().drain();
            }
        }

        @Override
        public void connectionFailed(boolean reset) {
            // the state machine names the event per state (V-QPS-53, V-QPS-83)
            input(QpStateMachine.Input.LLP_FAILURE, null,
                    reset ? AsyncEventType.LLP_CONNECTION_RESET : AsyncEventType.LLP_CONNECTION_LOST);
        }

        @Override
        public void terminateReceived(TerminateMessage message, AsyncEventType event) {
            input(QpStateMachine.Input.TERMINATE_RECEIVED, message, event);
        }

        @Override
        public void segmentWhileClosing() {
            input(QpStateMachine.Input.SEGMENT_WHILE_CLOSING); // V-QPS-84
        }

        @Override
        public void remoteError(AsyncEventType event) {
            int code = event.terminateCode() == AsyncEventType.NO_TERMINATE_CODE
                    ? TerminateMessage.LOCAL_CATASTROPHIC : event.terminateCode();
            remoteError(event, new TerminateMessage(code, true, null));
        }

        @Override
        public void remoteError(AsyncEventType event, TerminateMessage message) {
            input(QpStateMachine.Input.ASYNC_ERROR, message, event);
        }
    }

    @Override
    public String toString() {
        return "QP[" + id + ", " + machine.state() + "]";
    }
}
