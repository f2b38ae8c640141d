package io.jrnic.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;

/**
 * The receive-buffer policy of one connection: before every socket read netty asks the current
 * {@link ReadSource} which buffer to read into. During MPA setup that is the {@link MpaSetupHandler}
 * (always the staging buffer); from Full Operation on it is the {@link FpduFramingHandler}: when the
 * deframer expects payload of a placed FPDU ({@code FpduDeframer.directWindow() > 0}) a buffer
 * wrapping exactly that slice of the target segment, so the kernel copies the socket data straight
 * into registered memory and the read cannot run past the payload; otherwise the staging buffer.
 *
 * <p>netty caches the allocator's handle in the channel's unsafe at the first read, so a new
 * allocator set on the channel later would not be used: the handler swap retargets this one
 * instead ({@link #source}).
 *
 * <p>The handle inherits netty's "keep reading while the last read filled its buffer, at most
 * {@value #MAX_READS_PER_LOOP} reads per event-loop turn" policy.
 *
 * <p>Thread safety: used by the connection's event loop only.
 */
final class PlacementRecvAllocator extends DefaultMaxMessagesRecvByteBufAllocator {

    /** Reads per readiness event before netty yields to other channels of the loop. */
    static final int MAX_READS_PER_LOOP = 16;

    /** Supplies the buffer and the size of each socket read. */
    interface ReadSource {
        /** The buffer of the next socket read (retained for the read; channelRead releases it). */
        ByteBuf nextReadBuffer();

        /** Size of the next socket read (netty's guess). */
        int nextReadSize();
    }

    private ReadSource source;
    /** Read-readiness events (netty read loops) of this channel: tests relate allocations to them. */
    long readEvents;
    /** Bytes this channel's reads brought: a loop's polled reads tell work from empty reads by it. */
    long bytesRead;

    PlacementRecvAllocator() {
        super(MAX_READS_PER_LOOP);
    }

    /** Makes {@code next} answer every following read (the handler swap at Full Operation). */
    void source(ReadSource next) {
        source = next;
    }

    @Override
    @SuppressWarnings("deprecation")    // netty 4.2 deprecates Handle in favour of ExtendedHandle, which MaxMessageHandle is
    public Handle newHandle() {
        return new PlacementHandle();
    }

    private final class PlacementHandle extends MaxMessageHandle {
        @Override
        public void reset(io.netty.channel.ChannelConfig config) {
            readEvents++;           // one call per read-readiness event of the channel
            super.reset(config);
        }

        @Override
        public void lastBytesRead(int bytes) {
            if (bytes > 0) {
                bytesRead += bytes;
            }
            super.lastBytesRead(bytes);
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return source.nextReadBuffer();
        }

        @Override
        public int guess() {
            return source.nextReadSize();
        }
    }
}
