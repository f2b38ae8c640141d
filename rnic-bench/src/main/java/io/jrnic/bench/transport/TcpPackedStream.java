package io.jrnic.bench.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The raw-TCP {@link MessageStream} that packs messages: {@link #send()} writes the message's
 * sequence number (and CRC trailer) into the next slot of a batch of {@value #BATCH_BYTES} bytes,
 * and only a full batch goes to the blocking SocketChannel, in writes of {@value #WRITE_BYTES}
 * bytes. A
 * {@link TcpPackedReceiver} thread reads large chunks and walks the messages in them. This is what
 * TCP can do for small messages when the application batches them (a message-rate baseline,
 * {@link Transport#TCP_PACKED}); {@link TcpMessageStream} pays a system call per message instead.
 *
 * <p>Batch: {@code max(1, BATCH_BYTES / frameSize)} frames back to back, each laid out as
 * {@link MessagePattern} says, each with its own sequence number and trailer; the pattern is
 * written once at open, so per message the sender rewrites 8 bytes (plus the trailer), as the
 * per-write stream does. Messages of {@value #BATCH_BYTES} bytes or more are one per batch: then
 * this stream differs from the per-write one only in the size of its writes.
 *
 * <p>Delivery: a message sits in the batch until the batch fills, {@link #flush()} or
 * {@link #finish()}; over a measurement of many batches the rate of {@code send()} is the delivered
 * rate to within one batch. Counting: {@code sent} counts every message accepted by {@code send()}
 * ({@code finish()} writes the last, partial batch before it reports).
 *
 * <p>No allocation per message; the batch lives in a shared arena, so the opening thread and the
 * sending thread may differ.
 *
 * <p>Thread safety: as {@link MessageStream}.
 */
public final class TcpPackedStream implements MessageStream {

    /** Bytes of one batch: the loopback MTU, and the size of the 64 KiB message rows. */
    public static final int BATCH_BYTES = 64 * 1024;
    /**
     * The most bytes one {@code write} is given: half a batch. Loopback TCP moves a stream at about
     * twice the rate in writes of 32 KiB as in writes of 64 KiB, which exceed its 65,483-byte MSS
     * and leave a 53-byte segment behind each full one (docs/benchmarks.md, "Issue 11,
     * 2026-11-28"): the baseline is what TCP can do, so it writes the way TCP does best.
     */
    public static final int WRITE_BYTES = BATCH_BYTES / 2;

    private final SocketChannel channel;
    private final TcpPackedReceiver receiver;
    private final MessageOptions options;
    private final Arena arena;
    private final ByteBuffer batch;
    private final int frameSize;
    private final int slots;
    private final Crc32cTrailer trailer;
    /** Messages in the batch not yet written. */
    private int pending;
    private long sent;
    /** Pieces written, each of at most {@link #WRITE_BYTES} bytes (tests). */
    private long writes;
    private boolean finished;

    private TcpPackedStream(SocketChannel channel, TcpPackedReceiver receiver, MessageOptions options) {
        this.channel = channel;
        this.receiver = receiver;
        this.options = options;
        this.frameSize = options.frameSize();
        this.slots = slotsPerBatch(options);
        this.arena = Arena.ofShared();
        MemorySegment batchSegment = arena.allocate((long) slots * frameSize, Long.BYTES);
        for (int i = 0; i < slots; i++) {
            MessagePattern.fill(batchSegment.asSlice((long) i * frameSize, options.messageSize()), options.messageSize());
        }
        this.batch = batchSegment.asByteBuffer();
        this.trailer = options.crc() ? new Crc32cTrailer() : null;
    }

    /**
     * Frames per batch for a message shape.
     *
     * @param options the message shape
     * @return {@code max(1, BATCH_BYTES / frameSize)}
     */
    public static int slotsPerBatch(MessageOptions options) {
        return Math.max(1, BATCH_BYTES / options.frameSize());
    }

    /**
     * Connects a blocking loopback pair and starts the receiver.
     *
     * @param options the message shape
     * @return the open stream
     * @throws IOException if the loopback pair could not be connected
     */
    public static TcpPackedStream open(MessageOptions options) throws IOException {
        LoopbackTcp.Pair pair = LoopbackTcp.connect();
        TcpPackedReceiver receiver = new TcpPackedReceiver(pair.acceptor(), options);
        receiver.start();
        try {
            return new TcpPackedStream(pair.initiator(), receiver, options);
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
        int offset = pending * frameSize;
        MessagePattern.sequence(batch, offset, sent);
        if (trailer != null) {
            trailer.append(batch, offset, options.messageSize());
        }
        sent++;
        if (++pending == slots) {
            flush();
        }
    }

    /** Writes the messages of the batch so far, if any, in writes of at most {@value #WRITE_BYTES} bytes. */
    @Override
    public void flush() throws IOException {
        if (pending == 0) {
            return;
        }
        batch.limit(pending * frameSize).position(0);
        writes += ChannelIo.writeFully(channel, batch, WRITE_BYTES);
        // the next send() puts into slot 0 onwards: absolute puts are checked against the limit
        batch.clear();
        pending = 0;
    }

    /** Pieces written so far, each of at most {@link #WRITE_BYTES} bytes. */
    long writes() {
        return writes;
    }

    @Override
    public String toString() {
        return "packed TCP stream (" + slots + " messages per batch, writes of at most " + WRITE_BYTES + " bytes)";
    }

    @Override
    public TransferReport finish() throws IOException, InterruptedException {
        if (finished) {
            throw new IllegalStateException("finish() called twice on this message stream");
        }
        finished = true;
        try {
            flush();
            // Half-close: the receiver reads everything still in flight, then sees end of stream.
            channel.shutdownOutput();
            receiver.awaitEnd(TcpMessageStream.DRAIN_TIMEOUT);
        } finally {
            channel.close();
            arena.close();
        }
        return receiver.report(sent);
    }
}
