package io.jrnic.core.transport;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.RnicConfig;
import io.jrnic.core.SoftRnic;
import io.jrnic.mpa.FpduWriter;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STag 0 from the wire (Verbs §7.2.1, V-MR-16, V-MR-23: "any remote access referencing STag 0 is a
 * protection error"), over real loopback TCP from a raw peer, since no jrnic sender puts STag 0 in
 * a Write or Read Request (V-WR-50). The RNIC's physical memory is STag 0's memory, and the TO the
 * peer names lies inside it, so only the STag-0 rule stands between the peer and that memory.
 */
class StagZeroWireTest {
    private RawInitiator peer;
    private Arena arena;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
        if (arena != null) {
            arena.close();
        }
    }

    /** The raw peer connected to an RNIC whose STag 0 covers 4 KiB of physical memory filled with 0x77. */
    private MemorySegment connectWithPhysicalMemory() throws Exception {
        arena = Arena.ofShared();
        MemorySegment phys = arena.allocate(4096, 4096);
        phys.fill((byte) 0x77);
        peer = new RawInitiator(new ConnectionSettings(), new RnicConfig().physicalMemory(phys),
                new QueuePairConfig().privileged(true));
        peer.connect();
        return phys;
    }

    private static byte[] fpdu(MemorySegment ulpdu, int length) {
        FpduWriter writer = new FpduWriter(false, true);
        byte[] fpdu = new byte[writer.wireLength(length)];
        writer.write(ulpdu, 0, length, MemorySegment.ofArray(fpdu), 0);
        return fpdu;
    }

    /** The Terminate the RNIC sends: its Terminate Control (layer, type, code) at ULPDU bytes 18..20. */
    private int terminateControl() throws Exception {
        byte[] head = peer.raw.getInputStream().readNBytes(24);
        assertThat(head.length).isEqualTo(24);
        assertThat(Arrays.copyOfRange(head, 2, 4)).as("DDP untagged L=1, RDMAP Terminate")
                .isEqualTo(RawFrames.hex("41 47"));
        assertThat(head[11]).as("QN 2").isEqualTo((byte) 2);
        peer.raw.shutdownOutput(); // our FIN: the RNIC's graceful close after its Terminate can finish
        return (head[20] & 0xFF) << 8 | head[21] & 0xFF;
    }

    @Test
    void writeToStagZeroIsInvalidStagAndPlacesNothing_V_MR_16_V_MR_23() throws Exception {
        MemorySegment phys = connectWithPhysicalMemory();
        byte[] payload = new byte[64];
        MemorySegment ulpdu = MemorySegment.ofArray(new byte[14 + 64]);
        new RdmapMessageEncoder(RdmapFeatures.RFC_5040).taggedHeader(ulpdu, 0, RdmapOpcode.RDMA_WRITE, true, 0,
                phys.address());
        MemorySegment.copy(payload, 0, ulpdu, ValueLayout.JAVA_BYTE, 14, 64);
        peer.raw.getOutputStream().write(fpdu(ulpdu, 14 + 64));

        // RFC 5041 §7.2: DDP, tagged buffer error, invalid STag
        assertThat(terminateControl()).isEqualTo(0x1100);
        peer.awaitEvent(AsyncEventType.TAGGED_INVALID_STAG);
        peer.awaitState(QpState.ERROR);
        assertThat(phys.toArray(ValueLayout.JAVA_BYTE)).as("physical memory untouched").containsOnly((byte) 0x77);
    }

    @Test
    void readRequestFromStagZeroIsInvalidStagAndSendsNothing_V_MR_16_V_MR_23() throws Exception {
        MemorySegment phys = connectWithPhysicalMemory();
        MemorySegment ulpdu = MemorySegment.ofArray(new byte[46]);
        int n = new RdmapMessageEncoder(RdmapFeatures.RFC_5040).readRequest(ulpdu, 0, 1, 0x1234_5600, 0, 64, 0,
                phys.address());
        peer.raw.getOutputStream().write(fpdu(ulpdu, n));

        // RFC 5040 §7.4: RDMAP, remote protection error, invalid STag -- and no Read Response first
        assertThat(terminateControl()).isEqualTo(0x0100);
        peer.awaitEvent(AsyncEventType.IRRQ_INVALID_STAG);
        peer.awaitState(QpState.ERROR);
    }
}
