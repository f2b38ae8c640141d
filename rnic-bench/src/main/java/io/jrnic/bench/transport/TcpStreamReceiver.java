package io.jrnic.bench.transport;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The consuming side of {@link TcpMessageStream}: reads every message completely into native
 * memory, checks it (sequence, CRC trailer, optionally the pattern) and goes on to the next.
 *
 * <p>Thread safety: see {@link TcpPeer}.
 */
final class TcpStreamReceiver extends TcpPeer {

    /**
     * Creates a receiver that is not started yet.
     *
     * @param channel the accepted channel, blocking or (busy-polled) non-blocking; the receiver
     *                closes it when it ends
     * @param options the message shape
     */
    TcpStreamReceiver(SocketChannel channel, MessageOptions options) {
        super(channel, options, channel.isBlocking() ? "jrnic-bench-tcp-receiver" : "jrnic-bench-tcp-busy-poll-receiver");
    }

    /** The message has been read and checked; a stream consumer has nothing more to do. */
    @Override
    void handle(ByteBuffer frame, Crc32cTrailer trailer) {
        // Deliberately empty: consuming is reading into memory and checking, done by TcpPeer.
    }

    /**
     * The report of this receiver for a sender that sent {@code sent} messages.
     *
     * @param sent messages sent by the other side
     * @return the report (call after {@link #awaitEnd})
     */
    TransferReport report(long sent) {
        return new TransferReport(sent, delivered, crcErrors, sequenceErrors, payloadErrors, truncated);
    }
}
