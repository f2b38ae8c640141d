package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;

/**
 * The 20-byte RDMA Flush Request header that follows the untagged DDP header (QN 1)
 * (draft-talpey-rdma-commit-01 §3.1.1.1). Note the field order STag, Length, TO, which differs from
 * RFC 5040's STag, TO, Size.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         Data Sink STag                        |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                        Data Sink Length                       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     Data Sink Tagged Offset                   |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     Flush Disposition Flags               +G+P|
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Unknown flag bits are ignored; flags 0 make the Flush a pure ordering barrier (checklist AMB-56).
 * Not thread-safe: use one instance per thread.
 */
public final class FlushRequestHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the Data Sink STag. */
    public static final int STAG_OFFSET = 0;
    /** Offset of the Data Sink Length (32 bits, checklist AMB-47). */
    public static final int LENGTH_OFFSET = 4;
    /** Offset of the Data Sink Tagged Offset. */
    public static final int TO_OFFSET = 8;
    /** Offset of the Flush Disposition Flags. */
    public static final int FLAGS_OFFSET = 16;
    /** Length of the header. */
    public static final int HEADER_LENGTH = 20;

    /** Disposition flag P: make the range persistent. */
    public static final int FLAG_PERSISTENCE = 0x01;
    /** Disposition flag G: make the range globally visible. */
    public static final int FLAG_GLOBAL_VISIBILITY = 0x02;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public FlushRequestHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public FlushRequestHeaderFlyweight wrap(MemorySegment segment, long offset) {
        wrap0(segment, offset, HEADER_LENGTH);
        return this;
    }

    /** {@return the Data Sink STag} */
    public int stag() {
        return getInt(STAG_OFFSET);
    }

    /**
     * Writes the Data Sink STag.
     *
     * @param stag the Data Sink STag
     * @return this flyweight
     */
    public FlushRequestHeaderFlyweight stag(int stag) {
        putInt(STAG_OFFSET, stag);
        return this;
    }

    /** {@return the Data Sink Length, raw 32 bits (unsigned)} */
    public int length() {
        return getInt(LENGTH_OFFSET);
    }

    /**
     * Writes the Data Sink Length.
     *
     * @param length the Data Sink Length: octets to make persistent or visible
     * @return this flyweight
     */
    public FlushRequestHeaderFlyweight length(int length) {
        putInt(LENGTH_OFFSET, length);
        return this;
    }

    /** {@return the Data Sink Tagged Offset} */
    public long taggedOffset() {
        return getLong(TO_OFFSET);
    }

    /**
     * Writes the Data Sink Tagged Offset.
     *
     * @param to the Data Sink Tagged Offset
     * @return this flyweight
     */
    public FlushRequestHeaderFlyweight taggedOffset(long to) {
        putLong(TO_OFFSET, to);
        return this;
    }

    /** {@return the raw Flush Disposition Flags word} */
    public int flags() {
        return getInt(FLAGS_OFFSET);
    }

    /**
     * Writes the Flush Disposition Flags word.
     *
     * @param flags the Flush Disposition Flags word
     * @return this flyweight
     */
    public FlushRequestHeaderFlyweight flags(int flags) {
        putInt(FLAGS_OFFSET, flags);
        return this;
    }

    /** {@return whether the P flag asks for persistence} */
    public boolean persistence() {
        return (flags() & FLAG_PERSISTENCE) != 0;
    }

    /** {@return whether the G flag asks for global visibility} */
    public boolean globalVisibility() {
        return (flags() & FLAG_GLOBAL_VISIBILITY) != 0;
    }

    /**
     * Writes the whole header in one call.
     *
     * @param stag the Data Sink STag
     * @param length the Data Sink Length: octets to make persistent or visible
     * @param to the Data Sink Tagged Offset
     * @param flags the Flush Disposition Flags word
     * @return this flyweight
     */
    public FlushRequestHeaderFlyweight encode(int stag, int length, long to, int flags) {
        putInt(STAG_OFFSET, stag);
        putInt(LENGTH_OFFSET, length);
        putLong(TO_OFFSET, to);
        putInt(FLAGS_OFFSET, flags);
        return this;
    }

    @Override
    public String toString() {
        return segment == null ? "FlushRequestHeader[unwrapped]" : String.format(
                "FlushRequestHeader[stag=0x%08x length=%d to=0x%x flags=0x%x]",
                stag(), Integer.toUnsignedLong(length()), taggedOffset(), flags());
    }
}
