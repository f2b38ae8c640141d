package io.jrnic.core.transport;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.FpduWriter;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 9 item 1, over real loopback TCP: a client/server Responder whose first received FPDU is
 * invalid at the MPA level (bad CRC, a marker pointing elsewhere, a ULPDU_Length shorter than any
 * DDP header) sends the Terminate for it, then FIN, exactly as it does for the same fault on a
 * later FPDU. The peer sent an FPDU, so it is in Full Operation: the race RFC 5044 §7.1.2 rule 4
 * guards against cannot happen, and Linux siw sends the Terminate too (docs/transport.md).
 *
 * <p>The peer is a raw socket doing the MPA Request by hand (revision 2, A=0: client/server).
 */
class FirstFpduFaultTest {
    /** The Terminate's fixed part: ULPDU_Length 22, untagged L=1 Terminate, QN 2, MSN 1, MO 0 (RFC 5040 §4.8). */
    private static final String TERMINATE_PREFIX = "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00";

    /** The MPA-level faults, with the Terminate control word (Layer/EType/code, M=D=R=0) each must produce. */
    enum Fault {
        /** RFC 5044 §8 code 2: Layer 2 (LLP), EType 0, code 0x02. */
        CRC("20 02 00 00"),
        /** RFC 5044 §8 code 3: Layer 2, EType 0, code 0x03. */
        MARKER("20 03 00 00"),
        /**
         * ULPDU_Length 2, below the smallest DDP header: Verbs §8.3.3 Figure 24 "segment size
         * invalid", 0x1000, i.e. Layer DDP, EType 0 (DeframeFault.ULPDU_TOO_SHORT).
         */
        SHORT("10 00 00 00");

        final String control;

        Fault(String control) {
            this.control = control;
        }
    }

    private RawInitiator peer;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    /** A Send FPDU (QN 0, the MSN, L=1) with this payload, framed by the stream's writer. */
    private static byte[] sendFpdu(FpduWriter writer, int msn, byte[] payload) {
        MemorySegment header = MemorySegment.ofArray(new byte[18]);
        int n = new RdmapMessageEncoder(RdmapFeatures.RFC_5040).untaggedHeader(header, 0, RdmapOpcode.SEND, true, 0,
                msn, 0);
        byte[] fpdu = new byte[writer.wireLength(n + payload.length)];
        writer.write(header, 0, n, MemorySegment.ofArray(payload), 0, payload.length, MemorySegment.ofArray(fpdu), 0);
        return fpdu;
    }

    @ParameterizedTest(name = "{0}, on the first FPDU: {1}")
    @CsvSource({"CRC, true", "CRC, false", "MARKER, true", "MARKER, false", "SHORT, true", "SHORT, false"})
    void mpaFaultIsAnsweredWithItsTerminateBeforeTheFin(Fault fault, boolean first) throws Exception {
        boolean crc = fault != Fault.MARKER;        // a marker fault is reported only with a valid CRC: no CRC
        boolean markers = fault == Fault.MARKER;    // our Reply asks for markers toward us
        peer = new RawInitiator(new ConnectionSettings().crc(crc ? CrcMode.OPTIONAL : CrcMode.OFF)
                .markers(markers, false));
        MemorySegment memory = peer.rnic.allocateMemory(4096, 4096);
        MemoryRegion mr = peer.pd.registerMemory(memory, AccessRights.LOCAL_WRITE);
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(mr.stag(), memory.address(), 1024));
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(2).sge(mr.stag(), memory.address(), 1024));
        peer.connect(RawFrames.request(MpaSettings.builder().peerToPeer(false)
                .crcPolicy(crc ? CrcPolicy.OPTIONAL : CrcPolicy.OFF).build()), null);
        assertThat(peer.reply[16] & 0x80).as("M in the Reply").isEqualTo(markers ? 0x80 : 0);
        assertThat(peer.reply[16] & 0x40).as("C in the Reply").isEqualTo(crc ? 0x40 : 0);

        // RFC 5044 §4.3: the stream position (markers every 512 octets) counts from the first octet
        // after the Request; one writer frames the whole direction
        FpduWriter writer = new FpduWriter(markers, crc);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        int msn = 1;
        if (!first) {
            stream.writeBytes(sendFpdu(writer, msn++, new byte[16]));
        }
        int badStart = stream.size();
        switch (fault) {
            case CRC -> {
                stream.writeBytes(sendFpdu(writer, msn, new byte[16]));
            }
            case MARKER -> stream.writeBytes(sendFpdu(writer, msn, new byte[600]));
            case SHORT -> stream.writeBytes(RawFrames.hex("00 02 41 43 00 00 00 00"));
        }
        byte[] bytes = stream.toByteArray();
        switch (fault) {
            case CRC -> bytes[bytes.length - 1] ^= 0x5A;
            case MARKER -> {
                // the marker at stream offset 512 lies inside the bad FPDU: move its FPDUPTR by 16
                assertThat(badStart).isLessThan(512);
                bytes[515] += 0x10;
            }
            case SHORT -> {
                // the length alone is the fault; the CRC field is never reached
            }
        }
        peer.raw.getOutputStream().write(bytes);

        byte[] terminate = peer.raw.getInputStream().readNBytes(28);
        assertThat(terminate).as("a Terminate, not a bare FIN").hasSize(28);
        assertThat(Arrays.copyOf(terminate, 24)).isEqualTo(RawFrames.hex(TERMINATE_PREFIX + fault.control));
        if (crc) {
            assertThat(RawFrames.crcValid(terminate)).isTrue();
        } else {
            assertThat(Arrays.copyOfRange(terminate, 24, 28)).containsOnly(0);
        }
        assertThat(peer.raw.getInputStream().read()).as("our FIN right after the Terminate").isEqualTo(-1);

        AsyncEventType event = switch (fault) {
            case CRC -> AsyncEventType.LLP_INVALID_CRC;
            case MARKER -> AsyncEventType.LLP_BAD_FPDU;
            case SHORT -> AsyncEventType.LLP_SEGMENT_SIZE_INVALID;
        };
        peer.awaitEvent(event);
        if (!first) {
            var wc = peer.completions(1).getFirst();
            assertThat(wc.wrId()).isEqualTo(1);
            assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        }
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.ERROR);
    }
}
