package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Byte-exact FPDU framing: wire-format.md §5.3 and §6, RFC 5044 Figures 5 and 6 (markers), and the
 * gathering mode against the copying mode.
 */
class FpduWriterTest {

    static final String FIG5_ULPDU = "4143 00000000 00000000 00000001 00000000" + Hex.zeros(24);
    static final String FIG5_FPDU = "00000000 002a" + FIG5_ULPDU + "52239983";
    static final String FIG6_ULPDU = "4143 00000000 00000000 00000002 00000000" + Hex.zeros(24);
    static final String FIG6_FPDU = "002a 4143 00000000 00000000 00000002 00000000 00000014" + Hex.zeros(24) + "84925898";

    static String frame(FpduWriter writer, String ulpduHex) {
        MemorySegment ulpdu = Hex.segment(ulpduHex);
        MemorySegment out = MemorySegment.ofArray(new byte[Fpdu.maxWireLength((int) ulpdu.byteSize(), true)]);
        int n = writer.write(ulpdu, 0, (int) ulpdu.byteSize(), out, 0);
        return Hex.of(out, 0, n);
    }

    @Test
    void workedExampleRdmaWrite() {
        String ulpdu = "c140 00001234 00000000 00001000" + Hex.of("0123456789abcdef".getBytes());
        assertThat(frame(new FpduWriter(false, true), ulpdu)).isEqualTo(FpduTest.WORKED_EXAMPLE_FPDU);
    }

    @Test
    void section6VectorsFramedAsOpaqueUlpdus() {
        FpduWriter w = new FpduWriter(false, true);
        assertThat(frame(w, "4143 00000000 00000000 00000001 00000000 68656c6c6f")).isEqualTo(Hex.normalize(
                "00 17 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 68 65 6c 6c 6f 00 00 00 b9 90 b1 0c"));
        assertThat(frame(w, "4141 00000000 00000001 00000001 00000000 00005678 0000000000002000 00000010"
                + " 00001234 0000000000001000")).isEqualTo(Hex.normalize(
                "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"
                + "00 00 56 78 00 00 00 00 00 00 20 00 00 00 00 10 00 00 12 34 00 00 00 00 00 00 10 00  5a c9 bb 24"));
        assertThat(frame(w, "4143 00000000 00000000 00000001 00000000")).isEqualTo(Hex.normalize(
                "00 12 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 58 7b e8 c4"));
        assertThat(frame(w, "c140 00000000 0000000000000000")).isEqualTo(Hex.normalize(
                "00 0e c1 40 00 00 00 00 00 00 00 00 00 00 00 00 a3 05 72 ab"));
        assertThat(frame(w, "4141 00000000 00000001 00000001 00000000" + Hex.zeros(28))).isEqualTo(Hex.normalize(
                "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00" + Hex.zeros(28) + "f2 c6 dd 3d"));
        assertThat(frame(w, "4147 00000000 00000002 00000001 00000000 20020000")).isEqualTo(Hex.normalize(
                "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 02 00 00 7f e4 25 85"));
    }

    @Test
    void crcFieldIsZeroWhenCrcDisabled() {
        String fpdu = frame(new FpduWriter(false, false), "c140 00000000 0000000000000000");
        assertThat(fpdu).isEqualTo(Hex.normalize("000e c140 00000000 0000000000000000 00000000"));
    }

    @Test
    void rfc5044Figure5FirstFpduStartsWithMarker() {
        FpduWriter w = new FpduWriter(true, true);
        assertThat(frame(w, FIG5_ULPDU)).isEqualTo(Hex.normalize(FIG5_FPDU));
        assertThat(w.position()).isEqualTo(0x34);
    }

    @Test
    void rfc5044Figure6MarkerInsideFpduPointsAtItsHeader() {
        FpduWriter w = new FpduWriter(true, true, 0x1EC);
        assertThat(w.wireLength(42)).isEqualTo(0x34);
        assertThat(frame(w, FIG6_ULPDU)).isEqualTo(Hex.normalize(FIG6_FPDU));
        assertThat(w.position()).isEqualTo(0x220);
    }

    @Test
    void rfc5044Figure6StreamFromTheFirstByte() {
        // Figure 6's first FPDU is 492 octets with its leading marker: 4 + 2 + 482 + 0 pad + 4.
        FpduWriter w = new FpduWriter(true, true);
        String first = frame(w, "4143 00000000 00000000 00000001 00000000" + Hex.zeros(482 - 18));
        assertThat(first.length() / 2).isEqualTo(0x1EC);
        assertThat(first).startsWith("0000000001e2");
        assertThat(frame(w, FIG6_ULPDU)).isEqualTo(Hex.normalize(FIG6_FPDU));
    }

    @Test
    void markerBetweenPadAndCrcIsCoveredAndPointsAtHeader() {
        // At position 492 a 17-byte ULPDU ends its pad at 492 + 2 + 17 + 1 = 512: marker before the CRC.
        FpduWriter w = new FpduWriter(true, true, 492);
        MemorySegment ulpdu = MemorySegment.ofArray(new byte[17]);
        ulpdu.fill((byte) 0x7E);
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        int n = w.write(ulpdu, 0, 17, out, 0);
        assertThat(n).isEqualTo(28);
        assertThat(Hex.of(out, 0, 2)).isEqualTo("0011");
        assertThat(Hex.of(out, 19, 1)).isEqualTo("00");                 // pad
        assertThat(Hex.of(out, 20, 4)).isEqualTo("00000014");           // FPDUPTR 20 = 512 - 492
        assertThat(Crc32c.compute(out, 0, 28)).isEqualTo(Crc32c.RESIDUE); // CRC covers the marker
        assertThat(w.position()).isEqualTo(520);
    }

    @Test
    void markerRightAfterCrcBelongsToNextFpdu() {
        FpduWriter w = new FpduWriter(true, true, 492);
        MemorySegment ulpdu = MemorySegment.ofArray(new byte[14]);
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        assertThat(w.write(ulpdu, 0, 14, out, 0)).isEqualTo(20);
        assertThat(w.position()).isEqualTo(512);
        int n = w.write(ulpdu, 0, 14, out, 0);
        assertThat(n).isEqualTo(24);
        assertThat(Hex.of(out, 0, 6)).isEqualTo("00000000000e");
        assertThat(Crc32c.compute(out, 0, 24)).isEqualTo(Crc32c.RESIDUE);
    }

    @Test
    void gatherNeverCopiesPayloadAndMatchesWriteByteForByte() {
        Random random = new Random(5044);
        for (int iteration = 0; iteration < 300; iteration++) {
            boolean markers = random.nextBoolean();
            boolean crc = random.nextBoolean();
            int start = random.nextInt(1 << 12) * 4;
            int headerLength = random.nextInt(47);
            int payloadLength = random.nextInt(3000);
            byte[] header = new byte[headerLength];
            byte[] payload = new byte[payloadLength];
            random.nextBytes(header);
            random.nextBytes(payload);
            MemorySegment h = MemorySegment.ofArray(header);
            MemorySegment p = MemorySegment.ofArray(payload);

            FpduWriter copying = new FpduWriter(markers, crc, start);
            MemorySegment out = MemorySegment.ofArray(new byte[copying.wireLength(headerLength + payloadLength)]);
            int written = copying.write(h, 0, headerLength, p, 0, payloadLength, out, 0);

            FpduWriter gathering = new FpduWriter(markers, crc, start);
            MemorySegment scratch = MemorySegment.ofArray(new byte[gathering.scratchLength(headerLength, payloadLength)]);
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            List<MemorySegment> payloadPieces = new ArrayList<>();
            int used = gathering.gather(h, 0, headerLength, p, 0, payloadLength, scratch, 0, (seg, off, len) -> {
                assertThat(len).isPositive();
                if (seg == p) {
                    payloadPieces.add(seg);
                }
                wire.writeBytes(seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
            });

            assertThat(Hex.of(wire.toByteArray())).as("iteration %d", iteration).isEqualTo(Hex.of(out, 0, written));
            assertThat(used + payloadLength).isEqualTo(written);
            assertThat(gathering.position()).isEqualTo(copying.position()).isEqualTo(start + written);
            if (payloadLength > 0) {
                assertThat(payloadPieces).isNotEmpty();
            }
            if (crc) {
                assertThat(Crc32c.compute(out, 0, written)).isEqualTo(Crc32c.RESIDUE);
            }
        }
    }

    @Test
    void rejectsOversizedUlpduAndTooSmallDestinationWithoutSideEffects() {
        FpduWriter w = new FpduWriter(false, true);
        MemorySegment big = MemorySegment.ofArray(new byte[65536]);
        assertThatThrownBy(() -> w.write(big, 0, 65536, big, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("65535");
        MemorySegment small = MemorySegment.ofArray(new byte[10]);
        assertThatThrownBy(() -> w.write(big, 0, 14, small, 0)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("needs 20");
        assertThat(w.position()).isZero();
        assertThatThrownBy(() -> new FpduWriter(true, true, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("multiple of 4");
        assertThatThrownBy(() -> w.gather(big, 0, 0, big, 0, 14, small, 0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sink");
    }

    @Test
    void reportsItsMode() {
        FpduWriter w = new FpduWriter(true, false);
        assertThat(w.markers()).isTrue();
        assertThat(w.crcEnabled()).isFalse();
        FpduWriter v = new FpduWriter(false, true);
        assertThat(v.markers()).isFalse();
        assertThat(v.crcEnabled()).isTrue();
    }

    /** RFC 5044 §4.1: pad octets are sent as zero, whatever the destination held before. */
    @Test
    void padIsZeroInADirtyDestinationAndScratch() {
        MemorySegment ulpdu = Hex.segment("4143 00000000 00000000 00000001 00000000 68656c6c6f");  // 23: pad 3
        String expected = Hex.normalize(
                "00 17 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 68 65 6c 6c 6f 00 00 00 b9 90 b1 0c");
        MemorySegment dst = MemorySegment.ofArray(new byte[32]);
        dst.fill((byte) 0xFF);
        assertThat(new FpduWriter(false, true).write(ulpdu, 0, 23, dst, 0)).isEqualTo(32);
        assertThat(Hex.of(dst, 0, 32)).isEqualTo(expected);

        FpduWriter gathering = new FpduWriter(false, true);
        MemorySegment scratch = MemorySegment.ofArray(new byte[gathering.scratchLength(18, 5)]);
        scratch.fill((byte) 0xFF);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        gathering.gather(ulpdu, 0, 18, ulpdu, 18, 5, scratch, 0,
                (seg, off, len) -> wire.writeBytes(seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE)));
        assertThat(Hex.of(wire.toByteArray())).isEqualTo(expected);
    }

    @Test
    void scratchHoldsTheWritersOwnOctetsOnly() {
        // ULPDU_Length 2 + header 18 + pad 0 + CRC 4; with markers from position 0 also the markers
        // at 0, 512 and 1024 of the 1036-octet FPDU.
        assertThat(new FpduWriter(false, true).scratchLength(18, 1000)).isEqualTo(24);
        FpduWriter w = new FpduWriter(true, true);
        assertThat(w.wireLength(1018)).isEqualTo(1036);
        assertThat(w.scratchLength(18, 1000)).isEqualTo(36);
    }

    @Test
    void tooSmallScratchIsRejectedBeforeAnythingIsWrittenOrEmitted() {
        FpduWriter w = new FpduWriter(true, true, 508);
        MemorySegment payload = MemorySegment.ofArray(new byte[100]);
        int needed = w.scratchLength(14, 100);
        MemorySegment scratch = MemorySegment.ofArray(new byte[needed - 1]);
        List<Long> pieces = new ArrayList<>();
        assertThatThrownBy(() -> w.gather(payload, 0, 14, payload, 14, 86, scratch, 0, (seg, off, len) -> pieces.add(len)))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("scratch has " + (needed - 1) + " bytes from offset 0");
        assertThat(pieces).isEmpty();
        assertThat(scratch.toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
        assertThat(w.position()).isEqualTo(508);
    }

    @Test
    void roomIsCountedFromTheDestinationOffset() {
        FpduWriter w = new FpduWriter(false, true);
        MemorySegment ulpdu = MemorySegment.ofArray(new byte[14]);
        MemorySegment dst = MemorySegment.ofArray(new byte[24]);
        assertThatThrownBy(() -> w.write(ulpdu, 0, 14, dst, 8)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("destination has 16 bytes from offset 8, FPDU needs 20");
        assertThat(dst.toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
        assertThat(w.position()).isZero();
        assertThat(w.write(ulpdu, 0, 14, dst, 4)).isEqualTo(20);       // exactly enough from offset 4
        assertThat(Hex.of(dst, 4, 2)).isEqualTo("000e");
    }
}
