package io.jrnic.bench.transport;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Computes, appends and checks the 4-byte CRC32c trailer of a benchmark message: the per-byte cost
 * of MPA with CRC on (RFC 5044 §4.4). It uses {@link CRC32C}, the same JDK intrinsic that
 * {@code io.jrnic.mpa.Crc32c} wraps, so the baseline pays what the RNIC pays per byte.
 *
 * <p>The trailer is written least-significant byte first, as MPA puts its CRC on the wire
 * (wire-format.md §2.5); the order does not change the cost but keeps the bytes comparable.
 *
 * <p>Allocation: none, for direct and heap buffers alike. Position and limit of the buffer are
 * restored after each call; its byte order does not matter.
 *
 * <p>Thread safety: not thread-safe (one {@link CRC32C} state); use one instance per thread.
 */
public final class Crc32cTrailer {

    /** Length of the trailer. */
    public static final int LENGTH = 4;

    private final CRC32C crc = new CRC32C();

    /** Creates a trailer codec with its own checksum state. */
    public Crc32cTrailer() {
    }

    /**
     * The CRC32c of bytes {@code 0 .. length-1} of a buffer.
     *
     * @param frame  the buffer
     * @param length number of covered bytes, at most the buffer's capacity
     * @return the CRC32c value
     */
    public int compute(ByteBuffer frame, int length) {
        return compute(frame, 0, length);
    }

    /**
     * The CRC32c of bytes {@code offset .. offset+length-1} of a buffer: one message of several
     * packed into one buffer.
     *
     * @param frame  the buffer
     * @param offset index of the first covered byte
     * @param length number of covered bytes; {@code offset + length} at most the buffer's capacity
     * @return the CRC32c value
     */
    public int compute(ByteBuffer frame, int offset, int length) {
        int position = frame.position();
        int limit = frame.limit();
        crc.reset();
        frame.limit(offset + length).position(offset);
        crc.update(frame);
        frame.limit(limit).position(position);
        return (int) crc.getValue();
    }

    /**
     * Writes the CRC32c of bytes {@code 0 .. length-1} at offset {@code length}.
     *
     * @param frame  the buffer, with a limit of at least {@code length + LENGTH}
     * @param length number of covered bytes
     */
    public void append(ByteBuffer frame, int length) {
        append(frame, 0, length);
    }

    /**
     * Writes the CRC32c of bytes {@code offset .. offset+length-1} right after them.
     *
     * @param frame  the buffer, with a limit of at least {@code offset + length + LENGTH}
     * @param offset index of the message's first byte
     * @param length number of covered bytes
     */
    public void append(ByteBuffer frame, int offset, int length) {
        frame.putInt(offset + length, toWire(frame, compute(frame, offset, length)));
    }

    /**
     * Checks the trailer at offset {@code length} against the CRC32c of bytes {@code 0 .. length-1}.
     *
     * @param frame  the buffer, with a limit of at least {@code length + LENGTH}
     * @param length number of covered bytes
     * @return true when the trailer matches
     */
    public boolean verify(ByteBuffer frame, int length) {
        return verify(frame, 0, length);
    }

    /**
     * Checks the trailer right after bytes {@code offset .. offset+length-1} against their CRC32c.
     *
     * @param frame  the buffer, with a limit of at least {@code offset + length + LENGTH}
     * @param offset index of the message's first byte
     * @param length number of covered bytes
     * @return true when the trailer matches
     */
    public boolean verify(ByteBuffer frame, int offset, int length) {
        return frame.getInt(offset + length) == toWire(frame, compute(frame, offset, length));
    }

    /** The int to put with the buffer's byte order so that the CRC goes out least-significant byte first. */
    private static int toWire(ByteBuffer frame, int value) {
        return frame.order() == ByteOrder.BIG_ENDIAN ? Integer.reverseBytes(value) : value;
    }
}
