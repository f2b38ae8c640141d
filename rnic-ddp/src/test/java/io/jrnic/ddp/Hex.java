package io.jrnic.ddp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/** Hex helpers for byte-exact test vectors. */
final class Hex {

    private Hex() {
    }

    /** Bytes from hex text; spaces are ignored. */
    static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    /** A heap segment holding the bytes of hex text. */
    static MemorySegment segment(String hex) {
        return MemorySegment.ofArray(bytes(hex));
    }

    /** Lower-case hex of {@code length} bytes at {@code offset}, no separators. */
    static String of(MemorySegment segment, long offset, long length) {
        return HexFormat.of().formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    /** Lower-case hex of a whole segment. */
    static String of(MemorySegment segment) {
        return of(segment, 0, segment.byteSize());
    }

    /** Hex text with spaces removed, for comparisons. */
    static String compact(String hex) {
        return hex.replace(" ", "").toLowerCase();
    }
}
