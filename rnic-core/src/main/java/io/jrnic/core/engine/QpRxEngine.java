package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.QpState;
import io.jrnic.api.StagState;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.api.internal.CounterLayout;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.mem.SoftMemoryWindow;
import io.jrnic.core.mem.StagBinding;
import io.jrnic.core.mem.StagEntry;
import io.jrnic.core.mem.StagTable;
import io.jrnic.core.wq.ReceiveWqe;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.ddp.DdpError;
import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.DdpReceiver;
import io.jrnic.ddp.InboundSegment;
import io.jrnic.ddp.TaggedBufferDescriptor;
import io.jrnic.ddp.TaggedBufferResolver;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedBufferResolver;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.PlacementHandler;
import io.jrnic.mpa.PlacementTarget;
import io.jrnic.rdmap.AtomicOpcode;
import io.jrnic.rdmap.AtomicOps;
import io.jrnic.rdmap.AtomicRequestHeaderFlyweight;
import io.jrnic.rdmap.AtomicResponseHeaderFlyweight;
import io.jrnic.rdmap.ImmediateDataHeaderFlyweight;
import io.jrnic.rdmap.RdmapControl;
import io.jrnic.rdmap.RdmapError;
import io.jrnic.rdmap.RdmapOpcode;
import io.jrnic.rdmap.RdmapValidator;
import io.jrnic.rdmap.ReadRequestHeaderFlyweight;
import io.jrnic.rdmap.TerminateDecoder;
import io.jrnic.wire.IwarpError;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The receive state machine of one QP (siw's qp_rx): every verified ULPDU from the link is
 * validated by DDP ({@link DdpReceiver}, RFC 5041 §7.1) and RDMAP ({@link RdmapValidator},
 * RFC 5040 §7.2), its payload placed, and the message delivered by opcode.
 *
 * <p><b>Header first.</b> As a {@link PlacementHandler} it validates a segment as soon as its DDP
 * header is in and names the exact slice of registered memory its payload belongs to (tagged: the
 * STag's memory at TO - base; untagged: the receive WQE's SGE at the message offset), so the link
 * places the payload without staging. Segments whose payload spans two SGEs, or that arrive whole,
 * are copied from the link's buffer into place (counted in {@link #bytesCopied}). Nothing is
 * placed before every check passed, so nothing outside a registered region is ever written.
 *
 * <p><b>Errors.</b> A failed check latches the first error with the segment's DDP header (and the
 * Read Request header), stops the DDP stream (later segments are dropped silently, R-TERM-047), and
 * reports it to the QP once the segment is delivered (Verbs V-TERM-11): placement-time verdicts
 * decline the placement so that the segment's delivery still waits for its CRC.
 *
 * <p><b>Revocation fence</b> (RFC 5040 §8.1.1 (6), R-SEC-016). Every write into the memory of a
 * validated tagged segment is bracketed by the STag's {@link StagBinding.Fence}: the engine's own
 * copy, and for direct placement each copy of the deframer and each socket read of the transport
 * (through the {@link PlacementTarget.Guard} handed over with the target). A revocation waits for
 * the write in progress, so no byte lands after Invalidate, deregistration or unbind returned; the
 * rest of the segment is consumed without being written, and a segment that lost the race in any
 * of its writes fails as an invalid STag (1/1/0x00).
 *
 * <p><b>Graceful receive overflow</b> (Verbs §13.2, V-WRP-65/66, MAY; opt-in through
 * {@link FpduLink#gracefulReceiveOverflow()}). By default a Send finding no receive WQE is
 * terminated (1/2/0x02, RFC 5040 §5.3). With the option on, the Send is held instead: DDP defers
 * it without changing any state ({@link io.jrnic.ddp.UntaggedBufferResolver#DEFER}), the engine
 * copies it and every ULPDU the link still delivers into a backlog, and asks the link to stop
 * reading ({@link FpduLink#pauseReceive()}: TCP flow control pushes back on the peer). When the QP
 * posts a receive ({@link #receivePosted()}) the backlog is replayed in order from the held Send
 * on, and reading resumes once it is empty. A QP on an S-RQ holds too: it joins the S-RQ's waiters
 * ({@link QpContext.SharedReceiveWait#await}) and a post to the S-RQ grants it a WQE in the order the
 * QPs were held, one each, and wakes it through {@link #receivePosted()}; a QP the S-RQ's fair-share
 * policy refuses is terminated as without the option (RFC 5042 §6.4.3.1).
 *
 * <p><b>RFC 7306.</b> Immediate Data takes a receive WQE like a Send and completes it with its 8
 * bytes; an Atomic Request is validated at delivery and queued in the IRD (executed by TX when it
 * reaches the head); an Atomic Response completes the atomic at the ORD head after its identifier
 * was checked and the original value written into the WR's result buffer.
 *
 * <p>Size: over 800 lines, on purpose. It is one receive state machine (RFC 5041 §7 placement,
 * RFC 5040 §5 delivery by opcode) whose per-segment state -- the resolved target, the revocation
 * fence, the held backlog of graceful overflow, the latched error -- is shared by every opcode's
 * path; split by opcode, that state would have to be passed around or exposed. The parts that
 * stand alone are apart: the IRD and ORD queues, the commit draft ({@link CommitDraft}), the
 * atomics' execution ({@link RemoteAtomics}), the Terminate latch ({@link TerminateLatch}).
 *
 * <p>Thread safety: confined to the engine's event loop, except {@link #receivePosted()}.
 */
public final class QpRxEngine implements PlacementHandler, UntaggedBufferResolver, TaggedBufferResolver {
    private static final long ANY_LENGTH = 0xFFFF_FFFFL;

    private final QpEngine engine;
    final DdpReceiver ddp;
    private final RdmapValidator validator;
    private final TerminateDecoder terminateDecoder = TerminateDecoder.lenient();
    private final ReadRequestHeaderFlyweight readRequest = new ReadRequestHeaderFlyweight();
    private final AtomicRequestHeaderFlyweight atomicRequest = new AtomicRequestHeaderFlyweight();
    private final AtomicResponseHeaderFlyweight atomicResponse = new AtomicResponseHeaderFlyweight();
    private final ImmediateDataHeaderFlyweight immediate = new ImmediateDataHeaderFlyweight();
    private final MemorySegment headerCopy = MemorySegment.ofArray(new byte[UntaggedHeaderFlyweight.HEADER_LENGTH]);
    private final TaggedHeaderFlyweight taggedCopy = new TaggedHeaderFlyweight();
    private final UntaggedHeaderFlyweight untaggedCopy = new UntaggedHeaderFlyweight();

    /** Payload bytes copied by the engine from link buffers into place. */
    long bytesCopied;
    /** Payload bytes whose placement target was handed to the link. */
    long bytesPlacedDirect;
    /** {@link FpduLink#bytesPlacedDirect()} as far as it is in the QP's counters. */
    private long linkDirectCounted;
    /** The QP is closing: a segment other than a Terminate is a Bad Close (Verbs §6.2.5). */
    boolean closing;
    /** A valid Terminate was delivered: the stream has ended (RFC 5040 §5.4). */
    private boolean terminateReceived;

    // verdict of the segment in progress
    private boolean prevalidated;
    private boolean drop;
    private IwarpError pendingError;
    private AsyncEventType pendingEvent;
    private int headerLength;
    private int rsvdUlp;
    /** The segment in progress is meant as a Terminate (QN 2 or the Terminate opcode): never answered. */
    private boolean terminateSegment;
    private RdmapOpcode opcode;
    private boolean last;
    private int payloadStart;
    private int payloadLength;
    private long messageOffset;
    private boolean messageComplete;
    private long messageLength;
    private int invalidateStag;
    private MemorySegment target;
    private long targetOffset;
    private boolean placedDirect;
    /** The receive WQE bound to the Send message in progress (queue 0). */
    private ReceiveWqe receive;
    /** Part of the Send in progress could not be placed (see {@link #scatter}). */
    private boolean receiveFailed;
    private long primeCapacity = -1;
    /** The tagged resolver found the STag valid and associated but without the placement right. */
    private boolean placementDenied;
    /** The table entry the tagged resolver validated the segment against. */
    private StagEntry resolvedEntry;
    /** The fence of the tagged segment in progress and what it was validated against, or null (R-SEC-016). */
    private StagBinding.Fence fence;
    private StagEntry fenceEntry;
    private StagBinding fenceBinding;
    /** A write of the segment in progress found its STag revoked: nothing more was written. */
    private boolean revokedWhilePlacing;
    /** Brackets the link's writes into {@link #target} (direct placement). */
    private final PlacementTarget.Guard placementGuard = new PlacementTarget.Guard() {
        @Override
        public boolean enter() {
            if (fence.enter(fenceEntry, fenceBinding)) {
                return true;
            }
            revokedWhilePlacing = true;
            return false;
        }

        @Override
        public void exit() {
            fence.exit();
        }
    };

    // graceful receive overflow (V-WRP-65)
    private final boolean gracefulOverflow;
    /** The QP's S-RQ, or null when it has its own RQ. */
    private final QpContext.SharedReceiveWait srq;
    /** The S-RQ's wake-up for this QP (allocated once). */
    private final Runnable srqWake = this::receivePosted;
    /** The untagged resolver deferred the segment in progress: no receive WQE yet. */
    private boolean deferred;
    /** Reception is paused; ULPDUs go to {@link #held}. */
    private boolean holding;
    /** ULPDUs received while paused, oldest first; the first is the Send waiting for a WQE. */
    private final ArrayDeque<byte[]> held = new ArrayDeque<>();
    /** A stream fault that arrived behind the held ULPDUs. */
    private DeframeFault heldFault;
    /** The backlog is being replayed: a deferred segment stays at its head. */
    private boolean replaying;
    /** A Send waits for a receive WQE: {@link #receivePosted()} schedules a retry. */
    private volatile boolean awaitingReceive;
    private final AtomicBoolean retryScheduled = new AtomicBoolean();
    private final Runnable retryTask = this::retryHeld;
    /** A retry came while the deferred Send was still being reassembled: retry once it is held. */
    private boolean retryPending;
    /** Times reception was paused for lack of a receive WQE (tests). */
    public volatile long receivePauses;

    QpRxEngine(QpEngine engine) {
        this.engine = engine;
        // RFC 7306 §4.1: queue 3 (Atomic Responses, the commit draft's responses) exists only on
        // streams with one of the extensions
        this.ddp = new DdpReceiver(DdpHeaderFlyweight.VERSION_IETF, DdpReceiver.rdmapQueueNumbers(
                engine.features.rfc7306() || engine.features.commitDraft()), this, this);
        this.validator = new RdmapValidator(engine.features);
        this.gracefulOverflow = engine.link.gracefulReceiveOverflow();
        this.srq = engine.qp.sharedReceiveWait();
    }

    /**
     * Advances the inbound MSNs past messages the connection setup consumed (an RTR Send or Read
     * Request, RFC 6581 §9.3) by running synthetic headers through DDP.
     */
    void prime(int firstSendMsn, int firstReadMsn) {
        MemorySegment h = MemorySegment.ofArray(new byte[UntaggedHeaderFlyweight.HEADER_LENGTH]);
        UntaggedHeaderFlyweight u = new UntaggedHeaderFlyweight().wrap(h, 0);
        for (int msn = DdpReceiver.INITIAL_MSN; msn != firstSendMsn; msn++) {
            u.encode(true, DdpHeaderFlyweight.VERSION_IETF, RdmapOpcode.SEND.controlByte(engine.features.version()),
                    0, DdpReceiver.QN_SEND, msn, 0);
            primeCapacity = 0;
            ddp.onSegment(h, 0, UntaggedHeaderFlyweight.HEADER_LENGTH);
        }
        for (int msn = DdpReceiver.INITIAL_MSN; msn != firstReadMsn; msn++) {
            u.encode(true, DdpHeaderFlyweight.VERSION_IETF,
                    RdmapOpcode.READ_REQUEST.controlByte(engine.features.version()), 0, DdpReceiver.QN_READ_REQUEST,
                    msn, 0);
            primeCapacity = ReadRequestHeaderFlyweight.HEADER_LENGTH;
            ddp.onSegment(h, 0, UntaggedHeaderFlyweight.HEADER_LENGTH + ReadRequestHeaderFlyweight.HEADER_LENGTH);
        }
        primeCapacity = -1;
    }

    void stop() {
        ddp.stop();
        releaseFence();
        held.clear();
        holding = false;
        retryPending = false;
        awaitingReceive = false;
        if (gracefulOverflow && srq != null) {
            srq.cancel(); // a stopped QP holds nothing: its grant goes to the next waiter
        }
    }

    /**
     * The QP posted a receive WQE, or its S-RQ granted it one (any thread): if a Send is held for
     * lack of one, retry it on the event loop (V-WRP-65). Costs one volatile read otherwise.
     */
    void receivePosted() {
        if (awaitingReceive && retryScheduled.compareAndSet(false, true)) {
            try {
                engine.executor.execute(retryTask);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // The loop has terminated: the link's closure already ran there and moved the QP
                // to Error, which flushes the receive just posted. Nothing is left to replay.
                retryScheduled.set(false);
            }
        }
    }

    /** Replays the held ULPDUs in order; resumes reading once all went through (V-WRP-65). */
    private void retryHeld() {
        retryScheduled.set(false);
        if (!holding) {
            retryPending = deferred; // the rest of the deferred Send is still to be read
            return;
        }
        holding = false;
        while (!held.isEmpty() && !holding) {
            byte[] u = held.peekFirst();
            replaying = true;
            try {
                onUlpdu(MemorySegment.ofArray(u), 0, u.length);
            } finally {
                replaying = false;
            }
            if (!holding) {
                held.pollFirst();
            }
        }
        if (holding) {
            return; // the next held Send still finds no WQE: stay paused
        }
        awaitingReceive = false;
        DeframeFault f = heldFault;
        if (f != null) {
            heldFault = null;
            onError(f);
            return;
        }
        engine.link.resumeReceive();
    }

    /** Whether reception is paused for a receive WQE of our own application (V-WRP-66). */
    boolean holding() {
        return holding;
    }

    /** Keeps a ULPDU that arrived while paused (the link finishes the read it was in). */
    private void hold(MemorySegment segment, long offset, int length) {
        held.addLast(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    // ---- PlacementHandler ---------------------------------------------------------------------

    @Override
    public int prefixLength(int firstByte, int ulpduLength) {
        return DdpHeaderFlyweight.headerLength(firstByte);
    }

    @Override
    public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                   PlacementTarget placement) {
        if (holding) {
            prevalidated = false; // reassembled whole and held (V-WRP-65)
            return false;
        }
        examine(prefix, offset, ulpduLength);
        prevalidated = true;
        if (target == null || payloadLength == 0) {
            return false;
        }
        placement.set(target, targetOffset, fence != null ? placementGuard : null);
        placedDirect = true;
        bytesPlacedDirect += payloadLength;
        return true;
    }

    @Override
    public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
        engine.counters.add(CounterLayout.FPDUS_RECEIVED, 1);
        prevalidated = false;
        deliver(prefix, offset, ulpduLength);
    }

    @Override
    public void onUlpdu(MemorySegment segment, long offset, int length) {
        if (!replaying) {
            engine.counters.add(CounterLayout.FPDUS_RECEIVED, 1); // a replayed ULPDU was counted when held
        }
        if (holding && !replaying) {
            hold(segment, offset, length);
            return;
        }
        if (!prevalidated) {
            examine(segment, offset, length);
        }
        prevalidated = false;
        deliver(segment, offset, length);
    }

    @Override
    public void onError(DeframeFault fault) {
        if (holding) {
            heldFault = fault; // acted on after the held ULPDUs, in stream order
            return;
        }
        if (terminateReceived) {
            // RFC 5040 §5.4 (R-TERM-021): after a Terminate nothing more on the stream is processed,
            // so a framing fault behind it is neither reported nor answered with a Terminate of our
            // own (R-TERM-048), as DDP drops any segment behind it
            return;
        }
        if (fault == DeframeFault.CRC_MISMATCH) {
            engine.crcError();
        }
        // RFC 5044 §8 / Verbs Figure 24: LLP errors carry no headers (M=D=R=0, R-TERM-014)
        prevalidated = false;
        releaseFence();
        ddp.stop();
        fail(fault, switch (fault) {
            case CRC_MISMATCH -> AsyncEventType.LLP_INVALID_CRC;
            case MARKER_MISMATCH -> AsyncEventType.LLP_BAD_FPDU;
            case ULPDU_TOO_SHORT, ULPDU_TOO_LONG -> AsyncEventType.LLP_SEGMENT_SIZE_INVALID;
        }, null, 0, null, 0);
    }

    // ---- resolvers (called by DdpReceiver.onSegment) ------------------------------------------

    @Override
    public long bufferCapacity(int queueNumber, int msn) {
        if (primeCapacity >= 0) {
            return primeCapacity;
        }
        RdmapOpcode op = RdmapOpcode.fromWire(engine.features.opcodeBits(rsvdUlp));
        return switch (queueNumber) {
            case DdpReceiver.QN_SEND -> {
                boolean immediateData = isImmediate(op) && engine.immediateEnabled;
                if (!isSend(op) && !immediateData || RdmapControl.version(rsvdUlp) != engine.features.version()) {
                    yield ANY_LENGTH; // RDMAP rejects the opcode next; no receive WQE is consumed for it
                }
                // RFC 5040 §5.3: one Send consumes one receive WQE (Verbs §7.4.1 checks in takeReceive)
                ReceiveWqe w = engine.upcalls.takeReceive();
                if (w == null && gracefulOverflow) {
                    // V-WRP-65: announce the wait first, then look again, so that a receive posted
                    // in between is either found here or seen by receivePosted (Dekker); on an S-RQ
                    // the wait is announced by joining its waiters, unless its fair-share policy
                    // refused this QP (then it is terminated, RFC 5042 §6.4.3.1)
                    awaitingReceive = true;
                    if (srq == null || srq.await(srqWake)) {
                        w = engine.upcalls.takeReceive();
                        if (w == null && engine.qp.state() == QpState.RTS
                                && (srq == null || srq.waiting())) {
                            receive = null;
                            yield DEFER;
                        }
                    }
                    awaitingReceive = false;
                    if (w == null && srq != null) {
                        srq.cancel(); // the Send fails: no WQE stays reserved for it
                    }
                }
                receive = w;
                // RFC 7306 §6.3, AMB-32: Immediate Data takes a WQE but is not placed in its SGL; its
                // length (exactly 8) is RDMAP's check (A-IMM-013), not the SGL's
                yield w == null ? NO_BUFFER : immediateData ? ANY_LENGTH : w.totalLength();
            }
            // R-READ-026: a Read Request always finds its 28-byte IRRQ slot; IRD is counted by RDMAP;
            // RFC 7306 §5.2.1 (A-ATOM-032): an Atomic Request likewise finds its 52-byte slot, on a
            // stream with atomics only: elsewhere its opcode is reserved, which RDMAP names next
            // (R-HDR-027, R-ERR-021, A-ATOM-003) rather than DDP as a message too long
            case DdpReceiver.QN_READ_REQUEST -> op == RdmapOpcode.READ_REQUEST
                    ? ReadRequestHeaderFlyweight.HEADER_LENGTH
                    : op == RdmapOpcode.ATOMIC_REQUEST && engine.atomicsEnabled
                    ? AtomicRequestHeaderFlyweight.HEADER_LENGTH : ANY_LENGTH;
            // RFC 7306 §5.2.2 (A-ATOM-040/042): one 12-byte buffer per outstanding atomic; whether the
            // ORD head is one is RDMAP's check at examine (0/2/0x06, A-ATOM-044)
            case DdpReceiver.QN_ATOMIC_RESPONSE -> op == RdmapOpcode.ATOMIC_RESPONSE
                    ? AtomicResponseHeaderFlyweight.HEADER_LENGTH : ANY_LENGTH;
            default -> ANY_LENGTH; // queue 2: R-TERM-022, a Terminate buffer is always available
        };
    }

    private static boolean isImmediate(RdmapOpcode op) {
        return op == RdmapOpcode.IMMEDIATE_DATA || op == RdmapOpcode.IMMEDIATE_DATA_SE;
    }

    private static boolean isSend(RdmapOpcode op) {
        return op == RdmapOpcode.SEND || op == RdmapOpcode.SEND_SE || op == RdmapOpcode.SEND_INVALIDATE
                || op == RdmapOpcode.SEND_SE_INVALIDATE;
    }

    @Override
    public void resolve(int stag, int rsvdUlp, TaggedBufferDescriptor descriptor) {
        int op = engine.features.opcodeBits(rsvdUlp);
        boolean write = op == RdmapOpcode.RDMA_WRITE.wireValue();
        boolean response = op == RdmapOpcode.READ_RESPONSE.wireValue();
        if (!write && !response || response && !readIsOutstanding()
                || RdmapControl.version(rsvdUlp) != engine.features.version()) {
            // not placeable at all: let RDMAP name the error (R-ERR-021 Unexpected OpCode)
            descriptor.valid(0, -1L, true, null);
            return;
        }
        QpContext qp = engine.qp;
        StagEntry e = engine.stags.lookup(stag);
        if (e == null || stag >>> 8 == 0) {
            return; // RFC 5041 §7.1 check 1: invalid STag
        }
        StagBinding b = e.binding;
        if (b.state() != StagState.VALID || b.key() != (stag & 0xFF)) {
            return;
        }
        resolvedEntry = e;
        boolean window = e instanceof SoftMemoryWindow;
        // RFC 5042 §5, R-SEC-011/012: a region of this PD, a window bound to this QP
        if (window ? b.qpId() != qp.qpId() : b.pd() != qp.pd()) {
            descriptor.notAssociated();
            return;
        }
        // Verbs §7.5.2, §8.1.2.2 Figure 21: the Data Sink of an RDMA Write and of an RDMA Read Type
        // WR alike needs the QP's inbound RDMA Write (and Read Response) enable and the STag's Remote
        // Write right, a region's or a window's (V-MR-82, V-WR-23); local rights play no part
        boolean allowed = qp.inboundWrite() && AccessRights.has(b.rights(), AccessRights.REMOTE_WRITE);
        placementDenied = !allowed;
        descriptor.valid(b.baseTo(), b.length(), allowed, b);
    }

    /** Whether the ORD head is a Read (a Read Response may answer it; an atomic's response comes on QN 3). */
    private boolean readIsOutstanding() {
        OutstandingReads ord = engine.tx.ord;
        return !ord.isEmpty() && ord.headKind() == OutstandingReads.READ;
    }

    // ---- validation ---------------------------------------------------------------------------

    private void examine(MemorySegment segment, long offset, int ulpduLength) {
        releaseFence();
        resolvedEntry = null;
        deferred = false;
        drop = false;
        pendingError = null;
        pendingEvent = null;
        placementDenied = false;
        opcode = null;
        target = null;
        placedDirect = false;
        payloadLength = 0;
        int control = segment.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
        headerLength = DdpHeaderFlyweight.headerLength(control);
        if (ulpduLength >= headerLength) {
            MemorySegment.copy(segment, offset, headerCopy, 0, headerLength);
            rsvdUlp = segment.get(ValueLayout.JAVA_BYTE, offset + 1) & 0xFF;
        } else {
            headerLength = 0;
            rsvdUlp = 0;
        }
        terminateSegment = isTerminate();
        InboundSegment s = ddp.onSegment(segment, offset, ulpduLength);
        switch (s.outcome()) {
            case ACCEPTED -> { }
            case DEFERRED -> {
                deferred = true; // V-WRP-65: no receive WQE yet, DDP state unchanged
                return;
            }
            case REJECTED -> {
                DdpError error = s.error();
                pendingError = error;
                int qn = headerLength == UntaggedHeaderFlyweight.HEADER_LENGTH
                        ? untaggedCopy.wrap(headerCopy, 0).queueNumber() : -1;
                pendingEvent = error == DdpError.UNTAGGED_MSN_RANGE && qn == DdpReceiver.QN_READ_REQUEST
                        ? irrqMsnEvent(untaggedCopy.msn()) : eventFor(error, qn);
                if (error == DdpError.TAGGED_INVALID_STAG && placementDenied) {
                    // wire code 1/1/0x00 (AMB-16); Verbs names the cause (Figure 24, V-EV-14, V-EV-19)
                    pendingEvent = engine.qp.inboundWrite() ? AsyncEventType.TAGGED_ACCESS_RIGHTS
                            : AsyncEventType.RDMA_WRITE_NOT_ENABLED;
                }
                return;
            }
            default -> {
                drop = true;
                return;
            }
        }
        RdmapError re = validator.validate(control, s.rsvdUlp(), s.queueNumber(), (int) s.messageOffset());
        payloadStart = (int) (s.payloadOffset() - offset);
        payloadLength = s.payloadLength();
        if (re != null) {
            rdmapError(re, re == RdmapError.OPERATION_UNSPECIFIED ? AsyncEventType.NO_L_BIT
                    : re == RdmapError.INVALID_RDMAP_VERSION ? AsyncEventType.INVALID_RDMA_VERSION
                    : AsyncEventType.UNEXPECTED_OPCODE);
            return;
        }
        opcode = validator.opcode();
        if (isImmediate(opcode) && !engine.immediateEnabled
                || (opcode == RdmapOpcode.ATOMIC_REQUEST || opcode == RdmapOpcode.ATOMIC_RESPONSE)
                && !engine.atomicsEnabled) {
            // A-ATOM-003: an RNIC offering only one of the two RFC 7306 extensions rejects the other
            rdmapError(RdmapError.UNEXPECTED_OPCODE, AsyncEventType.UNEXPECTED_OPCODE);
            return;
        }
        last = s.last();
        messageOffset = s.messageOffset();
        messageComplete = s.messageComplete();
        messageLength = messageComplete ? s.messageLength() : 0;
        invalidateStag = s.rsvdUlpWord();
        if (!engine.commit.enabled(opcode)) {
            // C-FLUSH-031: an RNIC without the extension answers its opcodes as RFC 5040 does an
            // unknown one (the same Terminate bytes: no RDMA header is known, all payload counts)
            opcode = null;
            rdmapError(RdmapError.UNEXPECTED_OPCODE, AsyncEventType.UNEXPECTED_OPCODE);
            return;
        }
        switch (opcode) {
            case ATOMIC_RESPONSE -> {
                OutstandingReads ord = engine.tx.ord;
                if (ord.isEmpty() || ord.headKind() != OutstandingReads.ATOMIC) {
                    // A-ATOM-044, A-ATOM-080: no atomic is the next request to be answered
                    rdmapError(RdmapError.UNEXPECTED_OPCODE, AsyncEventType.UNEXPECTED_OPCODE);
                    return;
                }
            }
            case READ_RESPONSE -> {
                if (!readIsOutstanding()) {
                    rdmapError(RdmapError.UNEXPECTED_OPCODE, AsyncEventType.UNEXPECTED_OPCODE); // R-ERR-021
                    return;
                }
                DdpError mismatch = readResponseMismatch(s);
                if (mismatch != null) {
                    ddp.stop(); // RFC 5040 §7.1: nothing after the first error
                    pendingError = mismatch;
                    pendingEvent = eventFor(mismatch, -1);
                    return;
                }
                taggedTarget(s);
            }
            case RDMA_WRITE -> taggedTarget(s);
            case SEND, SEND_SE, SEND_INVALIDATE, SEND_SE_INVALIDATE -> untaggedTarget();
            default -> { } // Read Request, Terminate: processed whole at delivery
        }
    }

    /**
     * RFC 5040 §5.2.2 (R-READ-030, R-READ-031, R-READ-046): a Read Response must land in the one
     * sink buffer its Read Request named, within the requested length, each segment where the
     * previous one ended. The STag table alone would let a faulty or hostile responder write
     * anywhere the region grants Local Write, and counting bytes alone would let segments that
     * overlap complete the Read with a hole never written. Checks the head of the ORD queue, which is
     * the Read being answered (responses come in request order, RFC 5040 §5.5 rule 11). A Data Source
     * SHOULD send the segments of a tagged message in increasing TO order (RFC 5041 §5.3), Linux
     * siw does, and MPA/TCP delivers them in the order sent: this sink requires it (R-READ-030), so
     * that one counter proves every byte of the sink was written (docs/engine.md "Read Responses").
     *
     * @return TAGGED_INVALID_STAG for another STag, TAGGED_BASE_OR_BOUNDS for bytes outside the
     *         requested range, a segment that does not continue at the next expected TO, or a last
     *         segment that leaves the Read short; null when it matches
     */
    private DdpError readResponseMismatch(InboundSegment s) {
        OutstandingReads ord = engine.tx.ord;
        SendWqe head = ord.head();
        long size = head.lengths[0] & 0xFFFF_FFFFL;
        long received = ord.headReceived();
        if (payloadLength > 0) {
            // RFC 5041 §5.2: STag and TO of a zero-length tagged segment are not checked
            if (s.stag() != head.stags[0]) {
                return DdpError.TAGGED_INVALID_STAG;
            }
            long offsetInSink = s.taggedOffset() - head.tos[0]; // unsigned: a TO below the sink wraps high
            if (Long.compareUnsigned(offsetInSink, size) >= 0 || payloadLength > size - offsetInSink) {
                return DdpError.TAGGED_BASE_OR_BOUNDS;
            }
            if (offsetInSink != received) {
                return DdpError.TAGGED_BASE_OR_BOUNDS; // R-READ-030: a hole or an overlap, not the next TO
            }
        }
        if (last && received + payloadLength != size) {
            return DdpError.TAGGED_BASE_OR_BOUNDS; // the Response is shorter than the Read's length
        }
        return null;
    }

    private void taggedTarget(InboundSegment s) {
        if (payloadLength > 0 && s.attachment() instanceof StagBinding b) {
            StagEntry e = resolvedEntry;
            if (e.binding != b) {
                // R-SEC-016: revoked since validation; RFC 5041 §7.1 check 1
                ddp.stop();
                pendingError = DdpError.TAGGED_INVALID_STAG;
                pendingEvent = AsyncEventType.TAGGED_INVALID_STAG;
                return;
            }
            fence = StagBinding.Fence.of(e);
            fenceEntry = e;
            fenceBinding = b;
            target = b.memory();
            targetOffset = s.bufferOffset();
        }
    }

    /** Forgets the tagged segment's fence (nothing is held between writes). */
    private void releaseFence() {
        fence = null;
        fenceEntry = null;
        fenceBinding = null;
        revokedWhilePlacing = false;
    }

    /** The receive SGE holding the whole segment payload, if one does (else it is scattered by copy). */
    private void untaggedTarget() {
        ReceiveWqe w = receive;
        if (w == null || payloadLength == 0) {
            return;
        }
        long start = 0;
        for (int i = 0; i < w.sgeCount; i++) {
            long len = w.lengths[i] & 0xFFFF_FFFFL;
            if (messageOffset >= start && messageOffset + payloadLength <= start + len) {
                long at = w.tos[i] + (messageOffset - start);
                target = engine.stags.resolveMemory(w.stags[i], at);
                targetOffset = engine.stags.resolveOffset(w.stags[i], at);
                if (targetOffset < 0 || targetOffset + payloadLength > target.byteSize()) {
                    target = null; // no longer mapped: scatter reports it
                }
                return;
            }
            start += len;
        }
    }

    /**
     * Whether the segment in progress is meant as a Terminate: an untagged segment on the Terminate
     * queue (QN 2, RFC 5040 §5.4) or one carrying the Terminate opcode, whatever else in its header
     * is wrong. Such a segment is never answered with a Terminate, even when it fails DDP or RDMAP
     * validation (RFC 5040 §5.4, §7.1; R-TERM-024, R-TERM-048).
     */
    private boolean isTerminate() {
        if (headerLength == 0) {
            return false; // too short to say what it is: an ordinary segment error
        }
        if (engine.features.opcodeBits(rsvdUlp) == RdmapOpcode.TERMINATE.wireValue()) {
            return true;
        }
        return headerLength == UntaggedHeaderFlyweight.HEADER_LENGTH
                && untaggedCopy.wrap(headerCopy, 0).queueNumber() == DdpReceiver.QN_TERMINATE;
    }

    private void rdmapError(RdmapError error, AsyncEventType event) {
        ddp.stop(); // RFC 5040 §7.1: nothing after the first error
        pendingError = error;
        pendingEvent = event;
    }

    // ---- delivery -----------------------------------------------------------------------------

    private void deliver(MemorySegment segment, long offset, int length) {
        if (deferred) {
            // V-WRP-65: keep the Send (it stays first while replaying) and stop reading the LLP
            deferred = false;
            holding = true;
            if (!replaying) {
                hold(segment, offset, length);
                receivePauses++;
                engine.link.pauseReceive();
                if (retryPending && retryScheduled.compareAndSet(false, true)) {
                    engine.executor.execute(retryTask); // a receive was posted while it was read
                }
                retryPending = false;
            }
            return;
        }
        if (closing && (rsvdUlp & RdmapControl.OPCODE_MASK) != RdmapOpcode.TERMINATE.wireValue()) {
            releaseFence();
            engine.upcalls.segmentWhileClosing(); // Verbs §6.2.5 Figure 11, V-QPS-84
            return;
        }
        if (drop) {
            return;
        }
        if (pendingError != null) {
            releaseFence();
            if (terminateSegment) {
                invalidTerminate(segment, offset, length);
            } else {
                failSegment(segment, offset);
            }
            return;
        }
        count();
        switch (opcode) {
            case RDMA_WRITE -> place(segment, offset); // R-WRITE-002: placed, never delivered
            case READ_RESPONSE -> {
                if (!place(segment, offset)) {
                    return;
                }
                OutstandingReads ord = engine.tx.ord;
                ord.headReceived(ord.headReceived() + payloadLength);
                if (last) {
                    // R-ORD-021/023: the Read completes when its whole Response is delivered
                    engine.upcalls.sendCompleted(ord.poll(), WorkCompletionStatus.SUCCESS);
                }
            }
            case SEND, SEND_SE, SEND_INVALIDATE, SEND_SE_INVALIDATE -> deliverSend(segment, offset);
            case READ_REQUEST -> readRequest(segment, offset);
            case FLUSH_REQUEST, VERIFY_REQUEST, ATOMIC_WRITE_REQUEST -> commitRequest(segment, offset);
            case FLUSH_RESPONSE, VERIFY_RESPONSE, ATOMIC_WRITE_RESPONSE -> commitResponse(segment, offset);
            case ATOMIC_REQUEST -> atomicRequest(segment, offset);
            case ATOMIC_RESPONSE -> atomicResponse(segment, offset);
            case IMMEDIATE_DATA, IMMEDIATE_DATA_SE -> deliverImmediate(segment, offset);
            case TERMINATE -> terminate(segment, offset + payloadStart, payloadLength);
            default -> { }
        }
    }

    /**
     * Counts a valid segment before it is processed, so that counters read after its completion
     * include it (docs/observability.md): its message and DDP payload, and how a placed payload got
     * into registered memory: the link's direct reads since the last count went straight from the
     * socket, the rest of it is copied (by the deframer from its receive buffer, or below).
     */
    private void count() {
        QpCounters c = engine.counters;
        c.received(opcode, payloadLength, last);
        if (placedDirect) {
            long direct = engine.link.bytesPlacedDirect();
            long read = direct - linkDirectCounted;
            linkDirectCounted = direct;
            c.add(CounterLayout.BYTES_PLACED_DIRECT, read);
            c.add(CounterLayout.BYTES_COPIED, payloadLength - read);
        } else if (payloadLength > 0 && opcode.ulpPayload()) {
            c.add(CounterLayout.BYTES_COPIED, payloadLength); // place() or scatter() copies it
        }
    }

    /**
     * Places a tagged segment (copying it, under its fence, unless the link placed it).
     *
     * @return false when its STag was revoked while it was placed: the segment failed as an invalid
     *         STag (R-SEC-016), nothing was written after the revocation
     */
    private boolean place(MemorySegment segment, long offset) {
        StagBinding.Fence f = fence;
        if (target != null && !placedDirect) {
            if (f == null || f.enter(fenceEntry, fenceBinding)) {
                try {
                    MemorySegment.copy(segment, offset + payloadStart, target, targetOffset, payloadLength);
                } finally {
                    if (f != null) {
                        f.exit();
                    }
                }
                bytesCopied += payloadLength;
            } else {
                revokedWhilePlacing = true;
            }
        }
        boolean revoked = revokedWhilePlacing;
        releaseFence();
        if (revoked) {
            // RFC 5041 §7.1 check 1, as if the segment had arrived after the revocation
            ddp.stop();
            pendingError = DdpError.TAGGED_INVALID_STAG;
            pendingEvent = AsyncEventType.TAGGED_INVALID_STAG;
            failSegment(segment, offset);
            return false;
        }
        return true;
    }

    private void deliverSend(MemorySegment segment, long offset) {
        ReceiveWqe w = receive;
        if (!placedDirect && payloadLength > 0 && !scatter(w, segment, offset + payloadStart)) {
            // an SGE's STag was invalidated locally after the QP checked it: nothing is placed there
            receiveFailed = true;
        }
        if (!messageComplete) {
            return;
        }
        receive = null;
        boolean invalidate = opcode.carriesInvalidateStag();
        WorkCompletionStatus status = WorkCompletionStatus.SUCCESS;
        if (receiveFailed) {
            receiveFailed = false;
            status = WorkCompletionStatus.INVALID_STAG;
        } else if (invalidate && invalidateStag >>> 8 == 0) {
            status = WorkCompletionStatus.INVALID_STAG; // STag 0 is never remotely invalidated (V-MR-26)
        }
        // R-ORD-010/018: delivered after the whole message; R-SEND-022: invalidate after placement
        engine.deliveryContext = true;
        try {
            engine.upcalls.receiveCompleted(w, status, (int) messageLength, opcode.solicitedEvent(),
                    invalidate ? invalidateStag : 0);
        } finally {
            engine.deliveryContext = false;
        }
    }

    /** Copies the payload across the receive SGEs; false when an SGE no longer maps its range. */
    private boolean scatter(ReceiveWqe w, MemorySegment segment, long from) {
        long mo = messageOffset;
        long remaining = payloadLength;
        long src = from;
        long start = 0;
        for (int i = 0; i < w.sgeCount && remaining > 0; i++) {
            long len = w.lengths[i] & 0xFFFF_FFFFL;
            if (mo < start + len) {
                long inSge = mo - start;
                long n = Math.min(remaining, len - inSge);
                long at = w.tos[i] + inSge;
                MemorySegment memory = engine.stags.resolveMemory(w.stags[i], at);
                long memoryOffset = engine.stags.resolveOffset(w.stags[i], at);
                if (memoryOffset < 0 || memoryOffset + n > memory.byteSize()) {
                    return false;
                }
                MemorySegment.copy(segment, src, memory, memoryOffset, n);
                bytesCopied += n;
                src += n;
                mo += n;
                remaining -= n;
            }
            start += len;
        }
        return true;
    }

    /** The latch for a failure the QP found while completing the delivered segment (invalidation). */
    void latchDelivered(IwarpError error) {
        engine.latch.set(error, headerFlyweight(), segmentLengthField(), null, 0);
    }

    /** RFC 5040 §5.2.1, §7.2: validate a delivered Read Request and queue it for its Response. */
    private void readRequest(MemorySegment segment, long offset) {
        long rrAt = offset + payloadStart;
        RdmapError lengthError = RdmapValidator.validateLength(RdmapOpcode.READ_REQUEST, messageLength);
        if (lengthError != null) {
            ddp.stop();
            fail(lengthError, AsyncEventType.INVALID_READ_REQUEST, headerFlyweight(), 0, null, 0);
            return;
        }
        QpContext qp = engine.qp;
        InboundReadQueue ird = engine.tx.ird;
        if (ird.size() >= qp.ird()) {
            // R-READ-044, AMB-11: beyond IRD is 0/2/0x07, as Linux siw
            ddp.stop();
            fail(RdmapError.CATASTROPHIC_LOCALIZED, AsyncEventType.IRRQ_TOO_MANY_READS, headerFlyweight(),
                    segmentLengthField(), segment, rrAt);
            return;
        }
        readRequest.wrap(segment, rrAt);
        long size = readRequest.readSizeUnsigned();
        if (size == 0) {
            // R-READ-023: no source check, one zero-length Read Response
            ird.add(readRequest.sinkStag(), readRequest.sinkTaggedOffset(), 0, null, 0);
            engine.schedule();
            return;
        }
        int stag = readRequest.sourceStag();
        long to = readRequest.sourceTaggedOffset();
        RdmapError error = engine.stags.checkRequestTarget(qp.pd(), qp.qpId(), stag, to, size, AccessRights.REMOTE_READ, 0, qp.inboundRead());
        if (error != null) {
            ddp.stop();
            fail(error, eventForRemote(error, !qp.inboundRead()), headerFlyweight(), segmentLengthField(), segment, rrAt);
            return;
        }
        StagBinding b = engine.stags.lookupValid(stag);
        // V-TERM-9: TX checks the source STag and TO again before each segment of the response
        ird.add(readRequest.sinkStag(), readRequest.sinkTaggedOffset(), size, b.memory(), b.offsetOf(to), stag, to);
        engine.schedule();
    }

    /**
     * draft-talpey-rdma-commit-01 §3.1, §5.2: a Delivered Flush, Verify or Atomic Write Request is
     * validated and queued in the IRD; it executes at the head (C-FLUSH-022). Errors terminate with
     * the request's DDP header and no RDMA header (M=1, D=1, R=0, C-FLUSH-051).
     */
    private void commitRequest(MemorySegment segment, long offset) {
        RdmapError error = engine.commit.accept(opcode, segment, offset + payloadStart, messageLength, headerCopy);
        if (error != null) {
            ddp.stop();
            fail(error, engine.commit.event(), headerFlyweight(), segmentLengthField(), null, 0);
            return;
        }
        engine.schedule();
    }

    /** A Delivered Flush, Verify or Atomic Write Response completes the ORD head (C-AW-045). */
    private void commitResponse(MemorySegment segment, long offset) {
        RdmapError error = engine.commit.complete(opcode, segment, offset + payloadStart, messageLength);
        if (error != null) {
            ddp.stop();
            fail(error, engine.commit.event(), headerFlyweight(), segmentLengthField(), null, 0);
        }
    }

    /**
     * RFC 7306 §5.2.1, §8.2: validates a delivered Atomic Request and queues it in the IRD; it runs
     * when it reaches the head (TX). Checks in order: length 52 (0/2/0xFF), IRD shared with Reads
     * (0/2/0x07, AMB-11, AMB-25), AOpCode (0/2/0x06, A-ATOM-034), the target STag as for a Read
     * Request source but with the Remote Atomic right (0/1/0x00, 0x03, 0x02, 0x04, 0x01;
     * A-ATOM-074, AMB-30), then the alignment of the effective address (0/2/0x07, A-ATOM-073,
     * AMB-28). Errors carry the DDP header and no RDMA header (R=0, A-ATOM-071).
     */
    private void atomicRequest(MemorySegment segment, long offset) {
        RdmapError lengthError = RdmapValidator.validateLength(RdmapOpcode.ATOMIC_REQUEST, messageLength);
        if (lengthError != null) {
            ddp.stop();
            fail(lengthError, AsyncEventType.INVALID_READ_REQUEST, headerFlyweight(), segmentLengthField(), null, 0);
            return;
        }
        QpContext qp = engine.qp;
        InboundReadQueue ird = engine.tx.ird;
        if (ird.size() >= qp.ird()) {
            ddp.stop();
            fail(RdmapError.CATASTROPHIC_LOCALIZED, AsyncEventType.IRRQ_TOO_MANY_READS, headerFlyweight(),
                    segmentLengthField(), null, 0);
            return;
        }
        AtomicRequestHeaderFlyweight a = atomicRequest.wrap(segment, offset + payloadStart);
        AtomicOpcode operation = a.operation();
        if (operation == null) {
            ddp.stop();
            fail(RdmapError.UNEXPECTED_OPCODE, AsyncEventType.UNEXPECTED_OPCODE, headerFlyweight(),
                    segmentLengthField(), null, 0);
            return;
        }
        int stag = a.remoteStag();
        long to = a.remoteTaggedOffset();
        RdmapError error = engine.stags.checkRequestTarget(qp.pd(), qp.qpId(), stag, to, AtomicOps.OPERAND_SIZE, AccessRights.REMOTE_ATOMIC, 0, true);
        StagBinding b = error == null ? engine.stags.lookupValid(stag) : null;
        if (error == null) {
            error = AtomicOps.checkAlignment(RemoteAtomics.address(b.memory(), b.offsetOf(to)));
        }
        if (error != null) {
            ddp.stop();
            AsyncEventType event = error == RdmapError.CATASTROPHIC_LOCALIZED ? AsyncEventType.LOCAL_QP_CATASTROPHIC
                    : eventForRemote(error, false);
            fail(error, event, headerFlyweight(), segmentLengthField(), null, 0);
            return;
        }
        ird.addAtomic(operation.wireValue(), a.requestId(), b.memory(), b.offsetOf(to), stag, to, a.addOrSwapData(),
                a.addOrSwapMask(), a.compareData(), a.compareMask());
        engine.schedule();
    }

    /**
     * RFC 7306 §5.2.2: an Atomic Response at the requester answers the ORD head (an atomic, checked
     * at examine); its length must be 12 (0/2/0xFF, AMB-20) and its Original Request Identifier the
     * head's (0/2/0x06, A-ATOM-044, AMB-36). The original value is written into the WR's 8-byte
     * result buffer in memory byte order, then the WR completes (A-ATOM-043, A-ATOM-053).
     */
    private void atomicResponse(MemorySegment segment, long offset) {
        RdmapError error = RdmapValidator.validateLength(RdmapOpcode.ATOMIC_RESPONSE, messageLength);
        OutstandingReads ord = engine.tx.ord;
        if (error == null) {
            error = atomicResponse.wrap(segment, offset + payloadStart).validate(ord.headRequestId());
        }
        if (error != null) {
            ddp.stop();
            fail(error, AsyncEventType.UNEXPECTED_OPCODE, headerFlyweight(), segmentLengthField(), null, 0);
            return;
        }
        SendWqe w = ord.poll();
        QpContext qp = engine.qp;
        // the result buffer was checked when the WR was processed; check again: it may have been
        // invalidated or deregistered since (Verbs §7.8)
        WorkCompletionStatus status = engine.stags.checkLocal(w.stags[0], w.tos[0], w.lengths[0], qp.pd(),
                qp.privileged(), AccessRights.LOCAL_WRITE);
        if (status == null) {
            MemorySegment memory = engine.stags.resolveMemory(w.stags[0], w.tos[0]);
            long at = engine.stags.resolveOffset(w.stags[0], w.tos[0]);
            if (memory.scope().isAlive() && at >= 0 && at + AtomicOps.OPERAND_SIZE <= memory.byteSize()) {
                RemoteAtomics.writeResult(memory, at, atomicResponse.originalValue());
                status = WorkCompletionStatus.SUCCESS;
            } else {
                status = WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR;
            }
        }
        engine.upcalls.sendCompleted(w, status);
    }

    /**
     * RFC 7306 §6: an Immediate Data message completes the receive WQE it consumed with its 8 bytes
     * and no placement (byte length 0, AMB-32), solicited for 0x9 (A-IMM-014). Its length must be
     * exactly 8 (A-IMM-013: 0/2/0xFF); on that error the QP terminates and the receive is flushed.
     */
    private void deliverImmediate(MemorySegment segment, long offset) {
        ReceiveWqe w = receive;
        receive = null;
        RdmapError error = RdmapValidator.validateLength(opcode, messageLength);
        if (error != null) {
            ddp.stop();
            fail(error, AsyncEventType.LOCAL_QP_CATASTROPHIC, headerFlyweight(), segmentLengthField(), null, 0);
            return;
        }
        w.immediate = true;
        w.immediateData = immediate.wrap(segment, offset + payloadStart).immediateData();
        engine.upcalls.receiveCompleted(w, WorkCompletionStatus.SUCCESS, 0, opcode.solicitedEvent(), 0);
    }

    /**
     * The Verbs Figure 24 event of a {@link StagTable#checkRequestTarget} failure.
     *
     * @param readsDisabled the access violation was the QP not enabling inbound Reads
     */
    private static AsyncEventType eventForRemote(RdmapError error, boolean readsDisabled) {
        return switch (error) {
            case INVALID_STAG -> AsyncEventType.IRRQ_INVALID_STAG;
            case STAG_NOT_ASSOCIATED -> AsyncEventType.IRRQ_INVALID_PD;
            case ACCESS_RIGHTS_VIOLATION -> readsDisabled ? AsyncEventType.RDMA_READ_NOT_ENABLED
                    : AsyncEventType.IRRQ_ACCESS_RIGHTS;
            case TO_WRAP -> AsyncEventType.IRRQ_WRAP;
            default -> AsyncEventType.IRRQ_BASE_BOUNDS;
        };
    }

    /** RFC 5040 §5.4: a Terminate is delivered to the QP, decoded leniently, never answered (R-TERM-048). */
    private void terminate(MemorySegment segment, long at, int length) {
        ddp.stop();
        terminateReceived = true;
        TerminateMessage m = decodeTerminate(segment, at, length);
        engine.terminateReceived(m, null);
        engine.upcalls.terminateReceived(m);
    }

    /** The Terminate header at {@code at}, decoded leniently, as the QP keeps it for Query QP. */
    private TerminateMessage decodeTerminate(MemorySegment segment, long at, int length) {
        RdmapError error = terminateDecoder.decode(segment, at, length);
        int control = error == null
                ? terminateDecoder.layer() << 12 | terminateDecoder.errorType() << 8 | terminateDecoder.errorCode()
                : error.terminateCodeBits();
        byte[] headers = new byte[0];
        if (error == null && terminateDecoder.hasDdpHeader()) {
            long from = terminateDecoder.ddpHeaderOffset();
            headers = segment.asSlice(from, at + length - from).toArray(ValueLayout.JAVA_BYTE);
        }
        return new TerminateMessage(control, false, headers);
    }

    /**
     * A Terminate whose DDP or RDMAP header failed validation (e.g. an MSN out of range on queue 2,
     * L=0): RFC 5040 §5.4 says an error is surfaced, and a Terminate is never answered with one
     * (R-TERM-024, R-TERM-048; siw's Terminates need lenient reading anyway, docs/interop.md). The
     * stream stops, the error is latched so that nothing else can produce a Terminate, and the QP
     * handles it as a received Terminate (Terminate state, no Terminate sent, LLP close) but reports
     * the Figure 24 event of the error found. Whatever of its Terminate header is there is decoded
     * leniently and kept for Query QP.
     */
    private void invalidTerminate(MemorySegment segment, long offset, int length) {
        ddp.stop();
        IwarpError error = pendingError;
        AsyncEventType event = pendingEvent;
        if (!engine.latch.set(error, headerFlyweight(), segmentLengthField(), null, 0)) {
            return; // an earlier error already ended the stream
        }
        int at = headerLength;
        TerminateMessage m;
        if (length - at >= 4) {
            m = decodeTerminate(segment, offset + at, length - at);
        } else {
            m = new TerminateMessage(error.terminateCodeBits(), false, null); // nothing to decode
        }
        engine.invalidTerminateReceived(error, m, event);
    }

    // ---- errors -------------------------------------------------------------------------------

    private void failSegment(MemorySegment segment, long offset) {
        IwarpError error = pendingError;
        if (error instanceof DdpError && ddp.firstError() != null) {
            // RFC 5041 §7.1: DDP kept the failed segment's header and length
            fail(error, pendingEvent, ddp.terminateDdpHeader(), ddp.terminatePayloadLength(), null, 0);
            ReceiveWqe w = receive;
            if (error == DdpError.UNTAGGED_MESSAGE_TOO_LONG && w != null) {
                // Verbs §8.1.2.1 (V-WR-10): the receive that was too small completes in error
                receive = null;
                engine.upcalls.receiveCompleted(w, WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION, 0, false, 0);
            }
        } else {
            fail(error, pendingEvent, headerFlyweight(), segmentLengthField(), null, 0);
        }
    }

    private void fail(IwarpError error, AsyncEventType event, DdpHeaderFlyweight header, int segmentLength,
                      MemorySegment readRequestSegment, long readRequestOffset) {
        if (engine.latch.set(error, header, segmentLength, readRequestSegment, readRequestOffset)) {
            engine.remoteError(error, event);
        }
    }

    private DdpHeaderFlyweight headerFlyweight() {
        return switch (headerLength) {
            case TaggedHeaderFlyweight.HEADER_LENGTH -> taggedCopy.wrap(headerCopy, 0);
            case UntaggedHeaderFlyweight.HEADER_LENGTH -> untaggedCopy.wrap(headerCopy, 0);
            default -> null;
        };
    }

    /** wire-format §7 item 7, as siw: the payload after the DDP and RDMAP headers. */
    private int segmentLengthField() {
        int rdmapHeader = opcode == null || opcode.ulpPayload() ? 0 : opcode.headerLength();
        return Math.max(0, payloadLength - rdmapHeader);
    }

    /**
     * Which IRRQ event a Read Request with an unexpected MSN raises (wire code 1/2/0x03 either way,
     * Verbs 0x1203). Requests are accepted in MSN order only; the legal range would be the MSNs the
     * free IRRQ slots can take (RFC 5041 §7.1 check 5). With requests outstanding in the IRRQ, an
     * MSN that skips ahead within that range leaves a hole in the IRRQ's sequence: a gap (V-EV-27).
     * Otherwise, with an empty IRRQ, behind the expected MSN or beyond the free slots, the MSN is
     * out of range (V-EV-28).
     */
    private AsyncEventType irrqMsnEvent(int msn) {
        int ahead = msn - ddp.expectedMsn(DdpReceiver.QN_READ_REQUEST); // modulo 2^32, RFC 5041 §4.3
        int outstanding = engine.tx.ird.size();
        int free = engine.qp.ird() - outstanding;
        return outstanding > 0 && ahead > 0 && ahead < free
                ? AsyncEventType.IRRQ_INVALID_MSN_GAP : AsyncEventType.IRRQ_INVALID_MSN_RANGE;
    }

    private static AsyncEventType eventFor(DdpError error, int queueNumber) {
        return switch (error) {
            case TAGGED_INVALID_STAG -> AsyncEventType.TAGGED_INVALID_STAG;
            case TAGGED_BASE_OR_BOUNDS -> AsyncEventType.TAGGED_BASE_BOUNDS;
            case TAGGED_STAG_NOT_ASSOCIATED -> AsyncEventType.TAGGED_INVALID_PD;
            case TAGGED_TO_WRAP -> AsyncEventType.TAGGED_WRAP;
            case TAGGED_INVALID_VERSION, UNTAGGED_INVALID_VERSION -> AsyncEventType.INVALID_DDP_VERSION;
            case UNTAGGED_INVALID_QN -> AsyncEventType.INVALID_DDP_QUEUE_NUMBER;
            case UNTAGGED_MSN_RANGE -> queueNumber == DdpReceiver.QN_READ_REQUEST
                    ? AsyncEventType.IRRQ_INVALID_MSN_RANGE : AsyncEventType.RQ_INVALID_MSN_RANGE;
            case UNTAGGED_NO_BUFFER -> AsyncEventType.RQ_INVALID_MSN_RANGE; // Fig. 24: "e.g. no receive posted"
            case UNTAGGED_INVALID_MO -> AsyncEventType.RQ_INVALID_MSN_GAP;
            default -> AsyncEventType.LOCAL_QP_CATASTROPHIC; // message too long, local catastrophic
        };
    }
}
