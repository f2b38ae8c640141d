package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.RemoteAtomics;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After the first error on the receive stream nothing more is placed (RFC 5040 §7.1, §5.4;
 * R-TERM-047, R-TERM-021): the QP terminates asynchronously, so every error path of the receive
 * engine stops DDP itself. Each test sends a faulty message followed, in the same burst (one read
 * of the link, so the engine sees both before the QP has left RTS), by an RDMA Write that would be
 * valid on its own into a region that allows it; the Write must not land, and exactly one Terminate
 * of the fault's layer, type and code goes out (none for a received Terminate, R-TERM-048).
 * Issue 13: each test kills the "removed call to DdpReceiver::stop" mutant of its error path.
 */
class EngineRxStopTest extends EngineFixture {
    private static final int ATOMIC = RIGHTS | AccessRights.REMOTE_ATOMIC;
    private static final int WRITE_AT = 256;
    private static final byte[] PAYLOAD = new byte[16];

    static {
        Arrays.fill(PAYLOAD, (byte) 0x5A);
    }

    private Side a;
    /** The region the trailing Write targets: it grants Remote Write, so only the stop keeps it clean. */
    private MemoryRegion dst;

    private void engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        dst = a.region(4096, RIGHTS);
    }

    /** The Write behind the fault: on its own it would be placed at dst + WRITE_AT. */
    private byte[] write() {
        return Wire.tagged(Wire.WRITE, true, dst.stag(), a.base(dst) + WRITE_AT, PAYLOAD);
    }

    /**
     * Sends the fault and the Write in one burst, waits for the Terminate (the last of {@code fpdus}
     * FPDUs the engine sent), the Error state and the LLP close, and checks that the Write placed nothing.
     */
    private byte[] faultThenWrite(byte[] fault, int fpdus) {
        raw.send(fault, write()); // one burst: the Write reaches the engine before the QP terminates
        await(() -> raw.received.size() >= fpdus, "the Terminate");
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the LLP close");
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        link.settle();
        assertThat(raw.received).hasSize(fpdus); // exactly one Terminate, the last FPDU
        assertThat(bytes(a.memory(dst), 0, 4096)).containsOnly(0); // R-TERM-047
        return raw.received.getLast();
    }

    private static String header(byte[] ulpdu, int length) {
        return hex(Arrays.copyOf(ulpdu, length));
    }

    // ---- QpRxEngine.examine: the Read Response check (RFC 5040 §5.2.2) ---------------------------

    @Test
    void writeBehindAReadResponseToAnotherStagIsNeverPlaced_R_READ_046_R_TERM_047() {
        engineWithRawPeer();
        MemoryRegion sink = a.region(4096, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), a.base(sink), 64).remote(0x0000_4201, 0x9000));
        await(() -> raw.received.size() == 1, "the Read Request");
        // a Response to a valid STag that is not the sink's: 1/1/0x00 (RFC 5041 §7.1 check 1)
        byte[] r = Wire.tagged(Wire.READ_RESPONSE, true, dst.stag(), a.base(dst), new byte[64]);
        assertBytes(faultThenWrite(r, 2), Wire.TERMINATE_HEADER + " 1100c000 0040 " + header(r, 14));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
        assertThat(bytes(a.memory(sink), 0, 4096)).containsOnly(0);
    }

    // ---- QpRxEngine.rdmapError (RFC 5040 §7.1, R-ERR-021) --------------------------------------

    @Test
    void writeBehindAReadResponseWithNoReadOutstandingIsNeverPlaced_R_ERR_021_R_TERM_047() {
        engineWithRawPeer();
        byte[] r = Wire.tagged(Wire.READ_RESPONSE, true, dst.stag(), a.base(dst), PAYLOAD);
        assertBytes(faultThenWrite(r, 1), Wire.TERMINATE_HEADER + " 0206c000 0010 " + header(r, 14));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
    }

    // ---- QpRxEngine.readRequest (RFC 5040 §5.2.1, §7.2) ----------------------------------------

    @Test
    void writeBehindAShortReadRequestIsNeverPlaced_R_TERM_047() {
        engineWithRawPeer();
        byte[] rr = Wire.untagged(Wire.READ_REQUEST, true, 0, 1, 1, 0, new byte[20]); // 20 of its 28 bytes
        assertBytes(faultThenWrite(rr, 1), Wire.TERMINATE_HEADER + " 02ffc000 0000 " + header(rr, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void writeBehindAReadRequestBeyondIrdIsNeverPlaced_R_READ_044_R_TERM_047() {
        engineWithRawPeer();
        MemoryRegion source = a.region(64, RIGHTS);
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).ird(1));
        byte[] first = Wire.readRequest(1, 0x1234_5601, 0x1000, 8, source.stag(), a.base(source));
        byte[] second = Wire.readRequest(2, 0x1234_5601, 0x2000, 8, source.stag(), a.base(source));
        // the second arrives while the first holds the only IRD slot: 0/2/0x07, as EngineErrorTest (AMB-11)
        assertBytes(faultThenWrite(first, second), Wire.TERMINATE_HEADER + " 0207c000 0000 " + header(second, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_TOO_MANY_READS);
    }

    /** Two requests before the Write: the second is the faulty one. */
    private byte[] faultThenWrite(byte[] first, byte[] second) {
        raw.send(first, second, write());
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the LLP close");
        link.settle();
        assertThat(raw.received).hasSize(1); // the first request is never answered: the Terminate only
        assertThat(bytes(a.memory(dst), 0, 4096)).containsOnly(0); // R-TERM-047
        return raw.received.getLast();
    }

    // ---- QpRxEngine.commitRequest / commitResponse (draft-talpey-rdma-commit-01 §5) ----------------

    @Test
    void writeBehindAFlushToAnInvalidStagIsNeverPlaced_C_FLUSH_051_R_TERM_047() {
        engineWithRawPeer();
        byte[] flush = CommitDraftEngineTest.flushRequest(1, 0x0BAD_0001, 64, 0, 0x02);
        assertBytes(faultThenWrite(flush, 1), Wire.TERMINATE_HEADER + " 0100c000 0000 " + header(flush, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_STAG);
    }

    @Test
    void writeBehindACommitResponseOfTheWrongKindIsNeverPlaced_C_AW_045_R_TERM_047() {
        engineWithRawPeer();
        a.qp.postSend(new SendWorkRequest().wrId(9).flush(0x1234_5601, 0, 8, SendWorkRequest.FLUSH_GLOBAL_VISIBILITY));
        await(() -> raw.received.size() == 1, "the Flush Request");
        byte[] wrong = Wire.untagged(0x11, true, 0, 3, 1, 0, new byte[0]); // an Atomic Write Response
        assertBytes(faultThenWrite(wrong, 2), Wire.TERMINATE_HEADER + " 0206c000 0000 " + header(wrong, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    // ---- QpRxEngine.atomicRequest / atomicResponse (RFC 7306 §5.2, §8) ---------------------------

    @Test
    void writeBehindAnAtomicRequestOfTheWrongLengthIsNeverPlaced_A_ATOM_072_R_TERM_047() {
        engineWithRawPeer();
        byte[] request = Wire.untagged(EngineAtomicsTest.ATOMIC_REQUEST, true, 0, 1, 1, 0, new byte[44]);
        assertBytes(faultThenWrite(request, 1), Wire.TERMINATE_HEADER + " 02ffc000 0000 " + header(request, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void writeBehindAnAtomicRequestBeyondIrdIsNeverPlaced_A_ATOM_041_R_TERM_047() {
        engineWithRawPeer();
        MemoryRegion target = a.region(64, ATOMIC);
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).ird(1));
        byte[] read = Wire.readRequest(1, 0x1234_5601, 0x1000, 8, target.stag(), a.base(target));
        byte[] atomic = EngineAtomicsTest.fetchAdd(2, 1, target.stag(), a.base(target), 1, 0);
        assertBytes(faultThenWrite(read, atomic), Wire.TERMINATE_HEADER + " 0207c000 0000 " + header(atomic, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_TOO_MANY_READS);
        assertThat(RemoteAtomics.read(a.memory(target), 0)).isZero();
    }

    @Test
    void writeBehindAnUnsupportedAtomicOperationIsNeverPlaced_A_ATOM_034_R_TERM_047() {
        engineWithRawPeer();
        MemoryRegion target = a.region(64, ATOMIC);
        byte[] request = EngineAtomicsTest.atomicRequest(1, 0x5, 1, target.stag(), a.base(target), 1, -1L, 0, -1L);
        assertBytes(faultThenWrite(request, 1), Wire.TERMINATE_HEADER + " 0206c000 0000 " + header(request, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
    }

    @Test
    void writeBehindAnAtomicToAnInvalidStagIsNeverPlaced_A_ATOM_074_R_TERM_047() {
        engineWithRawPeer();
        byte[] request = EngineAtomicsTest.fetchAdd(1, 1, 0x0BAD_0001, 0, 1, 0);
        assertBytes(faultThenWrite(request, 1), Wire.TERMINATE_HEADER + " 0100c000 0000 " + header(request, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_STAG);
    }

    @Test
    void writeBehindAnAtomicResponseWithAnotherRequestIdIsNeverPlaced_A_ATOM_044_R_TERM_047() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(1).remote(0x1234_5601, 0x1000)
                .sge(result.stag(), a.base(result), 8));
        await(() -> !raw.received.isEmpty(), "the Atomic Request");
        byte[] response = EngineAtomicsTest.atomicResponse(1, 7, 5);
        assertBytes(faultThenWrite(response, 2), Wire.TERMINATE_HEADER + " 0206c000 0000 " + header(response, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
        assertThat(bytes(a.memory(result), 0, 64)).containsOnly(0);
    }

    // ---- QpRxEngine.deliverImmediate (RFC 7306 §6, A-IMM-013) -----------------------------------

    @Test
    void writeBehindImmediateDataOfTheWrongLengthIsNeverPlaced_A_IMM_013_R_TERM_047() {
        engineWithRawPeer();
        MemoryRegion rb = a.region(64, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(9).sge(rb.stag(), a.base(rb), 64));
        byte[] m = Wire.untagged(0x8, true, 0, 0, 1, 0, new byte[16]);
        assertBytes(faultThenWrite(m, 1), Wire.TERMINATE_HEADER + " 02ffc000 0008 " + header(m, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC);
    }

    // ---- QpRxEngine.terminate / invalidTerminate (RFC 5040 §5.4) --------------------------------

    /** A received Terminate is never answered (R-TERM-048): the QP ends without sending anything. */
    private void terminateThenWrite(byte[] terminate) {
        raw.send(terminate, write());
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the LLP close");
        link.settle();
        assertThat(raw.received).isEmpty();
        assertThat(bytes(a.memory(dst), 0, 4096)).containsOnly(0); // R-TERM-021
    }

    @Test
    void writeBehindAReceivedTerminateIsNeverPlaced_R_TERM_021() {
        engineWithRawPeer();
        terminateThenWrite(Wire.untagged(Wire.TERMINATE, true, 0, 2, 1, 0, hex("20020000")));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
    }

    @Test
    void writeBehindAnInvalidTerminateIsNeverPlaced_R_TERM_024_R_TERM_021() {
        engineWithRawPeer();
        // MSN 5 on queue 2, which expects 1: DDP's check 5 fails; still a Terminate, never answered
        terminateThenWrite(Wire.untagged(Wire.TERMINATE, true, 0, 2, 5, 0, hex("1101 0000")));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
    }

    // ---- QpRxEngine.stop (the engine dies: Modify to Error, Verbs §6.2.4) -------------------------

    /**
     * Modify RTS to Error resets the LLP without a Terminate (V-QPS-39); bytes already read from the
     * socket before the reset took effect are not processed any more: the engine stops DDP when it
     * dies. The Write's bytes are made to wait on the engine's loop right behind the reset.
     */
    @Test
    void writeReadAfterModifyToErrorIsNeverPlaced_V_QPS_39() throws InterruptedException {
        engineWithRawPeer();
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        link.a.executor.execute(() -> {
            held.countDown();
            try {
                hold.await(10, java.util.concurrent.TimeUnit.SECONDS); // bounded: the test releases it below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(held.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        a.qp.modify(new QueuePairModification().nextState(QpState.ERROR)); // the reset task queues on A's loop
        raw.send(write());
        link.b.barrier(); // the Write's bytes now wait on A's loop behind the reset
        hold.countDown();
        await(() -> raw.closure != null, "the LLP reset");
        link.settle();
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_RESET);
        assertThat(raw.received).isEmpty();
        assertThat(bytes(a.memory(dst), 0, 4096)).containsOnly(0);
    }
}
