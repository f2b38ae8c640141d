package io.jrnic.core.transport;

import io.netty.channel.Channel;

import java.net.SocketAddress;

/**
 * A listening socket of an {@link IwarpTransport} (the passive side of Verbs §6.6.1.2). Closing it
 * stops accepting; connections already accepted are not affected.
 *
 * <p>Thread safety: safe to use from any thread except an event loop of the transport (close waits).
 */
public final class MpaListener implements AutoCloseable {

    private final IwarpTransport transport;
    private final Channel serverChannel;

    MpaListener(IwarpTransport transport, Channel serverChannel) {
        this.transport = transport;
        this.serverChannel = serverChannel;
    }

    /** The bound address (with the actual port when port 0 was asked for). */
    public SocketAddress localAddress() {
        return serverChannel.localAddress();
    }

    /** Whether the listener still accepts connections. */
    public boolean isOpen() {
        return serverChannel.isOpen();
    }

    /**
     * Stops listening and waits until the socket is closed.
     *
     * @throws IllegalStateException if called on an event loop of the transport
     */
    @Override
    public void close() {
        transport.checkNotInEventLoop("MpaListener.close");
        serverChannel.close().awaitUninterruptibly();
    }
}
