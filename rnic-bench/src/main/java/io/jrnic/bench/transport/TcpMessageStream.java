package io.jrnic.bench.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * The raw-TCP {@link MessageStream}: the caller writes each message from a native buffer to a
 * SocketChannel, a {@link TcpStreamReceiver} thread reads it on the other end of a loopback
 * connection. The baseline for RDMA Write and Send throughput: one {@code write} system call per
 * message on the sender, one or more {@code read}s per message on the receiver
 * ({@link TcpPackedStream} is the baseline that packs small messages into large writes).
 *
 * <p>{@link #open} uses blocking channels ({@link Transport#TCP}); {@link #openBusyPoll} non-blocking
 * ones on both ends, the receiver spinning on empty reads and the sender on a full send buffer
 * ({@link Transport#TCP_BUSY_POLL}).
 *
 * <p>Per message the sender rewrites the sequence number, computes the CRC trailer when CRC is on,
 * and writes the frame: no allocation, no copy in Java (the kernel copies into the socket buffer).
 *
 * <p>Thread safety: as {@link MessageStream}; the send buffer lives in a shared arena, so the
 * opening thread and the sending thread may differ.
 */
public final class TcpMessageStream implements MessageStream {

    /** How long {@link #finish()} waits for the receiver to drain the connection. */
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

    private final SocketChannel channel;
    private final TcpStreamReceiver receiver;
    private final MessageOptions options;
    private final Arena arena;
    private final ByteBuffer frame;
    private final Crc32cTrailer trailer;
    /** The sender's idle step while a non-blocking channel's send buffer is full; null when it blocks. */
    private final BusyWait spin;
    private long sent;
    private boolean finished;

    private TcpMessageStream(SocketChannel channel, TcpStreamReceiver receiver, MessageOptions options) {
        this.channel = channel;
        this.receiver = receiver;
        this.options = options;
        this.arena = Arena.ofShared();
        MemorySegment frameSegment = arena.allocate(options.frameSize(), Long.BYTES);
        MessagePattern.fill(frameSegment, options.messageSize());
        this.frame = frameSegment.asByteBuffer();
        this.trailer = options.crc() ? new Crc32cTrailer() : null;
        this.spin = channel.isBlocking() ? null : new BusyWait(BusyWait.YIELD_EVERY_SYSCALL);
    }

    /**
     * Connects a blocking loopback pair and starts the receiver.
     *
     * @param options the message shape
     * @return the open stream
     * @throws IOException if the loopback pair could not be connected
     */
    public static TcpMessageStream open(MessageOptions options) throws IOException {
        return open(LoopbackTcp.connect(), options);
    }

    /**
     * Connects a loopback pair, switches both channels to non-blocking, and starts the receiver,
     * which busy-polls its channel.
     *
     * @param options the message shape
     * @return the open stream
     * @throws IOException if the loopback pair could not be connected
     */
    public static TcpMessageStream openBusyPoll(MessageOptions options) throws IOException {
        return open(LoopbackTcp.connect().nonBlocking(), options);
    }

    private static TcpMessageStream open(LoopbackTcp.Pair pair, MessageOptions options) throws IOException {
        TcpStreamReceiver receiver = new TcpStreamReceiver(pair.acceptor(), options);
        receiver.start();
        try {
            return new TcpMessageStream(pair.initiator(), receiver, options);
        } catch (RuntimeException | Error e) {
            // Closing our end makes the peer see end of stream, end, and close its own end.
            pair.initiator().close();
            throw e;
        }
    }

    @Override
    public MessageOptions options() {
        return options;
    }

    @Override
    public void send() throws IOException {
        MessagePattern.sequence(frame, sent);
        if (trailer != null) {
            trailer.append(frame, options.messageSize());
        }
        frame.clear();
        if (spin == null) {
            ChannelIo.writeFully(channel, frame);
        } else {
            ChannelIo.spinWriteFully(channel, frame, spin, this);
        }
        sent++;
    }

    @Override
    public String toString() {
        return spin == null ? "TCP stream" : "busy-polling TCP stream";
    }

    @Override
    public void hold() {
        receiver.hold();
    }

    @Override
    public void release() {
        receiver.release();
    }

    @Override
    public TransferReport finish() throws IOException, InterruptedException {
        if (finished) {
            throw new IllegalStateException("finish() called twice on this message stream");
        }
        finished = true;
        receiver.release();
        try {
            // Half-close: the receiver reads everything still in flight, then sees end of stream.
            channel.shutdownOutput();
            receiver.awaitEnd(DRAIN_TIMEOUT);
        } finally {
            channel.close();
            arena.close();
        }
        return receiver.report(sent);
    }
}
