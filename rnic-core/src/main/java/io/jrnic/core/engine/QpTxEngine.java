package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.Opcode;
import io.jrnic.core.mem.StagBinding;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.core.wq.SendWqeChain;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.rdmap.AtomicOpcode;
import io.jrnic.rdmap.AtomicOps;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import io.jrnic.rdmap.TerminateHeaderFlyweight;
import io.jrnic.wire.IwarpError;

import java.lang.foreign.MemorySegment;

/**
 * The transmit state machine of one QP (siw's qp_tx): one FPDU at a time from the current SQ
 * message or Read Response, resuming where the link stopped accepting FPDUs.
 *
 * <ul>
 *   <li><b>Segmentation.</b> Each DDP segment carries at most MULPDU - header bytes (RFC 5041 §5.2)
 *       and never crosses an SGE boundary, so that its payload is one slice of registered memory
 *       that the link gathers behind the header without a copy. (This is why the TX path encodes
 *       headers with {@link RdmapMessageEncoder} instead of driving {@code DdpSegmenter}, which cuts
 *       one contiguous payload.) All segments of a message except the last carry L=0; a
 *       zero-length message is one segment with L=1 (RFC 5041 §5.2, R-WRITE-019, R-SEND-019).</li>
 *   <li><b>MSNs.</b> Send types on queue 0 and Read Requests on queue 1 number their messages from
 *       the link's first MSN (1, or 2 after an RTR, RFC 6581 §9.3); the Terminate uses MSN 1 on
 *       queue 2 (R-TERM-020).</li>
 *   <li><b>Interleaving (RFC 5040 §5.5).</b> SQ messages and Read Responses are independent
 *       ordered streams: each keeps its own order (R-ORD-015, R-READ-029), and the engine alternates
 *       between them at message boundaries, so neither starves the other.</li>
 *   <li><b>Completion.</b> A Send or Write completes when the link reports the last FPDU handed to
 *       the LLP (RFC 5040 §5: R-ORD-016); a Read completes on its last Read Response
 *       ({@link QpRxEngine}).</li>
 *   <li><b>RFC 7306.</b> An atomic is one Atomic Request on queue 1 in the Read Request MSN
 *       sequence and joins the ORD ring; Immediate Data is one message on queue 0 in the Send MSN
 *       sequence and completes like a Send. An Atomic Request at the IRD head is executed
 *       ({@link RemoteAtomics}) right before its Atomic Response goes out on queue 3, so that the
 *       responses of Reads and atomics keep request order (RFC 7306 §5.4, §7).</li>
 *   <li><b>Commit draft.</b> A Flush, Verify or Atomic Write at the IRD head is executed by
 *       {@link CommitDraft#respond} right before its response. A Flush to persistence forces its
 *       range off the loop: until the force reported, the IRD head (and every response behind it)
 *       waits while the SQ keeps going ({@link CommitDraft#PENDING}, C-FLUSH-014, C-FLUSH-043).</li>
 * </ul>
 *
 * <p>Thread safety: confined to the engine's event loop.
 */
public final class QpTxEngine {
    private static final int KIND_SEND = 0;
    private static final int KIND_WRITE = 1;
    private static final int KIND_READ = 2;
    /** A commit draft request (Flush, Verify, Atomic Write): one ULPDU on queue 1, like a Read Request. */
    private static final int KIND_COMMIT = 3;
    /** RFC 7306 §5.2.1: one Atomic Request on queue 1. */
    private static final int KIND_ATOMIC = 4;
    /** RFC 7306 §6.2: one Immediate Data message on queue 0. */
    private static final int KIND_IMMEDIATE = 5;
    /** A segment was handed to the link and the message goes on. */
    private static final int SEGMENT_MORE = 0;
    /** The message's last segment was handed to the link. */
    private static final int SEGMENT_LAST = 1;
    /** The segment could not be built; nothing of it reached the link. */
    private static final int SEGMENT_FAILED = 2;
    /** Nothing was sent: the IRD head waits for a Flush's force off the loop; the SQ may go on. */
    private static final int SEGMENT_WAIT = 3;

    private final QpEngine engine;
    private final RdmapMessageEncoder encoder;
    private final MemorySegment header = MemorySegment.ofArray(new byte[Math.max(
            UntaggedHeaderFlyweight.HEADER_LENGTH + TerminateHeaderFlyweight.MAX_LENGTH,
            RdmapMessageEncoder.ATOMIC_REQUEST_LENGTH)]);
    final OutstandingReads ord;
    public final InboundReadQueue ird;

    // SQ WQEs not started yet, and WQEs whose last FPDU awaits the LLP (intrusive FIFOs)
    private final SendWqeChain queue = new SendWqeChain();
    private final SendWqeChain sentList = new SendWqeChain();
    private long nextToken;

    private int sendMsn = 1;
    private int readMsn = 1;
    /** RFC 7306 §5.2.2, AMB-35: queue 3 numbers its messages from 1; Atomic Responses and the commit draft's responses share it. */
    private int queue3Msn = 1;
    /** RFC 7306 §5.2.1: the Request Identifier of the next Atomic Request (chosen by the requester). */
    private int nextAtomicId = 1;
    /** Whether the link asked us to wait for writability. */
    boolean blocked;
    /** An error stopped outbound processing for good (V-TERM-4/8/9): nothing more is sent but a Terminate. */
    private boolean halted;
    private boolean preferResponse;

    // the SQ message in progress
    private SendWqe current;
    private int kind;
    private RdmapOpcode opcode;
    private long length;
    private long done;
    private int sge;
    private long sgeDone;
    private boolean responding;

    QpTxEngine(QpEngine engine, int maxOrd, int ird, int maxIrd) {
        this.engine = engine;
        this.encoder = new RdmapMessageEncoder(engine.features);
        this.ord = new OutstandingReads(maxOrd);
        this.ird = new InboundReadQueue(ird, maxIrd);
    }

    /** Resets the outbound MSNs of queues 0 and 1 (queue 3 always starts at 1: no RTR uses it). */
    void resetMsns(int firstSendMsn, int firstReadMsn) {
        sendMsn = firstSendMsn;
        readMsn = firstReadMsn;
    }

    void enqueue(SendWqe w) {
        queue.add(w);
    }

    boolean hasWork() {
        return !halted && (current != null || responding || !queue.isEmpty() || responseReady());
    }

    /**
     * Whether anything waits on the peer (the progress timeout's condition): an SQ message not yet
     * sent or not yet taken whole by the LLP, a Read, atomic or commit request awaiting its
     * response (ORD), or a response we owe (IRD).
     */
    boolean outstanding() {
        return current != null || responding || !queue.isEmpty() || !sentList.isEmpty() || !ord.isEmpty()
                || !ird.isEmpty();
    }

    /**
     * SQ messages not yet taken whole by the LLP: the one in progress, those queued behind it, and
     * those whose last FPDU the LLP has not taken yet (what the progress timeout's event reports;
     * walks the lists, so for cold paths only).
     */
    int messagesNotTaken() {
        int n = current != null ? 1 : 0;
        for (SendWqe w = queue.first(); w != null; w = w.txNext) {
            n++;
        }
        for (SendWqe w = sentList.first(); w != null; w = w.txNext) {
            n++;
        }
        return n;
    }

    /**
     * Whether the IRD head can be answered now: not while a Flush's force runs off the loop (its
     * completion schedules the engine again). Responses keep request order, so nothing behind it
     * goes either (C-FLUSH-043); the SQ is an independent stream (RFC 5040 §5.5, C-FLUSH-045).
     */
    private boolean responseReady() {
        return !ird.isEmpty() && !engine.commit.persisting();
    }

    /**
     * Sends up to {@code budget} FPDUs. Before each one it looks whether the QP asked to stop
     * (Terminate, Modify to Error, close): outbound processing then stops at this segment boundary,
     * before the next segment reaches the LLP (Verbs §6.4 #3 and #6, V-TERM-7, V-TERM-10), even in the
     * middle of a message.
     *
     * @return FPDUs handed to the link
     */
    int pump(int budget) {
        int n = 0;
        while (n < budget && !blocked && !halted && !engine.stopRequested()) {
            if (current == null && !responding) {
                boolean response = responseReady();
                boolean sq = !queue.isEmpty();
                if (!response && !sq) {
                    break;
                }
                if (response && (!sq || preferResponse)) {
                    responding = true;
                } else {
                    begin(queue.poll());
                }
            }
            SendWqe w = responding ? null : current;
            int r;
            try {
                r = responding ? sendResponseSegment() : sendSqSegment();
            } catch (RuntimeException e) {
                // Verbs §6.4 #1, V-TERM-4: the link failed while it framed this segment (its memory
                // vanished under the CRC, say): part of it may be committed to the stream, so no
                // Terminate can follow; stop at once and reset the LLP stream.
                current = null;
                responding = false;
                halted = true;
                engine.streamFailure(w, e);
                return n;
            }
            if (r == SEGMENT_WAIT) {
                continue; // nothing was sent; the SQ may go while the force runs
            }
            if (r == SEGMENT_FAILED) {
                if (w != null) {
                    // the segment was not begun (Verbs §6.4 #4, V-TERM-8): the Terminate goes instead
                    current = null;
                    halted = true;
                    engine.localFailure(w);
                }
                return n;
            }
            if (r == SEGMENT_LAST) {
                if (w != null) {
                    current = null;
                    preferResponse = true;
                } else {
                    responding = false;
                    preferResponse = false;
                }
            }
            n++;
        }
        return n;
    }


    private void begin(SendWqe w) {
        current = w;
        done = 0;
        sge = 0;
        sgeDone = 0;
        Opcode op = w.opcode;
        switch (op) {
            case SEND -> opcode = RdmapOpcode.SEND;
            case SEND_SE -> opcode = RdmapOpcode.SEND_SE;
            case SEND_INVALIDATE -> opcode = RdmapOpcode.SEND_INVALIDATE;
            case SEND_SE_INVALIDATE -> opcode = RdmapOpcode.SEND_SE_INVALIDATE;
            case RDMA_WRITE -> opcode = RdmapOpcode.RDMA_WRITE;
            case ATOMIC_FETCH_ADD, ATOMIC_CMP_SWAP -> opcode = RdmapOpcode.ATOMIC_REQUEST;
            case IMMEDIATE_DATA -> opcode = RdmapOpcode.IMMEDIATE_DATA;
            case IMMEDIATE_DATA_SE -> opcode = RdmapOpcode.IMMEDIATE_DATA_SE;
            default -> opcode = RdmapOpcode.READ_REQUEST; // RDMA Read and Read with Invalidate Local
        }
        kind = op.isRead() ? KIND_READ : op.isCommitDraft() ? KIND_COMMIT : op == Opcode.RDMA_WRITE ? KIND_WRITE
                : op.isAtomic() ? KIND_ATOMIC : op.isImmediateData() ? KIND_IMMEDIATE : KIND_SEND;
        length = w.inline ? w.inlineLength : w.totalLength();
    }

    /**
     * Sends the next FPDU of the current SQ message.
     *
     * @return {@link #SEGMENT_MORE}, {@link #SEGMENT_LAST}, or {@link #SEGMENT_FAILED} when the
     *         payload memory is no longer there (checked before anything reaches the link)
     */
    private int sendSqSegment() {
        SendWqe w = current;
        int mulpdu = engine.link.mulpdu();
        if (kind == KIND_READ) {
            // RFC 5040 §4.4, §5.2.1: one Read Request on queue 1; the ORD queue matches its response
            ord.add(w);
            int n = encoder.readRequest(header, 0, readMsn++, w.stags[0], w.tos[0], w.lengths[0], w.remoteStag,
                    w.remoteTo);
            blocked = !send(header, 0, n, null, 0, 0);
            return SEGMENT_LAST;
        }
        if (kind == KIND_COMMIT) {
            // draft §3.1: Flush / Verify / Atomic Write Requests on queue 1, MSNs shared with Read
            // Requests; the ORD queue matches the queue-3 response in order (C-FLUSH-012, C-AW-045)
            ord.add(w, CommitDraft.kind(w.opcode));
            int n = engine.commit.request(w, readMsn++);
            blocked = !send(engine.commit.buffer(), 0, n, null, 0, 0);
            return SEGMENT_LAST;
        }
        if (kind == KIND_ATOMIC) {
            // RFC 7306 §5.2.1: one Atomic Request on queue 1, sharing the Read Request MSNs and ORD
            int id = nextAtomicId++;
            ord.add(w, OutstandingReads.ATOMIC, id);
            int n = w.opcode == Opcode.ATOMIC_FETCH_ADD
                    ? encoder.fetchAdd(header, 0, readMsn++, id, w.remoteStag, w.remoteTo, w.addOrSwapData,
                            w.addOrSwapMask)
                    : encoder.compareSwap(header, 0, readMsn++, id, w.remoteStag, w.remoteTo, w.addOrSwapData,
                            w.addOrSwapMask, w.compareData, w.compareMask);
            blocked = !send(header, 0, n, null, 0, 0);
            return SEGMENT_LAST;
        }
        if (kind == KIND_IMMEDIATE) {
            // RFC 7306 §6.3: one 8-byte message on queue 0 in the Send MSN sequence; completes like a Send
            int n = encoder.immediateData(header, 0, opcode == RdmapOpcode.IMMEDIATE_DATA_SE, sendMsn++,
                    w.immediateData);
            sent(w);
            blocked = !send(header, 0, n, null, 0, 0, w.txToken);
            return SEGMENT_LAST;
        }
        int headerLength = kind == KIND_WRITE ? TaggedHeaderFlyweight.HEADER_LENGTH
                : UntaggedHeaderFlyweight.HEADER_LENGTH;
        int room = mulpdu - headerLength;
        MemorySegment payload = null;
        long payloadOffset = 0;
        int chunk = 0;
        if (done < length) {
            if (w.inline) {
                payload = w.inlineSegment;
                payloadOffset = done;
                chunk = (int) Math.min(room, length - done);
            } else {
                while (sgeDone == (w.lengths[sge] & 0xFFFF_FFFFL)) {
                    sge++;
                    sgeDone = 0;
                }
                payload = w.sgeMemory[sge];
                payloadOffset = w.sgeOffset[sge] + sgeDone;
                chunk = (int) Math.min(room, (w.lengths[sge] & 0xFFFF_FFFFL) - sgeDone);
            }
            if (!readable(payload, payloadOffset, chunk)) {
                return SEGMENT_FAILED; // V-TERM-8: registered memory went away under the WQE
            }
            if (!w.inline) {
                sgeDone += chunk;
            }
        }
        boolean last = done + chunk == length;
        int n = kind == KIND_WRITE
                ? encoder.taggedHeader(header, 0, opcode, last, w.remoteStag, w.remoteTo + done)
                : encoder.untaggedHeader(header, 0, opcode, last, w.invalidateStag, sendMsn, (int) done);
        done += chunk;
        engine.counters.sentData(opcode.wireValue(), chunk, last);
        if (!last) {
            blocked = !engine.link.send(header, 0, n, payload, payloadOffset, chunk);
            return SEGMENT_MORE;
        }
        if (kind == KIND_SEND) {
            sendMsn++;
        }
        sent(w);
        blocked = !engine.link.send(header, 0, n, payload, payloadOffset, chunk, w.txToken);
        return SEGMENT_LAST;
    }

    /** Queues a WQE whose last FPDU is being handed to the link: it completes on its token. */
    private void sent(SendWqe w) {
        w.txToken = nextToken++;
        sentList.add(w);
    }

    /** Whether a payload slice can still be read: its memory is alive (not a closed arena) and in range. */
    private static boolean readable(MemorySegment payload, long offset, int length) {
        return payload.scope().isAlive() && offset >= 0 && offset + length <= payload.byteSize();
    }

    /**
     * Sends the next FPDU of the Read Response at the IRD head. Its source is checked first (Verbs
     * §6.4 #5, V-TERM-9): when it is no longer valid, nothing of the segment is sent, outbound
     * processing stops, and the QP is asked to send the Terminate instead of the rest of the response.
     *
     * @return {@link #SEGMENT_MORE}, {@link #SEGMENT_LAST} or {@link #SEGMENT_FAILED}
     */
    private int sendResponseSegment() {
        if (ird.headKind() == InboundReadQueue.ATOMIC) {
            return sendAtomicResponse();
        }
        if (ird.headKind() != InboundReadQueue.READ) {
            return sendCommitResponse();
        }
        int room = engine.link.mulpdu() - TaggedHeaderFlyweight.HEADER_LENGTH;
        long size = ird.headSize();
        long sent = ird.headSent();
        int chunk = (int) Math.min(room, size - sent);
        boolean last = sent + chunk == size;
        MemorySegment source = chunk == 0 ? null : ird.headSource();
        long sourceOffset = ird.headSourceOffset() + sent;
        if (chunk > 0) {
            AsyncEventType fault = sourceFault(source, sourceOffset, sent, chunk);
            if (fault != null) {
                responding = false;
                halted = true;
                engine.responseFailure(fault);
                return SEGMENT_FAILED;
            }
        }
        // RFC 5040 §4.4 / R-READ-005: Sink STag copied, TO advancing from the Sink TO
        int n = encoder.taggedHeader(header, 0, RdmapOpcode.READ_RESPONSE, last, ird.headSinkStag(),
                ird.headSinkTo() + sent);
        ird.headSent(sent + chunk);
        if (last) {
            ird.pop();
        }
        blocked = !send(header, 0, n, source, sourceOffset, chunk);
        return last ? SEGMENT_LAST : SEGMENT_MORE;
    }

    /**
     * Executes the commit draft request at the IRD head and sends its response on queue 3, in order
     * with the Read Responses (C-AW-046). A request that fails sends nothing: the QP was told and
     * the Terminate follows (C-FLUSH-021, C-VERIFY-016). A Flush to persistence whose force runs off
     * the loop sends nothing yet: TX leaves the head (still queued) and comes back when the force
     * reported (C-FLUSH-014: the response only after the force).
     */
    private int sendCommitResponse() {
        int n = engine.commit.respond(queue3Msn);
        if (n == CommitDraft.PENDING) {
            responding = false;
            return SEGMENT_WAIT;
        }
        if (n < 0) {
            responding = false;
            halted = true;
            return SEGMENT_FAILED;
        }
        queue3Msn++;
        ird.pop();
        blocked = !send(engine.commit.buffer(), 0, n, null, 0, 0);
        return SEGMENT_LAST;
    }

    /**
     * Executes the RFC 7306 atomic at the IRD head and sends its Atomic Response on queue 3. It runs
     * only now, when every earlier queue-1 request has generated its response (RFC 7306 §5.4 rules 5
     * and 8, §7: Read → Atomic, Atomic → Atomic), and the memory is changed before the response goes
     * to DDP (A-ATOM-082). The target STag is checked again first, as a Read Response's source
     * (V-TERM-9): if it was invalidated, lost its right or memory since the request was validated,
     * nothing is executed and the QP terminates instead (RFC 7306 §8.1 case 1).
     */
    private int sendAtomicResponse() {
        MemorySegment target = ird.headSource();
        long offset = ird.headSourceOffset();
        AsyncEventType fault = targetFault(target, offset);
        if (fault != null) {
            responding = false;
            halted = true;
            engine.responseFailure(fault);
            return SEGMENT_FAILED;
        }
        long original = RemoteAtomics.execute(target, offset, AtomicOpcode.fromWire(ird.headAopcode()),
                ird.headAddOrSwapData(), ird.headAddOrSwapMask(), ird.headCompareData(), ird.headCompareMask());
        int n = encoder.atomicResponse(header, 0, queue3Msn++, ird.headRequestId(), original);
        ird.pop();
        blocked = !send(header, 0, n, null, 0, 0);
        return SEGMENT_LAST;
    }

    /** Why the atomic at the IRD head cannot run on its target any more, or null when it can. */
    private AsyncEventType targetFault(MemorySegment target, long offset) {
        if (!readable(target, offset, AtomicOps.OPERAND_SIZE)) {
            return AsyncEventType.LOCAL_QP_CATASTROPHIC;
        }
        StagBinding b = engine.stags.lookupValid(ird.headSourceStag());
        if (b == null || b.memory() != target) {
            return AsyncEventType.IRRQ_INVALID_STAG;
        }
        if (!AccessRights.has(b.rights(), AccessRights.REMOTE_ATOMIC)) {
            return AsyncEventType.IRRQ_ACCESS_RIGHTS;
        }
        return b.contains(ird.headSourceTo(), AtomicOps.OPERAND_SIZE) ? null : AsyncEventType.IRRQ_BASE_BOUNDS;
    }

    /**
     * Why the next Read Response segment cannot be built from its source, or null when it can.
     * The source memory must be alive (an application that closed the arena under a registered
     * region: a local catastrophic error of the stream, Verbs Figure 24, 0/2/0x07). When the IRD
     * slot names its source STag, that STag must still be Valid with the same key and the Remote
     * Read right and still cover these bytes with the same memory: the RFC 5040 §7.2 checks of the
     * request, repeated, since a Send with Invalidate, a Deregister or an Invalidate Local STag may
     * have run since the request was validated (RFC 5040 §5.3 invalidation, Verbs §7.8).
     */
    private AsyncEventType sourceFault(MemorySegment source, long sourceOffset, long sent, int chunk) {
        if (!readable(source, sourceOffset, chunk)) {
            return AsyncEventType.LOCAL_QP_CATASTROPHIC;
        }
        int stag = ird.headSourceStag();
        if (stag == 0) {
            return null;
        }
        StagBinding b = engine.stags.lookupValid(stag);
        if (b == null || b.memory() != source) {
            return AsyncEventType.IRRQ_INVALID_STAG;
        }
        if (!AccessRights.has(b.rights(), AccessRights.REMOTE_READ)) {
            return AsyncEventType.IRRQ_ACCESS_RIGHTS;
        }
        return b.contains(ird.headSourceTo() + sent, chunk) ? null : AsyncEventType.IRRQ_BASE_BOUNDS;
    }

    /** Sends the Terminate for an error (RFC 5040 §4.8), with the latched headers when they match. */
    void sendTerminate(IwarpError error) {
        TerminateLatch latch = engine.latch;
        boolean matching = latch.isSet() && latch.error() == error;
        int n = encoder.terminate(header, 0, error, matching ? latch.ddpHeader() : null,
                matching ? latch.segmentLength() : 0, matching ? latch.readRequest() : null);
        send(header, 0, n, null, 0, 0);
    }

    /** Hands one FPDU to the link, counted first (docs/observability.md: completions follow the count). */
    private boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                         long payloadOffset, int payloadLength) {
        engine.counters.sent(header, headerOffset, headerLength, payloadLength, engine.features);
        return engine.link.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
    }

    /** {@link #send(MemorySegment, long, int, MemorySegment, long, int)} with a completion token. */
    private boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                         long payloadOffset, int payloadLength, long token) {
        engine.counters.sent(header, headerOffset, headerLength, payloadLength, engine.features);
        return engine.link.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
    }

    /** The link took every FPDU up to this token: complete the Sends and Writes it finished. */
    void onSent(long token) {
        SendWqe last = sentList.first();
        if (last == null || last.txToken > token) {
            return;
        }
        while (last.txNext != null && last.txNext.txToken <= token) {
            last = last.txNext;
        }
        engine.upcalls.sendsCompleted(sentList.takeThrough(last)); // in SQ order
    }

    void clear() {
        queue.clear();
        sentList.clear();
        current = null;
        responding = false;
        ord.clear();
        ird.clear();
        engine.commit.cancelForce(); // a force in flight answers nobody now (its report is dropped)
    }
}
