package io.jrnic.core.transport;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.Counters;
import io.jrnic.api.MessageType;
import io.jrnic.api.QpState;
import io.jrnic.api.TerminateMessage;
import io.jrnic.core.JfrCapture;
import io.jrnic.core.Wire;
import io.jrnic.mpa.FpduWriter;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.lang.foreign.MemorySegment;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observability of a bad FPDU against a raw TCP peer ({@link RawInitiator}: MPA revision 2, CRC
 * on, no markers; docs/observability.md): an FPDU whose CRC fails raises io.jrnic.CrcError and the
 * LLP Terminate 2/0/0x02 as io.jrnic.TerminateSent, and the QP's counters show one CRC error, one
 * Terminate and nothing delivered; a valid FPDU before it is counted.
 */
class RawPeerObservabilityTest {
    private RawInitiator peer;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    private static byte[] fpdu(byte[] ulpdu) {
        FpduWriter writer = new FpduWriter(false, true);
        byte[] out = new byte[writer.wireLength(ulpdu.length)];
        writer.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, MemorySegment.ofArray(out), 0);
        return out;
    }

    @Test
    void aCrcErrorIsRecordedAndCounted() throws Exception {
        try (JfrCapture jfr = new JfrCapture()) {
            peer = new RawInitiator(new ConnectionSettings());
            peer.connect();
            var mr = peer.pd.registerMemory(peer.rnic.allocateMemory(4096, 4096), io.jrnic.api.AccessRights.LOCAL_READ
                    | io.jrnic.api.AccessRights.LOCAL_WRITE | io.jrnic.api.AccessRights.REMOTE_WRITE);
            long base = mr.query().baseTo();
            byte[] good = fpdu(Wire.tagged(Wire.WRITE, true, mr.stag(), base, new byte[100]));
            byte[] bad = fpdu(Wire.tagged(Wire.WRITE, true, mr.stag(), base + 100, new byte[200]));
            bad[bad.length - 1] ^= 0x01; // CRC32c no longer matches (RFC 5044 §4.4)
            peer.raw.getOutputStream().write(RawFrames.concat(good, bad));
            DataInputStream in = new DataInputStream(peer.raw.getInputStream());
            byte[] t = in.readNBytes(in.readUnsignedShort());
            assertThat(t[1] & 0x0F).as("a Terminate").isEqualTo(Wire.TERMINATE);
            peer.raw.shutdownOutput();
            peer.awaitState(QpState.ERROR);

            Predicate<RecordedEvent> ours = e -> e.getString("rnic").equals(peer.rnic.name())
                    && e.getInt("qp") == peer.qp.id();
            assertThat(jfr.events("io.jrnic.CrcError", ours)).hasSize(1);
            TerminateMessage llp = new TerminateMessage(0x2002, true, null);
            assertThat(jfr.events("io.jrnic.TerminateSent", ours)).singleElement().satisfies(e -> {
                assertThat(e.getInt("terminateControl")).isEqualTo(0x2002);
                assertThat(e.getString("layer")).isEqualTo(llp.layerName()).isEqualTo("LLP");
                assertThat(e.getString("errorCode")).isEqualTo(llp.errorCodeName());
            });

            Counters c = peer.qp.counters();
            assertThat(c.crcErrors()).isEqualTo(1);
            assertThat(c.fpdusReceived()).as("the good FPDU only").isEqualTo(1);
            assertThat(c.messagesReceived(MessageType.RDMA_WRITE)).isEqualTo(1);
            assertThat(c.bytesReceived(MessageType.RDMA_WRITE)).isEqualTo(100);
            assertThat(c.terminatesSent()).isEqualTo(1);
            assertThat(c.messagesSent(MessageType.TERMINATE)).isEqualTo(1);
            assertThat(c.bytesSent(MessageType.TERMINATE)).as("no headers copied (R-TERM-014)").isEqualTo(4);
            assertThat(c.fpdusSent()).isEqualTo(1);
            assertThat(peer.rnic.counters().crcErrors()).isEqualTo(1);
        }
    }
}
