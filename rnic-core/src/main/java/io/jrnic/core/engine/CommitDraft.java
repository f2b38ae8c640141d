package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.Opcode;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.VerifyHash;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.mem.StagBinding;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.rdmap.AtomicWriteRequestHeaderFlyweight;
import io.jrnic.rdmap.FlushRequestHeaderFlyweight;
import io.jrnic.rdmap.RdmapControl;
import io.jrnic.rdmap.RdmapError;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import io.jrnic.rdmap.RdmapValidator;
import io.jrnic.rdmap.VerifyRequestHeaderFlyweight;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.RejectedExecutionException;

/**
 * RDMA Flush, RDMA Verify and Atomic Write (draft-talpey-rdma-commit-01) for one QP engine: the
 * requester side (requests on queue 1, responses on queue 3 matched to the ORD head) and the
 * responder side (validation at Delivery, execution when the request reaches the head of the IRD
 * queue, responses in request order with the Read Responses).
 *
 * <pre>
 *  requester                                    responder
 *  SQ: Flush / Verify / AW ── QN 1, MSN shared ──► deliver: length, IRD, STag, PD, rights, bounds,
 *      ORD slot (kind)        with Read Requests       alignment ─► IRD slot (kind) ─ Terminate on error
 *                                                  IRD head (TX): execute
 *                                                    Flush: fullFence; force() for persistence
 *                                                      (off the loop, TX waits at the IRD head)
 *                                                    Verify: the region's hash over the range, compare
 *                                                    AW: one aligned 8-byte setVolatile
 *  ORD head completes ◄──────── QN 3 Response ───── response (Verify: the hash), or Terminate
 * </pre>
 *
 * <p><b>Ordering</b> (draft §3.1.1.3, §3.1.3.1; checklist C-FLUSH-040..045, C-AW-040..046). A request
 * is validated when it is Delivered, so every earlier Write and Send of the stream is placed. It is
 * executed only when it reaches the head of the single IRD FIFO, after every earlier queue-1 request
 * was answered: Read Responses before it were handed to the link (their bytes read from memory), an
 * earlier Flush or Verify succeeded. An error in any of them terminates the stream before the later
 * request runs, so an Atomic Write is never placed behind a failed operation (C-AW-042). All
 * placement and execution happen on the engine's event loop, so "prior placements" are earlier in
 * program order on one thread; the fence publishes them to every other thread (AMB-62), including
 * the persistence thread that forces a Flush's range after it.
 *
 * <p><b>Hash.</b> The draft leaves the algorithm (and any key) to the region, chosen at local
 * registration and known to the requester out of band (§2.4, C-VERIFY-002, C-ATTR-004): each
 * {@link StagBinding} carries its {@link VerifyHash} (a window's is its region's; SHA-256, 32 bytes,
 * when the registration named none, and for a zero-length Verify, whose STag is not looked at). The
 * responder refuses an expected hash whose length is not the region's output length with 0/2/0xFF
 * (AMB-49), as a mismatch, at Delivery and again at execution; its Verify Response carries exactly
 * the output length. The requester accepts a Verify Response of 1 to
 * {@link SendWorkRequest#MAX_HASH_LENGTH} bytes, and when it sent an expected hash only one of that
 * hash's length (a successful responder computed a hash of the same length); anything else is
 * 0/2/0xFF. Its hash sink receives the leading bytes that fit. One {@link VerifyHasher} per hash
 * is cached per engine ({@link #MAX_HASHERS} at most, then reused round robin), so a Verify allocates
 * nothing.
 *
 * <p><b>Persistence off the loop.</b> The {@code force()} of a Flush to persistence (an msync) runs on
 * the RNIC's {@link PersistenceExecutor}, not on the event loop that other QPs share; TX waits at
 * the IRD head until it reports back ({@link #respond} returns {@link #PENDING}), and a reset or
 * close meanwhile cancels it ({@link #cancelForce()}): its late report is dropped.
 *
 * <p>Thread safety: confined to the engine's event loop, except the static checks, which run under
 * the QP's lock, and the force task ({@code PendingForce}), which runs on a persistence thread and
 * reports back through the loop's executor.
 */
public final class CommitDraft {
    /** The default Verify hash algorithm (JDK {@link MessageDigest} name, {@link VerifyHash#SHA_256}). */
    static final String HASH_ALGORITHM = "SHA-256";
    /** Bytes of a {@link #HASH_ALGORITHM} hash. */
    static final int HASH_LENGTH = 32;
    /** Hashers cached per engine: the distinct Verify hashes one connection's regions use at once. */
    static final int MAX_HASHERS = 16;
    /** Atomic Write store: native byte order (AMB-27), 8-byte aligned, one indivisible access (C-AW-012). */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int CHUNK = 4096;

    /** {@link #respond} result: the request failed and was reported; the QP terminates. */
    static final int FAILED = -1;
    /** {@link #respond} result: a Flush to persistence is being forced off the loop; call again when done. */
    static final int PENDING = -2;
    private static final int FORCE_NONE = 0;
    private static final int FORCE_IN_FLIGHT = 1;
    private static final int FORCE_DONE = 2;
    private static final int FORCE_FAILED = 3;

    private final QpEngine engine;
    private final PersistenceExecutor persistence;
    private final RdmapMessageEncoder encoder;
    private final boolean flushEnabled;
    private final boolean verifyEnabled;
    private final boolean atomicWriteEnabled;
    /** Requests and responses are encoded here: a Verify Request with its hash exceeds the TX header buffer. */
    private final MemorySegment buffer = MemorySegment.ofArray(
            new byte[UntaggedHeaderFlyweight.HEADER_LENGTH + VerifyRequestHeaderFlyweight.FIXED_LENGTH
                    + SendWorkRequest.MAX_HASH_LENGTH]);
    private final FlushRequestHeaderFlyweight flush = new FlushRequestHeaderFlyweight();
    private final VerifyRequestHeaderFlyweight verify = new VerifyRequestHeaderFlyweight();
    private final AtomicWriteRequestHeaderFlyweight atomicWrite = new AtomicWriteRequestHeaderFlyweight();
    private final UntaggedHeaderFlyweight requestHeader = new UntaggedHeaderFlyweight();
    /** The Verify hash's copy buffer, made at the QP's first Verify: 4 KiB per QP that never verifies otherwise. */
    private byte[] chunk;
    /** One per Verify hash in use, created on first use (C-VERIFY-002). */
    private final VerifyHasher[] hashers = new VerifyHasher[MAX_HASHERS];
    private int hasherCount;
    private int nextEvicted;
    /** The hasher of the last successful {@link #verify}: its output is the response. */
    private VerifyHasher computed;
    /** The binding {@link #recheck} found for the IRD head. */
    private StagBinding target;
    private AsyncEventType event;
    /** The force of the Flush at the IRD head (loop-confined): FORCE_NONE, _IN_FLIGHT, _DONE or _FAILED. */
    private int forceState = FORCE_NONE;
    /** The force in flight; a completion that is not this one (cancelled by a reset or close) is dropped. */
    private PendingForce pending;

    CommitDraft(QpEngine engine, QpContext rnic) {
        this.engine = engine;
        this.persistence = rnic.persistence();
        this.encoder = new RdmapMessageEncoder(engine.features);
        this.flushEnabled = rnic.offers(RnicExtension.RDMA_FLUSH);
        this.verifyEnabled = rnic.offers(RnicExtension.RDMA_VERIFY);
        this.atomicWriteEnabled = rnic.offers(RnicExtension.ATOMIC_WRITE);
    }

    /**
     * The RDMAP features of the RNIC's streams: the draft's opcodes (and queue 3) are on when the
     * RNIC has at least one of its three extensions; each opcode is then still checked against its
     * own extension ({@link #enabled(RdmapOpcode)}).
     *
     * @param rfc7306 whether the RFC 7306 opcodes are on too (the RNIC offers atomics or immediate data)
     */
    static RdmapFeatures features(QpContext rnic, boolean rfc7306) {
        boolean draft = rnic.offers(RnicExtension.RDMA_FLUSH) || rnic.offers(RnicExtension.RDMA_VERIFY)
                || rnic.offers(RnicExtension.ATOMIC_WRITE);
        if (draft) {
            return new RdmapFeatures(RdmapControl.VERSION_IETF, rfc7306, true);
        }
        return rfc7306 ? RdmapFeatures.RFC_7306 : RdmapFeatures.RFC_5040;
    }

    /** The extension an operation needs. */
    static RnicExtension extension(Opcode op) {
        return switch (op) {
            case RDMA_FLUSH -> RnicExtension.RDMA_FLUSH;
            case RDMA_VERIFY -> RnicExtension.RDMA_VERIFY;
            case ATOMIC_WRITE -> RnicExtension.ATOMIC_WRITE;
            default -> throw new IllegalArgumentException(op + " is not a commit draft operation");
        };
    }

    /**
     * PostSQ checks (immediate errors): the RNIC has the extension; Flush and Atomic Write carry no
     * SGE, Verify at most one (the sink of the computed hash).
     *
     * @throws VerbsException INVALID_OPERATION_TYPE without the extension, INVALID_SGL_LENGTH for SGEs
     */
    public static void checkPost(QpContext rnic, Opcode op, int sgeCount) {
        RnicExtension x = extension(op);
        if (!rnic.offers(x)) {
            throw new VerbsException(VerbsStatus.INVALID_OPERATION_TYPE,
                    op + " needs the RNIC extension " + x + ", which this RNIC does not advertise");
        }
        int max = op == Opcode.RDMA_VERIFY ? 1 : 0;
        if (sgeCount > max) {
            throw new VerbsException(VerbsStatus.INVALID_SGL_LENGTH,
                    op + " takes at most " + max + " SGE" + (max == 1 ? " (the hash sink)" : "s") + ", had " + sgeCount);
        }
    }

    /**
     * Local checks when the WQE is processed (Verbs Figure 23 style): ORD 0 cannot carry a queue-1
     * request; the remote STag may not be 0 unless a Flush or Verify has length 0 (C-FLUSH-056); the
     * Verify's hash sink needs Local Write.
     *
     * @return null when the request may go out, else its completion status
     */
    public static WorkCompletionStatus checkRequest(QpContext qp, SendWqe w, int ord) {
        if (ord == 0) {
            return WorkCompletionStatus.ZERO_RDMA_READ_RESOURCES;
        }
        boolean empty = w.opcode != Opcode.ATOMIC_WRITE && w.remoteLength == 0;
        if (!empty && w.remoteStag >>> 8 == 0) {
            return WorkCompletionStatus.INVALID_STAG;
        }
        if (w.opcode == Opcode.RDMA_VERIFY && w.sgeCount == 1) {
            return qp.stags().checkLocal(w.stags[0], w.tos[0], w.lengths[0], qp.pd(), qp.privileged(),
                    AccessRights.LOCAL_WRITE);
        }
        return null;
    }

    /** The ORD / IRD kind of a request opcode. */
    static int kind(Opcode op) {
        return switch (op) {
            case RDMA_FLUSH -> OutstandingReads.FLUSH;
            case RDMA_VERIFY -> OutstandingReads.VERIFY;
            default -> OutstandingReads.ATOMIC_WRITE;
        };
    }

    /** Whether this RNIC has the extension of a draft opcode (else it is Unexpected OpCode, C-FLUSH-031). */
    boolean enabled(RdmapOpcode op) {
        return switch (op) {
            case FLUSH_REQUEST, FLUSH_RESPONSE -> flushEnabled;
            case VERIFY_REQUEST, VERIFY_RESPONSE -> verifyEnabled;
            case ATOMIC_WRITE_REQUEST, ATOMIC_WRITE_RESPONSE -> atomicWriteEnabled;
            default -> true;
        };
    }

    /** The buffer {@link #request} and {@link #respond} encode into. */
    MemorySegment buffer() {
        return buffer;
    }

    /** The Verbs event of the last error returned by {@link #accept}, {@link #complete} or {@link #respond}. */
    AsyncEventType event() {
        return event;
    }

    // ---- requester ----------------------------------------------------------------------------

    /**
     * Encodes the request of a Flush, Verify or Atomic Write WQE into {@link #buffer()} (one
     * single-segment message on queue 1, draft §3.1.1.1, §3.1.2.1, §3.1.3.1).
     *
     * @param msn the queue-1 MSN (shared with Read Requests)
     * @return the ULPDU length
     */
    int request(SendWqe w, int msn) {
        return switch (w.opcode) {
            case RDMA_FLUSH -> encoder.flushRequest(buffer, 0, msn, w.remoteStag, w.remoteLength, w.remoteTo,
                    w.flushFlags);
            case RDMA_VERIFY -> encoder.verifyRequest(buffer, 0, msn, w.remoteStag, w.remoteLength, w.remoteTo,
                    w.expectedHashSegment, 0, w.expectedHashLength);
            default -> encoder.atomicWriteRequest(buffer, 0, msn, w.remoteStag, w.remoteTo, w.atomicWriteData);
        };
    }

    /**
     * A Delivered response on queue 3: it answers the ORD head (responses come in request order,
     * C-FLUSH-019, C-AW-020), which must be of its kind. A Verify Response carries the hash, which
     * is written into the WQE's sink SGE if it has one. Completes the WQE (C-AW-045).
     *
     * @param at     offset of the response's payload
     * @param length the DDP message length
     * @return null when completed, else the error to terminate with ({@link #event()} names the event)
     */
    RdmapError complete(RdmapOpcode op, MemorySegment segment, long at, long length) {
        OutstandingReads ord = engine.tx.ord;
        int expected = switch (op) {
            case FLUSH_RESPONSE -> OutstandingReads.FLUSH;
            case VERIFY_RESPONSE -> OutstandingReads.VERIFY;
            default -> OutstandingReads.ATOMIC_WRITE;
        };
        if (ord.isEmpty() || ord.headKind() != expected) {
            event = AsyncEventType.UNEXPECTED_OPCODE; // a response nobody asked for (R-ERR-021 by analogy)
            return RdmapError.UNEXPECTED_OPCODE;
        }
        RdmapError lengthError = RdmapValidator.validateLength(op, length);
        if (lengthError != null || op == RdmapOpcode.VERIFY_RESPONSE && !verifyResponseLength(ord.head(), length)) {
            event = AsyncEventType.INVALID_READ_REQUEST; // AMB-45: 0/2/0xFF
            return RdmapError.OPERATION_UNSPECIFIED;
        }
        SendWqe w = ord.poll();
        WorkCompletionStatus status = WorkCompletionStatus.SUCCESS;
        if (op == RdmapOpcode.VERIFY_RESPONSE && w.sgeCount == 1 && w.lengths[0] != 0) {
            // the hash sink is local memory: checked again now (it may have been invalidated since
            // the WQE was processed); a sink that went away fails the WQE, a local error (V-TERM-8)
            long n = Math.min(length, w.lengths[0] & 0xFFFF_FFFFL);
            QpContext qp = engine.qp;
            status = engine.stags.checkLocal(w.stags[0], w.tos[0], n, qp.pd(), qp.privileged(),
                    AccessRights.LOCAL_WRITE);
            MemorySegment sink = engine.stags.resolveMemory(w.stags[0], w.tos[0]);
            long off = engine.stags.resolveOffset(w.stags[0], w.tos[0]);
            if (status == null && off >= 0 && off + n <= sink.byteSize() && sink.scope().isAlive()) {
                MemorySegment.copy(segment, at, sink, off, n);
                status = WorkCompletionStatus.SUCCESS;
            } else if (status == null) {
                status = WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR;
            }
        }
        engine.upcalls.sendCompleted(w, status);
        return null;
    }

    /**
     * What the requester checks of a Verify Response's length (C-VERIFY-002): the algorithm is the
     * peer region's, so any hash of 1 to {@link SendWorkRequest#MAX_HASH_LENGTH} bytes; when the
     * request carried an expected hash, the peer only answers after matching it, so the response
     * has its length.
     */
    private static boolean verifyResponseLength(SendWqe w, long length) {
        if (length < 1 || length > SendWorkRequest.MAX_HASH_LENGTH) {
            return false;
        }
        return w.expectedHashLength == 0 || length == w.expectedHashLength;
    }

    // ---- responder ----------------------------------------------------------------------------

    /**
     * Validates a Delivered Flush, Verify or Atomic Write Request and queues it in the IRD (draft
     * §5.2, checklist C-FLUSH-055): length, IRD, then for a non-empty range the STag (valid 0/1/0x00,
     * associated 0/1/0x03, right 0/1/0x02, wrap 0/1/0x04, bounds 0/1/0x01) and for an Atomic Write
     * the Data Sink Length (8) and the alignment (0/2/0x07). A zero-length Flush or Verify is not
     * checked against its STag (C-FLUSH-056).
     *
     * @param at        offset of the request header (after the DDP header)
     * @param length    the DDP message length
     * @param ddpHeader the request's DDP header copy (18 bytes at 0)
     * @return null when queued, else the error ({@link #event()} names the Verbs event)
     */
    RdmapError accept(RdmapOpcode op, MemorySegment segment, long at, long length, MemorySegment ddpHeader) {
        RdmapError lengthError = RdmapValidator.validateLength(op, length);
        if (lengthError != null || op == RdmapOpcode.VERIFY_REQUEST
                && length > VerifyRequestHeaderFlyweight.FIXED_LENGTH + SendWorkRequest.MAX_HASH_LENGTH) {
            event = AsyncEventType.INVALID_READ_REQUEST; // AMB-45, AMB-49: 0/2/0xFF
            return RdmapError.OPERATION_UNSPECIFIED;
        }
        QpContext qp = engine.qp;
        InboundReadQueue ird = engine.tx.ird;
        if (ird.size() >= qp.ird()) {
            event = AsyncEventType.IRRQ_TOO_MANY_READS; // R-READ-044, AMB-11: same code for every QN1 request
            return RdmapError.CATASTROPHIC_LOCALIZED;
        }
        int kind;
        int stag;
        long to;
        long size;
        int flags = 0;
        long data = 0;
        int hashLength = 0;
        int right;
        switch (op) {
            case FLUSH_REQUEST -> {
                flush.wrap(segment, at);
                kind = InboundReadQueue.FLUSH;
                stag = flush.stag();
                to = flush.taggedOffset();
                size = flush.length() & 0xFFFF_FFFFL;
                flags = flush.flags();
                // AMB-56: unknown bits ignored; flags 0 is a barrier that needs either Flushable right
                right = (flags & FlushRequestHeaderFlyweight.FLAG_PERSISTENCE) != 0
                        ? AccessRights.FLUSHABLE_PERSISTENT : 0;
                if ((flags & FlushRequestHeaderFlyweight.FLAG_GLOBAL_VISIBILITY) != 0) {
                    right |= AccessRights.FLUSHABLE_GLOBAL;
                }
            }
            case VERIFY_REQUEST -> {
                verify.wrap(segment, at, (int) length);
                kind = InboundReadQueue.VERIFY;
                stag = verify.stag();
                to = verify.taggedOffset();
                size = verify.dataLength() & 0xFFFF_FFFFL;
                hashLength = verify.hashLength();
                right = AccessRights.VERIFIABLE;
            }
            default -> {
                atomicWrite.wrap(segment, at);
                kind = InboundReadQueue.ATOMIC_WRITE;
                stag = atomicWrite.stag();
                to = atomicWrite.taggedOffset();
                size = atomicWrite.length() & 0xFFFF_FFFFL;
                data = atomicWrite.data();
                right = AccessRights.REMOTE_WRITE;
                if (size != AtomicWriteRequestHeaderFlyweight.REQUIRED_LENGTH) {
                    event = AsyncEventType.LOCAL_QP_CATASTROPHIC; // C-AW-014: 0/2/0x07
                    return RdmapError.CATASTROPHIC_LOCALIZED;
                }
            }
        }
        MemorySegment memory = null;
        long memoryOffset = 0;
        if (size != 0) {
            RdmapError error = checkTarget(qp, op, stag, to, size, right);
            if (error != null) {
                return error;
            }
            StagBinding b = engine.stags.lookupValid(stag);
            memory = b.memory();
            memoryOffset = b.offsetOf(to);
            if (kind == InboundReadQueue.ATOMIC_WRITE && !atomicallyPlaceable(memory, memoryOffset)) {
                event = AsyncEventType.LOCAL_QP_CATASTROPHIC; // C-AW-019, RFC 7306 §8.2: 0/2/0x07
                return RdmapError.CATASTROPHIC_LOCALIZED;
            }
            if (hashLength != 0 && hashLength != b.verifyHash().outputLength()) {
                event = AsyncEventType.INVALID_READ_REQUEST; // C-VERIFY-002, AMB-49: as a mismatch, 0/2/0xFF
                return RdmapError.OPERATION_UNSPECIFIED;
            }
        } else {
            stag = 0;
            if (hashLength != 0 && hashLength != VerifyHash.SHA_256.outputLength()) {
                event = AsyncEventType.INVALID_READ_REQUEST; // no region: the default hash (AMB-49)
                return RdmapError.OPERATION_UNSPECIFIED;
            }
        }
        long hashOffset = op == RdmapOpcode.VERIFY_REQUEST ? verify.hashOffset() : 0;
        ird.addCommit(kind, stag, to, size, memory, memoryOffset, flags, data, segment, hashOffset, hashLength,
                ddpHeader, 0);
        return null;
    }

    /**
     * Whether an 8-byte store at this offset is one aligned access (C-AW-012, C-AW-017): the
     * effective address is 8-byte aligned. A native segment qualifies whatever its own base
     * alignment ({@code maxByteAlignment()} is only that of its first byte: memory starting 2 bytes
     * off the grid has aligned targets at offsets 6, 14, ...); a heap segment needs elements of at
     * least 8 bytes, as in {@link RemoteAtomics}.
     */
    private static boolean atomicallyPlaceable(MemorySegment memory, long offset) {
        return (memory.isNative() || memory.maxByteAlignment() >= Long.BYTES)
                && (memory.address() + offset) % Long.BYTES == 0;
    }

    /**
     * The RFC 5040 §7.2 checks of a request's target, as for a Read Request's source, with the
     * draft's attributes as the right (C-FLUSH-055, C-ATTR-001/002/004/006). An Atomic Write also
     * needs the QP's inbound-write enable.
     */
    private RdmapError checkTarget(QpContext qp, RdmapOpcode op, int stag, long to, long size, int right) {
        boolean atomicWrite = op == RdmapOpcode.ATOMIC_WRITE_REQUEST;
        // right 0: a Flush barrier, which either Flushable right allows (AMB-56)
        RdmapError error = engine.stags.checkRequestTarget(qp.pd(), qp.qpId(), stag, to, size, right,
                right == 0 ? AccessRights.FLUSHABLE_PERSISTENT | AccessRights.FLUSHABLE_GLOBAL : 0,
                !atomicWrite || qp.inboundWrite());
        if (error != null) {
            event = switch (error) {
                case INVALID_STAG -> AsyncEventType.IRRQ_INVALID_STAG;
                case STAG_NOT_ASSOCIATED -> AsyncEventType.IRRQ_INVALID_PD;
                case ACCESS_RIGHTS_VIOLATION -> atomicWrite && !qp.inboundWrite()
                        ? AsyncEventType.RDMA_WRITE_NOT_ENABLED : AsyncEventType.IRRQ_ACCESS_RIGHTS;
                case TO_WRAP -> AsyncEventType.IRRQ_WRAP;
                default -> AsyncEventType.IRRQ_BASE_BOUNDS;
            };
        }
        return error;
    }

    /**
     * Executes the request at the IRD head and encodes its response into {@link #buffer()} (queue 3,
     * the next response MSN). The target is checked again first (it may have been invalidated since
     * Delivery, V-TERM-9 by analogy). On failure nothing is sent; the error is latched with the
     * request's DDP header (M=1, D=1, R=0, C-FLUSH-051) and reported to the QP, which terminates.
     *
     * <p>A Flush to persistence of a non-empty range does not force on the loop: after the fence it
     * hands the slice to the RNIC's {@link PersistenceExecutor} and returns {@link #PENDING}; TX then
     * waits at the IRD head (later queue-1 responses wait behind it, C-FLUSH-043) while the loop
     * serves the SQ, the receive path and other QPs. When the force completed, the engine is scheduled
     * and TX calls this method again, which then answers (C-FLUSH-014) or fails (0/2/0x07,
     * C-FLUSH-021) without executing the request a second time.
     *
     * @param msn the queue-3 MSN of the response (shared with RFC 7306 Atomic Responses)
     * @return the response length, {@link #FAILED} when the request failed (already reported), or
     *         {@link #PENDING} while its force runs
     */
    int respond(int msn) {
        InboundReadQueue ird = engine.tx.ird;
        int kind = ird.headKind();
        RdmapError error;
        if (forceState == FORCE_IN_FLIGHT) {
            return PENDING;
        }
        if (forceState != FORCE_NONE) {
            // the Flush at the head was executed (fence, then force off the loop): only its outcome is left
            error = forceState == FORCE_FAILED ? persistFailed() : null;
            forceState = FORCE_NONE;
        } else {
            error = execute(ird, kind);
            if (forceState == FORCE_IN_FLIGHT) {
                return PENDING;
            }
        }
        if (error != null) {
            int segmentLength = kind == InboundReadQueue.VERIFY ? ird.headHashLength() : 0;
            if (engine.latch.set(error, requestHeader.wrap(ird.headRequestHeader(), 0), segmentLength, null, 0)) {
                engine.remoteError(error, event);
            }
            return FAILED;
        }
        return switch (kind) {
            case InboundReadQueue.FLUSH -> encoder.flushResponse(buffer, 0, msn);
            case InboundReadQueue.VERIFY -> encoder.verifyResponse(buffer, 0, msn, computed.outputSegment(), 0,
                    computed.hash().outputLength());
            default -> encoder.atomicWriteResponse(buffer, 0, msn);
        };
    }

    /** Re-checks the head's target and executes the request (a Flush to persistence may start its force). */
    private RdmapError execute(InboundReadQueue ird, int kind) {
        MemorySegment memory = ird.headSource();
        long offset = ird.headSourceOffset();
        long size = ird.headSize();
        if (size != 0) {
            RdmapError error = recheck(ird, memory, size);
            if (error != null) {
                return error;
            }
        }
        return switch (kind) {
            case InboundReadQueue.FLUSH -> flush(ird.headFlags(), memory, offset, size);
            case InboundReadQueue.VERIFY -> verify(ird, size == 0 ? VerifyHash.SHA_256 : target.verifyHash(),
                    memory, offset, size);
            default -> {
                // C-AW-012: one aligned 8-byte store; wire big-endian, memory native (AMB-27);
                // setVolatile also orders it after every earlier placement of this loop (C-AW-018)
                LONG.setVolatile(memory, offset, ird.headData());
                yield null;
            }
        };
    }

    /** The head's target is still the memory it was validated against, with the right, covering the range. */
    private RdmapError recheck(InboundReadQueue ird, MemorySegment memory, long size) {
        if (!memory.scope().isAlive()) {
            event = AsyncEventType.LOCAL_QP_CATASTROPHIC;
            return RdmapError.CATASTROPHIC_LOCALIZED;
        }
        StagBinding b = engine.stags.lookupValid(ird.headSourceStag());
        if (b == null || b.memory() != memory) {
            event = AsyncEventType.IRRQ_INVALID_STAG;
            return RdmapError.INVALID_STAG;
        }
        target = b;
        int kind = ird.headKind();
        int need = kind == InboundReadQueue.VERIFY ? AccessRights.VERIFIABLE
                : kind == InboundReadQueue.ATOMIC_WRITE ? AccessRights.REMOTE_WRITE
                : AccessRights.FLUSHABLE_PERSISTENT | AccessRights.FLUSHABLE_GLOBAL;
        if ((b.rights() & need) == 0) {
            event = AsyncEventType.IRRQ_ACCESS_RIGHTS;
            return RdmapError.ACCESS_RIGHTS_VIOLATION;
        }
        if (!b.contains(ird.headSourceTo(), size)) {
            event = AsyncEventType.IRRQ_BASE_BOUNDS;
            return RdmapError.BASE_OR_BOUNDS_VIOLATION;
        }
        return null;
    }

    /**
     * Draft §3.1.1 / AMB-62. Global visibility: a full fence after every earlier placement (all on
     * this thread). Persistence: {@link MemorySegment#force()} of the range, which needs memory
     * mapped from a file; any other memory cannot be persisted (0/2/0x07, C-FLUSH-013). The fence
     * comes first in both cases, so that the forced bytes are the placed ones; the force itself runs
     * on the RNIC's {@link PersistenceExecutor} (the force is then in flight; the hand-off
     * to the pool publishes the placements to its thread).
     */
    private RdmapError flush(int flags, MemorySegment memory, long offset, long size) {
        VarHandle.fullFence();
        if ((flags & FlushRequestHeaderFlyweight.FLAG_PERSISTENCE) == 0 || size == 0) {
            return null;
        }
        if (!memory.isMapped()) {
            return persistFailed();
        }
        PendingForce f = new PendingForce(memory.asSlice(offset, size));
        pending = f;
        forceState = FORCE_IN_FLIGHT;
        try {
            persistence.submit(f);
        } catch (RejectedExecutionException e) {
            pending = null; // the RNIC is closing: the range cannot be persisted any more
            forceState = FORCE_NONE;
            return persistFailed();
        }
        return null;
    }

    /** C-FLUSH-013/021: the range did not (or cannot) reach persistence: 0/2/0x07. */
    private RdmapError persistFailed() {
        event = AsyncEventType.LOCAL_QP_CATASTROPHIC;
        return RdmapError.CATASTROPHIC_LOCALIZED;
    }

    /** Whether TX waits at the IRD head for a force running off the loop (no response can go yet). */
    public boolean persisting() {
        return forceState == FORCE_IN_FLIGHT;
    }

    /**
     * Forgets a force in flight (the QP is reset or closed, its IRD cleared): its completion, when it
     * comes, is dropped, and nothing is answered.
     */
    void cancelForce() {
        pending = null;
        forceState = FORCE_NONE;
    }

    /** On the loop: the outcome of a force; only the one in flight counts, and the engine resumes TX. */
    private void forced(PendingForce f, boolean persisted) {
        if (f != pending) {
            return; // cancelled: the QP left RTS (reset, close) while the msync ran
        }
        pending = null;
        forceState = persisted ? FORCE_DONE : FORCE_FAILED;
        engine.schedule();
    }

    /**
     * One force of a Flush to persistence: runs {@link PersistenceExecutor.Forcer#force} on the pool,
     * then reports back on the engine's event loop ({@link #forced}). A failing force is an
     * {@code UncheckedIOException} or an unmapped / closed segment (C-FLUSH-021).
     *
     * <p>Thread safety: {@link #run()} on a pool thread, the report on the loop; {@code persisted} is
     * written before the hand-off to the loop's executor and read after it (happens-before).
     */
    private final class PendingForce implements Runnable {
        private final MemorySegment range;
        private volatile boolean persisted;
        private final Runnable report = () -> forced(this, persisted);

        PendingForce(MemorySegment range) {
            this.range = range;
        }

        @Override
        public void run() {
            try {
                persistence.forcer().force(range);
                persisted = true;
            } catch (RuntimeException e) {
                persisted = false;
            }
            try {
                engine.executor.execute(report);
            } catch (RejectedExecutionException e) {
                // the event loop is gone (RNIC closed): so is the QP, nothing to answer
            }
        }
    }

    /**
     * Draft §3.1.2: the region's hash over every byte of the range, compared with the expected hash
     * if any; an expected hash of another length never matches (AMB-49).
     */
    private RdmapError verify(InboundReadQueue ird, VerifyHash hash, MemorySegment memory, long offset, long size) {
        VarHandle.fullFence(); // reads see every earlier placement (C-VERIFY-040/041)
        VerifyHasher h = hasher(hash);
        h.start();
        if (chunk == null) {
            chunk = new byte[CHUNK];
        }
        for (long done = 0; done < size; ) {
            int n = (int) Math.min(CHUNK, size - done);
            MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, offset + done, chunk, 0, n);
            h.update(chunk, 0, n);
            done += n;
        }
        h.finish();
        computed = h;
        int expectedLength = ird.headHashLength();
        if (expectedLength == 0) {
            return null; // a scrub: the hash is only returned (C-VERIFY-001)
        }
        int outputLength = hash.outputLength();
        byte[] expected = ird.headHash();
        byte[] output = h.output();
        boolean equal = expectedLength == outputLength;
        for (int i = 0; equal && i < outputLength; i++) {
            equal = expected[i] == output[i];
        }
        if (!equal) {
            event = AsyncEventType.INVALID_READ_REQUEST; // C-VERIFY-014, C-FLUSH-055: 0/2/0xFF
            return RdmapError.OPERATION_UNSPECIFIED;
        }
        return null;
    }

    /**
     * The cached hasher of a Verify hash, created on its first use; beyond {@link #MAX_HASHERS}
     * distinct hashes the oldest slot is reused round robin. The lookup allocates nothing.
     */
    private VerifyHasher hasher(VerifyHash hash) {
        for (int i = 0; i < hasherCount; i++) {
            VerifyHasher h = hashers[i];
            if (h.hash() == hash || h.hash().equals(hash)) {
                return h;
            }
        }
        VerifyHasher h = new VerifyHasher(hash);
        if (hasherCount < MAX_HASHERS) {
            hashers[hasherCount++] = h;
        } else {
            hashers[nextEvicted] = h;
            nextEvicted = (nextEvicted + 1) % MAX_HASHERS;
        }
        return h;
    }

    /** The hash jrnic's responder computes over the bytes of a default (SHA-256) region (tests). */
    public static byte[] hash(byte[] data) {
        try {
            return MessageDigest.getInstance(HASH_ALGORITHM).digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + HASH_ALGORITHM, e);
        }
    }
}
