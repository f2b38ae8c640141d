package io.jrnic.bench.transport;

import java.io.IOException;

/**
 * The transports the benchmarks compare, each able to open the two fixtures. The throughput benchmark
 * takes the transport as a {@code @Param} without values, so every constant here runs in it; the
 * latency benchmark lists the constants that {@linkplain #hasPingPong() have a ping-pong}. Either
 * way the raw-TCP baselines ({@link #TCP}, {@link #TCP_BUSY_POLL}, {@link #TCP_PACKED}) run in the
 * same invocation as the RNIC, which is divided by them (docs/benchmarks.md).
 *
 * <p>Adding a transport: a constant whose two methods
 * open a {@link MessageStream} and a {@link PingPong} that keep their contracts (message layout of
 * {@link MessagePattern}, CRC trailer or MPA CRC when {@link MessageOptions#crc()}, an honest
 * {@link TransferReport}), and its name in {@code LatencyBenchmark}'s {@code transport} list (a
 * test checks the list against {@link #hasPingPong()}).
 *
 * <p>Thread safety: immutable; the opened fixtures document their own.
 */
public enum Transport {

    /**
     * Plain blocking {@code java.nio} SocketChannels over loopback TCP, TCP_NODELAY on, one
     * {@code write} per message: the baseline. A thread waiting for bytes parks in the kernel and
     * pays a wake-up ({@link TcpMessageStream#open}, {@link TcpPingPong#open}).
     */
    TCP {
        @Override
        public MessageStream openStream(MessageOptions options) throws IOException {
            return TcpMessageStream.open(options);
        }

        @Override
        public PingPong openPingPong(MessageOptions options) throws IOException {
            return TcpPingPong.open(options);
        }
    },

    /**
     * The floor: the same messages as {@link #TCP} over non-blocking SocketChannels that both ends
     * busy-poll, spinning on {@code read} calls that return nothing (no selector, no parking, a
     * {@link Thread#yield()} every 64 empty reads as in every polling loop
     * of the harness). No thread ever sleeps, so no wake-up is paid: the lowest round trip TCP gives
     * on this machine, the reference of a polling RNIC ({@link TcpPingPong#openBusyPoll}). Its
     * stream is the per-message stream with a busy-polling receiver and a sender that spins while
     * the send buffer is full ({@link TcpMessageStream#openBusyPoll}).
     */
    TCP_BUSY_POLL {
        @Override
        public MessageStream openStream(MessageOptions options) throws IOException {
            return TcpMessageStream.openBusyPoll(options);
        }

        @Override
        public PingPong openPingPong(MessageOptions options) throws IOException {
            return TcpPingPong.openBusyPoll(options);
        }
    },

    /**
     * The message-rate baseline: blocking SocketChannels as {@link #TCP}, but the sender packs
     * messages into {@value TcpPackedStream#BATCH_BYTES}-byte batches, written in
     * {@value TcpPackedStream#WRITE_BYTES}-byte writes (the size loopback TCP streams fastest), and the receiver reads large
     * chunks and walks the messages in them ({@link TcpPackedStream}); what TCP does for small
     * messages when the application batches them. A stream only: a ping-pong has one message in
     * flight and nothing to pack, so {@link #openPingPong} refuses and {@link #hasPingPong()} is false.
     */
    TCP_PACKED {
        @Override
        public MessageStream openStream(MessageOptions options) throws IOException {
            return TcpPackedStream.open(options);
        }

        @Override
        public PingPong openPingPong(MessageOptions options) {
            throw new UnsupportedOperationException("TCP_PACKED is a stream baseline: a ping-pong has one message"
                    + " in flight and nothing to pack (use TCP or TCP_BUSY_POLL)");
        }

        @Override
        public boolean hasPingPong() {
            return false;
        }
    },

    /**
     * The RNIC's RDMA Write between two {@link io.jrnic.core.SoftRnic}s over loopback: throughput is
     * a window of Writes into the peer's advertised region ({@code ib_write_bw}), latency a Write
     * ping-pong polling the inbox's last word ({@code ib_write_lat}); see {@link RnicMessageStream},
     * {@link RnicPingPong}. {@code crc} is the MPA CRC of the connection.
     */
    RNIC_WRITE {
        @Override
        public MessageStream openStream(MessageOptions options) throws IOException {
            return RnicMessageStream.openWrite(options);
        }

        @Override
        public PingPong openPingPong(MessageOptions options) throws IOException {
            return RnicPingPong.openWrite(options);
        }
    },

    /**
     * The RNIC's Send into pre-posted receives, between two {@link io.jrnic.core.SoftRnic}s over
     * loopback: throughput with a consumer that re-posts each receive and grants credits
     * ({@code ib_send_bw}), latency a Send ping-pong polling the CQ ({@code ib_send_lat}); see
     * {@link RnicMessageStream}, {@link RnicPingPong}. {@code crc} is the MPA CRC of the connection.
     */
    RNIC_SEND {
        @Override
        public MessageStream openStream(MessageOptions options) throws IOException {
            return RnicMessageStream.openSend(options);
        }

        @Override
        public PingPong openPingPong(MessageOptions options) throws IOException {
            return RnicPingPong.openSend(options);
        }
    };

    /**
     * Connects a sender to a consumer and starts the consumer.
     *
     * @param options message size and checks
     * @return the open stream, ready for {@link MessageStream#send()}
     * @throws IOException if the endpoints could not be connected
     */
    public abstract MessageStream openStream(MessageOptions options) throws IOException;

    /**
     * Connects a requester to an echoing peer and starts the peer.
     *
     * @param options message size and checks
     * @return the open pair, ready for {@link PingPong#roundTrip()}
     * @throws IOException                   if the endpoints could not be connected
     * @throws UnsupportedOperationException if this transport {@linkplain #hasPingPong() has no ping-pong}
     */
    public abstract PingPong openPingPong(MessageOptions options) throws IOException;

    /**
     * {@return whether {@link #openPingPong} opens a ping-pong (every transport but the stream-only
     * {@link #TCP_PACKED}); the latency benchmark runs exactly these}
     */
    public boolean hasPingPong() {
        return true;
    }
}
