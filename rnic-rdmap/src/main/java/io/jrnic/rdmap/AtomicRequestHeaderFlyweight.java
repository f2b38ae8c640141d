package io.jrnic.rdmap;

import java.lang.foreign.MemorySegment;

/**
 * The 52-byte Atomic Request header that follows the untagged DDP header (QN 1) of an Atomic
 * Request (RFC 7306 §5.2.1, Figure 4).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      Reserved (Not Used)              |AOpCode|
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       Request Identifier                      |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          Remote STag                          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      Remote Tagged Offset                     |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       Add or Swap Data                        |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       Add or Swap Mask                        |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         Compare Data                          |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         Compare Mask                          |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The reserved 28 bits are sent as zero and ignored on receive (A-ATOM-026). For FetchAdd the
 * Compare Data is sent as 0 and the Compare Mask as all-ones, both ignored on receive (AMB-22).
 * Not thread-safe: use one instance per thread.
 */
public final class AtomicRequestHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the word holding the reserved bits and the AOpCode (low nibble of byte 3). */
    public static final int AOPCODE_WORD_OFFSET = 0;
    /** Mask of the AOpCode in its word. */
    public static final int AOPCODE_MASK = 0xF;
    /** Offset of the Request Identifier, echoed in the Atomic Response (A-ATOM-028). */
    public static final int REQUEST_ID_OFFSET = 4;
    /** Offset of the Remote STag. */
    public static final int REMOTE_STAG_OFFSET = 8;
    /** Offset of the Remote Tagged Offset. */
    public static final int REMOTE_TO_OFFSET = 12;
    /** Offset of the Add Data (FetchAdd) or Swap Data (CmpSwap). */
    public static final int ADD_SWAP_DATA_OFFSET = 20;
    /** Offset of the Add Mask (FetchAdd) or Swap Mask (CmpSwap). */
    public static final int ADD_SWAP_MASK_OFFSET = 28;
    /** Offset of the Compare Data. */
    public static final int COMPARE_DATA_OFFSET = 36;
    /** Offset of the Compare Mask. */
    public static final int COMPARE_MASK_OFFSET = 44;
    /** Length of the header. */
    public static final int HEADER_LENGTH = 52;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public AtomicRequestHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight wrap(MemorySegment segment, long offset) {
        wrap0(segment, offset, HEADER_LENGTH);
        return this;
    }

    /** {@return the raw 4-bit AOpCode; reserved bits of the word are ignored} */
    public int aopcode() {
        return getInt(AOPCODE_WORD_OFFSET) & AOPCODE_MASK;
    }

    /**
     * Writes the AOpCode word: reserved bits zero, the given 4-bit code.
     *
     * @param aopcode the 4-bit Atomic Operation code
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight aopcode(int aopcode) {
        putInt(AOPCODE_WORD_OFFSET, aopcode & AOPCODE_MASK);
        return this;
    }

    /** {@return the operation, or {@code null} if the AOpCode is reserved or unassigned} */
    public AtomicOpcode operation() {
        return AtomicOpcode.fromWire(aopcode());
    }

    /** {@return the Request Identifier} */
    public int requestId() {
        return getInt(REQUEST_ID_OFFSET);
    }

    /**
     * Writes the Request Identifier.
     *
     * @param id the Request Identifier
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight requestId(int id) {
        putInt(REQUEST_ID_OFFSET, id);
        return this;
    }

    /** {@return the Remote STag} */
    public int remoteStag() {
        return getInt(REMOTE_STAG_OFFSET);
    }

    /**
     * Writes the Remote STag.
     *
     * @param stag the Remote STag
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight remoteStag(int stag) {
        putInt(REMOTE_STAG_OFFSET, stag);
        return this;
    }

    /** {@return the Remote Tagged Offset, an unsigned 64-bit value} */
    public long remoteTaggedOffset() {
        return getLong(REMOTE_TO_OFFSET);
    }

    /**
     * Writes the Remote Tagged Offset.
     *
     * @param to the Remote Tagged Offset
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight remoteTaggedOffset(long to) {
        putLong(REMOTE_TO_OFFSET, to);
        return this;
    }

    /** {@return the Add Data (FetchAdd) or Swap Data (CmpSwap)} */
    public long addOrSwapData() {
        return getLong(ADD_SWAP_DATA_OFFSET);
    }

    /**
     * Writes the Add or Swap Data.
     *
     * @param data the Add or Swap Data
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight addOrSwapData(long data) {
        putLong(ADD_SWAP_DATA_OFFSET, data);
        return this;
    }

    /** {@return the Add Mask (FetchAdd) or Swap Mask (CmpSwap)} */
    public long addOrSwapMask() {
        return getLong(ADD_SWAP_MASK_OFFSET);
    }

    /**
     * Writes the Add or Swap Mask.
     *
     * @param mask the Add or Swap Mask
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight addOrSwapMask(long mask) {
        putLong(ADD_SWAP_MASK_OFFSET, mask);
        return this;
    }

    /** {@return the Compare Data (CmpSwap only)} */
    public long compareData() {
        return getLong(COMPARE_DATA_OFFSET);
    }

    /**
     * Writes the Compare Data.
     *
     * @param data the Compare Data
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight compareData(long data) {
        putLong(COMPARE_DATA_OFFSET, data);
        return this;
    }

    /** {@return the Compare Mask (CmpSwap only)} */
    public long compareMask() {
        return getLong(COMPARE_MASK_OFFSET);
    }

    /**
     * Writes the Compare Mask.
     *
     * @param mask the Compare Mask
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight compareMask(long mask) {
        putLong(COMPARE_MASK_OFFSET, mask);
        return this;
    }

    /**
     * Writes a complete masked FetchAdd request; Compare Data 0 and Compare Mask all-ones as RFC 7306
     * §5.2.1 asks of the sender.
     *
     * @param requestId the Request Identifier the response will echo
     * @param remoteStag the Remote STag of the target buffer
     * @param remoteTo the Remote Tagged Offset of the 64-bit target
     * @param addData the Add Data
     * @param addMask the Add Mask
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight encodeFetchAdd(int requestId, int remoteStag, long remoteTo,
                                                       long addData, long addMask) {
        return encode(AtomicOpcode.FETCH_ADD, requestId, remoteStag, remoteTo, addData, addMask, 0L, -1L);
    }

    /**
     * Writes a complete masked CmpSwap request.
     *
     * @param requestId the Request Identifier the response will echo
     * @param remoteStag the Remote STag of the target buffer
     * @param remoteTo the Remote Tagged Offset of the 64-bit target
     * @param swapData the Swap Data
     * @param swapMask the Swap Mask
     * @param compareData the Compare Data
     * @param compareMask the Compare Mask
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight encodeCompareSwap(int requestId, int remoteStag, long remoteTo,
                                                          long swapData, long swapMask,
                                                          long compareData, long compareMask) {
        return encode(AtomicOpcode.COMPARE_SWAP, requestId, remoteStag, remoteTo, swapData, swapMask,
                compareData, compareMask);
    }

    /**
     * Writes every field.
     *
     * @param operation the atomic operation (AOpCode)
     * @param requestId the Request Identifier the response will echo
     * @param remoteStag the Remote STag of the target buffer
     * @param remoteTo the Remote Tagged Offset of the 64-bit target
     * @param addOrSwapData the Add or Swap Data
     * @param addOrSwapMask the Add or Swap Mask
     * @param compareData the Compare Data
     * @param compareMask the Compare Mask
     * @return this flyweight
     */
    public AtomicRequestHeaderFlyweight encode(AtomicOpcode operation, int requestId, int remoteStag, long remoteTo,
                                               long addOrSwapData, long addOrSwapMask,
                                               long compareData, long compareMask) {
        putInt(AOPCODE_WORD_OFFSET, operation.wireValue());
        putInt(REQUEST_ID_OFFSET, requestId);
        putInt(REMOTE_STAG_OFFSET, remoteStag);
        putLong(REMOTE_TO_OFFSET, remoteTo);
        putLong(ADD_SWAP_DATA_OFFSET, addOrSwapData);
        putLong(ADD_SWAP_MASK_OFFSET, addOrSwapMask);
        putLong(COMPARE_DATA_OFFSET, compareData);
        putLong(COMPARE_MASK_OFFSET, compareMask);
        return this;
    }

    /**
     * Validates what can be checked from the header alone, before any STag lookup:
     * <ol>
     *   <li>the AOpCode names a supported operation, else {@link RdmapError#UNEXPECTED_OPCODE}
     *       (0/2/0x06; RFC 7306 §5.2.1 rule 4 asks for an error, §1.1 names Unexpected OpCode,
     *       A-ATOM-034, AMB-30);</li>
     *   <li>the Remote TO is 64-bit aligned, else {@link RdmapError#CATASTROPHIC_LOCALIZED}
     *       (0/2/0x07, RFC 7306 §8.2, A-ATOM-073). The TO has the alignment of the target address
     *       whenever the region's base address and base TO are congruent modulo 8 (VA-based regions,
     *       and zero-based regions that start 8-byte aligned); otherwise check the effective address
     *       with {@link AtomicOps#checkAlignment(long)}.</li>
     * </ol>
     *
     * @return the first error found, or {@code null} if the header is valid
     */
    public RdmapError validate() {
        if (operation() == null) {
            return RdmapError.UNEXPECTED_OPCODE;
        }
        return AtomicOps.checkAlignment(remoteTaggedOffset());
    }

    @Override
    public String toString() {
        return segment == null ? "AtomicRequestHeader[unwrapped]" : String.format(
                "AtomicRequestHeader[aop=%d id=%d stag=0x%08x to=0x%x data=0x%x mask=0x%x cmp=0x%x cmpMask=0x%x]",
                aopcode(), requestId(), remoteStag(), remoteTaggedOffset(), addOrSwapData(), addOrSwapMask(),
                compareData(), compareMask());
    }
}
