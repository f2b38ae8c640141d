package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;

/**
 * The 28-byte RDMA Read Request header that follows the untagged DDP header of a Read Request
 * (RFC 5040 §4.4, Figure 6).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     Data Sink STag (SinkSTag)                 |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * +                  Data Sink Tagged Offset (SinkTO)             +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  RDMA Read Message Size (RDMARDSZ)            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     Data Source STag (SrcSTag)                |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * +                 Data Source Tagged Offset (SrcTO)             +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The same 28 bytes are the Terminated RDMA Header of a Terminate (RFC 5040 §4.8), updated by
 * {@link #advance(long)} when the Read was partly served. Not thread-safe: use one instance per
 * thread.
 */
public final class ReadRequestHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the Data Sink STag, copied into the Read Response's DDP STag (R-READ-005). */
    public static final int SINK_STAG_OFFSET = 0;
    /** Offset of the Data Sink Tagged Offset. */
    public static final int SINK_TO_OFFSET = 4;
    /** Offset of the RDMA Read Message Size, 0..2^32-1 (R-READ-007). */
    public static final int READ_SIZE_OFFSET = 12;
    /** Offset of the Data Source STag. */
    public static final int SOURCE_STAG_OFFSET = 16;
    /** Offset of the Data Source Tagged Offset. */
    public static final int SOURCE_TO_OFFSET = 20;
    /** Length of the header. */
    public static final int HEADER_LENGTH = 28;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public ReadRequestHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public ReadRequestHeaderFlyweight wrap(MemorySegment segment, long offset) {
        wrap0(segment, offset, HEADER_LENGTH);
        return this;
    }

    /** {@return the Data Sink STag} */
    public int sinkStag() {
        return getInt(SINK_STAG_OFFSET);
    }

    /**
     * Writes the Data Sink STag.
     *
     * @param stag the Data Sink STag
     * @return this flyweight
     */
    public ReadRequestHeaderFlyweight sinkStag(int stag) {
        putInt(SINK_STAG_OFFSET, stag);
        return this;
    }

    /** {@return the Data Sink Tagged Offset, an unsigned 64-bit value} */
    public long sinkTaggedOffset() {
        return getLong(SINK_TO_OFFSET);
    }

    /**
     * Writes the Data Sink Tagged Offset.
     *
     * @param to the Data Sink Tagged Offset
     * @return this flyweight
     */
    public ReadRequestHeaderFlyweight sinkTaggedOffset(long to) {
        putLong(SINK_TO_OFFSET, to);
        return this;
    }

    /**
     * {@return the RDMA Read Message Size as the raw 32-bit field; use {@link #readSizeUnsigned()}
     * for arithmetic}
     */
    public int readSize() {
        return getInt(READ_SIZE_OFFSET);
    }

    /** {@return the RDMA Read Message Size as an unsigned value, 0..2^32-1} */
    public long readSizeUnsigned() {
        return Integer.toUnsignedLong(readSize());
    }

    /**
     * Writes the RDMA Read Message Size (unsigned 32 bits).
     *
     * @param size the RDMA Read Message Size in octets (unsigned 32 bits)
     * @return this flyweight
     */
    public ReadRequestHeaderFlyweight readSize(int size) {
        putInt(READ_SIZE_OFFSET, size);
        return this;
    }

    /** {@return the Data Source STag} */
    public int sourceStag() {
        return getInt(SOURCE_STAG_OFFSET);
    }

    /**
     * Writes the Data Source STag.
     *
     * @param stag the Data Source STag
     * @return this flyweight
     */
    public ReadRequestHeaderFlyweight sourceStag(int stag) {
        putInt(SOURCE_STAG_OFFSET, stag);
        return this;
    }

    /** {@return the Data Source Tagged Offset, an unsigned 64-bit value} */
    public long sourceTaggedOffset() {
        return getLong(SOURCE_TO_OFFSET);
    }

    /**
     * Writes the Data Source Tagged Offset.
     *
     * @param to the Data Source Tagged Offset
     * @return this flyweight
     */
    public ReadRequestHeaderFlyweight sourceTaggedOffset(long to) {
        putLong(SOURCE_TO_OFFSET, to);
        return this;
    }

    /**
     * Writes the whole header in one call.
     *
     * @param sinkStag the Data Sink STag
     * @param sinkTo the Data Sink Tagged Offset
     * @param readSize the RDMA Read Message Size in octets (unsigned 32 bits)
     * @param sourceStag the Data Source STag
     * @param sourceTo the Data Source Tagged Offset
     * @return this flyweight
     */
    public ReadRequestHeaderFlyweight encode(int sinkStag, long sinkTo, int readSize, int sourceStag, long sourceTo) {
        putInt(SINK_STAG_OFFSET, sinkStag);
        putLong(SINK_TO_OFFSET, sinkTo);
        putInt(READ_SIZE_OFFSET, readSize);
        putInt(SOURCE_STAG_OFFSET, sourceStag);
        putLong(SOURCE_TO_OFFSET, sourceTo);
        return this;
    }

    /**
     * Copies all 28 bytes of another wrapped Read Request header into this one.
     *
     * @param source the Read Request header to copy
     * @return this flyweight
     */
    public ReadRequestHeaderFlyweight copyFrom(ReadRequestHeaderFlyweight source) {
        MemorySegment.copy(source.segment, source.offset, segment, offset, HEADER_LENGTH);
        return this;
    }

    /**
     * Updates the header in place for a Read that was terminated after {@code bytesSent} octets
     * (RFC 5040 §4.8, R-TERM-009): SinkTO and SrcTO advance by that many octets and RDMARDSZ becomes
     * the number of octets left; the STags stay unchanged. TOs wrap modulo 2^64.
     *
     * @param bytesSent the octets of the Read Response already sent
     * @return this flyweight
     * @throws IllegalArgumentException if {@code bytesSent} is negative or exceeds RDMARDSZ
     */
    public ReadRequestHeaderFlyweight advance(long bytesSent) {
        long size = readSizeUnsigned();
        if (bytesSent < 0 || bytesSent > size) {
            throw new IllegalArgumentException("bytes sent " + bytesSent + " outside 0.." + size);
        }
        putLong(SINK_TO_OFFSET, sinkTaggedOffset() + bytesSent);
        putInt(READ_SIZE_OFFSET, (int) (size - bytesSent));
        putLong(SOURCE_TO_OFFSET, sourceTaggedOffset() + bytesSent);
        return this;
    }

    @Override
    public String toString() {
        return segment == null ? "ReadRequestHeader[unwrapped]" : String.format(
                "ReadRequestHeader[sink=0x%08x/0x%x size=%d source=0x%08x/0x%x]",
                sinkStag(), sinkTaggedOffset(), readSizeUnsigned(), sourceStag(), sourceTaggedOffset());
    }
}
