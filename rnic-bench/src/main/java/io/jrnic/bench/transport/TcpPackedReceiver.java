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
 * optionally the pattern). A message cut by the end of a read is moved to the front of the chunk
 * and completed by the next read, so no boundary of the writes matters: TCP is a byte stream.
 *
 * <p>Memory: one native chunk of {@value #CHUNK_BYTES} bytes (or one frame, if larger) in the peer's confined
 * arena; at most one partial frame is copied per read. No allocation per message.
 *
 * <p>Thread safety: see {@link TcpPeer}.
 */
final class TcpPackedReceiver extends TcpPeer {

    /** Bytes asked for by one read: four batches of the sender, so a read finds whatever arrived. */
    static final int CHUNK_BYTES = 4 * TcpPackedStream.BATCH_BYTES;

    /** Bytes of the chunk: at least one frame, so that a read always has room. */
    private final int chunkBytes;

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
    }

    /** Reads chunks and walks their messages until end of stream; a partial message at the end is truncated. */
    @Override
    void serve(Arena arena) throws IOException {
        int frameSize = options.frameSize();
        MemorySegment chunkSegment = arena.allocate(chunkBytes, Long.BYTES);
        ByteBuffer chunk = chunkSegment.asByteBuffer();
        MemorySegment expected = expectedPattern(arena);
        while (true) {
            // chunk is in fill mode: bytes 0 .. position-1 are held (at most one partial frame)
            if (channel.read(chunk) < 0) {
                if (chunk.position() > 0) {
                    truncated++;
                }
                return;
            }
            int held = chunk.position();
            int at = 0;
            while (held - at >= frameSize) {
                accept(chunk, chunkSegment, at, expected);
                at += frameSize;
            }
            // keep the partial frame: move it to the front, position after it, limit the capacity
            chunk.limit(held).position(at);
            chunk.compact();
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
