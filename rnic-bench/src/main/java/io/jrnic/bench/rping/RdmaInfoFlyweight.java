package io.jrnic.bench.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * rping's buffer advertisement, the 16-byte payload of every Send (rdma-core
 * librdmacm/examples/rping.c {@code struct rping_rdma_info}, all fields big-endian):
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       buf (be64, the TO)                      |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      rkey (be32, the STag)                    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      size (be32, bytes)                       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The client advertises its start buffer (the server RDMA Reads it) and then its RDMA buffer (the
 * server RDMA Writes the echo into it); the server's "go ahead" Send carries 16 zero bytes. With
 * VA-based regions, {@code buf} is the buffer's virtual address, as siw expects.
 *
 * <p>Thread safety: not thread safe; one flyweight per thread, wrapping one segment at a time.
 */
public final class RdmaInfoFlyweight {

    /** Offset of {@code buf}. */
    public static final int BUF_OFFSET = 0;
    /** Offset of {@code rkey}. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of {@code size}. */
    public static final int SIZE_OFFSET = 12;
    /** Length of the structure: what every rping Send carries. */
    public static final int LENGTH = 16;

    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment segment;
    private long offset;

    /** Creates an unwrapped flyweight; {@link #wrap} it over a payload before use. */
    public RdmaInfoFlyweight() {
    }

    /**
     * Wraps 16 bytes of a segment.
     *
     * @param segment the memory
     * @param offset  where the structure starts
     * @return this
     * @throws IndexOutOfBoundsException if fewer than 16 bytes follow offset
     */
    public RdmaInfoFlyweight wrap(MemorySegment segment, long offset) {
        java.util.Objects.checkFromIndexSize(offset, LENGTH, segment.byteSize());
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** {@return the advertised tagged offset (the buffer's address for VA-based regions)} */
    public long buf() {
        return segment.get(BE_LONG, offset + BUF_OFFSET);
    }

    /**
     * Sets the advertised tagged offset.
     *
     * @param value the TO
     * @return this
     */
    public RdmaInfoFlyweight buf(long value) {
        segment.set(BE_LONG, offset + BUF_OFFSET, value);
        return this;
    }

    /** {@return the advertised STag} */
    public int rkey() {
        return segment.get(BE_INT, offset + RKEY_OFFSET);
    }

    /**
     * Sets the advertised STag.
     *
     * @param value the STag
     * @return this
     */
    public RdmaInfoFlyweight rkey(int value) {
        segment.set(BE_INT, offset + RKEY_OFFSET, value);
        return this;
    }

    /** {@return the advertised length in bytes (unsigned 32 bits in a long)} */
    public long size() {
        return Integer.toUnsignedLong(segment.get(BE_INT, offset + SIZE_OFFSET));
    }

    /**
     * Sets the advertised length.
     *
     * @param value bytes
     * @return this
     */
    public RdmaInfoFlyweight size(int value) {
        segment.set(BE_INT, offset + SIZE_OFFSET, value);
        return this;
    }
}
