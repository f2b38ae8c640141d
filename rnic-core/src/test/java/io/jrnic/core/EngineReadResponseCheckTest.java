package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Data Sink checks every Read Response against the Read Request it answers (RFC 5040 §5.2.2,
 * R-READ-030/031/046): same STag, bytes inside the requested sink range, the full length. A raw
 * peer plays a faulty responder; the region would allow the placement, so only this check stops it.
 */
class EngineReadResponseCheckTest extends EngineFixture {
    private static final int READ_SIZE = 64;
    private static final int SINK_OFFSET = 128;

    private Side a;
    private MemoryRegion sink;

    /** Posts a 64-byte RDMA Read into the sink region and returns the sink TO the engine asked for. */
    private long readOutstanding() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        sink = a.region(4096, RIGHTS);
        long sinkTo = a.base(sink) + SINK_OFFSET;
        a.qp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), sinkTo, READ_SIZE).remote(0x0000_4201, 0x9000));
        await(() -> raw.received.size() == 1, "the Read Request");
        assertThat(raw.received.getFirst()[1] & 0x0F).isEqualTo(0x1); // opcode 1: Read Request
        return sinkTo;
    }

    private byte[] respondAndAwaitTerminate(byte[] response) {
        raw.send(response);
        await(() -> raw.received.size() == 2, "the Terminate");
        awaitState(a, QpState.ERROR);
        return raw.received.get(1);
    }

    private void assertReadFailedAndNothingPlaced() {
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(9);
        assertThat(wcs.getFirst().status()).isNotEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(a.memory(sink), 0, 4096)).containsOnly(0);
    }

    private static byte[] payload(int length) {
        byte[] p = new byte[length];
        Arrays.fill(p, (byte) 0x3C);
        return p;
    }

    @Test
    void responseToAnotherStagIsInvalidStag_R_READ_030_R_READ_046() {
        long sinkTo = readOutstanding();
        MemoryRegion other = a.region(4096, RIGHTS); // valid, same PD, Local Write: placeable but not asked for
        byte[] r = Wire.tagged(Wire.READ_RESPONSE, true, other.stag(), a.base(other), payload(READ_SIZE));
        byte[] t = respondAndAwaitTerminate(r);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1100c000 0040 " + hex(Arrays.copyOf(r, 14)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
        assertThat(bytes(a.memory(other), 0, 4096)).containsOnly(0);
        assertReadFailedAndNothingPlaced();
        assertThat(sinkTo).isPositive();
    }

    @Test
    void responseOutsideTheRequestedSinkRangeIsBaseOrBounds_R_READ_031_R_READ_046() {
        long sinkTo = readOutstanding();
        // inside the region, but 8 bytes past the end of the 64 bytes the Read asked for
        byte[] r = Wire.tagged(Wire.READ_RESPONSE, true, sink.stag(), sinkTo + 8, payload(READ_SIZE));
        byte[] t = respondAndAwaitTerminate(r);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1101c000 0040 " + hex(Arrays.copyOf(r, 14)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_BASE_BOUNDS);
        assertReadFailedAndNothingPlaced();
    }

    @Test
    void responseBelowTheSinkIsBaseOrBounds_R_READ_031() {
        long sinkTo = readOutstanding();
        byte[] r = Wire.tagged(Wire.READ_RESPONSE, true, sink.stag(), sinkTo - 16, payload(16));
        byte[] t = respondAndAwaitTerminate(r);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1101c000 0010 " + hex(Arrays.copyOf(r, 14)));
        assertReadFailedAndNothingPlaced();
    }

    @Test
    void shortResponseIsBaseOrBounds_R_READ_030() {
        long sinkTo = readOutstanding();
        byte[] r = Wire.tagged(Wire.READ_RESPONSE, true, sink.stag(), sinkTo, payload(READ_SIZE - 1));
        byte[] t = respondAndAwaitTerminate(r);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1101c000 003f " + hex(Arrays.copyOf(r, 14)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_BASE_BOUNDS);
    }

    @Test
    void segmentsThatOverlapAndLeaveAHoleAreBaseOrBounds_R_READ_030() {
        long sinkTo = readOutstanding();
        // 40 + 24 bytes add up to the Read's 64, but both start at the sink's TO: bytes 40..63 unwritten
        raw.send(Wire.tagged(Wire.READ_RESPONSE, false, sink.stag(), sinkTo, payload(40)));
        byte[] second = Wire.tagged(Wire.READ_RESPONSE, true, sink.stag(), sinkTo, payload(24));
        byte[] t = respondAndAwaitTerminate(second);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1101c000 0018 " + hex(Arrays.copyOf(second, 14)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_BASE_BOUNDS);
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void matchingResponseInTwoSegmentsCompletesTheRead_R_READ_030() {
        long sinkTo = readOutstanding();
        raw.send(Wire.tagged(Wire.READ_RESPONSE, false, sink.stag(), sinkTo, payload(40)));
        raw.send(Wire.tagged(Wire.READ_RESPONSE, true, sink.stag(), sinkTo + 40, payload(24)));
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(a.memory(sink), SINK_OFFSET, READ_SIZE)).containsOnly(0x3C);
        assertThat(bytes(a.memory(sink), SINK_OFFSET + READ_SIZE, 8)).containsOnly(0);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void zeroLengthResponseToAZeroLengthReadIsNotCheckedForStagOrTo_R_READ_023() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        sink = a.region(4096, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), a.base(sink) + SINK_OFFSET, 0).remote(0x0000_4201, 0x9000));
        await(() -> raw.received.size() == 1, "the Read Request");
        // RFC 5041 §5.2: the STag and TO of a zero-length tagged segment are not validated, so a
        // response naming neither the sink's STag nor its TO still completes the zero-length Read
        raw.send(Wire.tagged(Wire.READ_RESPONSE, true, 0x0BAD_0001, 0x77, new byte[0]));
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(9);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        link.settle();
        assertThat(raw.received).hasSize(1); // no Terminate
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void responseInOneSegmentFillingTheSinkExactlyCompletesTheRead_R_READ_030() {
        long sinkTo = readOutstanding();
        raw.send(Wire.tagged(Wire.READ_RESPONSE, true, sink.stag(), sinkTo, payload(READ_SIZE)));
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs).hasSize(1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(a.memory(sink), SINK_OFFSET - 8, 8)).containsOnly(0);
        assertThat(bytes(a.memory(sink), SINK_OFFSET, READ_SIZE)).containsOnly(0x3C);
        assertThat(a.qp.counters().bytesCopied() + a.qp.counters().bytesPlacedDirect()).isEqualTo(READ_SIZE);
    }

    @Test
    void responseOneByteLongerThanTheReadIsBaseOrBounds_R_READ_031() {
        long sinkTo = readOutstanding();
        byte[] response = Wire.tagged(Wire.READ_RESPONSE, true, sink.stag(), sinkTo, payload(READ_SIZE + 1));
        byte[] t = respondAndAwaitTerminate(response);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1101c000 0041 " + hex(Arrays.copyOf(response, 14)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_BASE_BOUNDS);
        assertReadFailedAndNothingPlaced();
    }

    @Test
    void laterSegmentRunningPastTheSinkIsBaseOrBoundsAndNotPlaced_R_READ_031() {
        long sinkTo = readOutstanding();
        raw.send(Wire.tagged(Wire.READ_RESPONSE, false, sink.stag(), sinkTo, payload(40)));
        // continues where the first ended, but 30 bytes where 24 are left: 6 bytes past the sink,
        // inside the region (which would allow them): only the Read's own length stops them
        byte[] second = Wire.tagged(Wire.READ_RESPONSE, false, sink.stag(), sinkTo + 40, payload(30));
        byte[] t = respondAndAwaitTerminate(second);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1101c000 001e " + hex(Arrays.copyOf(second, 14)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_BASE_BOUNDS);
        assertThat(bytes(a.memory(sink), SINK_OFFSET + 40, 30)).containsOnly(0);
    }
}
