package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * MPA markers (RFC 5044 §4.2-§4.3): arithmetic on stream positions and the marker word.
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |           RESERVED            |            FPDUPTR            |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Positions are stream offsets counted per direction from SeqStart, the first octet after that
 * direction's startup frame, as 32-bit values that wrap like TCP sequence numbers. A marker starts
 * at every position {@code p} with {@code p mod 512 == 0}, markers included in the count, so the
 * very first four octets of Full Operation are a marker. FPDUPTR is the distance from the first
 * byte of the ULPDU_Length of the FPDU containing the marker to the marker; a marker exactly
 * between FPDUs belongs to the following FPDU and holds 0.
 *
 * <p>Thread safety: stateless; safe to share.
 */
public final class Markers {

    /** Markers recur every 512 octets of the stream (RFC 5044 §4.3). */
    public static final int MARKER_INTERVAL = 512;
    /** Length of a marker. */
    public static final int MARKER_LENGTH = 4;
    /** Offset of the 16-bit reserved field in a marker. */
    public static final int RESERVED_OFFSET = 0;
    /** Offset of the 16-bit FPDUPTR in a marker. */
    public static final int FPDUPTR_OFFSET = 2;
    /** The low two FPDUPTR bits are reserved and treated as zero on receive (RFC 5044 §4.3). */
    public static final int FPDUPTR_MASK = 0xFFFC;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Markers() {
    }

    /**
     * {@return whether a marker starts at this stream position}
     *
     * @param position the stream position (octets since the start of Full Operation)
     */
    public static boolean isMarkerPosition(int position) {
        return (position & (MARKER_INTERVAL - 1)) == 0;
    }

    /**
     * {@return octets from this position to the next marker start (512 when a marker starts here)}
     *
     * @param position the stream position (octets since the start of Full Operation)
     */
    public static int bytesToNextMarker(int position) {
        return MARKER_INTERVAL - (position & (MARKER_INTERVAL - 1));
    }

    /**
     * {@return the FPDUPTR for a marker at {@code markerPosition} inside the FPDU whose
     * ULPDU_Length is at {@code fpduStart}, 32-bit wrap included (RFC 5044 §4.3); the result is
     * kept to 16 bits}
     *
     * @param markerPosition the stream position of the marker
     * @param fpduStart the stream position of the FPDU's ULPDU_Length field
     */
    public static int fpduPtr(int markerPosition, int fpduStart) {
        return (markerPosition - fpduStart) & 0xFFFF;
    }

    /**
     * Reads the FPDUPTR of the marker at offset (low two bits cleared, RFC 5044 §4.3).
     *
     * @param segment the memory that holds the marker
     * @param offset the offset of the marker in {@code segment}
     * @return the FPDUPTR
     */
    public static int fpduPtr(MemorySegment segment, long offset) {
        return segment.get(U16, offset + FPDUPTR_OFFSET) & FPDUPTR_MASK;
    }

    /**
     * Writes a marker with RESERVED = 0 and the given FPDUPTR.
     *
     * @param segment the memory to write the marker into
     * @param offset the offset of the marker in {@code segment}
     * @param fpduPtr the FPDUPTR: octets back from the marker to the FPDU's ULPDU_Length field
     */
    public static void write(MemorySegment segment, long offset, int fpduPtr) {
        segment.set(U32, offset, fpduPtr & 0xFFFF);
    }

    /**
     * {@return how many markers fall into {@code length} stream octets starting at {@code
     * position}, the octets themselves including those markers}
     *
     * @param position the stream position (octets since the start of Full Operation)
     * @param length the number of stream octets, markers included
     */
    public static int markersIn(int position, int length) {
        if (length <= 0) {
            return 0;
        }
        int first = position & (MARKER_INTERVAL - 1);
        int toFirst = first == 0 ? 0 : MARKER_INTERVAL - first;
        if (toFirst >= length) {
            return 0;
        }
        return 1 + (length - toFirst - 1) / MARKER_INTERVAL;
    }
}
