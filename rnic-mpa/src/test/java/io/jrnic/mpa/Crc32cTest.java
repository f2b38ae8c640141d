package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** CRC32c vectors of RFC 3720 B.4 and RFC 5044 Figures 5/6 (wire-format.md §2.5). */
class Crc32cTest {

    private static byte[] input(String name) {
        byte[] b = new byte[32];
        for (int i = 0; i < 32; i++) {
            b[i] = switch (name) {
                case "zeros" -> 0;
                case "ones" -> (byte) 0xFF;
                case "ascending" -> (byte) i;
                case "descending" -> (byte) (31 - i);
                default -> throw new IllegalArgumentException(name);
            };
        }
        return b;
    }

    @ParameterizedTest
    @CsvSource({
            "zeros,      8A9136AA, aa36918a",
            "ones,       62A8AB43, 43aba862",
            "ascending,  46DD794E, 4e79dd46",
            "descending, 113FDB5C, 5cdb3f11"
    })
    void rfc3720Vectors(String name, String value, String wire) {
        MemorySegment seg = MemorySegment.ofArray(input(name));
        int crc = Crc32c.compute(seg, 0, 32);
        assertThat(crc).isEqualTo((int) Long.parseLong(value, 16));
        assertWireBytes(crc, wire);
    }

    @Test
    void iscsiReadCommandVector() {
        MemorySegment seg = Hex.segment("01c00000 00000000 00000000 00000000 14000000 00000400"
                + " 00000014 00000018 28000000 00000000 02000000 00000000");
        int crc = Crc32c.compute(seg, 0, 48);
        assertThat(crc).isEqualTo(0xD9963A56);
        assertWireBytes(crc, "563a96d9");
    }

    @Test
    void rfc5044Figure5And6CoveredBytes() {
        MemorySegment fig5 = Hex.segment("00000000 002a 4143 00000000 00000000 00000001 00000000" + Hex.zeros(24));
        assertThat(Crc32c.compute(fig5, 0, 48)).isEqualTo(0x83992352);
        MemorySegment fig6 = Hex.segment("002a 4143 00000000 00000000 00000002 00000000 00000014" + Hex.zeros(24));
        assertThat(Crc32c.compute(fig6, 0, 48)).isEqualTo(0x98589284);
    }

    @Test
    void checkValueOfCatalogue() {
        MemorySegment seg = MemorySegment.ofArray("123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(Crc32c.compute(seg, 0, 9)).isEqualTo(0xE3069283);
    }

    @Test
    void residueOverDataAndWireCrcIsConstant() {
        for (String name : new String[] {"zeros", "ones", "ascending", "descending"}) {
            byte[] data = input(name);
            MemorySegment seg = MemorySegment.ofArray(new byte[36]);
            MemorySegment.copy(data, 0, seg, ValueLayout.JAVA_BYTE, 0, 32);
            int crc = Crc32c.compute(seg, 0, 32);
            seg.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 32, Crc32c.toWire(crc));
            assertThat(Crc32c.compute(seg, 0, 36)).as(name).isEqualTo(Crc32c.RESIDUE);
        }
    }

    @Test
    void incrementalUpdatesOverPiecesOfSeveralSegmentsEqualOneShot() {
        byte[] data = input("ascending");
        Crc32c c = new Crc32c();
        MemorySegment a = MemorySegment.ofArray(data);
        MemorySegment b = MemorySegment.ofArray(data.clone());
        c.update(a, 0, 5);
        c.update(b, 5, 20);
        c.update(a, 25, 7);
        assertThat(c.value()).isEqualTo(0x46DD794E);
        c.reset();
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment nat = arena.allocate(32);
            MemorySegment.copy(data, 0, nat, ValueLayout.JAVA_BYTE, 0, 32);
            c.update(nat, 0, 32);
            assertThat(c.value()).isEqualTo(0x46DD794E);
            c.forgetSegment();
        }
    }

    private static void assertWireBytes(int crc, String wire) {
        MemorySegment out = MemorySegment.ofArray(new byte[4]);
        out.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, Crc32c.toWire(crc));
        assertThat(Hex.of(out, 0, 4)).isEqualTo(wire);
        assertThat(Crc32c.fromWire(out.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0)))
                .isEqualTo(crc);
    }

    /** The bytes of a range lying beyond 2 GiB of a mapped segment (a registered region can be that large). */
    @Test
    void rangeBeyondTwoGibibytesOfAHugeSegment(@TempDir Path dir) throws IOException {
        long size = (1L << 31) + 4096;                                 // sparse: only the touched page is stored
        try (FileChannel channel = FileChannel.open(dir.resolve("region"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.SPARSE);
             Arena arena = Arena.ofConfined()) {
            MemorySegment huge = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            long at = (1L << 31) + 100;
            MemorySegment.copy("123456789".getBytes(StandardCharsets.US_ASCII), 0, huge, ValueLayout.JAVA_BYTE, at, 9);
            assertThat(Crc32c.compute(huge, at, 9)).isEqualTo(0xE3069283);
            Crc32c c = new Crc32c();
            c.update(huge, at, 4);
            c.update(huge, at + 4, 5);
            assertThat(c.value()).isEqualTo(0xE3069283);
        }
    }

    /** Crc32c#forgetSegment: a segment whose arena is about to close is no longer kept reachable. */
    @Test
    void forgetSegmentReleasesTheLastSegment() {
        Crc32c c = new Crc32c();
        WeakReference<byte[]> memory = checksumOfGarbage(c);
        c.forgetSegment();
        assertThat(SegmentViewsTest.collected(memory)).isTrue();
        c.update(MemorySegment.ofArray("123456789".getBytes(StandardCharsets.US_ASCII)), 0, 9);
        assertThat(c.value()).isNotEqualTo(0xE3069283);                 // the computation was not reset
    }

    private static WeakReference<byte[]> checksumOfGarbage(Crc32c c) {
        byte[] data = new byte[4096];
        c.update(MemorySegment.ofArray(data), 0, data.length);
        return new WeakReference<>(data);
    }
}
