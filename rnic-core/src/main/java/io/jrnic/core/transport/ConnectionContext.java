package io.jrnic.core.transport;

import io.jrnic.core.transport.ConnectionInfo.Role;
import io.netty.buffer.ByteBuf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What both handlers of one connection share, for the connection's whole life: the transport and
 * its configuration, the role, the receive staging memory and the receive-buffer policy. The
 * {@link MpaSetupHandler} creates it and passes it explicitly to the {@link FpduFramingHandler} it
 * installs at Full Operation; neither handler reaches into the other.
 *
 * <p>Thread safety: created on any thread, then used on the connection's event loop only.
 */
final class ConnectionContext {

    final IwarpTransport transport;
    final TransportConfig config;
    final Role role;
    /** Receive staging: one native segment for the connection's life, wrapped once for netty. */
    final MemorySegment staging;
    /** All of the staging memory, as netty reads into it ({@link RxWindow}: by its address on epoll). */
    final ByteBuf stagingBuf;
    /** The first {@link TransportConfig#HEADER_READ_LENGTH} bytes of the staging memory: a cut read. */
    final ByteBuf stagingHeadBuf;
    /** Installed on the channel once; its source follows the handler swap (setup, then framing). */
    final PlacementRecvAllocator allocator;

    ConnectionContext(IwarpTransport transport, Role role) {
        this.transport = transport;
        this.config = transport.config();
        this.role = role;
        this.staging = Arena.ofAuto().allocate(config.stagingBufferSize());
        this.stagingBuf = new RxWindow().open(staging, 0, config.stagingBufferSize());
        this.stagingHeadBuf = new RxWindow().open(staging, 0, TransportConfig.HEADER_READ_LENGTH);
        this.allocator = new PlacementRecvAllocator();
    }

    /** Whether {@code buf} is the staging memory (whole or cut): the only heap-free buffer we read into. */
    boolean isStaging(ByteBuf buf) {
        return buf == stagingBuf || buf == stagingHeadBuf;
    }
}
