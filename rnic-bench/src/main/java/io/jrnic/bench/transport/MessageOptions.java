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
 * @param postList      RNIC streams: work requests handed to the QP per post, as a list (perftest's
 *                      {@code --post_list}; one doorbell for many messages); 1 posts each message on
 *                      its own. The raw-TCP streams ignore it (their baselines are one write per
 *                      message and the packed stream)
 */
public record MessageOptions(int messageSize, boolean crc, boolean verifyPayload, int postList) {

    /** Smallest message: the 8-byte sequence number, i.e. the 8-byte ping of the latency benchmark. */
    public static final int MIN_MESSAGE_SIZE = MessagePattern.SEQUENCE_LENGTH;

    /** Largest message: 1 GiB, so that a frame with its trailer still fits one {@code ByteBuffer}. */
    public static final int MAX_MESSAGE_SIZE = 1 << 30;

    /** Largest post list: the RNIC streams' window of outstanding work requests. */
    public static final int MAX_POST_LIST = 64;

    /**
     * Checks the size and the post list.
     *
     * @throws IllegalArgumentException if {@code messageSize} is outside
     *                                  [{@link #MIN_MESSAGE_SIZE}, {@link #MAX_MESSAGE_SIZE}] or
     *                                  {@code postList} outside [1, {@link #MAX_POST_LIST}]
     */
    public MessageOptions {
        if (messageSize < MIN_MESSAGE_SIZE || messageSize > MAX_MESSAGE_SIZE) {
            throw new IllegalArgumentException("messageSize must be in [" + MIN_MESSAGE_SIZE + ", "
                    + MAX_MESSAGE_SIZE + "] (room for the sequence number), was " + messageSize);
        }
        if (postList < 1 || postList > MAX_POST_LIST) {
            throw new IllegalArgumentException("postList must be in [1, " + MAX_POST_LIST + "], was " + postList);
        }
    }

    /**
     * Messages posted one by one.
     *
     * @param messageSize   payload bytes per message
     * @param crc           CRC trailer (raw TCP) or MPA CRC (RNIC)
     * @param verifyPayload whether the receiver checks every payload byte
     */
    public MessageOptions(int messageSize, boolean crc, boolean verifyPayload) {
        this(messageSize, crc, verifyPayload, 1);
    }

    /**
     * {@return bytes of one message on the wire: the payload plus the CRC trailer when CRC is on}
     */
    public int frameSize() {
        return crc ? messageSize + Crc32cTrailer.LENGTH : messageSize;
    }
}
