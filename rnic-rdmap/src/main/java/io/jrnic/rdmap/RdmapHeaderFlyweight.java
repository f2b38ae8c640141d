package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What the RDMAP header flyweights share: the segment and offset they are wrapped over and the
 * big-endian accessors (RFC 5040 §2.1 via RFC 5041: network byte order).
 *
 * <p>An RDMAP header starts right after the DDP header (14 bytes tagged, 18 untagged). A flyweight
 * is re-wrapped over each header it reads or writes and holds no state of its own, so one instance
 * serves any number of messages without allocation. Not thread-safe: use one instance per thread.
 */
public abstract sealed class RdmapHeaderFlyweight
        permits ReadRequestHeaderFlyweight, TerminateHeaderFlyweight, ImmediateDataHeaderFlyweight,
        AtomicRequestHeaderFlyweight, AtomicResponseHeaderFlyweight, FlushRequestHeaderFlyweight,
        VerifyRequestHeaderFlyweight, VerifyResponseHeaderFlyweight, AtomicWriteRequestHeaderFlyweight {

    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    MemorySegment segment;
    long offset;

    RdmapHeaderFlyweight() {
    }

    /** {@return the segment this flyweight is wrapped over, or null before the first wrap} */
    public final MemorySegment segment() {
        return segment;
    }

    /** {@return the offset of the header in {@link #segment()}} */
    public final long offset() {
        return offset;
    }

    final void wrap0(MemorySegment segment, long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > segment.byteSize()) {
            throw new IndexOutOfBoundsException(getClass().getSimpleName() + " of " + length + " bytes at " + offset
                    + " does not fit a segment of " + segment.byteSize() + " bytes");
        }
        this.segment = segment;
        this.offset = offset;
    }

    final int getInt(int fieldOffset) {
        return segment.get(INT_BE, offset + fieldOffset);
    }

    final void putInt(int fieldOffset, int value) {
        segment.set(INT_BE, offset + fieldOffset, value);
    }

    final long getLong(int fieldOffset) {
        return segment.get(LONG_BE, offset + fieldOffset);
    }

    final void putLong(int fieldOffset, long value) {
        segment.set(LONG_BE, offset + fieldOffset, value);
    }
}
