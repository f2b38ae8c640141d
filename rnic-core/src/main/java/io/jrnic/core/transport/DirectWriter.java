package io.jrnic.core.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Writes the FPDU messages of one epoll connection to its socket itself, with one {@code writev} of
 * their pieces' addresses, while netty's outbound buffer is empty (issue 11). netty's own write of
 * such a message costs JNI calls per piece: netty 4.2 uses no {@code sun.misc.Unsafe} on Java 25
 * and asks JNI for every direct buffer's address ({@code Buffer.memoryAddress0},
 * {@code GetDirectBufferAddress}, {@code IsInstanceOf}), 10% of a polling sender's time with 4 KiB
 * Writes (docs/benchmarks.md). Here the addresses come from the messages' memory segments.
 *
 * <p>netty stays the writer of last resort: what the kernel does not take (a full send buffer), an
 * error, a closed channel, or anything netty still holds puts the rest of the queue into netty's
 * outbound buffer, in order, and netty writes it, waits for EPOLLOUT, tracks writability and fails
 * the channel as before. Nothing is written directly while netty holds bytes, so the stream keeps
 * its order.
 *
 * <p>A message the kernel took whole is released here, which reports it sent
 * ({@link TxFpdu.SentCallback}), as netty's release would. The listener may send and flush from
 * that callback: its messages queue behind and this flush writes them (a nested flush does nothing).
 *
 * <p>Thread safety: confined to the connection's event loop (its current thread).
 */
final class DirectWriter {
    /** Linux's UIO_MAXIOV: the most iovecs one writev takes. */
    static final int IOV_MAX = 1024;
    private static final int IOVEC_BYTES = 16;
    private static final int INITIAL_IOVECS = 64;

    private final FileDescriptor fd;
    /**
     * The iovecs as the messages describe them (two longs each), then copied to {@link #iov} with
     * one bounds and liveness check per writev instead of two per piece (issue 11).
     */
    private long[] iovecs = new long[2 * INITIAL_IOVECS];
    private MemorySegment iov = Arena.ofAuto().allocate((long) INITIAL_IOVECS * IOVEC_BYTES, Long.BYTES);
    private int iovCapacity = INITIAL_IOVECS;

    /**
     * The queue: {@code [released, unwritten)} were written whole and are being released,
     * {@code [unwritten, tail)} wait for a write.
     */
    private TxFpdu[] queue = new TxFpdu[16];
    private int released;
    private int unwritten;
    private int tail;
    private boolean flushing;
    /** Bytes of {@code [unwritten, tail)}: what netty's outbound buffer would count against its water marks. */
    private long queuedBytes;

    /** writev calls made here (tests, statistics). */
    long writes;
    /** Flushes that handed the queue to netty (tests, statistics). */
    long handedOver;

    private DirectWriter(FileDescriptor fd) {
        this.fd = fd;
    }

    /** A writer for {@code ch}, or null where netty must write: not an epoll socket. */
    static DirectWriter of(Channel ch, SocketKind kind) {
        if (kind != SocketKind.EPOLL || !(ch instanceof UnixChannel unix)) {
            return null;
        }
        return new DirectWriter(unix.fd());
    }

    /** Queues a finished message behind the others (written at the next {@link #flush}). */
    void add(TxFpdu message) {
        if (tail == queue.length) {
            queue = Arrays.copyOf(queue, 2 * queue.length);   // warm-up: as many as one flush queues
        }
        queue[tail++] = message;
        queuedBytes += message.readableBytes();
    }

    /** Bytes queued and not yet written or handed to netty. */
    long queuedBytes() {
        return queuedBytes;
    }

    /**
     * Writes the queued messages: directly while netty's outbound buffer is empty and the kernel
     * takes them, the rest through netty (then flushed).
     */
    void flush(ChannelHandlerContext ctx) {
        if (flushing) {
            return;       // from a sent callback of the loop below: it writes what was queued
        }
        flushing = true;
        try {
            boolean toNetty = false;
            while (unwritten < tail) {
                if (!direct(ctx.channel())) {
                    toNetty = true;
                    break;
                }
                int end = unwritten;
                int count = 0;
                while (end < tail) {
                    int next = queue[end].iovecs(iovecs, count, iovCapacity);
                    if (next < 0) {
                        if (count > 0 || !growIov()) {
                            break;
                        }
                        continue;
                    }
                    count = next;
                    end++;
                }
                if (end == unwritten) {
                    toNetty = true;   // a message of more pieces than one writev takes
                    break;
                }
                MemorySegment.copy(iovecs, 0, iov, ValueLayout.JAVA_LONG, 0, 2 * count);
                long written;
                try {
                    written = fd.writevAddresses(iov.address(), count);
                    writes++;
                } catch (IOException e) {
                    toNetty = true;   // netty's write meets the error again and fails the channel
                    break;
                }
                queuedBytes -= written;
                int whole = unwritten;
                while (whole < end && written >= queue[whole].readableBytes()) {
                    written -= queue[whole].readableBytes();
                    whole++;
                }
                boolean partial = whole < end;
                if (partial && written > 0) {
                    queue[whole].skipBytes((int) written);
                }
                unwritten = whole;
                while (released < whole) {
                    TxFpdu m = queue[released];
                    queue[released++] = null;
                    m.release();    // reports it sent; may queue more behind (a nested flush returns)
                }
                if (partial) {
                    toNetty = true;
                    break;
                }
            }
            if (toNetty) {
                handOver(ctx);
                ctx.flush();
            }
        } finally {
            flushing = false;
            resetIfDone();
        }
    }

    /** Hands every queued message to netty, in order, unflushed (the caller flushes). */
    void handOver(ChannelHandlerContext ctx) {
        if (unwritten < tail) {
            handedOver++;
        }
        queuedBytes = 0;
        while (unwritten < tail) {
            TxFpdu m = queue[unwritten];
            queue[unwritten++] = null;
            ctx.write(m, ctx.voidPromise());
        }
        resetIfDone();
    }

    /** Drops the queued messages unwritten (the stream is reset or gone). */
    void discard() {
        queuedBytes = 0;
        while (unwritten < tail) {
            TxFpdu m = queue[unwritten];
            queue[unwritten++] = null;
            m.discard();
        }
        resetIfDone();
    }

    /**
     * Starts the queue over once nothing waits and no flush is releasing messages (the slots are
     * already cleared), so that it holds at most what one flush queues.
     */
    private void resetIfDone() {
        if (!flushing && unwritten == tail) {
            released = unwritten = tail = 0;
        }
    }

    /** Slots of the queue (tests: it stays at what one flush queues). */
    int queueCapacity() {
        return queue.length;
    }

    /** Entries of the iovec array (tests: it grows for messages of many pieces, up to {@link #IOV_MAX}). */
    int iovCapacity() {
        return iovCapacity;
    }

    private static boolean direct(Channel ch) {
        ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
        return out != null && out.totalPendingWriteBytes() == 0 && ch.isActive();
    }

    private boolean growIov() {
        if (iovCapacity >= IOV_MAX) {
            return false;
        }
        iovCapacity = Math.min(IOV_MAX, 2 * iovCapacity);
        iovecs = new long[2 * iovCapacity];
        iov = Arena.ofAuto().allocate((long) iovCapacity * IOVEC_BYTES, Long.BYTES);
        return true;
    }
}
