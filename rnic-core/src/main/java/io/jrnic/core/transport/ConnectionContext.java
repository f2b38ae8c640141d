package io.jrnic.core.transport;

import io.jrnic.core.transport.ConnectionInfo.Role;
import io.netty.channel.Channel;

/**
 * What both handlers of one connection share, for the connection's whole life: the transport and
 * its configuration, the role, the receive staging memory (its event loop's) and the receive-buffer
 * policy. The {@link MpaSetupHandler} creates it and passes it explicitly to the
 * {@link FpduFramingHandler} it installs at Full Operation; neither handler reaches into the other.
 *
 * <p>Thread safety: created on any thread, then used on the connection's event loop only.
 */
final class ConnectionContext {

    final IwarpTransport transport;
    final TransportConfig config;
    final Role role;
    /** The receive staging of the connection's event loop, looked up at the first read (a channel keeps its loop). */
    private ReadStaging staging;
    /** Installed on the channel once; its source follows the handler swap (setup, then framing). */
    final PlacementRecvAllocator allocator;

    ConnectionContext(IwarpTransport transport, Role role) {
        this.transport = transport;
        this.config = transport.config();
        this.role = role;
        this.allocator = new PlacementRecvAllocator();
    }

    /**
     * The receive staging memory of {@code ch}'s event loop, shared with the other connections of
     * that loop ({@link ReadStaging}). Loop thread.
     */
    ReadStaging staging(Channel ch) {
        ReadStaging s = staging;
        if (s == null) {
            s = transport.stagingFor(ch.eventLoop());
            staging = s;
        }
        return s;
    }
}
