package io.jrnic.bench.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Whole-buffer reads and writes without allocation: on blocking channels (the thread parks in the
 * kernel until bytes move) and, for the busy-polling baselines, on non-blocking channels (the thread
 * spins on {@code read}/{@code write} system calls that return 0 until bytes move, with
 * {@link BusyWait} between two empty calls).
 *
 * <p>Thread safety: stateless, all methods are thread-safe (the channels are not shared).
 */
public final class ChannelIo {

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

    /**
     * Writes every remaining byte of the buffer in writes of at most {@code maxWrite} bytes each,
     * as few as that allows and of equal size, give or take a byte: no small piece at the end (a
     * short segment behind full ones is what slows a loopback TCP stream, TcpPackedStream).
     *
     * @param channel  a blocking channel
     * @param buffer   the source, written from its position to its limit (restored afterwards)
     * @param maxWrite the most bytes one {@code write} is given, at least 1
     * @return the pieces written (each of at most {@code maxWrite} bytes; a piece the kernel took in
     *         parts counts once)
     * @throws IOException if the channel failed
     */
    public static int writeFully(WritableByteChannel channel, ByteBuffer buffer, int maxWrite) throws IOException {
        if (maxWrite < 1) {
            throw new IllegalArgumentException("maxWrite must be at least 1, was " + maxWrite);
        }
        int limit = buffer.limit();
        int total = limit - buffer.position();
        int pieces = (int) ((total + (long) maxWrite - 1) / maxWrite);
        try {
            for (int i = pieces; i > 0; i--) {
                int left = limit - buffer.position();
                buffer.limit(buffer.position() + (left + i - 1) / i); // ceil: the first pieces take the odd bytes
                writeFully(channel, buffer);
            }
            return pieces;
        } finally {
            buffer.limit(limit);
        }
    }

    /**
     * Reads a non-blocking channel until the buffer has no bytes remaining or the stream ends,
     * spinning on reads that return nothing: no selector, no parking (the busy-poll baseline).
     *
     * @param channel a non-blocking channel
     * @param buffer  the destination, filled from its position to its limit
     * @param wait    the idle step of the calling thread, {@linkplain BusyWait#reset() reset} here
     * @param side    the endpoint, named by the timeout's exception; null for a peer that may wait
     *                for ever between two messages (it {@linkplain BusyWait#pause() pauses} without
     *                a deadline, and ends on end of stream or when its channel is closed)
     * @return how the read ended
     * @throws IOException if the channel failed, or (with a {@code side}) nothing arrived for
     *                     {@link BusyWait#TIMEOUT_NANOS}
     */
    static ReadOutcome spinReadFully(ReadableByteChannel channel, ByteBuffer buffer, BusyWait wait, Object side)
            throws IOException {
        int start = buffer.position();
        wait.reset();
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer);
            if (n < 0) {
                return buffer.position() == start ? ReadOutcome.END_OF_STREAM : ReadOutcome.TRUNCATED;
            }
            if (n == 0) {
                if (side == null) {
                    wait.pause();
                } else {
                    wait.idle("bytes to read", side);
                }
            }
        }
        return ReadOutcome.COMPLETE;
    }

    /**
     * Writes every remaining byte of the buffer to a non-blocking channel, spinning while the socket
     * send buffer is full (a write that returns 0).
     *
     * @param channel a non-blocking channel
     * @param buffer  the source, written from its position to its limit
     * @param wait    the idle step of the calling thread, {@linkplain BusyWait#reset() reset} here
     * @param side    the endpoint, named by the timeout's exception
     * @throws IOException if the channel failed or the peer took nothing for {@link BusyWait#TIMEOUT_NANOS}
     */
    static void spinWriteFully(WritableByteChannel channel, ByteBuffer buffer, BusyWait wait, Object side)
            throws IOException {
        wait.reset();
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) == 0) {
                wait.idle("room in the socket send buffer", side);
            }
        }
    }
}
