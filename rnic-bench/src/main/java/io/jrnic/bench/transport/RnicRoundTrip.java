package io.jrnic.bench.transport;

import io.jrnic.api.AccessRights;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.WorkCompletion;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * One-sided request/response round trips between two {@link io.jrnic.core.SoftRnic}s over loopback
 * ({@link RnicPair}): each {@link #roundTrip()} posts one signaled request of a
 * {@link OneSidedOperation} to the passive side's advertised target region and busy-polls the CQ
 * until its completion, which the RNIC gives only when the response came back. The passive side
 * has <b>no application thread</b>: its RNIC answers from its own event loops, as the responder of
 * an RDMA Read (RFC 5040 §4.4/§4.5), an RFC 7306 atomic (§5) or a commit-draft Flush, Verify or
 * Atomic Write (draft-talpey-rdma-commit-01 §3.1) does.
 *
 * <pre>
 *  requester (benchmark thread)                          responder (no thread: its RNIC's event loops)
 *  ─────────────────────────────                          ─────────────────────────────────────────────
 *  sink [0, 8): result word    ── request (queue 1) ──►   target [0, 8): the word (counter, Read value)
 *  sink [0, 32): Verify hash   ◄─ response (queue 3) ──   target [0, 64): the Verify range
 *  sink [64, 96): expected hash
 *  poll CQ until the completion of WR n
 * </pre>
 *
 * <p>The operand of every operation is the target word, 8 bytes at TO 0 of the target region:
 * READ reads it (it holds {@link #READ_VALUE}); FETCH_ADD adds 1 (it counts the operations);
 * CMP_SWAP swaps {@code n} for {@code n + 1} in operation {@code n}; ATOMIC_WRITE stores
 * {@code n + 1}; FLUSH flushes it with {@link SendWorkRequest#FLUSH_GLOBAL_VISIBILITY}; VERIFY
 * hashes the {@value #VERIFY_LENGTH} bytes from it (a pattern) without an expected hash, the
 * {@value #HASH_LENGTH}-byte SHA-256 (the region's default {@code VerifyHash}) coming back into
 * the sink. Target words are in memory (native) byte order, as the RNIC executes atomics (engine.md,
 * AMB-27).
 *
 * <p><b>Nothing is measured silently.</b> Every completion must be SUCCESS (else
 * {@link IOException}), carry this operation's WR id and opcode, and its result must be right: the
 * Read value, the original counter value {@code n} of the atomics, the Atomic Write's value in the
 * target word (read on the requester's thread after the completion, which the response orders after
 * the store), the SHA-256 of the Verify range; before each operation the result word or hash sink
 * is overwritten so that a stale result fails. Each failure counts in
 * {@link TransferReport#sequenceErrors()}. {@link #finish()} checks the target word against what the
 * operations must leave there (the counter equals the number of operations, the Read value and the
 * flushed word unchanged) and counts a difference in {@link TransferReport#payloadErrors()}.
 *
 * <p>No allocation per round trip on the calling thread: one reusable {@link SendWorkRequest} and
 * completion batch, results compared in registered memory.
 *
 * <p>Thread safety: as {@link PingPong}: one calling thread.
 */
public final class RnicRoundTrip implements PingPong {

    /** Bytes of the operand of every operation but Verify (Read length, atomic and Flush size). */
    public static final int OPERAND_SIZE = 8;

    /** Bytes hashed by a Verify. */
    public static final int VERIFY_LENGTH = 64;

    /** Bytes of the SHA-256 hash a Verify returns. */
    public static final int HASH_LENGTH = 32;

    /** What the target word holds for READ (and still holds at the end). */
    public static final long READ_VALUE = 0x0123_4567_89AB_CDEFL;

    /** Size of the target and sink regions. */
    static final int REGION_SIZE = 4096;

    /** Offset in the sink of the expected Verify hash, computed once at setup. */
    static final int EXPECTED_HASH_OFFSET = 64;

    /** SQ depth of both sides: one request is outstanding at a time. */
    static final int SQ_DEPTH = 4;

    /** Rights of the target: every data right and the extension rights of all operations (verbs.md). */
    static final int TARGET_RIGHTS = RnicPair.RIGHTS | AccessRights.REMOTE_ATOMIC | AccessRights.FLUSHABLE_GLOBAL
            | AccessRights.VERIFIABLE;

    /** Native-order aligned 8-byte word: the RNIC executes atomics in memory byte order. */
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;

    /** Volatile access to the target word (Atomic Write checks). */
    private static final VarHandle TARGET_WORD = WORD.varHandle();

    private final RnicPair pair;
    private final OneSidedOperation operation;
    private final Opcode opcode;
    private final MessageOptions options;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final RnicPair.Region sink;
    private final MemorySegment target;
    private final int remoteStag;
    private final long remoteTo;
    private final SendWorkRequest wr = new SendWorkRequest(1);
    private final WorkCompletion[] batch = Completions.batch();
    private final BusyWait wait = BusyWait.forRnic();
    private long sent;
    private long delivered;
    private long resultErrors;
    private boolean finished;

    private RnicRoundTrip(RnicPair pair, OneSidedOperation operation, boolean crc, RnicPair.Region sink,
                          MemorySegment target) {
        this.pair = pair;
        this.operation = operation;
        this.opcode = opcodeOf(operation);
        this.options = new MessageOptions(OPERAND_SIZE, crc, false);
        this.qp = pair.active().qp();
        this.cq = pair.active().cq();
        this.sink = sink;
        this.target = target;
        this.remoteStag = pair.active().peer().stag();
        this.remoteTo = pair.active().peer().to();
    }

    /**
     * Connects two RNICs, the passive one advertising its target region (prepared for the operation),
     * the active one holding the sink.
     *
     * @param operation an RNIC operation (not a TCP baseline such as {@link OneSidedOperation#TCP_PING_PONG})
     * @param crc       whether the connection runs MPA with CRC (REQUIRED on both sides) or without (OFF)
     * @return the connected fixture
     * @throws IOException              if the RNICs could not be connected
     * @throws IllegalArgumentException for the TCP baselines ({@link OneSidedOperation#rnic()} false)
     */
    public static RnicRoundTrip open(OneSidedOperation operation, boolean crc) throws IOException {
        opcodeOf(operation); // rejects the TCP baselines before anything is opened
        RnicPair.Depths depths = new RnicPair.Depths(SQ_DEPTH, 1);
        RnicPair pair = RnicPair.open(crc, depths, depths);
        try {
            RnicPair.Region sink = pair.active().register(REGION_SIZE);
            RnicPair.Region target = pair.passive().register(REGION_SIZE, TARGET_RIGHTS);
            MemorySegment range = target.memory().asSlice(0, VERIFY_LENGTH);
            if (operation == OneSidedOperation.READ) {
                target.memory().set(WORD, 0, READ_VALUE);
            } else if (operation == OneSidedOperation.VERIFY) {
                for (int i = 0; i < VERIFY_LENGTH; i++) {
                    range.set(ValueLayout.JAVA_BYTE, i, MessagePattern.patternByte(i));
                }
                sink.memory().asSlice(EXPECTED_HASH_OFFSET, HASH_LENGTH).copyFrom(MemorySegment.ofArray(sha256(range)));
            }
            pair.connect(null, target);
            return new RnicRoundTrip(pair, operation, crc, sink, target.memory());
        } catch (IOException | RuntimeException | Error e) {
            pair.close();
            throw e;
        }
    }

    /** The opcode of the requests (and their completions) of an RNIC operation. */
    static Opcode opcodeOf(OneSidedOperation operation) {
        return switch (operation) {
            case READ -> Opcode.RDMA_READ;
            case FETCH_ADD -> Opcode.ATOMIC_FETCH_ADD;
            case CMP_SWAP -> Opcode.ATOMIC_CMP_SWAP;
            case ATOMIC_WRITE -> Opcode.ATOMIC_WRITE;
            case FLUSH -> Opcode.RDMA_FLUSH;
            case VERIFY -> Opcode.RDMA_VERIFY;
            case TCP_PING_PONG, TCP_BUSY_POLL_PING_PONG -> throw new IllegalArgumentException(
                    operation + " is not an RNIC operation: open it with OneSidedOperation.open");
        };
    }

    /** The SHA-256 of a range, as the responder's default {@code VerifyHash} computes it. */
    static byte[] sha256(MemorySegment range) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(range.toArray(ValueLayout.JAVA_BYTE));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** {@return the operation this fixture runs} */
    public OneSidedOperation operation() {
        return operation;
    }

    /** The responder's target region (tests damage it to check that the checks fail). */
    MemorySegment target() {
        return target;
    }

    /** Message shape for {@link PingPong}: the {@value #OPERAND_SIZE}-byte operand, and the connection's CRC. */
    @Override
    public MessageOptions options() {
        return options;
    }

    /**
     * Posts the next request and busy-polls the CQ until its completion, then checks its result.
     *
     * @return the operation's sequence number {@code n} (its WR id)
     * @throws IOException if the RNIC refused the post, a completion failed, or nothing completed for 30 s
     */
    @Override
    public long roundTrip() throws IOException {
        long sequence = sent;
        MemorySegment local = sink.memory();
        wr.reset().wrId(sequence).signaled(true);
        switch (operation) {
            case READ -> {
                local.set(WORD, 0, ~READ_VALUE);
                wr.opcode(Opcode.RDMA_READ).remote(remoteStag, remoteTo).sge(sink.stag(), sink.to(), OPERAND_SIZE);
            }
            case FETCH_ADD -> {
                local.set(WORD, 0, -1L);
                wr.fetchAdd(1).remote(remoteStag, remoteTo).sge(sink.stag(), sink.to(), OPERAND_SIZE);
            }
            case CMP_SWAP -> {
                local.set(WORD, 0, -1L);
                wr.compareSwap(sequence, sequence + 1).remote(remoteStag, remoteTo)
                        .sge(sink.stag(), sink.to(), OPERAND_SIZE);
            }
            case ATOMIC_WRITE -> wr.atomicWrite(remoteStag, remoteTo, sequence + 1);
            case FLUSH -> wr.flush(remoteStag, remoteTo, OPERAND_SIZE, SendWorkRequest.FLUSH_GLOBAL_VISIBILITY);
            case VERIFY -> {
                for (int offset = 0; offset < HASH_LENGTH; offset += Long.BYTES) {
                    local.set(WORD, offset, 0L); // not asSlice(..).fill: the slice would be allocated
                }
                wr.verify(remoteStag, remoteTo, VERIFY_LENGTH, null).sge(sink.stag(), sink.to(), HASH_LENGTH);
            }
            default -> throw new IllegalStateException("not an RNIC operation: " + operation);
        }
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            throw new IOException("post of " + operation + " refused on " + pair.active() + ": " + e.getMessage(), e);
        }
        sent = sequence + 1;
        wait.reset();
        while (!poll(sequence)) {
            wait.idle("the response", pair.active());
        }
        delivered++;
        return sequence;
    }

    /** One poll of the CQ; checks the completion if there is one, and returns whether there was. */
    private boolean poll(long sequence) throws IOException {
        int n = cq.poll(batch, 0, batch.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = batch[i];
            Completions.check(wc, pair.active());
            if (wc.wrId() != sequence || wc.opcode() != opcode || !resultRight(sequence)) {
                resultErrors++;
            }
        }
        return n > 0;
    }

    /** Whether the result of operation {@code sequence} is what the responder must have answered. */
    private boolean resultRight(long sequence) {
        MemorySegment local = sink.memory();
        return switch (operation) {
            case READ -> local.get(WORD, 0) == READ_VALUE;
            case FETCH_ADD, CMP_SWAP -> local.get(WORD, 0) == sequence; // the original value (RFC 7306 §5.1)
            case ATOMIC_WRITE -> (long) TARGET_WORD.getVolatile(target, 0L) == sequence + 1;
            case FLUSH -> true; // a Flush Response carries no data: the matching completion is the result
            case VERIFY -> MemorySegment.mismatch(local, 0, HASH_LENGTH, local, EXPECTED_HASH_OFFSET,
                    EXPECTED_HASH_OFFSET + HASH_LENGTH) == -1;
            case TCP_PING_PONG, TCP_BUSY_POLL_PING_PONG -> false;
        };
    }

    /** The value the target word must hold after {@code operations} operations. */
    private long expectedTargetWord(long operations) {
        return switch (operation) {
            case READ -> READ_VALUE;
            case FETCH_ADD, CMP_SWAP -> operations;
            case ATOMIC_WRITE -> operations; // operation n stores n + 1; none: still 0
            case FLUSH -> 0L;
            case VERIFY -> verifyWord(); // hashing reads, never writes
            case TCP_PING_PONG, TCP_BUSY_POLL_PING_PONG -> throw new IllegalStateException("not an RNIC operation");
        };
    }

    /** The first word of the Verify range as it was written at setup. */
    private static long verifyWord() {
        MemorySegment word = MemorySegment.ofArray(new byte[OPERAND_SIZE]);
        for (int i = 0; i < OPERAND_SIZE; i++) {
            word.set(ValueLayout.JAVA_BYTE, i, MessagePattern.patternByte(i));
        }
        return word.get(ValueLayout.JAVA_LONG_UNALIGNED, 0); // native order, as the target word is read
    }

    /**
     * Checks the target word, closes both RNICs and reports: {@code sent} requests,
     * {@code delivered} completions, {@code sequenceErrors} completions with a wrong WR id, opcode or
     * result, {@code payloadErrors} 1 if the target word does not hold what the operations leave
     * there (for FETCH_ADD: the counter equals the number of operations). Call once.
     *
     * @return the report; the benchmark's teardown calls {@link TransferReport#verified()}
     * @throws IllegalStateException if called twice
     */
    @Override
    public TransferReport finish() {
        if (finished) {
            throw new IllegalStateException("finish() called twice on this round trip");
        }
        finished = true;
        long finalErrors;
        try {
            finalErrors = (long) TARGET_WORD.getVolatile(target, 0L) == expectedTargetWord(sent) ? 0 : 1;
        } finally {
            pair.close();
        }
        return new TransferReport(sent, delivered, 0, resultErrors, finalErrors, 0);
    }
}
