package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32c (Castagnoli, as iSCSI) over memory segments, for the MPA FPDU CRC (RFC 5044 §4.4). Wraps
 * {@link CRC32C}, which the JVM computes with the CPU's CRC32 instructions.
 *
 * <p>Wire order: the 32-bit value is sent least-significant byte first, unlike every other field
 * (wire-format.md §2.5). Read the field as a big-endian int and pass it through {@link #fromWire};
 * write {@link #toWire} of the value as a big-endian int.
 *
 * <p>Allocation: {@link CRC32C} accepts a {@link ByteBuffer}; a segment's buffer view is an object.
 * An instance keeps the views of the last four segment objects it saw and reuses them (position
 * and limit reset per update), so steady-state traffic over a few buffers allocates nothing; a
 * new segment object costs one view. Segments larger than 2 GiB are read through a slice.
 *
 * <p>Thread safety: an instance is not thread-safe; the static methods are.
 */
public final class Crc32c {

    /**
     * The CRC32c of any covered data followed by its 4 CRC bytes in wire order (RFC 3720 B.4
     * "residue" as {@link CRC32C#getValue()} reports it).
     */
    public static final int RESIDUE = 0x48674BC7;

    private final CRC32C crc = new CRC32C();
    private final SegmentViews views = new SegmentViews(4);

    /** Creates a computation in its initial state; reusable through {@link #reset}. */
    public Crc32c() {
    }

    /** Starts a new computation. */
    public void reset() {
        crc.reset();
    }

    /**
     * Adds bytes to the computation.
     *
     * @param segment the bytes
     * @param offset  offset of the first byte
     * @param length  number of bytes
     */
    public void update(MemorySegment segment, long offset, long length) {
        if (length <= 0) {
            return;
        }
        if (segment.byteSize() > Integer.MAX_VALUE) {
            crc.update(segment.asSlice(offset, length).asByteBuffer());
            return;
        }
        ByteBuffer view = views.of(segment);
        view.clear();
        view.position((int) offset).limit((int) (offset + length));
        crc.update(view);
    }

    /** {@return the CRC32c of the bytes added since the last {@link #reset()}} */
    public int value() {
        return (int) crc.getValue();
    }

    /** Drops the cached view so that a segment whose arena is about to close is not kept reachable. */
    public void forgetSegment() {
        views.clear();
    }

    /**
     * {@return the CRC32c of a range (allocates; not for the data path)}
     *
     * @param segment the memory to checksum
     * @param offset the first octet of the range in {@code segment}
     * @param length the number of octets
     */
    public static int compute(MemorySegment segment, long offset, long length) {
        Crc32c c = new Crc32c();
        c.update(segment, offset, length);
        return c.value();
    }

    /**
     * {@return the big-endian int to write so that the value goes out least-significant byte first}
     *
     * @param value the CRC value
     */
    public static int toWire(int value) {
        return Integer.reverseBytes(value);
    }

    /**
     * {@return the CRC value from the CRC field read as a big-endian int}
     *
     * @param bigEndianField the CRC field as read from the wire, as a big-endian int
     */
    public static int fromWire(int bigEndianField) {
        return Integer.reverseBytes(bigEndianField);
    }
}
