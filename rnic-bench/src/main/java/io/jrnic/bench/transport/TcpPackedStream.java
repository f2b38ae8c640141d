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
 * <p>Memory: the sender cycles through {@link #batchesFor} batches, at least as many bytes as the RNIC
 * stream's source of {@value RnicMessageStream#WINDOW} message slots, and the receiver reads into
 * a ring as large as the RNIC's sink, so that both transports read and write the same amount of
 * memory: a 64 KiB stream walks 8 MiB on each side, which no cache holds. With one reused batch
 * (before 2026-11-28 22:45 UTC) the baseline's 64 KiB stayed in the cache while the RNIC's
 * Writes came from 8 MiB, and the RNIC's ratio at 64 KiB was about 15% lower for that alone
 * (docs/benchmarks.md, "Issue 11, 2026-11-28 21:40").
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
    /** The batches the sender cycles through, views of one region. */
    private final ByteBuffer[] batches;
    private int batchIndex;
    private ByteBuffer batch;
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
        long batchBytes = (long) slots * frameSize;
        this.batches = new ByteBuffer[batchesFor(options)];
        MemorySegment region = arena.allocate(batches.length * batchBytes, Long.BYTES);
        for (int b = 0; b < batches.length; b++) {
            MemorySegment batchSegment = region.asSlice(b * batchBytes, batchBytes);
            for (int i = 0; i < slots; i++) {
                MessagePattern.fill(batchSegment.asSlice((long) i * frameSize, options.messageSize()),
                        options.messageSize());
            }
            batches[b] = batchSegment.asByteBuffer();
        }
        this.batch = batches[0];
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
     * Batches the sender cycles through for a message shape: enough for the
     * {@value RnicMessageStream#WINDOW} messages of the RNIC stream's source, at least one.
     *
     * @param options the message shape
     * @return {@code ceil(WINDOW / slotsPerBatch)}
     */
    public static int batchesFor(MessageOptions options) {
        int slots = slotsPerBatch(options);
        return (RnicMessageStream.WINDOW + slots - 1) / slots;
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
        // the next send() puts into slot 0 onwards of the next batch: absolute puts are checked
        // against the limit
        batch.clear();
        batchIndex = batchIndex + 1 == batches.length ? 0 : batchIndex + 1;
        batch = batches[batchIndex];
        pending = 0;
    }

    /** Pieces written so far, each of at most {@link #WRITE_BYTES} bytes. */
    long writes() {
        return writes;
    }

    @Override
    public String toString() {
        return "packed TCP stream (" + slots + " messages per batch, " + batches.length + " batches, writes of at most "
                + WRITE_BYTES + " bytes)";
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
