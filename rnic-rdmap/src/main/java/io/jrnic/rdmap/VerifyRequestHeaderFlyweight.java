package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;

/**
 * The RDMA Verify Request header that follows the untagged DDP header (QN 1): 16 fixed bytes and an
 * optional hash of variable length (draft-talpey-rdma-commit-01 §3.1.2.1).
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
 * |                Hash Value (optional, variable)                |
 * |                              ...                              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The hash length is not on the wire: it is the DDP message length minus 16, so the flyweight is
 * wrapped with the message length; a hash is present iff that is positive (checklist AMB-48).
 * Not thread-safe: use one instance per thread.
 */
public final class VerifyRequestHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the Data Sink STag. */
    public static final int STAG_OFFSET = 0;
    /** Offset of the Data Sink Length. */
    public static final int LENGTH_OFFSET = 4;
    /** Offset of the Data Sink Tagged Offset. */
    public static final int TO_OFFSET = 8;
    /** Offset of the optional Hash Value. */
    public static final int HASH_OFFSET = 16;
    /** Length of the fixed part. */
    public static final int FIXED_LENGTH = 16;

    private int hashLength;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public VerifyRequestHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @param length the RDMAP message length after the DDP header: 16 plus the hash length
     * @return this flyweight
     * @throws IllegalArgumentException if {@code length} is below 16
     */
    public VerifyRequestHeaderFlyweight wrap(MemorySegment segment, long offset, int length) {
        if (length < FIXED_LENGTH) {
            throw new IllegalArgumentException("Verify Request of " + length + " bytes is shorter than "
                    + FIXED_LENGTH);
        }
        wrap0(segment, offset, length);
        hashLength = length - FIXED_LENGTH;
        return this;
    }

    /** {@return the total length: 16 plus {@link #hashLength()}} */
    public int length() {
        return FIXED_LENGTH + hashLength;
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
    public VerifyRequestHeaderFlyweight stag(int stag) {
        putInt(STAG_OFFSET, stag);
        return this;
    }

    /** {@return the Data Sink Length: the number of bytes to hash (unsigned)} */
    public int dataLength() {
        return getInt(LENGTH_OFFSET);
    }

    /**
     * Writes the Data Sink Length.
     *
     * @param length the Data Sink Length: octets to hash
     * @return this flyweight
     */
    public VerifyRequestHeaderFlyweight dataLength(int length) {
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
    public VerifyRequestHeaderFlyweight taggedOffset(long to) {
        putLong(TO_OFFSET, to);
        return this;
    }

    /** {@return whether the request carries an expected hash, to be compared by the responder} */
    public boolean hasHash() {
        return hashLength > 0;
    }

    /** {@return the length of the hash; 0 without one} */
    public int hashLength() {
        return hashLength;
    }

    /** {@return the absolute offset of the hash in {@link #segment()}} */
    public long hashOffset() {
        return offset + HASH_OFFSET;
    }

    /**
     * {@return whether the carried hash equals {@code expectedLength} bytes of {@code expected} at
     * {@code expectedOffset}; false if the lengths differ (checklist AMB-49)}
     *
     * @param expected the memory holding the expected hash
     * @param expectedOffset the offset of the expected hash in {@code expected}
     * @param expectedLength the expected hash length in octets
     */
    public boolean hashEquals(MemorySegment expected, long expectedOffset, int expectedLength) {
        return expectedLength == hashLength && MemorySegment.mismatch(segment, offset + HASH_OFFSET,
                offset + HASH_OFFSET + hashLength, expected, expectedOffset, expectedOffset + expectedLength) < 0;
    }

    /**
     * Copies the hash into {@code target} at {@code targetOffset}.
     *
     * @param target the memory to copy the hash into
     * @param targetOffset where the hash goes in {@code target}
     */
    public void copyHash(MemorySegment target, long targetOffset) {
        MemorySegment.copy(segment, offset + HASH_OFFSET, target, targetOffset, hashLength);
    }

    /**
     * Writes the whole header; the hash length must be the one given at wrap time.
     *
     * @param stag the Data Sink STag
     * @param dataLength the Data Sink Length: octets to hash
     * @param to the Data Sink Tagged Offset
     * @param hash the memory holding the hash
     * @param hashOffset the offset of the hash in {@code hash}
     * @param hashLength the hash length in octets
     * @return this flyweight
     * @throws IllegalArgumentException if {@code hashLength} differs from the wrapped length minus 16
     */
    public VerifyRequestHeaderFlyweight encode(int stag, int dataLength, long to,
                                               MemorySegment hash, long hashOffset, int hashLength) {
        if (hashLength != this.hashLength) {
            throw new IllegalArgumentException("hash of " + hashLength + " bytes, header wrapped for "
                    + this.hashLength);
        }
        putInt(STAG_OFFSET, stag);
        putInt(LENGTH_OFFSET, dataLength);
        putLong(TO_OFFSET, to);
        if (hashLength > 0) {
            MemorySegment.copy(hash, hashOffset, segment, offset + HASH_OFFSET, hashLength);
        }
        return this;
    }

    @Override
    public String toString() {
        return segment == null ? "VerifyRequestHeader[unwrapped]" : String.format(
                "VerifyRequestHeader[stag=0x%08x length=%d to=0x%x hash=%d bytes]",
                stag(), Integer.toUnsignedLong(dataLength()), taggedOffset(), hashLength);
    }
}
