package io.jrnic.rdmap;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadRequestHeaderFlyweightTest {

    /** wire-format.md §6: Read Request (QN1, MSN1) sink 0x5678/0x2000, size 16, source 0x1234/0x1000. */
    private static final String READ_REQUEST_FPDU = """
            00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00
            00 00 56 78 00 00 00 00 00 00 20 00 00 00 00 10 00 00 12 34 00 00 00 00 00 00 10 00  5a c9 bb 24""";

    private final ReadRequestHeaderFlyweight header = new ReadRequestHeaderFlyweight();

    @Test
    void encodesTheVerifiedReadRequestFpdu_R_READ_004() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
        int length = new RdmapMessageEncoder(RdmapFeatures.RFC_5040)
                .readRequest(buffer, 0, 1, 0x5678, 0x2000L, 16, 0x1234, 0x1000L);
        assertThat(length).isEqualTo(46);
        assertThat(Bytes.fpdu(buffer, 0, length)).isEqualTo(Bytes.compact(READ_REQUEST_FPDU));
    }

    @Test
    void decodesTheVerifiedReadRequest() {
        MemorySegment fpdu = Bytes.segment(READ_REQUEST_FPDU);
        header.wrap(fpdu, 2 + 18);
        assertThat(header.sinkStag()).isEqualTo(0x5678);
        assertThat(header.sinkTaggedOffset()).isEqualTo(0x2000L);
        assertThat(header.readSize()).isEqualTo(16);
        assertThat(header.sourceStag()).isEqualTo(0x1234);
        assertThat(header.sourceTaggedOffset()).isEqualTo(0x1000L);
        assertThat(header.toString()).contains("0x00005678", "size=16");
    }

    @Test
    void roundTripsEveryFieldAtAnOffset() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[40]);
        header.wrap(buffer, 5).sinkStag(0xDEADBEEF).sinkTaggedOffset(0x8000_0000_0000_0001L).readSize(-1)
                .sourceStag(0x01020304).sourceTaggedOffset(0x00007f22d8000e00L);
        assertThat(Bytes.hex(buffer, 5, 28)).isEqualTo(
                "deadbeef" + "8000000000000001" + "ffffffff" + "01020304" + "00007f22d8000e00");
        assertThat(header.readSizeUnsigned()).as("R-READ-007 up to 2^32-1").isEqualTo(0xFFFF_FFFFL);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4)).as("byte before untouched").isZero();
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 33)).as("byte after untouched").isZero();
    }

    @Test
    void advanceUpdatesAPartlyServedRead_R_TERM_009() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[28]);
        header.wrap(buffer, 0).encode(0x5678, 0x2000L, 4096, 0x1234, 0x1000L).advance(2048);
        assertThat(header.sinkStag()).isEqualTo(0x5678);
        assertThat(header.sinkTaggedOffset()).isEqualTo(0x2000L + 2048);
        assertThat(header.readSize()).isEqualTo(2048);
        assertThat(header.sourceStag()).isEqualTo(0x1234);
        assertThat(header.sourceTaggedOffset()).isEqualTo(0x1000L + 2048);
        assertThat(header.advance(0).sourceTaggedOffset(0x1000L + 2048)).as("nothing sent yet").isSameAs(header);
        assertThat(header.readSize()).isEqualTo(2048);
        assertThat(header.sinkTaggedOffset()).isEqualTo(0x2000L + 2048);
        header.advance(2048);
        assertThat(header.readSize()).isZero();
        assertThatThrownBy(() -> header.advance(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bytes sent");
        assertThatThrownBy(() -> header.advance(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void copyFromCopiesAllBytes() {
        MemorySegment a = MemorySegment.ofArray(new byte[28]);
        MemorySegment b = MemorySegment.ofArray(new byte[30]);
        ReadRequestHeaderFlyweight source = new ReadRequestHeaderFlyweight().wrap(a, 0)
                .encode(1, 2L, 3, 4, 5L);
        header.wrap(b, 2).copyFrom(source);
        assertThat(Bytes.hex(b, 2, 28)).isEqualTo(Bytes.hex(a, 0, 28));
    }

    @Test
    void wrapRejectsAHeaderThatDoesNotFit() {
        MemorySegment small = MemorySegment.ofArray(new byte[27]);
        assertThatThrownBy(() -> header.wrap(small, 0)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("28 bytes");
        MemorySegment exact = MemorySegment.ofArray(new byte[28]);
        assertThatThrownBy(() -> header.wrap(exact, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(header.wrap(exact, 0).segment()).as("exactly 28 bytes fit").isSameAs(exact);
        assertThatThrownBy(() -> header.wrap(MemorySegment.ofArray(new byte[30]), 3))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(new ReadRequestHeaderFlyweight().toString()).contains("unwrapped");
    }
}
