package io.jrnic.rdmap;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CommitDraftHeadersTest {

    private final MemorySegment buffer = MemorySegment.ofArray(new byte[96]);
    private final RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.ALL);
    private final MemorySegment hash = Bytes.segment("de ad be ef 01 02 03 04");

    @Test
    void flushRequestFieldOrderIsStagLengthTo_C_FLUSH_060() {
        int flags = FlushRequestHeaderFlyweight.FLAG_PERSISTENCE | FlushRequestHeaderFlyweight.FLAG_GLOBAL_VISIBILITY;
        int length = encoder.flushRequest(buffer, 0, 4, 0x1234, 4096, 0x2000L, flags);
        assertThat(length).isEqualTo(38);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact(
                "41 4c 00000000 00000001 00000004 00000000  00001234 00001000 0000000000002000 00000003"));
        FlushRequestHeaderFlyweight flush = new FlushRequestHeaderFlyweight().wrap(buffer, 18);
        assertThat(flush.stag()).isEqualTo(0x1234);
        assertThat(flush.length()).isEqualTo(4096);
        assertThat(flush.taggedOffset()).isEqualTo(0x2000L);
        assertThat(flush.persistence()).isTrue();
        assertThat(flush.globalVisibility()).isTrue();
        flush.flags(0x80 | FlushRequestHeaderFlyweight.FLAG_GLOBAL_VISIBILITY);
        assertThat(flush.persistence()).isFalse();
        assertThat(flush.globalVisibility()).as("unknown bits ignored (AMB-56)").isTrue();
        flush.stag(1).length(2).taggedOffset(3L).flags(0);
        assertThat(Bytes.hex(buffer, 18, 20)).isEqualTo("0000000100000002000000000000000300000000");
        assertThat(flush.toString()).contains("length=2");
    }

    @Test
    void responsesWithoutHeaderAreBareUntaggedHeaders_C_AW_020() {
        assertThat(encoder.flushResponse(buffer, 0, 2)).isEqualTo(18);
        assertThat(Bytes.hex(buffer, 0, 18)).isEqualTo(Bytes.compact("41 4d 00000000 00000003 00000002 00000000"));
        assertThat(encoder.atomicWriteResponse(buffer, 0, 3)).isEqualTo(18);
        assertThat(Bytes.hex(buffer, 0, 18)).isEqualTo(Bytes.compact("41 51 00000000 00000003 00000003 00000000"));
    }

    @Test
    void verifyRequestWithAndWithoutHash_C_VERIFY_013() {
        int length = encoder.verifyRequest(buffer, 0, 1, 0x55, 512, 0x4000L, hash, 0, 8);
        assertThat(length).isEqualTo(18 + 16 + 8);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact(
                "41 4e 00000000 00000001 00000001 00000000  00000055 00000200 0000000000004000 deadbeef01020304"));
        VerifyRequestHeaderFlyweight verify = new VerifyRequestHeaderFlyweight().wrap(buffer, 18, 24);
        assertThat(verify.stag()).isEqualTo(0x55);
        assertThat(verify.dataLength()).isEqualTo(512);
        assertThat(verify.taggedOffset()).isEqualTo(0x4000L);
        assertThat(verify.hasHash()).isTrue();
        assertThat(verify.hashLength()).isEqualTo(8);
        assertThat(verify.length()).isEqualTo(24);
        assertThat(verify.hashOffset()).isEqualTo(34L);
        assertThat(verify.hashEquals(hash, 0, 8)).isTrue();
        assertThat(verify.hashEquals(hash, 0, 7)).as("AMB-49 length differs").isFalse();
        assertThat(verify.hashEquals(Bytes.segment("de ad be ef 01 02 03 05"), 0, 8)).isFalse();
        MemorySegment copy = MemorySegment.ofArray(new byte[10]);
        verify.copyHash(copy, 1);
        assertThat(Bytes.hex(copy, 0, 10)).isEqualTo("00deadbeef0102030400");

        assertThat(encoder.verifyRequest(buffer, 0, 2, 0x55, 0, 0L, hash, 0, 0)).isEqualTo(34);
        VerifyRequestHeaderFlyweight bare = new VerifyRequestHeaderFlyweight().wrap(buffer, 18, 16);
        assertThat(bare.hasHash()).isFalse();
        bare.stag(9).dataLength(8).taggedOffset(16L);
        assertThat(Bytes.hex(buffer, 18, 16)).isEqualTo("00000009000000080000000000000010");
        assertThat(bare.toString()).contains("hash=0 bytes");
    }

    @Test
    void verifyWrapAndEncodeRejectInconsistentLengths() {
        VerifyRequestHeaderFlyweight verify = new VerifyRequestHeaderFlyweight();
        assertThatThrownBy(() -> verify.wrap(buffer, 0, 15)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shorter than 16");
        verify.wrap(buffer, 0, 20);
        assertThatThrownBy(() -> verify.encode(1, 2, 3L, hash, 0, 8)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wrapped for 4");
        VerifyResponseHeaderFlyweight response = new VerifyResponseHeaderFlyweight();
        assertThatThrownBy(() -> response.wrap(buffer, 0, -1)).isInstanceOf(IllegalArgumentException.class);
        response.wrap(buffer, 0, 4);
        assertThatThrownBy(() -> response.encode(hash, 0, 8)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void verifyResponseCarriesTheHash_C_VERIFY_015() {
        int length = encoder.verifyResponse(buffer, 0, 1, hash, 4, 4);
        assertThat(length).isEqualTo(22);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact(
                "41 4f 00000000 00000003 00000001 00000000  01020304"));
        VerifyResponseHeaderFlyweight response = new VerifyResponseHeaderFlyweight().wrap(buffer, 18, 4);
        assertThat(response.hashLength()).isEqualTo(4);
        assertThat(response.hashOffset()).isEqualTo(18L);
        assertThat(response.hashEquals(hash, 4, 4)).isTrue();
        assertThat(response.hashEquals(hash, 0, 4)).isFalse();
        MemorySegment copy = MemorySegment.ofArray(new byte[4]);
        response.copyHash(copy, 0);
        assertThat(Bytes.hex(copy, 0, 4)).isEqualTo("01020304");
    }

    @Test
    void atomicWriteRequestUsesOpcode0x10_C_AW_013() {
        int length = encoder.atomicWriteRequest(buffer, 0, 1, 0x77, 0x10_0008L, 0x0123_4567_89AB_CDEFL);
        assertThat(length).isEqualTo(42);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact(
                "41 50 00000000 00000001 00000001 00000000  00000077 00000008 0000000000100008 0123456789abcdef"));
        AtomicWriteRequestHeaderFlyweight write = new AtomicWriteRequestHeaderFlyweight().wrap(buffer, 18);
        assertThat(write.stag()).isEqualTo(0x77);
        assertThat(write.length()).isEqualTo(8);
        assertThat(write.taggedOffset()).isEqualTo(0x10_0008L);
        assertThat(write.data()).isEqualTo(0x0123_4567_89AB_CDEFL);
        assertThat(write.validate()).isNull();
    }

    @Test
    void atomicWriteRejectsWrongLengthAndMisalignment_C_AW_014() {
        AtomicWriteRequestHeaderFlyweight write = new AtomicWriteRequestHeaderFlyweight()
                .wrap(MemorySegment.ofArray(new byte[24]), 0).encode(1, 0x1000L, 5L);
        write.length(4);
        assertThat(write.validate()).isEqualTo(RdmapError.CATASTROPHIC_LOCALIZED);
        write.length(16);
        assertThat(write.validate()).isEqualTo(RdmapError.CATASTROPHIC_LOCALIZED);
        write.length(8).taggedOffset(0x1002L);
        assertThat(write.validate()).as("C-AW-019 misaligned").isEqualTo(RdmapError.CATASTROPHIC_LOCALIZED);
        write.taggedOffset(0x1010L).stag(2).data(-1L);
        assertThat(write.validate()).isNull();
        assertThat(Bytes.hex(write.segment(), 0, 24)).isEqualTo("00000002000000080000000000001010ffffffffffffffff");
        assertThat(write.toString()).contains("length=8");
    }

    @Test
    void flushDispositionFlagsAreReadOneByOne_C_FLUSH_060() {
        FlushRequestHeaderFlyweight flush = new FlushRequestHeaderFlyweight().wrap(buffer, 0);
        assertThat(flush.encode(1, 2, 3L, FlushRequestHeaderFlyweight.FLAG_PERSISTENCE)).isSameAs(flush);
        assertThat(flush.persistence()).isTrue();
        assertThat(flush.globalVisibility()).isFalse();
        assertThat(flush.flags(0).globalVisibility()).isFalse();
        assertThat(flush.persistence()).isFalse();
    }

    /** Verify compares every octet of the hash, the first one included (AMB-49). */
    @Test
    void verifyHashesDifferingInTheirFirstOctetDiffer_C_VERIFY_013() {
        MemorySegment other = Bytes.segment("df ad be ef 01 02 03 04");
        VerifyRequestHeaderFlyweight verify = new VerifyRequestHeaderFlyweight().wrap(buffer, 0, 24);
        assertThat(verify.encode(0x55, 512, 0x4000L, hash, 0, 8)).isSameAs(verify);
        assertThat(verify.hashEquals(hash, 0, 8)).isTrue();
        assertThat(verify.hashEquals(other, 0, 8)).isFalse();
        assertThat(verify.taggedOffset(0x8000L)).isSameAs(verify);
        assertThat(verify.taggedOffset()).isEqualTo(0x8000L);

        VerifyResponseHeaderFlyweight response = new VerifyResponseHeaderFlyweight().wrap(buffer, 40, 8);
        assertThat(response.encode(hash, 0, 8)).isSameAs(response);
        assertThat(response.hashEquals(hash, 0, 8)).isTrue();
        assertThat(response.hashEquals(other, 0, 8)).isFalse();
        assertThat(response.toString()).isEqualTo("VerifyResponseHeader[hash=8 bytes]");
        assertThat(new VerifyResponseHeaderFlyweight().toString()).isEqualTo("VerifyResponseHeader[unwrapped]");
    }

    @Test
    void verifyResponseWithoutHash_C_VERIFY_015() {
        // A Verify Request without a hash is answered with the computed hash; a zero-length one is legal.
        VerifyResponseHeaderFlyweight response = new VerifyResponseHeaderFlyweight().wrap(buffer, 96, 0);
        assertThat(response.hashLength()).isZero();
        assertThat(response.hashEquals(hash, 0, 0)).isTrue();
    }

    @Test
    void atomicWriteDataSetterChains() {
        AtomicWriteRequestHeaderFlyweight write = new AtomicWriteRequestHeaderFlyweight().wrap(buffer, 0);
        assertThat(write.data(7L)).isSameAs(write);
        assertThat(write.data()).isEqualTo(7L);
    }
}
