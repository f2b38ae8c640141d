package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;

/**
 * The 12-byte Atomic Response header that follows the untagged DDP header (QN 3) of an Atomic
 * Response (RFC 7306 §5.2.2, Figure 6).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Original Request Identifier                |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Original Remote Data Value                 |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * RFC 7306 §4 says this header is 32 bytes "as specified in Figure 5"; Figure 6 shows 12 bytes and
 * 12 is what is implemented (docs/rdmap.md, checklist AMB-20). Not thread-safe: use one instance per
 * thread.
 */
public final class AtomicResponseHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the Original Request Identifier. */
    public static final int ORIGINAL_REQUEST_ID_OFFSET = 0;
    /** Offset of the Original Remote Data Value. */
    public static final int ORIGINAL_VALUE_OFFSET = 4;
    /** Length of the header. */
    public static final int HEADER_LENGTH = 12;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public AtomicResponseHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public AtomicResponseHeaderFlyweight wrap(MemorySegment segment, long offset) {
        wrap0(segment, offset, HEADER_LENGTH);
        return this;
    }

    /** {@return the Original Request Identifier, copied from the request} */
    public int originalRequestId() {
        return getInt(ORIGINAL_REQUEST_ID_OFFSET);
    }

    /**
     * Writes the Original Request Identifier.
     *
     * @param id the Original Request Identifier
     * @return this flyweight
     */
    public AtomicResponseHeaderFlyweight originalRequestId(int id) {
        putInt(ORIGINAL_REQUEST_ID_OFFSET, id);
        return this;
    }

    /** {@return the Original Remote Data Value: the target's value before the operation} */
    public long originalValue() {
        return getLong(ORIGINAL_VALUE_OFFSET);
    }

    /**
     * Writes the Original Remote Data Value.
     *
     * @param value the Original Remote Data Value
     * @return this flyweight
     */
    public AtomicResponseHeaderFlyweight originalValue(long value) {
        putLong(ORIGINAL_VALUE_OFFSET, value);
        return this;
    }

    /**
     * Writes the whole header in one call.
     *
     * @param originalRequestId the Request Identifier of the request being answered
     * @param originalValue the value at the target before the operation
     * @return this flyweight
     */
    public AtomicResponseHeaderFlyweight encode(int originalRequestId, long originalValue) {
        putInt(ORIGINAL_REQUEST_ID_OFFSET, originalRequestId);
        putLong(ORIGINAL_VALUE_OFFSET, originalValue);
        return this;
    }

    /**
     * Checks that the response answers the expected request (A-ATOM-044, AMB-36): responses are
     * matched by QN 3 MSN order and the identifier confirms the match.
     *
     * @param expectedRequestId the Request Identifier of the outstanding request
     * @return {@link RdmapError#UNEXPECTED_OPCODE} (0/2/0x06) if the identifier differs, else null
     */
    public RdmapError validate(int expectedRequestId) {
        return originalRequestId() == expectedRequestId ? null : RdmapError.UNEXPECTED_OPCODE;
    }

    @Override
    public String toString() {
        return segment == null ? "AtomicResponseHeader[unwrapped]"
                : String.format("AtomicResponseHeader[id=%d value=0x%x]", originalRequestId(), originalValue());
    }
}
