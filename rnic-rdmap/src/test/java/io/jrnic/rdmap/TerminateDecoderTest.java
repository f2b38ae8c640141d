package io.jrnic.rdmap;

import io.jrnic.ddp.DdpError;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.mpa.MpaError;
import io.jrnic.rdmap.TerminateDecoder.BitOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TerminateDecoderTest {

    private static final String UNTAGGED_SEND_HEADER = "41 43 00 00 00 00 00 00 00 00 00 00 00 05 00 00 00 00";
    private static final String TAGGED_WRITE_HEADER = "c1 40 00 00 12 34 00 00 00 00 00 00 10 00";

    private final TerminateDecoder lenient = TerminateDecoder.lenient();
    private final TerminateDecoder strict = TerminateDecoder.strict();

    @Test
    void lenientReadsSiwBadMsn_interop() {
        MemorySegment term = Bytes.segment("21 03 03 00  00 00" + UNTAGGED_SEND_HEADER);
        assertThat(lenient.decode(term, 0, 24)).isNull();
        assertThat(lenient.bitOrder()).isEqualTo(BitOrder.LINUX_SIW);
        assertThat(lenient.error()).isSameAs(DdpError.UNTAGGED_MSN_RANGE);
        assertThat(lenient.layer()).isEqualTo(1);
        assertThat(lenient.errorType()).isEqualTo(2);
        assertThat(lenient.errorCode()).isEqualTo(3);
        assertThat(lenient.segmentLengthValid()).isTrue();
        assertThat(lenient.ddpHeaderIncluded()).isTrue();
        assertThat(lenient.rdmaHeaderIncluded()).isFalse();
        assertThat(lenient.ddpSegmentLength()).isZero();
        assertThat(lenient.wrapDdpHeader(new UntaggedHeaderFlyweight()).msn()).isEqualTo(5);
        assertThat(lenient.toString()).contains("LINUX_SIW", "1/2/0x03");
    }

    @Test
    void lenientReadsSiwBadStag_interop() {
        MemorySegment term = Bytes.segment("11 00 03 00  00 08" + TAGGED_WRITE_HEADER);
        assertThat(lenient.decode(term, 0, 20)).isNull();
        assertThat(lenient.bitOrder()).isEqualTo(BitOrder.LINUX_SIW);
        assertThat(lenient.error()).isSameAs(DdpError.TAGGED_INVALID_STAG);
        assertThat(lenient.ddpSegmentLength()).isEqualTo(8);
        assertThat(lenient.wrapDdpHeader(new TaggedHeaderFlyweight()).stag()).isEqualTo(0x1234);
        assertThatThrownBy(() -> lenient.wrapDdpHeader(new UntaggedHeaderFlyweight()))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> lenient.wrapRdmaHeader(new ReadRequestHeaderFlyweight()))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void strictRejectsSiwBitOrder() {
        MemorySegment term = Bytes.segment("11 00 03 00  00 08" + TAGGED_WRITE_HEADER);
        assertThat(strict.decode(term, 0, 20)).as("M=D=R=0 in RFC order, 16 trailing bytes")
                .isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.bitOrder()).isEqualTo(BitOrder.RFC_5040);
        assertThat(strict.error()).isSameAs(DdpError.TAGGED_INVALID_STAG);
        assertThat(strict.ddpHeaderIncluded()).isFalse();
    }

    @Test
    void lenientReadsSiwBadCrc_interop() {
        MemorySegment term = Bytes.segment("02 02 00 00");
        assertThat(lenient.decode(term, 0, 4)).isNull();
        assertThat(lenient.bitOrder()).isEqualTo(BitOrder.LINUX_SIW);
        assertThat(lenient.error()).isSameAs(MpaError.CRC_MISMATCH);
        assertThat(strict.decode(term, 0, 4)).as("0/2/0x02 is unregistered").isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.layer()).isZero();
        assertThat(strict.errorType()).isEqualTo(2);
        assertThat(strict.error()).isNull();
    }

    @Test
    void lenientReadsSiwBadOpcode_interop() {
        MemorySegment term = Bytes.segment("20 06 00 00");
        assertThat(lenient.decode(term, 0, 4)).isNull();
        assertThat(lenient.error()).isSameAs(RdmapError.UNEXPECTED_OPCODE);
        assertThat(lenient.bitOrder()).isEqualTo(BitOrder.LINUX_SIW);
        assertThat(lenient.decode(term, 0, 4, true)).as("as the first FPDU it is RFC 6581's insufficient IRD").isNull();
        assertThat(lenient.error()).isSameAs(MpaError.INSUFFICIENT_IRD);
        assertThat(lenient.bitOrder()).isEqualTo(BitOrder.RFC_5040);
        assertThat(strict.decode(term, 0, 4)).isNull();
        assertThat(strict.error()).isSameAs(MpaError.INSUFFICIENT_IRD);
    }

    @Test
    void lenientReadsRfcVectorsInRfcOrder_R_TERM_023() {
        MemorySegment ddp = Bytes.segment("11 00 c0 00  00 10" + TAGGED_WRITE_HEADER);
        assertThat(lenient.decode(ddp, 0, 20)).isNull();
        assertThat(lenient.bitOrder()).isEqualTo(BitOrder.RFC_5040);
        assertThat(lenient.error()).isSameAs(DdpError.TAGGED_INVALID_STAG);
        assertThat(lenient.ddpSegmentLength()).isEqualTo(16);

        MemorySegment crc = Bytes.segment("20 02 00 00");
        assertThat(lenient.decode(crc, 0, 4)).isNull();
        assertThat(lenient.bitOrder()).isEqualTo(BitOrder.RFC_5040);
        assertThat(lenient.error()).isSameAs(MpaError.CRC_MISMATCH);
        assertThat(strict.decode(crc, 0, 4)).isNull();
        assertThat(strict.error()).isSameAs(MpaError.CRC_MISMATCH);
    }

    @ParameterizedTest(name = "{0} {1} {2}, first FPDU {3} -> {4}")
    @CsvSource({
            "0x11, 0x00, 0xC0, false, RFC_5040",
            "0x01, 0x00, 0xE0, false, RFC_5040",
            "0x21, 0x03, 0x03, false, LINUX_SIW",
            "0x12, 0x03, 0x03, false, LINUX_SIW",
            "0x02, 0x02, 0x00, false, LINUX_SIW",
            "0x20, 0x02, 0x00, false, RFC_5040",
            "0x20, 0x06, 0x00, false, LINUX_SIW",
            "0x20, 0x06, 0x00, true, RFC_5040",
            "0x02, 0x06, 0x00, false, RFC_5040",
            "0x02, 0x06, 0x00, true, LINUX_SIW",
            "0x20, 0x07, 0x00, false, LINUX_SIW",
            "0x02, 0x05, 0x00, true, LINUX_SIW",
            "0x10, 0x00, 0x00, false, RFC_5040",
            "0x01, 0x00, 0x00, false, LINUX_SIW",
            "0x00, 0x42, 0x00, false, RFC_5040",
            "0x33, 0x33, 0x00, false, RFC_5040",
            "0x21, 0x03, 0xE7, false, LINUX_SIW",
            "0x12, 0x03, 0xE7, false, RFC_5040"})
    void bitOrderHeuristic(String b0, String b1, String b2, boolean firstFpdu, BitOrder expected) {
        assertThat(TerminateDecoder.detectBitOrder(Integer.decode(b0), Integer.decode(b1), Integer.decode(b2), firstFpdu))
                .isEqualTo(expected);
    }

    @Test
    void everyRfcEncodedTerminateDecodesBackLeniently() {
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        TerminateHeaderFlyweight terminate = new TerminateHeaderFlyweight().wrap(out, 0);
        UntaggedHeaderFlyweight failed = new UntaggedHeaderFlyweight().wrap(Bytes.segment(UNTAGGED_SEND_HEADER), 0);
        for (io.jrnic.wire.IwarpError e : allErrors()) {
            int length = terminate.encode(e, failed, 7, null);
            boolean first = e == MpaError.LOCAL_CATASTROPHIC || e == MpaError.INSUFFICIENT_IRD
                    || e == MpaError.NO_MATCHING_RTR;
            assertThat(lenient.decode(out, 0, length, first)).isNull();
            assertThat(lenient.error()).as(e.describe()).isSameAs(e);
            assertThat(strict.decode(out, 0, length)).isNull();
            assertThat(strict.error()).as(e.describe()).isSameAs(e);
        }
    }

    @Test
    void strictRejectsLayoutMismatches_R_TERM_006() {
        assertThat(strict.decode(Bytes.segment("20 02 00"), 0, 3)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.layer()).isEqualTo(-1);
        assertThat(strict.decode(Bytes.segment("20 02 00 00 00"), 0, 5)).as("trailing byte")
                .isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.decode(Bytes.segment("12 03 80 00 00"), 0, 5)).as("M without its length")
                .isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.decode(Bytes.segment("12 03 80 00 00 12"), 0, 6)).as("M alone: 6 bytes").isNull();
        assertThat(strict.ddpSegmentLength()).isEqualTo(0x12);
        assertThat(strict.hasDdpHeader()).isFalse();
        assertThat(strict.decode(Bytes.segment("12 03 c0 00 00 12 41 43 00"), 0, 9)).as("truncated DDP header")
                .isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.decode(Bytes.segment("12 03 40 00 00 12"), 0, 6)).as("D without the DDP header")
                .isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.decode(Bytes.segment("01 00 e0 00 00 00" + UNTAGGED_SEND_HEADER), 0, 24))
                .as("R without the RDMA header").isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.decode(Bytes.segment("20 02 1f ff"), 0, 4)).as("reserved bits ignored").isNull();
    }

    @Test
    void lenientToleratesMissingAndExtraParts_AMB_08() {
        assertThat(lenient.decode(Bytes.segment("20 02 00"), 0, 3)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(lenient.decode(Bytes.segment("20 02 00 00 00 00 00 00"), 0, 8)).as("zeroed optional fields").isNull();
        assertThat(lenient.error()).isSameAs(MpaError.CRC_MISMATCH);
        assertThat(lenient.ddpSegmentLength()).isEqualTo(-1);
        assertThat(lenient.decode(Bytes.segment("12 03 c0 00"), 0, 4)).as("bits set, parts missing").isNull();
        assertThat(lenient.error()).isSameAs(DdpError.UNTAGGED_MSN_RANGE);
        assertThat(lenient.ddpHeaderIncluded()).isTrue();
        assertThat(lenient.hasDdpHeader()).isFalse();
        assertThat(lenient.ddpSegmentLength()).isEqualTo(-1);
        assertThat(lenient.decode(Bytes.segment("01 00 e0 00 00 00" + UNTAGGED_SEND_HEADER), 0, 24)).isNull();
        assertThat(lenient.hasDdpHeader()).isTrue();
        assertThat(lenient.hasRdmaHeader()).isFalse();
        assertThat(lenient.decode(Bytes.segment("07 77 00 00"), 0, 4)).as("unregistered, still decoded").isNull();
        assertThat(lenient.error()).isNull();
    }

    @Test
    void decodesAtAnOffsetInsideAFrame() {
        MemorySegment fpdu = Bytes.segment("00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 02 00 00 7f e4 25 85");
        assertThat(strict.decode(fpdu, 20, 4)).isNull();
        assertThat(strict.error()).isSameAs(MpaError.CRC_MISMATCH);
        assertThat(strict.decode(fpdu, 26, 4)).as("runs past the segment").isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(strict.isLenient()).isFalse();
        assertThat(lenient.isLenient()).isTrue();
    }

    private static java.util.List<io.jrnic.wire.IwarpError> allErrors() {
        java.util.List<io.jrnic.wire.IwarpError> all = new java.util.ArrayList<>();
        all.addAll(java.util.List.of(RdmapError.values()));
        all.addAll(java.util.List.of(DdpError.values()));
        all.addAll(java.util.List.of(MpaError.values()));
        return all;
    }

    @Test
    void reportsNothingBeforeTheFirstDecode() {
        TerminateDecoder fresh = TerminateDecoder.strict();
        assertThat(fresh.bitOrder()).isNull();
        assertThat(fresh.layer()).isEqualTo(-1);
        assertThat(fresh.errorType()).isEqualTo(-1);
        assertThat(fresh.errorCode()).isEqualTo(-1);
        assertThat(fresh.ddpSegmentLength()).isEqualTo(-1);
        assertThat(fresh.hasDdpHeader()).isFalse();
        assertThat(fresh.ddpHeaderOffset()).isEqualTo(-1);
        assertThat(fresh.hasRdmaHeader()).isFalse();
        assertThat(fresh.rdmaHeaderOffset()).isEqualTo(-1);
    }

    @Test
    void findsBothCopiedHeadersAtTheirOffsets_R_TERM_011() {
        String readRequest = "41 41 00000000 00000001 00000001 00000000"
                + " 00005678 0000000000002000 00000010 00001234 0000000000001000";
        MemorySegment frame = Bytes.segment("ffff ffff ff 01 00 e0 00 00 00" + readRequest + " ffff");
        assertThat(strict.decode(frame, 5, 52)).isNull();
        assertThat(strict.error()).isSameAs(RdmapError.INVALID_STAG);
        assertThat(strict.segmentLengthValid()).isTrue();
        assertThat(strict.rdmaHeaderIncluded()).isTrue();
        assertThat(strict.ddpHeaderOffset()).isEqualTo(11);
        assertThat(strict.ddpHeaderLength()).isEqualTo(18);
        assertThat(strict.rdmaHeaderOffset()).isEqualTo(29);
    }

    @Test
    void siwOrderHeaderControlBitsAreReadOneByOne_interop() {
        // siw puts M, D and R in the low bits of byte 2 (0x01, 0x02, 0x04): here R alone.
        assertThat(lenient.decode(Bytes.segment("21 03 04 00"), 0, 4)).isNull();
        assertThat(lenient.bitOrder()).isEqualTo(BitOrder.LINUX_SIW);
        assertThat(lenient.error()).isSameAs(DdpError.UNTAGGED_MSN_RANGE);
        assertThat(lenient.segmentLengthValid()).isFalse();
        assertThat(lenient.ddpHeaderIncluded()).isFalse();
        assertThat(lenient.rdmaHeaderIncluded()).isTrue();
    }

    @Test
    void aCopiedDdpHeaderCutShortByTheMessageLengthIsNotOffered() {
        // D=1 and an untagged (18-byte) header, of which the 20-byte message holds 14: the rest of the
        // segment is not part of the Terminate and must not be read as its header.
        MemorySegment frame = Bytes.segment("12 03 c0 00 00 12" + UNTAGGED_SEND_HEADER);
        for (TerminateDecoder decoder : new TerminateDecoder[] {strict, lenient}) {
            decoder.decode(frame, 0, 20);
            assertThat(decoder.ddpHeaderIncluded()).isTrue();
            assertThat(decoder.hasDdpHeader()).as(decoder.isLenient() ? "lenient" : "strict").isFalse();
            assertThat(decoder.ddpHeaderLength()).isZero();
        }
        assertThat(strict.decode(frame, 0, 20)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
    }
}
