package io.jrnic.rdmap;

import io.jrnic.ddp.DdpError;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.mpa.MpaError;
import io.jrnic.wire.IwarpError;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TerminateHeaderFlyweightTest {

    /** wire-format.md §6: Terminate for an MPA CRC error, QN2 MSN1, M=D=R=0. */
    private static final String MPA_CRC_TERMINATE_FPDU =
            "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 02 00 00 7f e4 25 85";

    /** wire-format.md §6: the failed Read Request ULPDU (without MPA length and CRC). */
    private static final String READ_REQUEST_ULPDU = """
            41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00
            00 00 56 78 00 00 00 00 00 00 20 00 00 00 00 10 00 00 12 34 00 00 00 00 00 00 10 00""";

    /** wire-format.md §5.3: the RDMA Write ULPDU header: STag 0x1234, TO 0x1000. */
    private static final String WRITE_DDP_HEADER = "c1 40 00 00 12 34 00 00 00 00 00 00 10 00";

    private final MemorySegment out = MemorySegment.ofArray(new byte[128]);
    private final RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.RFC_7306);
    private final TerminateHeaderFlyweight terminate = new TerminateHeaderFlyweight();
    private final TerminateDecoder strict = TerminateDecoder.strict();

    @Test
    void encodesTheVerifiedMpaCrcTerminateFpdu_R_TERM_014() {
        UntaggedHeaderFlyweight someFailedHeader = new UntaggedHeaderFlyweight().wrap(Bytes.segment(READ_REQUEST_ULPDU), 0);
        int length = encoder.terminate(out, 0, MpaError.CRC_MISMATCH, someFailedHeader, 5, null);
        assertThat(length).as("LLP errors never copy headers").isEqualTo(22);
        assertThat(Bytes.fpdu(out, 0, length)).isEqualTo(Bytes.compact(MPA_CRC_TERMINATE_FPDU));
    }

    @Test
    void ddpTaggedInvalidStagCopiesLengthAndDdpHeader_R_TERM_013() {
        TaggedHeaderFlyweight failed = new TaggedHeaderFlyweight().wrap(Bytes.segment(WRITE_DDP_HEADER), 0);
        int length = terminate.wrap(out, 0).encode(DdpError.TAGGED_INVALID_STAG, failed, 16, null);
        assertThat(length).isEqualTo(4 + 2 + 14);
        assertThat(Bytes.hex(out, 0, length)).isEqualTo(Bytes.compact("11 00 c0 00  00 10" + WRITE_DDP_HEADER));
        assertThat(terminate.length()).isEqualTo(length);

        assertThat(strict.decode(out, 0, length)).isNull();
        assertThat(strict.error()).isSameAs(DdpError.TAGGED_INVALID_STAG);
        assertThat(strict.segmentLengthValid()).isTrue();
        assertThat(strict.ddpHeaderIncluded()).isTrue();
        assertThat(strict.rdmaHeaderIncluded()).isFalse();
        assertThat(strict.ddpSegmentLength()).isEqualTo(16);
        assertThat(strict.ddpHeaderTagged()).isTrue();
        TaggedHeaderFlyweight copy = strict.wrapDdpHeader(new TaggedHeaderFlyweight());
        assertThat(copy.stag()).isEqualTo(0x1234);
        assertThat(copy.taggedOffset()).isEqualTo(0x1000L);
        assertThat(strict.hasRdmaHeader()).isFalse();
    }

    @Test
    void protectionErrorOnReadRequestCopiesBothHeaders_R_TERM_011() {
        MemorySegment received = Bytes.segment(READ_REQUEST_ULPDU);
        UntaggedHeaderFlyweight failed = new UntaggedHeaderFlyweight().wrap(received, 0);
        ReadRequestHeaderFlyweight failedRead = new ReadRequestHeaderFlyweight().wrap(received, 18);
        int length = terminate.wrap(out, 0).encode(RdmapError.INVALID_STAG, failed, 0, failedRead);
        assertThat(length).isEqualTo(4 + 2 + 18 + 28);
        assertThat(Bytes.hex(out, 0, length)).isEqualTo(Bytes.compact("01 00 e0 00  00 00" + READ_REQUEST_ULPDU));
        assertThat(terminate.controlWord()).isEqualTo(0x0100_E000);
        assertThat(terminate.layer()).isZero();
        assertThat(terminate.errorType()).isEqualTo(1);
        assertThat(terminate.errorCode()).isZero();
        assertThat(terminate.error()).isSameAs(RdmapError.INVALID_STAG);

        assertThat(strict.decode(out, 0, length)).isNull();
        assertThat(strict.error()).isSameAs(RdmapError.INVALID_STAG);
        assertThat(strict.ddpHeaderLength()).isEqualTo(18);
        assertThat(strict.wrapDdpHeader(new UntaggedHeaderFlyweight()).queueNumber()).isEqualTo(1);
        ReadRequestHeaderFlyweight echoed = strict.wrapRdmaHeader(new ReadRequestHeaderFlyweight());
        assertThat(echoed.sinkStag()).isEqualTo(0x5678);
        assertThat(echoed.sourceTaggedOffset()).isEqualTo(0x1000L);
    }

    @Test
    void partlyServedReadEchoesTheUpdatedHeader_R_TERM_009() {
        MemorySegment received = Bytes.segment(READ_REQUEST_ULPDU);
        UntaggedHeaderFlyweight failed = new UntaggedHeaderFlyweight().wrap(received, 0);
        MemorySegment scratch = MemorySegment.ofArray(new byte[28]);
        ReadRequestHeaderFlyweight updated = new ReadRequestHeaderFlyweight().wrap(scratch, 0)
                .copyFrom(new ReadRequestHeaderFlyweight().wrap(received, 18)).advance(10);
        int length = terminate.wrap(out, 0).encode(RdmapError.BASE_OR_BOUNDS_VIOLATION, failed, 0, updated);
        assertThat(Bytes.hex(out, 24, 28)).isEqualTo(
                "00005678" + "000000000000200a" + "00000006" + "00001234" + "000000000000100a");
        assertThat(length).isEqualTo(52);
    }

    @Test
    void remoteOperationErrorCopiesDdpHeaderButNoRdmaHeader_R_TERM_012() {
        MemorySegment received = Bytes.segment(READ_REQUEST_ULPDU);
        UntaggedHeaderFlyweight failed = new UntaggedHeaderFlyweight().wrap(received, 0);
        ReadRequestHeaderFlyweight failedRead = new ReadRequestHeaderFlyweight().wrap(received, 18);
        int length = terminate.wrap(out, 0).encode(RdmapError.CATASTROPHIC_LOCALIZED, failed, 0, failedRead);
        assertThat(length).isEqualTo(4 + 2 + 18);
        assertThat(Bytes.hex(out, 0, 4)).isEqualTo("0207c000");
    }

    @Test
    void localCatastrophicCopiesNothing_R_TERM_010() {
        TaggedHeaderFlyweight failed = new TaggedHeaderFlyweight().wrap(Bytes.segment(WRITE_DDP_HEADER), 0);
        assertThat(terminate.wrap(out, 0).encode(RdmapError.LOCAL_CATASTROPHIC, failed, 16, null)).isEqualTo(4);
        assertThat(Bytes.hex(out, 0, 4)).isEqualTo("00000000");
        assertThat(terminate.wrap(out, 0).encode(DdpError.LOCAL_CATASTROPHIC, failed, 16, null)).isEqualTo(4);
        assertThat(Bytes.hex(out, 0, 4)).isEqualTo("10000000");
    }

    @Test
    void errorWhileCreatingAnOutboundMessageHasNoHeaders_R_TERM_044() {
        int length = terminate.wrap(out, 0).encode(RdmapError.ACCESS_RIGHTS_VIOLATION, null, 0, null);
        assertThat(length).isEqualTo(4);
        assertThat(Bytes.hex(out, 0, 4)).isEqualTo("01020000");
        assertThat(strict.decode(out, 0, 4)).isNull();
        assertThat(strict.error()).isSameAs(RdmapError.ACCESS_RIGHTS_VIOLATION);
        assertThat(strict.ddpSegmentLength()).isEqualTo(-1);
        assertThat(strict.hasDdpHeader()).isFalse();
    }

    @Test
    void sendWithInvalidateGetsNoRdmaHeader_AMB_07() {
        MemorySegment received = Bytes.segment("41 44 00 00 ab cd 00 00 00 00 00 00 00 07 00 00 00 00");
        UntaggedHeaderFlyweight failed = new UntaggedHeaderFlyweight().wrap(received, 0);
        assertThat(terminate.wrap(out, 0).encode(RdmapError.PROTECTION_STAG_CANNOT_BE_INVALIDATED, failed, 0, null))
                .isEqualTo(24);
        assertThat(Bytes.hex(out, 0, 6)).isEqualTo("0109c0000000");
        ReadRequestHeaderFlyweight bogus = new ReadRequestHeaderFlyweight().wrap(MemorySegment.ofArray(new byte[28]), 0);
        assertThatThrownBy(() -> terminate.encode(RdmapError.INVALID_STAG, failed, 0, bogus))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Read Request");
        assertThatThrownBy(() -> terminate.encode(RdmapError.INVALID_STAG, null, 0, bogus))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void headerControlFollowsFigure10() {
        IwarpError[] none = {RdmapError.LOCAL_CATASTROPHIC, DdpError.LOCAL_CATASTROPHIC, MpaError.CRC_MISMATCH,
                MpaError.TCP_CONNECTION_LOST};
        for (IwarpError e : none) {
            assertThat(TerminateHeaderFlyweight.headerControl(e, true, true)).as(e.describe()).isZero();
        }
        int md = TerminateHeaderFlyweight.M_FLAG | TerminateHeaderFlyweight.D_FLAG;
        assertThat(TerminateHeaderFlyweight.headerControl(DdpError.UNTAGGED_MSN_RANGE, true, true)).isEqualTo(md);
        assertThat(TerminateHeaderFlyweight.headerControl(RdmapError.UNEXPECTED_OPCODE, true, true)).isEqualTo(md);
        assertThat(TerminateHeaderFlyweight.headerControl(RdmapError.TO_WRAP, true, false)).isEqualTo(md);
        assertThat(TerminateHeaderFlyweight.headerControl(RdmapError.TO_WRAP, true, true))
                .isEqualTo(md | TerminateHeaderFlyweight.R_FLAG);
        assertThat(TerminateHeaderFlyweight.headerControl(RdmapError.TO_WRAP, false, true)).isZero();
    }

    @Test
    void rejectsBadArguments() {
        TaggedHeaderFlyweight failed = new TaggedHeaderFlyweight().wrap(Bytes.segment(WRITE_DDP_HEADER), 0);
        assertThatThrownBy(() -> terminate.wrap(out, 0).encode(DdpError.TAGGED_TO_WRAP, failed, 0x10000, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16 bits");
        MemorySegment small = MemorySegment.ofArray(new byte[10]);
        assertThatThrownBy(() -> terminate.wrap(small, 0).encode(DdpError.TAGGED_TO_WRAP, failed, 0, null))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("20 bytes");
        assertThat(Bytes.hex(small, 0, 10)).as("nothing written").isEqualTo("00000000000000000000");
        assertThatThrownBy(() -> terminate.wrap(MemorySegment.ofArray(new byte[3]), 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void controlWordAccessorsRoundTrip() {
        terminate.wrap(out, 0).control(DdpError.UNTAGGED_INVALID_MO, true, false, true).ddpSegmentLength(0xFFFF);
        assertThat(Bytes.hex(out, 0, 6)).isEqualTo("1204a000ffff");
        assertThat(terminate.segmentLengthValid()).isTrue();
        assertThat(terminate.ddpHeaderIncluded()).isFalse();
        assertThat(terminate.rdmaHeaderIncluded()).isTrue();
        assertThat(terminate.ddpSegmentLength()).isEqualTo(0xFFFF);
        assertThat(terminate.length()).isEqualTo(4 + 2 + 28);
        assertThat(TerminateHeaderFlyweight.controlWord(MpaError.CRC_MISMATCH, false, false, false)).isEqualTo(0x2002_0000);
        assertThat(TerminateHeaderFlyweight.MAX_LENGTH).isEqualTo(52);
        assertThat(terminate.toString()).contains("1/2/0x04", "M=true");
    }

    /** RFC 5040 §4.8: the Terminate's length follows from M, D, R and the copied DDP header's T bit. */
    @Test
    void lengthFollowsTheHeaderControlBits_R_TERM_006() {
        for (int bits = 0; bits < 8; bits++) {
            boolean m = (bits & 4) != 0;
            boolean d = (bits & 2) != 0;
            boolean r = (bits & 1) != 0;
            terminate.wrap(out, 0).control(DdpError.UNTAGGED_INVALID_MO, m, d, r);
            out.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 6, (byte) 0x41);   // an untagged DDP header, if D
            assertThat(terminate.segmentLengthValid()).isEqualTo(m);
            assertThat(terminate.ddpHeaderIncluded()).isEqualTo(d);
            assertThat(terminate.rdmaHeaderIncluded()).isEqualTo(r);
            int expected = 4 + (m || d ? 2 : 0) + (d ? 18 : 0) + (r ? 28 : 0);
            assertThat(terminate.length()).as("M=%b D=%b R=%b", m, d, r).isEqualTo(expected);
            assertThat(TerminateHeaderFlyweight.length(terminate.controlWord(), 18)).isEqualTo(expected);
        }
    }

    @Test
    void encodesIntoASegmentOfExactlyItsLength() {
        UntaggedHeaderFlyweight failed = new UntaggedHeaderFlyweight().wrap(Bytes.segment(READ_REQUEST_ULPDU), 0);
        MemorySegment exact = MemorySegment.ofArray(new byte[4 + 2 + 18]);
        assertThat(terminate.wrap(exact, 0).encode(DdpError.UNTAGGED_MSN_RANGE, failed, 28, null)).isEqualTo(24);
        assertThat(Bytes.hex(exact, 0, 6)).isEqualTo("1203c000001c");
        assertThat(terminate.ddpSegmentLength(29)).isSameAs(terminate);
        assertThat(terminate.ddpSegmentLength()).isEqualTo(29);
    }

    @Test
    void aBareFourOctetTerminateIsReadNoFurther_R_TERM_014() {
        // An LLP error carries no optional part (M=D=R=0): the header ends after the control word.
        MemorySegment bare = Bytes.segment("20 02 00 00");
        assertThat(terminate.wrap(bare, 0).length()).isEqualTo(4);
        assertThat(terminate.error()).isSameAs(MpaError.CRC_MISMATCH);
    }
}
