package io.jrnic.bench.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * The background side of a TCP endpoint pair: a platform thread that reads whole messages from its
 * channel into native memory and checks them, until the other side shuts its output down. Subclasses
 * decide what happens to a checked message ({@link TcpStreamReceiver} drops it,
 * {@link TcpEchoPeer} sends it back); {@link TcpPackedReceiver} reads large chunks instead and walks
 * the messages packed in them.
 *
 * <p>Blocking or busy-polling: a blocking channel parks the peer in the kernel until bytes arrive
 * (the {@link Transport#TCP} baseline); a non-blocking one is busy-polled, the peer spinning on
 * {@code read} calls that return nothing, with {@link BusyWait} between them (the
 * {@link Transport#TCP_BUSY_POLL} floor). The channel's mode at construction decides.
 *
 * <p>Memory: the receive frame lives in a confined arena that the peer thread opens and closes
 * itself, so reads target native memory with no cross-thread handshake, and the memory is freed the
 * moment the peer ends. When the peer ends, for whatever reason, it closes its channel, so that the
 * other side gets an error instead of blocking forever.
 *
 * <p>Thread safety: the counters are plain fields written only by the peer thread; other threads read
 * them after {@link #awaitEnd(Duration)}, whose {@code Thread.join} orders the reads after the writes.
 */
abstract class TcpPeer implements Runnable {

    /** The channel this peer reads (and for an echo, writes). */
    protected final SocketChannel channel;

    /** The message shape. */
    protected final MessageOptions options;

    private final String name;
    private final Crc32cTrailer trailer;
    /** The idle step of the peer thread when the channel is busy-polled; null when it blocks. */
    private final BusyWait spin;
    private Thread thread;
    private IOException failure;

    /** Complete messages read. */
    long delivered;
    /** Messages whose trailer did not match. */
    long crcErrors;
    /** Messages whose sequence number was not {@link #delivered} at arrival. */
    long sequenceErrors;
    /** Messages whose pattern differed (only with {@link MessageOptions#verifyPayload()}). */
    long payloadErrors;
    /** 1 if the stream ended in the middle of a message. */
    long truncated;

    /**
     * Creates a peer that is not started yet.
     *
     * @param channel the channel to serve, blocking or (busy-polled) non-blocking; the peer closes
     *                it when it ends
     * @param options the message shape
     * @param name    the thread name
     */
    TcpPeer(SocketChannel channel, MessageOptions options, String name) {
        this.channel = channel;
        this.options = options;
        this.name = name;
        this.trailer = options.crc() ? new Crc32cTrailer() : null;
        this.spin = channel.isBlocking() ? null : new BusyWait(BusyWait.YIELD_EVERY_SYSCALL);
    }

    /**
     * Parks a busy-polling peer once it is idle, until {@link #release()} ({@link BusyWait#hold()});
     * a blocking peer parks in {@code read} anyway.
     */
    final void hold() {
        if (spin != null) {
            spin.hold();
        }
    }

    /** Ends a {@link #hold()}. */
    final void release() {
        if (spin != null) {
            spin.release();
        }
    }

    /** Starts the peer thread (a daemon, so that a wedged benchmark cannot keep the JVM alive). */
    final void start() {
        thread = Thread.ofPlatform().name(name).daemon().start(this);
    }

    /** Serves the channel until end of stream; records the first I/O failure. */
    @Override
    public final void run() {
        try (Arena arena = Arena.ofConfined()) {
            serve(arena);
        } catch (IOException e) {
            failure = e;
        } finally {
            IOException closeFailure = closeChannel();
            if (failure == null) {
                failure = closeFailure;
            }
        }
    }

    /**
     * Reads, checks and {@linkplain #handle handles} one whole message per read until end of
     * stream. Runs on the peer thread.
     *
     * @param arena the peer thread's confined arena, closed when the peer ends
     * @throws IOException if the channel failed
     */
    void serve(Arena arena) throws IOException {
        MemorySegment frameSegment = arena.allocate(options.frameSize(), Long.BYTES);
        ByteBuffer frame = frameSegment.asByteBuffer();
        MemorySegment expected = expectedPattern(arena);
        while (true) {
            frame.clear();
            ChannelIo.ReadOutcome outcome = spin == null ? ChannelIo.readFully(channel, frame)
                    : ChannelIo.spinReadFully(channel, frame, spin, null);
            if (outcome == ChannelIo.ReadOutcome.END_OF_STREAM) {
                return;
            }
            if (outcome == ChannelIo.ReadOutcome.TRUNCATED) {
                truncated++;
                return;
            }
            accept(frame, frameSegment, 0, expected);
            frame.flip();
            handle(frame, trailer);
        }
    }

    /**
     * {@return the pattern a received message is compared with, allocated from {@code arena}, or
     * null when {@link MessageOptions#verifyPayload()} is off}
     */
    final MemorySegment expectedPattern(Arena arena) {
        return options.verifyPayload() ? MessagePattern.allocate(arena, options.messageSize()) : null;
    }

    /**
     * Checks one complete message (sequence, CRC, optionally the pattern), counts what failed, and
     * counts it delivered.
     *
     * @param buffer   the received bytes
     * @param segment  the same bytes as a segment (for the pattern comparison)
     * @param offset   index of the message's first byte in both
     * @param expected the pattern to compare with, or null not to compare
     */
    final void accept(ByteBuffer buffer, MemorySegment segment, int offset, MemorySegment expected) {
        if (MessagePattern.sequence(buffer, offset) != delivered) {
            sequenceErrors++;
        }
        if (trailer != null && !trailer.verify(buffer, offset, options.messageSize())) {
            crcErrors++;
        }
        if (expected != null && !MessagePattern.patternMatches(segment, offset, expected, options.messageSize())) {
            payloadErrors++;
        }
        delivered++;
    }

    /**
     * Writes a whole buffer to the channel: a blocking write, or spinning while a non-blocking
     * channel's send buffer is full.
     *
     * @param buffer the bytes, from position to limit
     * @throws IOException if the channel failed
     */
    final void write(ByteBuffer buffer) throws IOException {
        if (spin == null) {
            ChannelIo.writeFully(channel, buffer);
        } else {
            ChannelIo.spinWriteFully(channel, buffer, spin, name);
        }
    }

    /**
     * Does what this peer does with a received, checked message.
     *
     * @param frame   the whole frame (message and trailer), position 0, limit the frame size
     * @param trailer the CRC helper of this peer's thread, or null when CRC is off
     * @throws IOException if the channel failed
     */
    abstract void handle(ByteBuffer frame, Crc32cTrailer trailer) throws IOException;

    /**
     * Waits for the peer to reach the end of its stream.
     *
     * @param timeout how long to wait before declaring the peer stuck
     * @throws InterruptedException  if interrupted while waiting
     * @throws IOException           if the peer failed with an I/O error
     * @throws IllegalStateException if the peer did not end in time (its channel is then closed)
     */
    final void awaitEnd(Duration timeout) throws InterruptedException, IOException {
        if (!thread.join(timeout)) {
            // Unblocks the peer's read (and a held peer's park); the peer records the
            // AsynchronousCloseException it gets.
            release();
            closeChannel();
            thread.join();
            throw new IllegalStateException(name + " did not reach the end of its stream within " + timeout);
        }
        if (failure != null) {
            throw new IOException(name + " failed after " + delivered + " messages", failure);
        }
    }

    /** Closes the channel (idempotent); returns the failure instead of throwing it. */
    private IOException closeChannel() {
        try {
            channel.close();
            return null;
        } catch (IOException e) {
            return e;
        }
    }
}
