package io.jrnic.core.transport;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.nio.ByteOrder;

/**
 * What the transport's reusable buffers over foreign memory ({@link TxFpdu}, {@link RxWindow})
 * share: a fixed capacity, big-endian order, no backing array or exposed address, nothing wrapped.
 * They are recycled rather than freed, which is why they are netty buffers of their own instead of
 * {@code Unpooled.wrappedBuffer} objects made per FPDU.
 *
 * <p>Thread safety: confined to the owning connection's event loop.
 */
abstract class SegmentByteBuf extends AbstractReferenceCountedByteBuf {

    SegmentByteBuf() {
        super(Integer.MAX_VALUE);
    }

    @Override
    public final ByteBuf capacity(int newCapacity) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has a fixed capacity");
    }

    @Override
    public final ByteBufAllocator alloc() {
        return UnpooledByteBufAllocator.DEFAULT;
    }

    @Override
    @SuppressWarnings("deprecation")
    public final ByteOrder order() {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public final ByteBuf unwrap() {
        return null;
    }

    @Override
    public final boolean hasArray() {
        return false;
    }

    @Override
    public final byte[] array() {
        throw new UnsupportedOperationException();
    }

    @Override
    public final int arrayOffset() {
        throw new UnsupportedOperationException();
    }

    @Override
    public final boolean hasMemoryAddress() {
        return false;
    }

    @Override
    public final long memoryAddress() {
        throw new UnsupportedOperationException();
    }
}
