package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;

/**
 * The 24-byte Atomic Write Request header that follows the untagged DDP header (QN 1)
 * (draft-talpey-rdma-commit-01 §3.1.3.1). Field order STag, Length, TO, as in the Flush Request.
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
 * |                              Data                             |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The Data Sink Length MUST be 8 and the target 64-bit aligned. Not thread-safe: use one instance
 * per thread.
 */
public final class AtomicWriteRequestHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the Data Sink STag. */
    public static final int STAG_OFFSET = 0;
    /** Offset of the Data Sink Length. */
    public static final int LENGTH_OFFSET = 4;
    /** Offset of the Data Sink Tagged Offset. */
    public static final int TO_OFFSET = 8;
    /** Offset of the 64-bit big-endian Data. */
    public static final int DATA_OFFSET = 16;
    /** Length of the header. */
    public static final int HEADER_LENGTH = 24;
    /** The only valid Data Sink Length. */
    public static final int REQUIRED_LENGTH = AtomicOps.OPERAND_SIZE;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public AtomicWriteRequestHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public AtomicWriteRequestHeaderFlyweight wrap(MemorySegment segment, long offset) {
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
    public AtomicWriteRequestHeaderFlyweight stag(int stag) {
        putInt(STAG_OFFSET, stag);
        return this;
    }

    /** {@return the Data Sink Length, which must be 8} */
    public int length() {
        return getInt(LENGTH_OFFSET);
    }

    /**
     * Writes the Data Sink Length.
     *
     * @param length the Data Sink Length
     * @return this flyweight
     */
    public AtomicWriteRequestHeaderFlyweight length(int length) {
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
    public AtomicWriteRequestHeaderFlyweight taggedOffset(long to) {
        putLong(TO_OFFSET, to);
        return this;
    }

    /** {@return the 64-bit value to write} */
    public long data() {
        return getLong(DATA_OFFSET);
    }

    /**
     * Writes the 64-bit value.
     *
     * @param data the 64-bit value to write at the target
     * @return this flyweight
     */
    public AtomicWriteRequestHeaderFlyweight data(long data) {
        putLong(DATA_OFFSET, data);
        return this;
    }

    /**
     * Writes the whole header with the required length of 8.
     *
     * @param stag the Data Sink STag
     * @param to the Data Sink Tagged Offset
     * @param data the 64-bit value to write at the target
     * @return this flyweight
     */
    public AtomicWriteRequestHeaderFlyweight encode(int stag, long to, long data) {
        putInt(STAG_OFFSET, stag);
        putInt(LENGTH_OFFSET, REQUIRED_LENGTH);
        putLong(TO_OFFSET, to);
        putLong(DATA_OFFSET, data);
        return this;
    }

    /**
     * Validates the header alone, before any STag lookup: Data Sink Length must be 8 and the TO
     * 64-bit aligned (same congruence caveat as {@link AtomicRequestHeaderFlyweight#validate()}).
     * Both failures are {@link RdmapError#CATASTROPHIC_LOCALIZED} (0/2/0x07), mirroring RFC 7306
     * §8.2 since the draft defines no codes (C-AW-014, C-FLUSH-055).
     *
     * @return the error, or {@code null} if the header is valid
     */
    public RdmapError validate() {
        if (length() != REQUIRED_LENGTH) {
            return RdmapError.CATASTROPHIC_LOCALIZED;
        }
        return AtomicOps.checkAlignment(taggedOffset());
    }

    @Override
    public String toString() {
        return segment == null ? "AtomicWriteRequestHeader[unwrapped]" : String.format(
                "AtomicWriteRequestHeader[stag=0x%08x length=%d to=0x%x data=0x%x]",
                stag(), length(), taggedOffset(), data());
    }
}
