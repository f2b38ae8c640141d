package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.Counters;
import io.jrnic.api.MemoryRegion;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MPA CRC failures on the receive path are counted and recorded (docs/observability.md): an FPDU
 * whose CRC32c does not match (RFC 5044 §4.4, §8) adds one to the QP's crcErrors counter and raises
 * one io.jrnic.CrcError event, besides the LLP Terminate without headers (R-TERM-014). Other framing
 * faults are not CRC errors. Over the in-memory link with CRC on; the TCP case is
 * transport.RawPeerObservabilityTest.
 */
class EngineRxCrcTest extends EngineFixture {
    private Side a;

    private void engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults()); // CRC on, no markers
    }

    private byte[] awaitTerminate() {
        return awaitOnlyTerminate(a);
    }

    @Test
    void corruptedFpduCountsOneCrcErrorAndRecordsOneEvent_R_TERM_014_V_ERR_21() throws Exception {
        try (JfrCapture jfr = new JfrCapture()) {
            engineWithRawPeer();
            MemoryRegion mr = a.region(4096, RIGHTS);
            raw.send(Wire.tagged(Wire.WRITE, true, mr.stag(), a.base(mr), new byte[100]));
            await(() -> a.qp.counters().fpdusReceived() == 1, "the good Write");
            raw.endpoint.injectCorrupted(Wire.tagged(Wire.WRITE, true, mr.stag(), a.base(mr) + 100, new byte[200]));
            assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 20020000"); // LLP, CRC error, no headers
            assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_INVALID_CRC);

            Counters c = a.qp.counters();
            assertThat(c.crcErrors()).isEqualTo(1);
            assertThat(c.fpdusReceived()).as("the good FPDU only").isEqualTo(1);
            assertThat(a.rnic.counters().crcErrors()).isEqualTo(1);
            Predicate<RecordedEvent> ours = e -> e.getString("rnic").equals(a.rnic.name())
                    && e.getInt("qp") == a.qp.id();
            assertThat(jfr.events("io.jrnic.CrcError", ours)).hasSize(1);
        }
    }

    @Test
    void framingFaultOtherThanCrcIsNoCrcError_R_TERM_014() throws Exception {
        try (JfrCapture jfr = new JfrCapture()) {
            engineWithRawPeer();
            raw.send(new byte[10]); // ULPDU_Length 10, below the 14-byte minimum (RFC 5044 §8)
            // Verbs §8.3.3 Figure 24: segment size invalid is 0x1000 (DDP, local catastrophic), no headers
            assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 10000000");
            assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_SEGMENT_SIZE_INVALID);
            assertThat(a.qp.counters().crcErrors()).isZero();
            Predicate<RecordedEvent> ours = e -> e.getString("rnic").equals(a.rnic.name())
                    && e.getInt("qp") == a.qp.id();
            assertThat(jfr.events("io.jrnic.CrcError", ours)).isEmpty();
        }
    }
}
