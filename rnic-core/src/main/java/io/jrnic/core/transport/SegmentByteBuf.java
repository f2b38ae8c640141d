package io.jrnic.core.transport;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.nio.ByteOrder;

/**
 * What the transport's reusable buffers over foreign memory ({@link TxFpdu}, {@link RxWindow})
 * share: a fixed capacity, big-endian order, no backing array, nothing wrapped. No exposed address
 * either, unless a subclass is one block of native memory and says so ({@link RxWindow}).
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
    public boolean hasMemoryAddress() {
        return false;
    }

    @Override
    public long memoryAddress() {
        throw new UnsupportedOperationException();
    }

    // The little-endian and three-byte accessors, composed from the subclass's own byte, short,
    // int and long accessors (a read-only subclass refuses those, and so these).

    @Override
    protected final short _getShortLE(int index) {
        return Short.reverseBytes(_getShort(index));
    }

    @Override
    protected final int _getUnsignedMedium(int index) {
        return (_getByte(index) & 0xff) << 16 | (_getByte(index + 1) & 0xff) << 8 | _getByte(index + 2) & 0xff;
    }

    @Override
    protected final int _getUnsignedMediumLE(int index) {
        return (_getByte(index + 2) & 0xff) << 16 | (_getByte(index + 1) & 0xff) << 8 | _getByte(index) & 0xff;
    }

    @Override
    protected final int _getIntLE(int index) {
        return Integer.reverseBytes(_getInt(index));
    }

    @Override
    protected final long _getLongLE(int index) {
        return Long.reverseBytes(_getLong(index));
    }

    @Override
    protected final void _setShortLE(int index, int value) {
        _setShort(index, Short.reverseBytes((short) value));
    }

    @Override
    protected final void _setMedium(int index, int value) {
        _setByte(index, value >>> 16);
        _setByte(index + 1, value >>> 8);
        _setByte(index + 2, value);
    }

    @Override
    protected final void _setMediumLE(int index, int value) {
        _setByte(index, value);
        _setByte(index + 1, value >>> 8);
        _setByte(index + 2, value >>> 16);
    }

    @Override
    protected final void _setIntLE(int index, int value) {
        _setInt(index, Integer.reverseBytes(value));
    }

    @Override
    protected final void _setLongLE(int index, long value) {
        _setLong(index, Long.reverseBytes(value));
    }
}
