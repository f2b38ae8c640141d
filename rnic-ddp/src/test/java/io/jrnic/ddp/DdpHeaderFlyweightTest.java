package io.jrnic.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Byte-exact tests of the DDP header flyweights against wire-format.md §1.2, §3, §5 and §6. */
class DdpHeaderFlyweightTest {

    private final TaggedHeaderFlyweight tagged = new TaggedHeaderFlyweight();
    private final UntaggedHeaderFlyweight untagged = new UntaggedHeaderFlyweight();

    // wire-format.md §5.3: the worked example's FPDU, an RDMA Write of "0123456789abcdef" to 0x1234/0x1000.
    private static final String WORKED_EXAMPLE_FPDU =
            "001ec14000001234000000000000100030313233343536373839616263646566496e2784";
    // wire-format.md §6: Send "hello", QN 0, MSN 1, MO 0, L=1.
    private static final String SEND_HELLO_FPDU =
            "00 17 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 68 65 6c 6c 6f 00 00 00 b9 90 b1 0c";

    @Test
    void encodesWorkedExampleTaggedHeader_R_HDR_020() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[14]);

        tagged.wrap(buffer, 0).encode(true, DdpHeaderFlyweight.VERSION_IETF, 0x40, 0x1234, 0x1000L);

        assertThat(Hex.of(buffer)).isEqualTo(Hex.compact("c1 40 00 00 12 34 00 00 00 00 00 00 10 00"));
    }

    @Test
    void decodesWorkedExampleFpduAtUlpduOffset() {
        MemorySegment fpdu = Hex.segment(WORKED_EXAMPLE_FPDU);

        tagged.wrap(fpdu, 2);

        assertThat(DdpHeaderFlyweight.isTagged(tagged.control())).isTrue();
        assertThat(tagged.tagged()).isTrue();
        assertThat(tagged.last()).isTrue();
        assertThat(tagged.version()).isEqualTo(DdpHeaderFlyweight.VERSION_IETF);
        assertThat(tagged.rsvdUlp()).isEqualTo(0x40);
        assertThat(tagged.stag()).isEqualTo(0x1234);
        assertThat(tagged.taggedOffset()).isEqualTo(0x1000L);
        assertThat(tagged.headerLength()).isEqualTo(14);
        assertThat(tagged.offset()).isEqualTo(2);
        assertThat(tagged.segment()).isSameAs(fpdu);
    }

    @Test
    void encodesSendHelloUntaggedHeader_R_SEND_010() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[18]);

        untagged.wrap(buffer, 0).encode(true, DdpHeaderFlyweight.VERSION_IETF, 0x43, 0, 0, 1, 0);

        assertThat(Hex.of(buffer)).isEqualTo(Hex.of(Hex.segment(SEND_HELLO_FPDU), 2, 18));
    }

    @Test
    void decodesSendHelloFpdu() {
        untagged.wrap(Hex.segment(SEND_HELLO_FPDU), 2);

        assertThat(untagged.tagged()).isFalse();
        assertThat(untagged.last()).isTrue();
        assertThat(untagged.version()).isEqualTo(1);
        assertThat(untagged.rsvdUlp()).isEqualTo(0x43);
        assertThat(untagged.rsvdUlpWord()).isZero();
        assertThat(untagged.queueNumber()).isZero();
        assertThat(untagged.msn()).isEqualTo(1);
        assertThat(untagged.messageOffset()).isZero();
        assertThat(untagged.headerLength()).isEqualTo(18);
    }

    @Test
    void encodesReadRequestAndTerminateHeaders_R_READ_015_R_TERM_020() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[18]);

        untagged.wrap(buffer, 0).encode(true, 1, 0x41, 0, DdpReceiver.QN_READ_REQUEST, 1, 0);
        assertThat(Hex.of(buffer)).isEqualTo(Hex.compact("41 41 00000000 00000001 00000001 00000000"));

        untagged.wrap(buffer, 0).encode(true, 1, 0x47, 0, DdpReceiver.QN_TERMINATE, 1, 0);
        assertThat(Hex.of(buffer)).isEqualTo(Hex.compact("41 47 00000000 00000002 00000001 00000000"));
    }

    @Test
    void encodesZeroLengthWriteRtr() {
        // wire-format.md §2.2 / §6: "RTR zero-length Write: 00 0e c1 40 00 00 00 00 ..." (after ULPDU_Length).
        MemorySegment buffer = MemorySegment.ofArray(new byte[14]);

        tagged.wrap(buffer, 0).encode(true, 1, 0x40, 0, 0L);

        assertThat(Hex.of(buffer)).isEqualTo(Hex.compact("c1 40 00000000 0000000000000000"));
    }

    @ParameterizedTest(name = "{0} L={1} DV={2} -> {4}")
    @CsvSource({
        // message,               last,  version, rdmap control, expected first two bytes (wire-format.md §1.2)
        "RDMA Write,              true,  1, 0x40, c140",
        "RDMA Write,              false, 1, 0x40, 8140",
        "RDMA Read Response,      true,  1, 0x42, c142",
        "RDMA Read Response,      false, 1, 0x42, 8142",
        "RDMA Write RDMAC,        true,  0, 0x00, c000",
    })
    void taggedControlBytes_R_HDR_022(String message, boolean last, int version, String rdmapControl, String expected) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[14]);

        tagged.wrap(buffer, 0).encode(last, version, Integer.decode(rdmapControl), 0, 0);

        assertThat(Hex.of(buffer, 0, 2)).as(message).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} L={1} DV={2} -> {4}")
    @CsvSource({
        "Read Request,            true,  1, 0x41, 4141",
        "Send,                    true,  1, 0x43, 4143",
        "Send,                    false, 1, 0x43, 0143",
        "Send with Invalidate,    false, 1, 0x44, 0144",
        "Send with SE and Inv,    true,  1, 0x46, 4146",
        "Terminate,               true,  1, 0x47, 4147",
        "Atomic Response,         true,  1, 0x4B, 414b",
        "Read Request RDMAC,      true,  0, 0x01, 4001",
    })
    void untaggedControlBytes_R_HDR_022(String message, boolean last, int version, String rdmapControl, String expected) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[18]);

        untagged.wrap(buffer, 0).encode(last, version, Integer.decode(rdmapControl), 0, 0, 1, 0);

        assertThat(Hex.of(buffer, 0, 2)).as(message).isEqualTo(expected);
    }

    @Test
    void writesFieldsBigEndianAtTheirOffsets() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[20]);

        untagged.wrap(buffer, 2).control(false, 1).rsvdUlp(0x44).rsvdUlpWord(0xA1B2C3D4)
                .queueNumber(0x01020304).msn(0xFFFFFFFF).messageOffset(0x80000001);

        assertThat(Hex.of(buffer)).isEqualTo(Hex.compact("0000 0144 a1b2c3d4 01020304 ffffffff 80000001"));
        assertThat(untagged.rsvdUlpWord()).isEqualTo(0xA1B2C3D4);
        assertThat(Integer.toUnsignedLong(untagged.msn())).isEqualTo(0xFFFF_FFFFL);
        assertThat(Integer.toUnsignedLong(untagged.messageOffset())).isEqualTo(0x8000_0001L);
        assertThat(UntaggedHeaderFlyweight.RSVD_ULP_WORD_OFFSET).isEqualTo(2);
        assertThat(UntaggedHeaderFlyweight.QN_OFFSET).isEqualTo(6);
        assertThat(UntaggedHeaderFlyweight.MSN_OFFSET).isEqualTo(10);
        assertThat(UntaggedHeaderFlyweight.MO_OFFSET).isEqualTo(14);
    }

    @Test
    void taggedOffsetIsAFullUnsigned64BitField() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[14]);

        tagged.wrap(buffer, 0).control(false, 1).rsvdUlp(0x42).stag(0xDEADBEEF).taggedOffset(0xFFFF_FFFF_FFFF_FFF0L);

        assertThat(Hex.of(buffer)).isEqualTo(Hex.compact("81 42 deadbeef fffffffffffffff0"));
        assertThat(tagged.taggedOffset()).isEqualTo(0xFFFF_FFFF_FFFF_FFF0L);
        assertThat(tagged.stag()).isEqualTo(0xDEADBEEF);
        assertThat(tagged.last()).isFalse();
        assertThat(TaggedHeaderFlyweight.STAG_OFFSET).isEqualTo(2);
        assertThat(TaggedHeaderFlyweight.TO_OFFSET).isEqualTo(6);
    }

    @Test
    void ignoresReservedBitsOnReceive() {
        // RFC 5041 §4.1: Rsvd is not checked on receive; 0x3C set must not change T, L or DV.
        tagged.wrap(Hex.segment("fd 40 00000000 0000000000000000"), 0);

        assertThat(tagged.tagged()).isTrue();
        assertThat(tagged.last()).isTrue();
        assertThat(tagged.version()).isEqualTo(1);
        assertThat(tagged.control() & DdpHeaderFlyweight.RESERVED_MASK).isEqualTo(0x3C);
    }

    @Test
    void headerLengthFollowsTheTFlag() {
        assertThat(DdpHeaderFlyweight.headerLength(0xC1)).isEqualTo(14);
        assertThat(DdpHeaderFlyweight.headerLength(0x81)).isEqualTo(14);
        assertThat(DdpHeaderFlyweight.headerLength(0x41)).isEqualTo(18);
        assertThat(DdpHeaderFlyweight.headerLength(0x00)).isEqualTo(18);
        assertThat(DdpHeaderFlyweight.isTagged(0x80)).isTrue();
        assertThat(DdpHeaderFlyweight.isTagged(0x7F)).isFalse();
    }

    @Test
    void rejectsWrapThatDoesNotFitTheSegment() {
        MemorySegment small = MemorySegment.ofArray(new byte[17]);

        assertThatThrownBy(() -> untagged.wrap(small, 0))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("18 bytes");
        assertThatThrownBy(() -> tagged.wrap(small, 4))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("14 bytes at 4");
        assertThatThrownBy(() -> tagged.wrap(small, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(tagged.wrap(small, 3).offset()).isEqualTo(3);
    }

    @Test
    void describesItselfForLogs() {
        assertThat(new TaggedHeaderFlyweight().toString()).isEqualTo("TaggedHeader[unwrapped]");
        assertThat(new UntaggedHeaderFlyweight().toString()).isEqualTo("UntaggedHeader[unwrapped]");
        assertThat(tagged.wrap(Hex.segment(WORKED_EXAMPLE_FPDU), 2).toString())
                .isEqualTo("TaggedHeader[L=true DV=1 rsvdUlp=0x40 STag=0x00001234 TO=0x1000]");
        assertThat(untagged.wrap(Hex.segment(SEND_HELLO_FPDU), 2).toString())
                .isEqualTo("UntaggedHeader[L=true DV=1 rsvdUlp=0x43 word=0x00000000 QN=0 MSN=1 MO=0]");
    }

    @Test
    void writersReturnTheFlyweight() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[18]);
        TaggedHeaderFlyweight t = tagged.wrap(buffer, 0);
        assertThat(t.encode(true, 1, 0x40, 0x1234, 0x1000L)).isSameAs(t);
        assertThat(t.taggedOffset(0x2000L)).isSameAs(t);
        assertThat(t.taggedOffset()).isEqualTo(0x2000L);
        UntaggedHeaderFlyweight u = untagged.wrap(buffer, 0);
        assertThat(u.encode(true, 1, 0x43, 0, 0, 1, 0)).isSameAs(u);
        assertThat(u.messageOffset(7)).isSameAs(u);
        assertThat(Hex.of(buffer)).isEqualTo(Hex.compact("41 43 00000000 00000000 00000001 00000007"));
    }
}
