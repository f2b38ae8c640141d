package io.jrnic.bench.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The echoing side of {@link TcpPingPong}: reads each message completely, checks it, computes a
 * fresh CRC trailer when CRC is on (each direction pays the sender's CRC, as each FPDU would) and
 * writes the message back.
 *
 * <p>Thread safety: see {@link TcpPeer}.
 */
final class TcpEchoPeer extends TcpPeer {

    /**
     * Creates an echo peer that is not started yet.
     *
     * @param channel the accepted channel, blocking or (busy-polled) non-blocking; the peer closes
     *                it when it ends
     * @param options the message shape
     */
    TcpEchoPeer(SocketChannel channel, MessageOptions options) {
        super(channel, options, channel.isBlocking() ? "jrnic-bench-tcp-echo" : "jrnic-bench-tcp-busy-poll-echo");
    }

    @Override
    void handle(ByteBuffer frame, Crc32cTrailer trailer) throws IOException {
        if (trailer != null) {
            trailer.append(frame, options.messageSize());
        }
        write(frame);
    }
}
