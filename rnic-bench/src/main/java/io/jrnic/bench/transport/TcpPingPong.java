package io.jrnic.bench.transport;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The raw-TCP {@link PingPong}: the caller writes a message to a SocketChannel and reads the echo
 * that a {@link TcpEchoPeer} thread sends back over the loopback connection. The baseline for RNIC
 * round-trip latency, in two modes:
 *
 * <ul>
 *   <li>{@link #open}: blocking channels on both ends, each thread parks in {@code read} until the
 *       kernel wakes it ({@link Transport#TCP});</li>
 *   <li>{@link #openBusyPoll}: non-blocking channels on both ends, each thread spins on
 *       {@code read} calls that return nothing (no selector, no parking; {@link BusyWait} between
 *       two empty reads, as every polling loop of the RNIC fixtures). No wake-up is ever paid:
 *       the floor of a TCP round trip on this machine ({@link Transport#TCP_BUSY_POLL}).</li>
 * </ul>
 *
 * <p>Both modes write the same frames (the {@link MessagePattern} layout, the CRC trailer when on)
 * and check the same things; neither allocates per round trip.
 *
 * <p>The outgoing and incoming frames are separate native buffers, so an echo that returned
 * nothing new could not pass for one that did: the sequence number of every echo is compared with
 * the one just sent.
 *
 * <p>Thread safety: as {@link PingPong}; the buffers live in a shared arena, so the opening thread
 * and the calling thread may differ.
 */
public final class TcpPingPong implements PingPong {

    private final SocketChannel channel;
    private final TcpEchoPeer echo;
    private final MessageOptions options;
    private final Arena arena;
    private final ByteBuffer out;
    private final ByteBuffer in;
    private final Crc32cTrailer trailer;
    /** The idle step between two empty reads when busy-polling; null when the channel blocks. */
    private final BusyWait spin;
    private long sent;
    private long delivered;
    private long crcErrors;
    private long sequenceErrors;
    private boolean finished;

    private TcpPingPong(SocketChannel channel, TcpEchoPeer echo, MessageOptions options) {
        this.channel = channel;
        this.echo = echo;
        this.options = options;
        this.arena = Arena.ofShared();
        MemorySegment outSegment = arena.allocate(options.frameSize(), Long.BYTES);
        MessagePattern.fill(outSegment, options.messageSize());
        this.out = outSegment.asByteBuffer();
        this.in = arena.allocate(options.frameSize(), Long.BYTES).asByteBuffer();
        this.trailer = options.crc() ? new Crc32cTrailer() : null;
        this.spin = channel.isBlocking() ? null : new BusyWait(BusyWait.YIELD_EVERY_SYSCALL);
    }

    /**
     * Connects a blocking loopback pair and starts the echo peer.
     *
     * @param options the message shape (the latency benchmark uses 8-byte messages)
     * @return the open pair
     * @throws IOException if the loopback pair could not be connected
     */
    public static TcpPingPong open(MessageOptions options) throws IOException {
        return open(LoopbackTcp.connect(), options);
    }

    /**
     * Connects a loopback pair, switches both channels to non-blocking, and starts the echo peer,
     * which busy-polls its channel as this side does.
     *
     * @param options the message shape (the latency benchmark uses 8-byte messages)
     * @return the open pair
     * @throws IOException if the loopback pair could not be connected
     */
    public static TcpPingPong openBusyPoll(MessageOptions options) throws IOException {
        return open(LoopbackTcp.connect().nonBlocking(), options);
    }

    private static TcpPingPong open(LoopbackTcp.Pair pair, MessageOptions options) throws IOException {
        TcpEchoPeer echo = new TcpEchoPeer(pair.acceptor(), options);
        echo.start();
        try {
            return new TcpPingPong(pair.initiator(), echo, options);
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
    public long roundTrip() throws IOException {
        long sequence = sent;
        MessagePattern.sequence(out, sequence);
        if (trailer != null) {
            trailer.append(out, options.messageSize());
        }
        out.clear();
        if (spin == null) {
            ChannelIo.writeFully(channel, out);
        } else {
            ChannelIo.spinWriteFully(channel, out, spin, this);
        }
        sent++;

        in.clear();
        ChannelIo.ReadOutcome outcome = spin == null ? ChannelIo.readFully(channel, in)
                : ChannelIo.spinReadFully(channel, in, spin, this);
        if (outcome != ChannelIo.ReadOutcome.COMPLETE) {
            throw new EOFException("echo peer closed the connection after " + delivered + " round trips");
        }
        delivered++;
        if (trailer != null && !trailer.verify(in, options.messageSize())) {
            crcErrors++;
        }
        long echoed = MessagePattern.sequence(in);
        if (echoed != sequence) {
            sequenceErrors++;
        }
        return echoed;
    }

    /** {@return whether this pair busy-polls non-blocking channels ({@link #openBusyPoll}) instead of blocking} */
    public boolean busyPoll() {
        return spin != null;
    }

    @Override
    public String toString() {
        return spin == null ? "TCP ping-pong" : "busy-polling TCP ping-pong";
    }

    @Override
    public void hold() {
        echo.hold();
    }

    @Override
    public void release() {
        echo.release();
    }

    @Override
    public TransferReport finish() throws IOException, InterruptedException {
        if (finished) {
            throw new IllegalStateException("finish() called twice on this ping-pong");
        }
        finished = true;
        echo.release();
        try {
            channel.shutdownOutput();
            echo.awaitEnd(TcpMessageStream.DRAIN_TIMEOUT);
        } finally {
            channel.close();
            arena.close();
        }
        // Both directions: the echo checked the pings, this side checked the pongs.
        return new TransferReport(sent, delivered, crcErrors + echo.crcErrors,
                sequenceErrors + echo.sequenceErrors, echo.payloadErrors, echo.truncated);
    }
}
