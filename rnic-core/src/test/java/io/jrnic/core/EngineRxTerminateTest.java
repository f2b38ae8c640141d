package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the receive path keeps of a Terminate from the peer (RFC 5040 §5.4, §4.8) for Query QP, valid
 * or not, and that nothing behind it on the stream is acted on (R-TERM-021, R-TERM-048). A raw peer
 * sends the Terminates; the QP must never answer one.
 */
class EngineRxTerminateTest extends EngineFixture {
    private Side a;

    private void engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
    }

    /** Waits for the QP to end on the peer's Terminate: Error, the LLP closed, nothing sent back, the receive flushed. */
    private TerminateMessage awaitTerminated() {
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the close");
        assertThat(raw.received).isEmpty(); // R-TERM-048: a Terminate is never answered
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        TerminateMessage m = a.qp.query().terminateMessage();
        assertThat(m.locallyGenerated()).isFalse();
        return m;
    }

    private static byte[] terminate(int msn, String body) {
        return Wire.untagged(Wire.TERMINATE, true, 0, 2, msn, 0, hex(body));
    }

    @Test
    void terminateShorterThanItsControlWordIsKeptAsOperationUnspecified_R_TERM_023() {
        engineWithRawPeer();
        raw.send(terminate(1, "1100")); // 2 of the 4 control bytes: nothing to decode (RFC 5040 §4.8)
        TerminateMessage m = awaitTerminated();
        assertThat(m.terminateControl()).isEqualTo(0x02FF); // RDMAP, remote operation, unspecified
        assertThat(m.headers()).isEmpty();
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(a.qp.counters().terminatesReceived()).isEqualTo(1);
    }

    @Test
    void terminateWithoutDdpHeaderKeepsItsControlAndNoHeaders_R_TERM_014() {
        engineWithRawPeer();
        raw.send(terminate(1, "20020000")); // an LLP CRC error: M = D = R = 0, no headers follow
        TerminateMessage m = awaitTerminated();
        assertThat(m.terminateControl()).isEqualTo(0x2002);
        assertThat(m.headers()).isEmpty();
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
    }

    @Test
    void terminateKeepsTheDdpAndRdmaHeadersItCarries_R_TERM_046() {
        engineWithRawPeer();
        byte[] rr = Wire.readRequest(1, 0x1234_5601, 0x1000, 64, 0x4401, 0);
        // 0/1/0x00 for our Read Request, M D R set: length 0, its DDP header, its RDMA header
        byte[] term = Wire.concat(terminate(1, "0100e000 0000"), rr);
        raw.send(term);
        TerminateMessage m = awaitTerminated();
        assertThat(m.terminateControl()).isEqualTo(0x0100);
        assertThat(m.headers()).isEqualTo(rr);
    }

    @Test
    void invalidTerminateWithItsControlWordIsDecodedForQueryQp_R_TERM_024() {
        engineWithRawPeer();
        // MSN 5 on queue 2, which expects 1: DDP's check 5 fails, exactly the 4 control bytes follow
        raw.send(terminate(5, "1101 0000"));
        TerminateMessage m = awaitTerminated();
        assertThat(m.terminateControl()).isEqualTo(0x1101); // the peer's control, not our error
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
        assertThat(a.qp.counters().terminatesReceived()).isEqualTo(1);
        assertThat(a.qp.counters().terminatesSent()).isZero();
    }

    @Test
    void invalidTerminateTooShortToDecodeKeepsTheErrorFound_R_TERM_024() {
        engineWithRawPeer();
        raw.send(terminate(5, "1101 00")); // 3 bytes: no control word to decode
        TerminateMessage m = awaitTerminated();
        assertThat(m.terminateControl()).isEqualTo(0x1203); // DDP, untagged buffer, MSN range (RFC 5041 §7.2)
        assertThat(m.headers()).isEmpty();
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
    }

    @Test
    void invalidTerminateOnTheSendQueueIsNeverAnswered_R_TERM_024_R_TERM_048() {
        engineWithRawPeer();
        // the Terminate opcode on queue 0: RDMAP rejects the queue, the segment is still a Terminate
        raw.send(Wire.untagged(Wire.TERMINATE, true, 0, 0, 1, 0, hex("1100 c000 0010")));
        TerminateMessage m = awaitTerminated();
        assertThat(m.terminateControl()).isEqualTo(0x1100);
        assertThat(a.eventTypes()).hasSize(1).doesNotContain(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
    }

    @Test
    void framingFaultBehindATerminateIsNeitherCountedNorReported_R_TERM_021() {
        engineWithRawPeer();
        byte[] term = raw.endpoint.frame(terminate(1, "1100c000 0010 " + hex(Arrays.copyOf(
                Wire.tagged(Wire.WRITE, true, 0x77, 0, new byte[0]), 14))));
        byte[] corrupted = raw.endpoint.frame(Wire.send(1, new byte[16]));
        corrupted[corrupted.length - 1] ^= 0x5A; // its CRC fails (RFC 5044 §8)
        raw.endpoint.injectWire(Wire.concat(term, corrupted)); // one stream read: both reach the deframer
        TerminateMessage m = awaitTerminated();
        assertThat(m.terminateControl()).isEqualTo(0x1100);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(a.qp.counters().crcErrors()).isZero();
    }
}
