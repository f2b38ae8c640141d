package io.jrnic.bench.transport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Opens a connected pair of blocking TCP SocketChannels over the loopback interface, with
 * TCP_NODELAY on both ends (the RNIC writes whole FPDUs and must not wait for Nagle; neither may
 * its baseline). The listening socket is bound to an ephemeral port and closed once the pair is
 * connected, so nothing stays listening.
 *
 * <p>Thread safety: stateless, {@link #connect()} is thread-safe.
 */
public final class LoopbackTcp {

    /**
     * A connected pair of channels.
     *
     * @param initiator the channel that connected (the sending side in the benchmarks)
     * @param acceptor  the channel that was accepted (the consuming or echoing side)
     */
    public record Pair(SocketChannel initiator, SocketChannel acceptor) {

        /**
         * Switches both channels to non-blocking mode, for the busy-polling baselines (a read or
         * write that cannot move a byte returns 0 instead of parking the thread). Closes both on
         * failure.
         *
         * @return this pair
         * @throws IOException if a channel refused the mode
         */
        public Pair nonBlocking() throws IOException {
            try {
                initiator.configureBlocking(false);
                acceptor.configureBlocking(false);
                return this;
            } catch (IOException | RuntimeException e) {
                initiator.close();
                acceptor.close();
                throw e;
            }
        }
    }

    private LoopbackTcp() {
    }

    /**
     * Connects a new pair.
     *
     * @return two blocking channels connected to each other, TCP_NODELAY on
     * @throws IOException if binding, connecting or accepting failed (nothing is left open then)
     */
    public static Pair connect() throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            // The kernel completes the handshake into the backlog, so a blocking connect before
            // accept() cannot deadlock a single thread.
            SocketChannel initiator = SocketChannel.open(listener.getLocalAddress());
            try {
                SocketChannel acceptor = listener.accept();
                try {
                    initiator.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    acceptor.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    return new Pair(initiator, acceptor);
                } catch (IOException | RuntimeException e) {
                    acceptor.close();
                    throw e;
                }
            } catch (IOException | RuntimeException e) {
                initiator.close();
                throw e;
            }
        }
    }
}
