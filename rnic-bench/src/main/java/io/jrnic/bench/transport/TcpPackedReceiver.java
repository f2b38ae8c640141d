package io.jrnic.bench.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The consuming side of {@link TcpPackedStream}: reads the stream in chunks of up to
 * {@value #CHUNK_BYTES} bytes (one {@code read} for many messages) and walks the complete messages
 * in each chunk, checking every one as {@link TcpStreamReceiver} does (sequence, CRC trailer,
 * optionally the pattern). The reads move forward through a ring as large as the RNIC stream's
 * sink ({@value RnicMessageStream#WINDOW} frames, at least one chunk), so the receiver writes as
 * much memory as the RNIC's placement does. A message cut by the end of a read is completed by the
 * next read behind it; only when the next read would pass the ring's end is it moved to the ring's
 * start. No boundary of the writes matters: TCP is a byte stream.
 *
 * <p>Memory: the ring, in the peer's confined arena; at most one partial frame is copied per pass
 * over the ring. No allocation per message.
 *
 * <p>Thread safety: see {@link TcpPeer}.
 */
final class TcpPackedReceiver extends TcpPeer {

    /** Bytes asked for by one read: four batches of the sender, so a read finds whatever arrived. */
    static final int CHUNK_BYTES = 4 * TcpPackedStream.BATCH_BYTES;

    /** Bytes of the chunk: at least one frame, so that a read always has room. */
    private final int chunkBytes;
    /** Bytes of the ring the reads move through: the RNIC's sink, at least one chunk. */
    private final int ringBytes;

    /**
     * Creates a receiver that is not started yet.
     *
     * @param channel the accepted blocking channel; the receiver closes it when it ends
     * @param options the message shape
     */
    TcpPackedReceiver(SocketChannel channel, MessageOptions options) {
        this(channel, options, CHUNK_BYTES);
    }

    /**
     * Creates a receiver with a chosen chunk size (the tests use chunks that are not a multiple of
     * the frame, so that reads cut messages wherever they fall).
     *
     * @param channel    the accepted blocking channel; the receiver closes it when it ends
     * @param options    the message shape
     * @param chunkBytes bytes asked for by one read; raised to one frame if smaller
     */
    TcpPackedReceiver(SocketChannel channel, MessageOptions options, int chunkBytes) {
        super(channel, options, "jrnic-bench-tcp-packed-receiver");
        this.chunkBytes = Math.max(chunkBytes, options.frameSize());
        this.ringBytes = (int) Math.max(this.chunkBytes, (long) RnicMessageStream.WINDOW * options.frameSize());
    }

    /** Reads chunks and walks their messages until end of stream; a partial message at the end is truncated. */
    @Override
    void serve(Arena arena) throws IOException {
        int frameSize = options.frameSize();
        MemorySegment ringSegment = arena.allocate(ringBytes, Long.BYTES);
        ByteBuffer ring = ringSegment.asByteBuffer();
        MemorySegment expected = expectedPattern(arena);
        int walked = 0;     // the first byte not yet walked: a partial message from here to read
        int read = 0;       // the first byte not yet read
        while (true) {
            if (walked + chunkBytes > ringBytes) {
                // the next read would pass the ring's end: the partial message moves to its start
                MemorySegment.copy(ringSegment, walked, ringSegment, 0, read - walked);
                read -= walked;
                walked = 0;
            }
            ring.limit(walked + chunkBytes).position(read);
            if (channel.read(ring) < 0) {
                if (read > walked) {
                    truncated++;
                }
                return;
            }
            read = ring.position();
            while (read - walked >= frameSize) {
                accept(ring, ringSegment, walked, expected);
                walked += frameSize;
            }
        }
    }

    /** Not called: {@link #serve} checks the messages in place and has nothing more to do with them. */
    @Override
    void handle(ByteBuffer frame, Crc32cTrailer trailer) {
        // Deliberately empty: consuming is reading into memory and checking.
    }

    /**
     * The report of this receiver for a sender that sent {@code sent} messages.
     *
     * @param sent messages sent by the other side
     * @return the report (call after {@link #awaitEnd})
     */
    TransferReport report(long sent) {
        return new TransferReport(sent, delivered, crcErrors, sequenceErrors, payloadErrors, truncated);
    }
}
