package io.jrnic.bench.transport;

/**
 * The shape of the messages an endpoint pair moves: size, CRC trailer on or off, and whether the
 * consuming side compares every payload byte with the expected pattern.
 *
 * <p>A message on the wire is its {@code messageSize} bytes (sequence number, then the
 * {@link MessagePattern}) followed, with CRC on, by a {@link Crc32cTrailer#LENGTH}-byte CRC32c
 * trailer: the cost model of an MPA FPDU with CRC (RFC 5044 §4.4) without the MPA and DDP headers.
 *
 * <p>Thread safety: immutable.
 *
 * @param messageSize   payload bytes per message, at least {@link #MIN_MESSAGE_SIZE} (room for the
 *                      sequence number) and at most {@link #MAX_MESSAGE_SIZE}
 * @param crc           whether the sender appends a CRC32c trailer and the receiver checks it
 * @param verifyPayload whether the receiver compares every payload byte with the pattern (a full
 *                      extra pass over the data: meant for tests, off in the benchmarks, where the
 *                      sequence number and the CRC are the checks)
 */
public record MessageOptions(int messageSize, boolean crc, boolean verifyPayload) {

    /** Smallest message: the 8-byte sequence number, i.e. the 8-byte ping of the latency benchmark. */
    public static final int MIN_MESSAGE_SIZE = MessagePattern.SEQUENCE_LENGTH;

    /** Largest message: 1 GiB, so that a frame with its trailer still fits one {@code ByteBuffer}. */
    public static final int MAX_MESSAGE_SIZE = 1 << 30;

    /**
     * Checks the size.
     *
     * @throws IllegalArgumentException if {@code messageSize} is outside
     *                                  [{@link #MIN_MESSAGE_SIZE}, {@link #MAX_MESSAGE_SIZE}]
     */
    public MessageOptions {
        if (messageSize < MIN_MESSAGE_SIZE || messageSize > MAX_MESSAGE_SIZE) {
            throw new IllegalArgumentException("messageSize must be in [" + MIN_MESSAGE_SIZE + ", "
                    + MAX_MESSAGE_SIZE + "] (room for the sequence number), was " + messageSize);
        }
    }

    /**
     * {@return bytes of one message on the wire: the payload plus the CRC trailer when CRC is on}
     */
    public int frameSize() {
        return crc ? messageSize + Crc32cTrailer.LENGTH : messageSize;
    }
}
