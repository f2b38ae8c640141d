package io.jrnic.ddp;

import java.lang.foreign.MemorySegment;

/**
 * The 14-byte DDP tagged buffer model header (RFC 5041 §4.2, Figure 4).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |T|L| Resrv | DV| RsvdULP       |              STag             |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |     STag (cont.)              |                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+       TO (64 bits)            +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Not thread-safe: use one instance per thread.
 */
public final class TaggedHeaderFlyweight extends DdpHeaderFlyweight {

    /** Offset of the Data Sink STag. */
    public static final int STAG_OFFSET = 2;
    /** Offset of the Data Sink Tagged Offset. */
    public static final int TO_OFFSET = 6;
    /** Length of the tagged header. */
    public static final int HEADER_LENGTH = 14;

    /** Creates an unwrapped flyweight; {@link #wrap} it over a header before use. */
    public TaggedHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public TaggedHeaderFlyweight wrap(MemorySegment segment, long offset) {
        wrap0(segment, offset);
        return this;
    }

    @Override
    public int headerLength() {
        return HEADER_LENGTH;
    }

    /**
     * Writes the control byte: T=1, the given L flag and version.
     *
     * @param last the L flag: whether this is the last segment of the message
     * @param version the DDP version (DV), the same as the stream's RDMAP version
     * @return this flyweight
     */
    public TaggedHeaderFlyweight control(boolean last, int version) {
        control(true, last, version);
        return this;
    }

    /**
     * Writes RsvdULP, the RDMAP control byte.
     *
     * @param value the RDMAP control byte
     * @return this flyweight
     */
    public TaggedHeaderFlyweight rsvdUlp(int value) {
        rsvdUlp0(value);
        return this;
    }

    /** {@return the Data Sink STag} */
    public int stag() {
        return segment.get(INT_BE, offset + STAG_OFFSET);
    }

    /**
     * Writes the Data Sink STag.
     *
     * @param stag the Data Sink STag
     * @return this flyweight
     */
    public TaggedHeaderFlyweight stag(int stag) {
        segment.set(INT_BE, offset + STAG_OFFSET, stag);
        return this;
    }

    /** {@return the Data Sink Tagged Offset, an unsigned 64-bit value} */
    public long taggedOffset() {
        return segment.get(LONG_BE, offset + TO_OFFSET);
    }

    /**
     * Writes the Data Sink Tagged Offset.
     *
     * @param to the Data Sink Tagged Offset
     * @return this flyweight
     */
    public TaggedHeaderFlyweight taggedOffset(long to) {
        segment.set(LONG_BE, offset + TO_OFFSET, to);
        return this;
    }

    /**
     * Writes a complete tagged header in one call.
     *
     * @param last the L flag: whether this is the last segment of the message
     * @param version the DDP version (DV), the same as the stream's RDMAP version
     * @param rsvdUlp the RDMAP control byte carried in RsvdULP
     * @param stag the Data Sink STag
     * @param to the Data Sink Tagged Offset
     * @return this flyweight
     */
    public TaggedHeaderFlyweight encode(boolean last, int version, int rsvdUlp, int stag, long to) {
        control(true, last, version);
        rsvdUlp0(rsvdUlp);
        stag(stag);
        return taggedOffset(to);
    }

    @Override
    public String toString() {
        return segment == null ? "TaggedHeader[unwrapped]" : String.format(
                "TaggedHeader[L=%b DV=%d rsvdUlp=0x%02x STag=0x%08x TO=0x%x]",
                last(), version(), rsvdUlp(), stag(), taggedOffset());
    }

}
