package io.jrnic.api;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A remote buffer descriptor: what a peer needs to RDMA Write, Read or atomically access a region
 * or window of this side (RFC 5040 §4.4: a tagged buffer is an STag and a Tagged Offset; the length
 * bounds what may be touched). Advertise it in the MPA private data of a connection or in a Send;
 * the fixed 16-byte encoding is that of rdma-core's rping ({@code struct rping_rdma_info}), all
 * fields big-endian:
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    TO (Tagged Offset, 64 bits)                |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          STag (32 bits)                       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    length (32 bits, unsigned)                 |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <pre>{@code
 * // server: advertise a region in the MPA Reply
 * request.accept(qp, RemoteBuffer.of(region).toBytes());
 * // client: read it from the connection and write into it
 * RemoteBuffer target = RemoteBuffer.fromBytes(connection.peerPrivateData());
 * qp.postSend(new SendWorkRequest().opcode(Opcode.RDMA_WRITE).sge(mr.stag(), mr.memory().address(), 4096)
 *         .remote(target.slice(0, 4096)));
 * }</pre>
 *
 * @param stag   the STag of the region or window
 * @param to     the Tagged Offset of the first byte (the virtual address for VA-based
 *               registrations, 0 for zero-based ones)
 * @param length bytes from {@code to}, 0 to 2<sup>32</sup> - 1
 */
public record RemoteBuffer(int stag, long to, long length) {
    /** Bytes of the encoding. */
    public static final int BYTES = 16;

    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long MAX_LENGTH = 0xFFFF_FFFFL;

    /**
     * Checks the length.
     *
     * @param stag   the STag
     * @param to     the Tagged Offset
     * @param length bytes, 0 to 2<sup>32</sup> - 1 (the encoding's 32 bits)
     * @throws IllegalArgumentException for a length outside that range
     */
    public RemoteBuffer {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("length " + length + " outside 0..2^32-1");
        }
    }

    /**
     * The whole of a Valid region: its STag, base TO and length (Query Memory Region).
     *
     * @param region the region
     * @return the descriptor
     * @throws IllegalArgumentException when the region is longer than 2<sup>32</sup> - 1 bytes
     */
    public static RemoteBuffer of(MemoryRegion region) {
        MemoryRegionAttributes a = region.query();
        return new RemoteBuffer(a.stag(), a.baseTo(), a.length());
    }

    /**
     * The whole of a bound window: its STag, base TO and length (Query Memory Window).
     *
     * @param window the window
     * @return the descriptor
     */
    public static RemoteBuffer of(MemoryWindow window) {
        MemoryWindowAttributes a = window.query();
        return new RemoteBuffer(a.stag(), a.baseTo(), a.length());
    }

    /**
     * A part of this buffer.
     *
     * @param offset bytes from the start of this buffer
     * @param length bytes
     * @return the descriptor of {@code [to + offset, to + offset + length)}
     * @throws IndexOutOfBoundsException when the part does not lie within this buffer
     */
    public RemoteBuffer slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset > this.length || length > this.length - offset) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", +" + length + ") of " + this.length + " bytes");
        }
        return new RemoteBuffer(stag, to + offset, length);
    }

    /**
     * Writes the 16-byte encoding.
     *
     * @param segment where to write
     * @param offset  the first byte
     */
    public void writeTo(MemorySegment segment, long offset) {
        segment.set(BE_LONG, offset, to);
        segment.set(BE_INT, offset + 8, stag);
        segment.set(BE_INT, offset + 12, (int) length);
    }

    /**
     * The 16-byte encoding, e.g. as MPA private data.
     *
     * @return a new array
     */
    public byte[] toBytes() {
        byte[] bytes = new byte[BYTES];
        writeTo(MemorySegment.ofArray(bytes), 0);
        return bytes;
    }

    /**
     * Reads a 16-byte encoding.
     *
     * @param segment where to read
     * @param offset  the first byte
     * @return the descriptor
     * @throws IndexOutOfBoundsException when fewer than 16 bytes follow {@code offset}
     */
    public static RemoteBuffer readFrom(MemorySegment segment, long offset) {
        return new RemoteBuffer(segment.get(BE_INT, offset + 8), segment.get(BE_LONG, offset),
                Integer.toUnsignedLong(segment.get(BE_INT, offset + 12)));
    }

    /**
     * Reads the 16-byte encoding at the start of an array (private data may carry more after it).
     *
     * @param bytes at least 16 bytes
     * @return the descriptor
     * @throws IllegalArgumentException when fewer than 16 bytes are given
     */
    public static RemoteBuffer fromBytes(byte[] bytes) {
        if (bytes.length < BYTES) {
            throw new IllegalArgumentException("a remote buffer descriptor is " + BYTES + " bytes, got " + bytes.length);
        }
        return readFrom(MemorySegment.ofArray(bytes), 0);
    }

    @Override
    public String toString() {
        return "RemoteBuffer[stag=0x" + Integer.toHexString(stag) + ", to=0x" + Long.toHexString(to) + ", length="
                + length + "]";
    }
}
