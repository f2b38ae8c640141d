package io.jrnic.bench.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Whole-buffer reads and writes on blocking channels, without allocation.
 *
 * <p>Thread safety: stateless, all methods are thread-safe (the channels are not shared).
 */
final class ChannelIo {

    /** How a {@link #readFully} ended. */
    enum ReadOutcome {
        /** The buffer was filled. */
        COMPLETE,
        /** The stream ended before the first byte: a clean end at a message boundary. */
        END_OF_STREAM,
        /** The stream ended after some but not all bytes: a message was cut short. */
        TRUNCATED
    }

    private ChannelIo() {
    }

    /**
     * Reads until the buffer has no bytes remaining or the stream ends.
     *
     * @param channel a blocking channel
     * @param buffer  the destination, filled from its position to its limit
     * @return how the read ended
     * @throws IOException if the channel failed
     */
    static ReadOutcome readFully(ReadableByteChannel channel, ByteBuffer buffer) throws IOException {
        int start = buffer.position();
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return buffer.position() == start ? ReadOutcome.END_OF_STREAM : ReadOutcome.TRUNCATED;
            }
        }
        return ReadOutcome.COMPLETE;
    }

    /**
     * Writes every remaining byte of the buffer.
     *
     * @param channel a blocking channel
     * @param buffer  the source, written from its position to its limit
     * @throws IOException if the channel failed
     */
    static void writeFully(WritableByteChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }
}
