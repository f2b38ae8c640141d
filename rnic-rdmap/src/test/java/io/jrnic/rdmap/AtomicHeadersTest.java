package io.jrnic.rdmap;

import io.jrnic.ddp.UntaggedHeaderFlyweight;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AtomicHeadersTest {

    private final MemorySegment buffer = MemorySegment.ofArray(new byte[96]);
    private final RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.RFC_7306);
    private final AtomicRequestHeaderFlyweight request = new AtomicRequestHeaderFlyweight();
    private final AtomicResponseHeaderFlyweight response = new AtomicResponseHeaderFlyweight();

    @Test
    void fetchAddUlpduLayout_A_ATOM_030() {
        int length = encoder.fetchAdd(buffer, 0, 2, 0x0A0B0C0D, 0x00ABCD00, 0x7f22_d800_0e00L, 5L, 0L);
        assertThat(length).as("ULPDU_Length 70").isEqualTo(70);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact("""
                41 4a 00000000 00000001 00000002 00000000
                00000000 0a0b0c0d 00abcd00 00007f22d8000e00
                0000000000000005 0000000000000000 0000000000000000 ffffffffffffffff"""));
        request.wrap(buffer, 18);
        assertThat(request.operation()).isEqualTo(AtomicOpcode.FETCH_ADD);
        assertThat(request.requestId()).isEqualTo(0x0A0B0C0D);
        assertThat(request.remoteStag()).isEqualTo(0x00ABCD00);
        assertThat(request.remoteTaggedOffset()).isEqualTo(0x7f22_d800_0e00L);
        assertThat(request.addOrSwapData()).isEqualTo(5L);
        assertThat(request.addOrSwapMask()).isZero();
        assertThat(request.compareData()).isZero();
        assertThat(request.compareMask()).isEqualTo(-1L);
        assertThat(request.validate()).isNull();
    }

    @Test
    void compareSwapRoundTrip_A_ATOM_022() {
        int length = encoder.compareSwap(buffer, 0, 1, 7, 0x100, 0x2000L, 0x1111L, 0x2222L, 0x3333L, 0x4444L);
        assertThat(length).isEqualTo(70);
        assertThat(buffer.get(ValueLayout.JAVA_BYTE, 18 + 3)).as("AOpCode in the low nibble of byte 3").isEqualTo((byte) 2);
        request.wrap(buffer, 18);
        assertThat(request.operation()).isEqualTo(AtomicOpcode.COMPARE_SWAP);
        assertThat(request.addOrSwapData()).isEqualTo(0x1111L);
        assertThat(request.addOrSwapMask()).isEqualTo(0x2222L);
        assertThat(request.compareData()).isEqualTo(0x3333L);
        assertThat(request.compareMask()).isEqualTo(0x4444L);
        assertThat(new UntaggedHeaderFlyweight().wrap(buffer, 0).queueNumber()).as("A-ATOM-023 QN 1").isEqualTo(1);
        assertThat(request.toString()).contains("aop=2", "id=7");
    }

    @Test
    void setterAccessorsRoundTrip() {
        MemorySegment raw = MemorySegment.ofArray(new byte[52]);
        assertThat(request.wrap(raw, 0).aopcode(0x2).requestId(-1).remoteStag(0x01020304).remoteTaggedOffset(8L)
                .addOrSwapData(1L).addOrSwapMask(2L).compareData(3L).compareMask(4L)).isSameAs(request);
        assertThat(Bytes.hex(raw, 0, 52)).isEqualTo(Bytes.compact("""
                00000002 ffffffff 01020304 0000000000000008
                0000000000000001 0000000000000002 0000000000000003 0000000000000004"""));
    }

    @Test
    void rejectsUnsupportedAopcodes_A_ATOM_034() {
        MemorySegment raw = MemorySegment.ofArray(new byte[52]);
        request.wrap(raw, 0).encodeFetchAdd(1, 2, 0x1000L, 1L, 0L);
        for (int aop = 0; aop < 16; aop++) {
            request.aopcode(aop);
            RdmapError expected = aop == 0 || aop == 2 ? null : RdmapError.UNEXPECTED_OPCODE;
            assertThat(request.validate()).as("AOpCode %d", aop).isEqualTo(expected);
        }
        assertThat(AtomicOpcode.fromWire(1)).as("0x1 Reserved, no Swap (AMB-21)").isNull();
    }

    @Test
    void reservedBitsOfTheAopcodeWordAreIgnored_A_ATOM_026() {
        MemorySegment raw = MemorySegment.ofArray(new byte[52]);
        request.wrap(raw, 0).encodeCompareSwap(1, 2, 0x1000L, 1L, -1L, 0L, -1L);
        raw.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0, 0xFFFF_FFF2);
        assertThat(request.aopcode()).isEqualTo(2);
        assertThat(request.validate()).isNull();
    }

    @Test
    void rejectsMisalignedTarget_A_ATOM_073() {
        MemorySegment raw = MemorySegment.ofArray(new byte[52]);
        request.wrap(raw, 0).encodeFetchAdd(1, 2, 0x1004L, 1L, 0L);
        assertThat(request.validate()).isEqualTo(RdmapError.CATASTROPHIC_LOCALIZED);
        request.remoteTaggedOffset(0x1008L);
        assertThat(request.validate()).isNull();
        request.aopcode(1).remoteTaggedOffset(0x1001L);
        assertThat(request.validate()).as("AOpCode is checked first").isEqualTo(RdmapError.UNEXPECTED_OPCODE);
    }

    @Test
    void atomicResponseIsTwelveBytes_AMB_20() {
        int length = encoder.atomicResponse(buffer, 0, 3, 0x0A0B0C0D, 0x8877_6655_4433_2211L);
        assertThat(length).as("ULPDU_Length 30").isEqualTo(30);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact(
                "41 4b 00000000 00000003 00000003 00000000  0a0b0c0d 8877665544332211"));
        response.wrap(buffer, 18);
        assertThat(response.originalRequestId()).isEqualTo(0x0A0B0C0D);
        assertThat(response.originalValue()).isEqualTo(0x8877_6655_4433_2211L);
        assertThat(response.validate(0x0A0B0C0D)).isNull();
        assertThat(response.validate(0x0A0B0C0E)).as("A-ATOM-044").isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        response.originalRequestId(5).originalValue(6L);
        assertThat(Bytes.hex(buffer, 18, 12)).isEqualTo("000000050000000000000006");
        assertThatThrownBy(() -> response.wrap(MemorySegment.ofArray(new byte[11]), 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void immediateDataUlpdu_A_IMM_006() {
        int length = encoder.immediateData(buffer, 0, false, 1, 0x0102_0304_0506_0708L);
        assertThat(length).as("ULPDU_Length 26").isEqualTo(26);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact(
                "41 48 00000000 00000000 00000001 00000000  0102030405060708"));
        assertThat(encoder.immediateData(buffer, 0, true, 9, -1L)).isEqualTo(26);
        assertThat(Bytes.hex(buffer, 0, length)).isEqualTo(Bytes.compact(
                "41 49 00000000 00000000 00000009 00000000  ffffffffffffffff"));
        ImmediateDataHeaderFlyweight imm = new ImmediateDataHeaderFlyweight().wrap(buffer, 18);
        assertThat(imm.immediateData()).isEqualTo(-1L);
        assertThat(imm.immediateData(0x0A0BL).toString()).contains("0x0000000000000a0b");
    }

    @Test
    void encodersReturnTheFlyweight_A_ATOM_030() {
        MemorySegment raw = MemorySegment.ofArray(new byte[52]);
        assertThat(request.wrap(raw, 0).encodeFetchAdd(1, 2, 8L, 3L, 4L)).isSameAs(request);
        assertThat(request.operation()).isEqualTo(AtomicOpcode.FETCH_ADD);
        assertThat(request.compareMask()).as("unused by FetchAdd, sent as all ones").isEqualTo(-1L);
        assertThat(request.encodeCompareSwap(1, 2, 8L, 3L, 4L, 5L, 6L)).isSameAs(request);
        assertThat(request.encode(AtomicOpcode.FETCH_ADD, 1, 2, 8L, 3L, 4L, 5L, 6L)).isSameAs(request);
        MemorySegment twelve = MemorySegment.ofArray(new byte[12]);
        assertThat(response.wrap(twelve, 0).encode(9, 10L)).isSameAs(response);
        assertThat(response.originalValue(11L)).isSameAs(response);
        assertThat(response.toString()).isEqualTo("AtomicResponseHeader[id=9 value=0xb]");
        assertThat(new AtomicResponseHeaderFlyweight().toString()).isEqualTo("AtomicResponseHeader[unwrapped]");
    }
}
