package io.jrnic.rdmap;

import io.jrnic.ddp.DdpError;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RdmapMessageEncoderTest {

    private final MemorySegment buffer = MemorySegment.ofArray(new byte[128]);
    private final RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.RFC_7306);

    @Test
    void rdmaWriteHeaderOfTheWorkedExample() {
        // wire-format.md §5.3: RDMA Write of 16 bytes to STag 0x1234 at TO 0x1000, L=1
        assertThat(encoder.taggedHeader(buffer, 0, RdmapOpcode.RDMA_WRITE, true, 0x1234, 0x1000L)).isEqualTo(14);
        MemorySegment.copy(Bytes.segment("30313233343536373839616263646566"), 0, buffer, 14, 16);
        assertThat(Bytes.fpdu(buffer, 0, 30)).isEqualTo(
                "001ec14000001234000000000000100030313233343536373839616263646566496e2784");
    }

    @Test
    void sendHelloOfTheVerifiedVectors() {
        // wire-format.md §6: Send "hello" (QN0, MSN1, MO0, L=1)
        assertThat(encoder.untaggedHeader(buffer, 0, RdmapOpcode.SEND, true, 0xFFFF, 1, 0)).isEqualTo(18);
        MemorySegment.copy(Bytes.segment("68656c6c6f"), 0, buffer, 18, 5);
        assertThat(Bytes.fpdu(buffer, 0, 23)).isEqualTo(Bytes.compact(
                "00 17 41 43 | 00 00 00 00 | 00 00 00 00 | 00 00 00 01 | 00 00 00 00 | 68 65 6c 6c | 6f 00 00 00 | b9 90 b1 0c"
                        .replace("|", "")));
    }

    @Test
    void zeroLengthRtrForms() {
        // wire-format.md §6: the three RTR FPDUs
        encoder.untaggedHeader(buffer, 0, RdmapOpcode.SEND, true, 0, 1, 0);
        assertThat(Bytes.fpdu(buffer, 0, 18)).isEqualTo(Bytes.compact(
                "00 12 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 58 7b e8 c4"));
        encoder.taggedHeader(buffer, 0, RdmapOpcode.RDMA_WRITE, true, 0, 0L);
        assertThat(Bytes.fpdu(buffer, 0, 14)).isEqualTo(Bytes.compact(
                "00 0e c1 40 00 00 00 00 00 00 00 00 00 00 00 00 a3 05 72 ab"));
        assertThat(encoder.readRequest(buffer, 0, 1, 0, 0L, 0, 0, 0L)).isEqualTo(46);
        assertThat(Bytes.fpdu(buffer, 0, 46)).isEqualTo(Bytes.compact(
                "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00" + "00".repeat(28) + "f2 c6 dd 3d"));
    }

    @Test
    void invalidateStagOnlyForInvalidateOpcodes_R_HDR_026() {
        encoder.untaggedHeader(buffer, 0, RdmapOpcode.SEND_INVALIDATE, true, 0xCAFE0001, 7, 0);
        assertThat(Bytes.hex(buffer, 0, 18)).isEqualTo(Bytes.compact("41 44 cafe0001 00000000 00000007 00000000"));
        encoder.untaggedHeader(buffer, 0, RdmapOpcode.SEND_SE_INVALIDATE, false, 0xCAFE0001, 7, 1442);
        assertThat(Bytes.hex(buffer, 0, 18)).isEqualTo(Bytes.compact("01 46 cafe0001 00000000 00000007 000005a2"));
        encoder.untaggedHeader(buffer, 0, RdmapOpcode.SEND_SE, true, 0xCAFE0001, 7, 0);
        assertThat(Bytes.hex(buffer, 2, 4)).as("zero for other messages").isEqualTo("00000000");
    }

    @Test
    void terminateUlpduForADdpError_R_TERM_020() {
        MemorySegment received = Bytes.segment("c1 40 00 00 12 34 00 00 00 00 00 00 10 00");
        TaggedHeaderFlyweight failed = new TaggedHeaderFlyweight().wrap(received, 0);
        int length = encoder.terminate(buffer, 0, DdpError.TAGGED_BASE_OR_BOUNDS, failed, 16, null);
        assertThat(length).isEqualTo(18 + 20);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact(
                "41 47 00000000 00000002 00000001 00000000  1101c000 0010 c140000012340000000000001000"));
    }

    @Test
    void modelMismatchesAreProgrammingErrors() {
        assertThatThrownBy(() -> encoder.taggedHeader(buffer, 0, RdmapOpcode.SEND, true, 0, 0L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a tagged");
        assertThatThrownBy(() -> encoder.untaggedHeader(buffer, 0, RdmapOpcode.READ_RESPONSE, true, 0, 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an untagged");
        assertThatThrownBy(() -> new RdmapMessageEncoder(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(encoder.features()).isEqualTo(RdmapFeatures.RFC_7306);
    }
}
