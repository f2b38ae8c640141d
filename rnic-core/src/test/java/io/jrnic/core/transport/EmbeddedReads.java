package io.jrnic.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;

import java.io.ByteArrayOutputStream;

/**
 * Socket reads and writes for the handler tests on an {@link EmbeddedChannel}: bytes go in the way
 * netty's NIO read loop delivers them, each read into the buffer the connection's
 * {@link PlacementRecvAllocator} hands out (staging, or a window of a placement target) and never
 * more than that buffer takes, so the handlers see what they would see on a socket.
 */
final class EmbeddedReads {

    private EmbeddedReads() {
    }

    /**
     * Delivers {@code bytes} in reads of at most {@code chunk} bytes (one read loop per read).
     *
     * @return the reads it took (the system calls a socket would have made)
     */
    @SuppressWarnings("deprecation")
    static int read(EmbeddedChannel ch, PlacementRecvAllocator allocator, byte[] bytes, int chunk) {
        int reads = 0;
        RecvByteBufAllocator.Handle handle = allocator.newHandle();
        int done = 0;
        while (done < bytes.length) {
            handle.reset(ch.config());
            ByteBuf buf = handle.allocate(ch.alloc());
            int n = Math.min(Math.min(chunk, bytes.length - done), buf.writableBytes());
            buf.writeBytes(bytes, done, n);
            done += n;
            reads++;
            ch.writeInbound(buf);      // channelRead, then channelReadComplete
        }
        return reads;
    }

    /**
     * Delivers {@code bytes} in one read (or as few as the read buffers allow).
     *
     * @return the reads it took
     */
    static int read(EmbeddedChannel ch, PlacementRecvAllocator allocator, byte[] bytes) {
        return read(ch, allocator, bytes, Integer.MAX_VALUE);
    }

    /** Everything written and flushed so far, in order; the messages are released. */
    static byte[] written(EmbeddedChannel ch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object msg; (msg = ch.readOutbound()) != null; ) {
            ByteBuf buf = (ByteBuf) msg;
            byte[] b = new byte[buf.readableBytes()];
            buf.getBytes(buf.readerIndex(), b);
            out.writeBytes(b);
            buf.release();
        }
        return out.toByteArray();
    }
}
