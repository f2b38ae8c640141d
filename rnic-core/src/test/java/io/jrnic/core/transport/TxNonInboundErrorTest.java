package io.jrnic.core.transport;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.mpa.FpduWriter;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Verbs §6.4 #7 (V-TERM-13) over TCP: while an erroneous inbound segment waits for its delivery
 * (its header failed the checks, so the error is held until the whole segment passed the CRC,
 * V-TERM-11), an error not tied to inbound segments, here a Send Queue error while creating an
 * outbound message, is acted on at once: its Terminate leaves before the rest of the bad segment
 * has even been sent, and the held error is never acted on.
 */
class TxNonInboundErrorTest {
    private RawInitiator peer;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    /** A zero-length Send FPDU (QN 0, the given MSN, L=1), CRC on, no markers. */
    private static byte[] sendFpdu(int msn) {
        MemorySegment header = MemorySegment.ofArray(new byte[18]);
        int n = new RdmapMessageEncoder(RdmapFeatures.RFC_5040).untaggedHeader(header, 0, RdmapOpcode.SEND, true, 0,
                msn, 0);
        FpduWriter writer = new FpduWriter(false, true);
        byte[] fpdu = new byte[writer.wireLength(n)];
        writer.write(header, 0, n, MemorySegment.ofArray(fpdu), 0);
        return fpdu;
    }

    @Test
    void sendQueueErrorIsActedOnWhileABadSegmentAwaitsDelivery_V_TERM_13() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(0, 0, 0));
        peer.connect();
        // A Send, then the first 100 bytes of a 1000-byte Write to an STag we never registered
        // (0x1234: 1/1/0x00 once delivered), in one TCP write: one read takes both, so when the Send's
        // completion is visible the Write's header has been judged and its error is being held.
        byte[] badWrite = RawFrames.writeFpdu(new byte[1000], 0);
        peer.raw.getOutputStream().write(RawFrames.concat(sendFpdu(1), Arrays.copyOf(badWrite, 100)));
        assertThat(peer.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);

        // An SQ error (the Send's memory was freed under its region): V-TERM-8, acted on now
        Arena arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(4096, 4096);
        MemoryRegion mr = peer.pd.registerMemory(memory, AccessRights.LOCAL_READ, 0x51, AddressType.VA_BASED,
                memory.address(), false);
        arena.close();
        peer.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).signaled(true)
                .sge(mr.stag(), memory.address(), 64));

        byte[] t = peer.raw.getInputStream().readNBytes(28);
        // ULPDU_Length 22, our Terminate (QN 2, MSN 1) with 0/0/0 and nothing copied, then the CRC:
        // the Write's held 1/1/0x00 is not what goes out
        assertThat(Arrays.copyOf(t, 24)).isEqualTo(RawFrames.hex(
                "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 00 00 00 00"));
        assertThat(RawFrames.crcValid(t)).isTrue();
        assertThat(peer.raw.getInputStream().read()).as("our FIN after the Terminate").isEqualTo(-1);
        List<WorkCompletion> wcs = peer.completions(1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(2);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR);
        assertThat(peer.qp.state()).isEqualTo(QpState.TERMINATE);

        // the rest of the bad segment arrives after the stop: it is not processed (RFC 5040 §5.4)
        peer.raw.getOutputStream().write(Arrays.copyOfRange(badWrite, 100, badWrite.length));
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.ERROR);
        assertThat(peer.eventTypes()).isEmpty(); // no TAGGED_INVALID_STAG: the held error never acted
        TerminateMessage sent = peer.qp.query().terminateMessage();
        assertThat(sent.terminateControl()).isEqualTo(TerminateMessage.LOCAL_CATASTROPHIC);
        assertThat(sent.locallyGenerated()).isTrue();
    }
}
