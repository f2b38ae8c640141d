package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The asynchronous events of Verbs 1.0 §9.5.3 (Figure 37, causes in §8.3.3 Figure 24) that a
 * malformed or forbidden inbound message raises, each with the Terminate that goes back, the QP's
 * move to Error and nothing placed. A raw peer crafts the messages.
 */
class EngineEventTest extends EngineFixture {
    private static final byte[] PAYLOAD = new byte[16];

    static {
        Arrays.fill(PAYLOAD, (byte) 0x6B);
    }

    private boolean inboundRead = true;
    private boolean inboundWrite = true;
    private Side a;

    @Override
    QueuePairConfig qpConfig(Side s) {
        return super.qpConfig(s).access(inboundRead, inboundWrite, true);
    }

    private void engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
    }

    private byte[] awaitTerminate(AsyncEventType event) {
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        assertThat(raw.received).hasSize(1); // the Terminate is the last (and only) FPDU
        assertThat(a.eventTypes()).containsExactly(event);
        return raw.received.getFirst();
    }

    private static String header(byte[] ulpdu, int length) {
        return hex(Arrays.copyOf(ulpdu, length));
    }

    @Test
    void ulpduShorterThanAnyDdpHeaderIsSegmentSizeInvalid_V_EV_6() {
        engineWithRawPeer();
        raw.send(new byte[] {0x41, 0x43, 0, 0, 0, 0}); // 6 bytes: no DDP header fits
        byte[] t = awaitTerminate(AsyncEventType.LLP_SEGMENT_SIZE_INVALID);
        // Verbs Figure 24: 0x1000 (DDP layer, type 0); no header copy, its fields cannot be trusted
        assertBytes(t, Wire.TERMINATE_HEADER + " 10000000"); // M, D and R clear
    }

    @Test
    void readRequestOnQpWithoutInboundReadIsReadNotEnabled_V_EV_13() {
        inboundRead = false;
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        byte[] r = Wire.readRequest(1, 0x0A0B_0C01, 0x100, 32, mr.stag(), a.base(mr));
        byte[] t = awaitTermination(r, AsyncEventType.RDMA_READ_NOT_ENABLED);
        // RFC 5040 §7.2: remote protection, access rights (0/1/0x02), with both headers (M, D, R);
        // the segment length is the payload after the DDP and RDMAP headers, 0 here (docs/engine.md)
        assertBytes(t, Wire.TERMINATE_HEADER + " 0102e000 0000 " + header(r, 18) + " " + hex(Arrays.copyOfRange(r, 18, 46)));
    }

    @Test
    void writeOnQpWithoutInboundWriteIsWriteNotEnabled_V_EV_14() {
        inboundWrite = false;
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        byte[] w = Wire.tagged(Wire.WRITE, true, mr.stag(), a.base(mr), PAYLOAD);
        byte[] t = awaitTermination(w, AsyncEventType.RDMA_WRITE_NOT_ENABLED);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1100c000 0010 " + header(w, 14)); // AMB-16: 1/1/0x00
        assertThat(bytes(a.memory(mr), 0, 16)).containsOnly(0);
    }

    @Test
    void readRequestTooShortIsInvalidReadRequest_V_EV_15() {
        engineWithRawPeer();
        byte[] body = ByteBuffer.allocate(20).putInt(0x0A0B_0C01).putLong(0x100).putInt(32).putInt(0x1234_5600).array();
        byte[] r = Wire.untagged(Wire.READ_REQUEST, true, 0, 1, 1, 0, body); // 20 of the 28 header bytes
        byte[] t = awaitTermination(r, AsyncEventType.INVALID_READ_REQUEST);
        assertThat(t).hasSizeGreaterThanOrEqualTo(22);
        assertThat(raw.received.getFirst()[1] & 0x0F).isEqualTo(0x7); // a Terminate, not a Read Response
    }

    @Test
    void readRequestWithoutLastFlagIsNoLBit_V_EV_16() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        byte[] r = Wire.readRequest(1, 0x0A0B_0C01, 0x100, 32, mr.stag(), a.base(mr));
        r[0] &= ~0x40; // clear L: a Read Request is always a single segment (RFC 5040 §4.4)
        byte[] t = awaitTermination(r, AsyncEventType.NO_L_BIT);
        assertThat(t[18] >>> 4 & 0x0F).isZero(); // layer RDMAP
        assertThat(t[18] & 0x0F).isEqualTo(0x2); // remote operation error
    }

    @Test
    void readRequestWithWrongMsnIsIrrqMsnRange_V_EV_28() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        byte[] r = Wire.readRequest(2, 0x0A0B_0C01, 0x100, 32, mr.stag(), a.base(mr)); // MSN 1 expected
        byte[] t = awaitTermination(r, AsyncEventType.IRRQ_INVALID_MSN_RANGE);
        assertBytes(Arrays.copyOf(t, 42), Wire.TERMINATE_HEADER + " 1203c000 001c " + header(r, 18));
    }

    private byte[] awaitTermination(byte[] ulpdu, AsyncEventType event) {
        raw.send(ulpdu);
        return awaitTerminate(event);
    }
}
