package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/** Test helper: hex strings (spaces and "|" ignored) to and from bytes and segments. */
final class Hex {

    private Hex() {
    }

    static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("[\\s|]", ""));
    }

    static MemorySegment segment(String hex) {
        return MemorySegment.ofArray(bytes(hex));
    }

    static String of(MemorySegment segment, long offset, long length) {
        return HexFormat.of().formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    static String of(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    static String normalize(String hex) {
        return hex.replaceAll("[\\s|]", "").toLowerCase();
    }

    static String zeros(int count) {
        return "00".repeat(count);
    }
}
