package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;

/**
 * The 8-byte Immediate Data header of Immediate Data (0x8) and Immediate Data with SE (0x9)
 * messages, right after the untagged DDP header (RFC 7306 §6.2, Figure 7).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                        Immediate Data                         |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The 8 bytes are opaque ULP data; {@link #immediateData()} reads them as one big-endian long so
 * that the bytes keep their order when written back with {@link #immediateData(long)}. The
 * message must carry exactly these 8 bytes (RFC 7306 §6.3, A-IMM-013; checked by
 * {@link RdmapValidator#validateLength}). Not thread-safe: use one instance per thread.
 */
public final class ImmediateDataHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the Immediate Data. */
    public static final int IMMEDIATE_DATA_OFFSET = 0;
    /** Length of the header, and of the whole RDMAP message after the DDP header. */
    public static final int HEADER_LENGTH = 8;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public ImmediateDataHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public ImmediateDataHeaderFlyweight wrap(MemorySegment segment, long offset) {
        wrap0(segment, offset, HEADER_LENGTH);
        return this;
    }

    /** {@return the 8 bytes of Immediate Data, first byte in the most significant position} */
    public long immediateData() {
        return getLong(IMMEDIATE_DATA_OFFSET);
    }

    /**
     * Writes the 8 bytes of Immediate Data, most significant byte first.
     *
     * @param data the 8 octets of Immediate Data, as a big-endian long
     * @return this flyweight
     */
    public ImmediateDataHeaderFlyweight immediateData(long data) {
        putLong(IMMEDIATE_DATA_OFFSET, data);
        return this;
    }

    @Override
    public String toString() {
        return segment == null ? "ImmediateDataHeader[unwrapped]"
                : String.format("ImmediateDataHeader[0x%016x]", immediateData());
    }
}
