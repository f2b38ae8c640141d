package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/** Test helpers: hex vectors and MPA framing of a ULPDU, to compare with wire-format.md byte for byte. */
final class Bytes {

    private Bytes() {
    }

    /** Parses hex, ignoring spaces and line breaks. */
    static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("\\s+", ""));
    }

    /** A heap segment holding the bytes of the hex string. */
    static MemorySegment segment(String hex) {
        return MemorySegment.ofArray(hex(hex));
    }

    /** Lower-case hex of {@code length} bytes of a segment. */
    static String hex(MemorySegment segment, long offset, long length) {
        return HexFormat.of().formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    /**
     * Frames a ULPDU as an MPA FPDU without markers (RFC 5044 §4.1): 16-bit length, ULPDU, zero pad to
     * a multiple of 4, CRC32c sent least significant byte first (wire-format.md §2.5).
     */
    static String fpdu(MemorySegment ulpdu, long offset, int length) {
        int pad = (4 - (2 + length) % 4) % 4;
        byte[] frame = new byte[2 + length + pad + 4];
        frame[0] = (byte) (length >>> 8);
        frame[1] = (byte) length;
        MemorySegment.copy(ulpdu, ValueLayout.JAVA_BYTE, offset, frame, 2, length);
        CRC32C crc = new CRC32C();
        crc.update(frame, 0, 2 + length + pad);
        int value = (int) crc.getValue();
        int at = 2 + length + pad;
        frame[at] = (byte) value;
        frame[at + 1] = (byte) (value >>> 8);
        frame[at + 2] = (byte) (value >>> 16);
        frame[at + 3] = (byte) (value >>> 24);
        return HexFormat.of().formatHex(frame);
    }

    /** Removes spaces from an expected hex string. */
    static String compact(String hex) {
        return hex.replaceAll("\\s+", "").toLowerCase();
    }
}
