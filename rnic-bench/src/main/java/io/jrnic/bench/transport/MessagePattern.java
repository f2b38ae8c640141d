package io.jrnic.bench.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Layout and contents of a benchmark message, so that the consuming side can tell a delivered
 * message from a lost, repeated, reordered or corrupted one.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Sequence Number (64 bits)                    |
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |        Pattern: byte i = patternByte(i), i = 8 .. size-1      ~
 * ~                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          CRC32c over bytes 0 .. size-1 (only with CRC on)     |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>The sequence number is big-endian and counts messages from 0 per endpoint pair; the sender
 * rewrites it for every message, so every message (and its CRC) differs from the previous one. The
 * pattern is not periodic with any power of two below 64 KiB, so a lost or duplicated chunk of a
 * TCP read shows up as a mismatch.
 *
 * <p>Thread safety: stateless, all methods are thread-safe.
 */
public final class MessagePattern {

    /** Offset of the sequence number. */
    public static final int SEQUENCE_OFFSET = 0;

    /** Length of the sequence number. */
    public static final int SEQUENCE_LENGTH = 8;

    /** Offset of the first pattern byte. */
    public static final int PATTERN_OFFSET = SEQUENCE_OFFSET + SEQUENCE_LENGTH;

    private static final ValueLayout.OfLong SEQUENCE_LAYOUT =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private MessagePattern() {
    }

    /**
     * The pattern byte at a message offset.
     *
     * @param index offset within the message
     * @return the byte the pattern puts there
     */
    public static byte patternByte(long index) {
        // Mixing in the high bits makes the pattern aperiodic within a message (a plain index*k
        // would repeat every 256 bytes and hide a lost 256-byte chunk).
        return (byte) (index * 167 ^ index >>> 8 ^ index >>> 16);
    }

    /**
     * Writes a message with sequence number 0 and the pattern.
     *
     * @param message     the message bytes, at least {@code messageSize} long
     * @param messageSize the message size
     */
    public static void fill(MemorySegment message, int messageSize) {
        message.set(SEQUENCE_LAYOUT, SEQUENCE_OFFSET, 0L);
        for (int i = PATTERN_OFFSET; i < messageSize; i++) {
            message.set(ValueLayout.JAVA_BYTE, i, patternByte(i));
        }
    }

    /**
     * Allocates a message-sized segment from an arena and {@linkplain #fill fills} it.
     *
     * @param arena       the arena that owns the segment
     * @param messageSize the message size
     * @return the filled segment
     */
    public static MemorySegment allocate(Arena arena, int messageSize) {
        MemorySegment message = arena.allocate(messageSize, Long.BYTES);
        fill(message, messageSize);
        return message;
    }

    /**
     * Reads the sequence number of a message (absolute get: position and limit are untouched).
     *
     * @param message the message, big-endian
     * @return the sequence number
     */
    public static long sequence(ByteBuffer message) {
        return message.getLong(SEQUENCE_OFFSET);
    }

    /**
     * Writes the sequence number of a message (absolute put: position and limit are untouched).
     *
     * @param message  the message, big-endian
     * @param sequence the sequence number
     */
    public static void sequence(ByteBuffer message, long sequence) {
        message.putLong(SEQUENCE_OFFSET, sequence);
    }

    /**
     * Reads the sequence number of a message that starts at an offset of a buffer (several messages
     * packed into one buffer; absolute get).
     *
     * @param buffer the buffer, big-endian
     * @param offset index of the message's first byte
     * @return the sequence number
     */
    public static long sequence(ByteBuffer buffer, int offset) {
        return buffer.getLong(offset + SEQUENCE_OFFSET);
    }

    /**
     * Writes the sequence number of a message that starts at an offset of a buffer (absolute put).
     *
     * @param buffer   the buffer, big-endian
     * @param offset   index of the message's first byte
     * @param sequence the sequence number
     */
    public static void sequence(ByteBuffer buffer, int offset, long sequence) {
        buffer.putLong(offset + SEQUENCE_OFFSET, sequence);
    }

    /**
     * Reads the sequence number of a message in native or heap memory.
     *
     * @param message the message (its first 8 bytes)
     * @return the sequence number, big-endian
     */
    public static long sequence(MemorySegment message) {
        return message.get(SEQUENCE_LAYOUT, SEQUENCE_OFFSET);
    }

    /**
     * Writes the sequence number of a message in native or heap memory.
     *
     * @param message  the message (its first 8 bytes)
     * @param sequence the sequence number, written big-endian
     */
    public static void sequence(MemorySegment message, long sequence) {
        message.set(SEQUENCE_LAYOUT, SEQUENCE_OFFSET, sequence);
    }

    /**
     * Whether the pattern part of a received message equals the expected message.
     *
     * @param received    the received message
     * @param expected    a message {@linkplain #fill filled} with the pattern
     * @param messageSize the message size
     * @return true when bytes {@link #PATTERN_OFFSET} .. {@code messageSize - 1} are equal
     */
    public static boolean patternMatches(MemorySegment received, MemorySegment expected, int messageSize) {
        return MemorySegment.mismatch(received, PATTERN_OFFSET, messageSize,
                expected, PATTERN_OFFSET, messageSize) == -1;
    }

    /**
     * Whether the pattern part of a message that starts at an offset of a received buffer equals
     * the expected message (several messages packed into one buffer).
     *
     * @param received    the received bytes
     * @param offset      offset of the message's first byte in {@code received}
     * @param expected    a message {@linkplain #fill filled} with the pattern
     * @param messageSize the message size
     * @return true when the message's bytes {@link #PATTERN_OFFSET} .. {@code messageSize - 1} are equal
     */
    public static boolean patternMatches(MemorySegment received, long offset, MemorySegment expected, int messageSize) {
        return MemorySegment.mismatch(received, offset + PATTERN_OFFSET, offset + messageSize,
                expected, PATTERN_OFFSET, messageSize) == -1;
    }
}
