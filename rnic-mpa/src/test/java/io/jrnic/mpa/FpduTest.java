package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** FPDU layout, pad and MULPDU arithmetic (RFC 5044 §4.1, §4.5; wire-format.md §2.3, §2.6, §5.3). */
class FpduTest {

    static final String WORKED_EXAMPLE_FPDU =
            "001ec14000001234000000000000100030313233343536373839616263646566496e2784";

    @ParameterizedTest
    @CsvSource({"0,2", "1,1", "2,0", "3,3", "14,0", "18,0", "23,3", "30,0", "42,0", "46,0", "65535,3"})
    void padMakesLengthFieldPlusUlpduAMultipleOfFour(int ulpdu, int pad) {
        assertThat(Fpdu.padLength(ulpdu)).isEqualTo(pad);
        assertThat((2 + ulpdu + pad) % 4).isZero();
        assertThat(Fpdu.frameLength(ulpdu)).isEqualTo(2 + ulpdu + pad + 4);
    }

    @ParameterizedTest
    @CsvSource({"1460,1454,1442", "1448,1442,1430", "8960,8954,8882", "536,530,522"})
    void mulpduTableOfWireFormat26(int emss, int withoutMarkers, int withMarkers) {
        assertThat(Fpdu.mulpdu(emss, false)).isEqualTo(withoutMarkers);
        assertThat(Fpdu.mulpdu(emss, true)).isEqualTo(withMarkers);
    }

    /** RFC 5044 §4.1: "The range of MULPDU values MUST be between 128 octets and 64768 octets, inclusive." */
    @Test
    void mulpduNeverBelow128NorAbove64768() {
        assertThat(Fpdu.mulpdu(100, false)).isEqualTo(128);
        assertThat(Fpdu.mulpdu(1, true)).isEqualTo(128);
        assertThat(Fpdu.mulpdu(134, false)).isEqualTo(128);
        assertThat(Fpdu.mulpdu(135, true)).as("122 by the formula").isEqualTo(128);
        assertThat(Fpdu.mulpdu(64775, false)).as("the formula's last value below the cap").isEqualTo(64766);
        assertThat(Fpdu.mulpdu(64776, false)).as("64770 by the formula").isEqualTo(64768);
        assertThat(Fpdu.mulpdu(65536 + 64, false)).isEqualTo(Fpdu.MAX_MULPDU);
        assertThat(Fpdu.mulpdu(65536 + 64, true)).as("markers: 65084 by the formula").isEqualTo(64768);
        for (int emss = 1; emss <= 70_000; emss++) {
            for (boolean markers : new boolean[] {false, true}) {
                assertThat(Fpdu.mulpdu(emss, markers)).as("EMSS %d, markers %s", emss, markers).isBetween(128, 64768);
            }
        }
        assertThatThrownBy(() -> Fpdu.mulpdu(0, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("EMSS");
    }

    @Test
    void flyweightReadsWorkedExampleFpdu() {
        MemorySegment seg = Hex.segment(WORKED_EXAMPLE_FPDU);
        Fpdu fpdu = new Fpdu().wrap(seg, 0);
        assertThat(fpdu.ulpduLength()).isEqualTo(30);
        assertThat(fpdu.ulpduOffset()).isEqualTo(2);
        assertThat(fpdu.crcOffset()).isEqualTo(32);
        assertThat(fpdu.frameLength()).isEqualTo(36);
        assertThat(fpdu.crc()).isEqualTo(0x84276E49);
        assertThat(fpdu.computeCrc()).isEqualTo(0x84276E49);
        assertThat(fpdu.verify(true)).isNull();
    }

    @Test
    void flyweightWritesSendHelloVector() {
        MemorySegment seg = MemorySegment.ofArray(new byte[32]);
        seg.fill((byte) 0x55);
        Fpdu fpdu = new Fpdu().wrap(seg, 0).ulpduLength(23);
        MemorySegment.copy(Hex.segment("4143 00000000 00000000 00000001 00000000 68656c6c6f"), 0, seg, 2, 23);
        fpdu.clearPad().crc(fpdu.computeCrc());
        assertThat(Hex.of(seg, 0, 32)).isEqualTo(Hex.normalize(
                "00 17 41 43 | 00 00 00 00 | 00 00 00 00 | 00 00 00 01 | 00 00 00 00 | 68 65 6c 6c | 6f 00 00 00 | b9 90 b1 0c"));
    }

    @Test
    void verifyReportsCrcMismatchOnlyWhenCrcEnabled() {
        MemorySegment seg = Hex.segment(WORKED_EXAMPLE_FPDU);
        seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 20, (byte) 0x00);
        Fpdu fpdu = new Fpdu().wrap(seg, 0);
        assertThat(fpdu.verify(true)).isEqualTo(MpaError.CRC_MISMATCH);
        assertThat(fpdu.verify(false)).isNull();
    }

    @Test
    void maxWireLengthBoundsMarkers() {
        assertThat(Fpdu.maxWireLength(30, false)).isEqualTo(36);
        assertThat(Fpdu.maxWireLength(30, true)).isGreaterThanOrEqualTo(36 + 8);
        for (int position = 0; position < 1024; position += 4) {
            FpduWriter w = new FpduWriter(true, true, position);
            for (int len : new int[] {0, 14, 500, 508, 1020, 65535}) {
                assertThat(w.wireLength(len)).isLessThanOrEqualTo(Fpdu.maxWireLength(len, true));
            }
        }
    }

    @Test
    void fpduOfMulpduWithMarkersFitsEmssAtEveryStreamPosition() {
        for (int emss = 160; emss <= 9000; emss += 7) {
            int mulpdu = Fpdu.mulpdu(emss, true);
            for (int position = 0; position < 512; position += 4) {
                assertThat(new FpduWriter(true, true, position).wireLength(mulpdu)).as("EMSS %d at %d", emss, position)
                        .isLessThanOrEqualTo(emss);
            }
            assertThat(Fpdu.frameLength(Fpdu.mulpdu(emss, false))).isLessThanOrEqualTo(emss);
        }
    }

    @Test
    void maxWireLengthIsTheFrameAndOneMarkerPerStarted508OctetsPlusOne() {
        assertThat(Fpdu.maxWireLength(30, true)).isEqualTo(36 + 2 * 4);
        assertThat(Fpdu.maxWireLength(502, true)).as("a 508-octet frame starts one interval").isEqualTo(508 + 2 * 4);
        assertThat(Fpdu.maxWireLength(506, true)).isEqualTo(512 + 3 * 4);
    }

    /** RFC 5044 §4.5: {@code 4 * ceil(EMSS / 512)} octets of markers, exact at multiples of 512. */
    @ParameterizedTest
    @CsvSource({"511,502,498", "512,506,502", "1024,1018,1010", "1025,1018,1006"})
    void mulpduCountsOneMarkerPerStarted512OctetsOfEmss(int emss, int withoutMarkers, int withMarkers) {
        assertThat(Fpdu.mulpdu(emss, false)).isEqualTo(withoutMarkers);
        assertThat(Fpdu.mulpdu(emss, true)).isEqualTo(withMarkers);
    }

    @Test
    void flyweightAtAnOffsetReadsAndWritesOnlyItsFpdu() {
        MemorySegment seg = MemorySegment.ofArray(new byte[8 + 32 + 8]);
        seg.fill((byte) 0x55);
        Fpdu fpdu = new Fpdu().wrap(seg, 8);
        assertThat(fpdu.segment()).isSameAs(seg);
        assertThat(fpdu.offset()).isEqualTo(8);
        fpdu.ulpduLength(23);
        MemorySegment.copy(Hex.segment("4143 00000000 00000000 00000001 00000000 68656c6c6f"), 0, seg, 10, 23);
        fpdu.clearPad();
        assertThat(Hex.of(seg, 33, 3)).isEqualTo("000000");             // the pad
        assertThat(Hex.of(seg, 36, 4)).as("the CRC field is not pad").isEqualTo("55555555");
        assertThat(fpdu.computeCrc()).isEqualTo(0x0CB190B9);
        assertThat(fpdu.crc(fpdu.computeCrc())).isSameAs(fpdu);
        assertThat(Hex.of(seg, 0, 48)).isEqualTo(Hex.normalize("5555555555555555"
                + "00 17 41 43 | 00 00 00 00 | 00 00 00 00 | 00 00 00 01 | 00 00 00 00 | 68 65 6c 6c | 6f 00 00 00 | b9 90 b1 0c"
                + "5555555555555555"));
        assertThat(fpdu.verify(true)).isNull();
    }
}
