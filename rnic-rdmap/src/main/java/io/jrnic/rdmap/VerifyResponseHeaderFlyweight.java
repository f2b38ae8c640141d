package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;

/**
 * The RDMA Verify Response header that follows the untagged DDP header (QN 3): the computed hash,
 * whose length is the DDP message length (draft-talpey-rdma-commit-01 §3.1.2.2).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Hash Value (variable)                      |
 * |                              ...                              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Not thread-safe: use one instance per thread.
 */
public final class VerifyResponseHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the Hash Value. */
    public static final int HASH_OFFSET = 0;

    private int hashLength;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public VerifyResponseHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @param length the RDMAP message length after the DDP header, which is the hash length
     * @return this flyweight
     * @throws IllegalArgumentException if {@code length} is negative
     */
    public VerifyResponseHeaderFlyweight wrap(MemorySegment segment, long offset, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative Verify Response length " + length);
        }
        wrap0(segment, offset, length);
        hashLength = length;
        return this;
    }

    /** {@return the length of the hash} */
    public int hashLength() {
        return hashLength;
    }

    /** {@return the absolute offset of the hash in {@link #segment()}} */
    public long hashOffset() {
        return offset + HASH_OFFSET;
    }

    /**
     * {@return whether the hash equals {@code expectedLength} bytes of {@code expected} at {@code
     * expectedOffset}}
     *
     * @param expected the memory holding the expected hash
     * @param expectedOffset the offset of the expected hash in {@code expected}
     * @param expectedLength the expected hash length in octets
     */
    public boolean hashEquals(MemorySegment expected, long expectedOffset, int expectedLength) {
        return expectedLength == hashLength && MemorySegment.mismatch(segment, offset, offset + hashLength,
                expected, expectedOffset, expectedOffset + expectedLength) < 0;
    }

    /**
     * Copies the hash into {@code target} at {@code targetOffset}.
     *
     * @param target the memory to copy the hash into
     * @param targetOffset where the hash goes in {@code target}
     */
    public void copyHash(MemorySegment target, long targetOffset) {
        MemorySegment.copy(segment, offset, target, targetOffset, hashLength);
    }

    /**
     * Writes the hash; its length must be the one given at wrap time.
     *
     * @param hash the memory holding the hash
     * @param hashOffset the offset of the hash in {@code hash}
     * @param hashLength the hash length in octets
     * @return this flyweight
     * @throws IllegalArgumentException if {@code hashLength} differs from the wrapped length
     */
    public VerifyResponseHeaderFlyweight encode(MemorySegment hash, long hashOffset, int hashLength) {
        if (hashLength != this.hashLength) {
            throw new IllegalArgumentException("hash of " + hashLength + " bytes, header wrapped for "
                    + this.hashLength);
        }
        MemorySegment.copy(hash, hashOffset, segment, offset, hashLength);
        return this;
    }

    @Override
    public String toString() {
        return segment == null ? "VerifyResponseHeader[unwrapped]"
                : "VerifyResponseHeader[hash=" + hashLength + " bytes]";
    }
}
