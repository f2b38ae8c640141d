package io.jrnic.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;

/**
 * The receive-buffer policy of one connection: before every socket read netty asks
 * {@link MpaConnection} which buffer to read into. When the deframer expects payload of a placed
 * FPDU ({@code FpduDeframer.directWindow() > 0}) that is a buffer wrapping exactly that slice of the
 * target segment, so the kernel copies the socket data straight into registered memory and the read
 * cannot run past the payload; otherwise it is the connection's reusable staging buffer.
 *
 * <p>The handle inherits netty's "keep reading while the last read filled its buffer, at most
 * {@value #MAX_READS_PER_LOOP} reads per event-loop turn" policy.
 *
 * <p>Thread safety: used by the connection's event loop only.
 */
final class PlacementRecvAllocator extends DefaultMaxMessagesRecvByteBufAllocator {

    /** Reads per readiness event before netty yields to other channels of the loop. */
    static final int MAX_READS_PER_LOOP = 16;

    private final MpaConnection connection;

    PlacementRecvAllocator(MpaConnection connection) {
        super(MAX_READS_PER_LOOP);
        this.connection = connection;
    }

    @Override
    @SuppressWarnings("deprecation")    // netty 4.2 deprecates Handle in favour of ExtendedHandle, which MaxMessageHandle is
    public Handle newHandle() {
        return new PlacementHandle();
    }

    private final class PlacementHandle extends MaxMessageHandle {
        @Override
        public void reset(io.netty.channel.ChannelConfig config) {
            connection.readEvents++;           // one call per read-readiness event of the channel
            super.reset(config);
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return connection.nextReadBuffer();
        }

        @Override
        public int guess() {
            return connection.nextReadSize();
        }
    }
}
