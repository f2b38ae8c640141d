package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.StagState;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The QP's own remote access enables on the receive path, against a raw peer (Verbs §7.5.2,
 * §8.1.2.2 Figure 21; RFC 5040 §5.2.1): a region granting the remote right is still closed to a
 * peer when the QP does not enable inbound RDMA Writes or Reads, and the Terminate names the
 * failed check (1/1/0x00 for a Write, AMB-16; 0/1/0x02 for a Read Request) while the event names
 * the cause (V-EV-19, V-EV-14).
 */
class EngineRxAccessTest extends EngineFixture {
    private static final byte[] PAYLOAD = new byte[16];

    static {
        Arrays.fill(PAYLOAD, (byte) 0x5A);
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

    private byte[] awaitTerminate() {
        return awaitOnlyTerminate(a);
    }

    @Test
    void writeToAQpWithoutInboundWriteIsInvalidStagAndPlacesNothing_V_WR_19_V_EV_19() {
        inboundWrite = false;
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS); // the region grants Remote Write: the QP does not
        byte[] w = Wire.tagged(Wire.WRITE, true, mr.stag(), a.base(mr), PAYLOAD);
        raw.send(w);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 1100c000 0010 " + hex(Arrays.copyOf(w, 14)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RDMA_WRITE_NOT_ENABLED);
        assertThat(bytes(a.memory(mr), 0, 4096)).containsOnly(0);
    }

    @Test
    void readRequestToAQpWithoutInboundReadIsAccessViolation_V_WR_21_V_EV_14() {
        inboundRead = false;
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        byte[] rr = Wire.readRequest(1, 0x1234_5601, 0x1000, 64, mr.stag(), a.base(mr));
        raw.send(rr);
        // 0/1/0x02 with the DDP header and the Read Request header echoed (R-TERM-046)
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 0102e000 0000 " + hex(rr));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RDMA_READ_NOT_ENABLED);
    }

    @Test
    void writeToAWindowNeverBoundIsInvalidStag_R_ERR_032_V_MW_18() {
        engineWithRawPeer();
        MemoryRegion mr = a.pd.registerMemory(a.rnic.allocateMemory(4096, 8), RIGHTS | AccessRights.BIND_WINDOW);
        MemoryWindow mw = a.pd.allocateWindow(); // its STag exists, in the Invalid state (Verbs §7.7)
        assertThat(mw.query().state()).isEqualTo(StagState.INVALID);
        byte[] w = Wire.tagged(Wire.WRITE, true, mw.stag(), a.base(mr), PAYLOAD);
        raw.send(w);
        // RFC 5041 §7.1 check 1: an STag that is not Valid, before any PD or QP association check
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 1100c000 0010 " + hex(Arrays.copyOf(w, 14)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
        assertThat(bytes(a.memory(mr), 0, 4096)).containsOnly(0);
    }

    @Test
    void writeBehindARefusedReadRequestInTheSameReadIsNeverPlaced_R_TERM_047() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        byte[] rr = Wire.readRequest(1, 0x1234_5601, 0x1000, 64, mr.stag() ^ 0x02, a.base(mr)); // wrong key
        byte[] w = Wire.tagged(Wire.WRITE, true, mr.stag(), a.base(mr), PAYLOAD); // valid on its own
        raw.send(rr, w); // one burst: the Write reaches the engine before the QP has terminated
        // RFC 5040 §7.1, R-TERM-047: after the first error nothing more on the stream is processed
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 0100e000 0000 " + hex(rr));
        link.settle();
        assertThat(bytes(a.memory(mr), 0, 4096)).containsOnly(0);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_STAG);
    }

    @Test
    void writeAndReadStillWorkWithTheOtherEnableOff_V_WR_19_V_WR_21() {
        inboundRead = false; // a Write needs only the inbound Write enable
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        raw.send(Wire.tagged(Wire.WRITE, true, mr.stag(), a.base(mr) + 8, PAYLOAD));
        await(() -> bytes(a.memory(mr), 8, 16)[15] == 0x5A, "the Write placed");
        assertThat(bytes(a.memory(mr), 8, 16)).containsOnly(0x5A);
        link.settle();
        assertThat(raw.received).isEmpty();
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }
}
