package io.jrnic.bench.transport;

import java.io.IOException;

/**
 * The transports the benchmarks compare, each able to open the two fixtures. The JMH benchmarks take
 * the transport as a {@code @Param} without values, so every constant here runs in every benchmark,
 * in the same run as the {@link #TCP} baseline that the others are divided by (docs/benchmarks.md).
 *
 * <p>Adding a transport: a constant whose two methods
 * open a {@link MessageStream} and a {@link PingPong} that keep their contracts (message layout of
 * {@link MessagePattern}, CRC trailer or MPA CRC when {@link MessageOptions#crc()}, an honest
 * {@link TransferReport}).
 *
 * <p>Thread safety: immutable; the opened fixtures document their own.
 */
public enum Transport {

    /** Plain blocking {@code java.nio} SocketChannels over loopback TCP, TCP_NODELAY on: the baseline. */
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
     * @throws IOException if the endpoints could not be connected
     */
    public abstract PingPong openPingPong(MessageOptions options) throws IOException;
}
