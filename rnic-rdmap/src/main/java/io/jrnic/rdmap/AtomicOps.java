package io.jrnic.rdmap;

/**
 * The arithmetic of the RFC 7306 atomic operations as pure functions on 64-bit values, and the
 * alignment rule. The memory layer applies them inside its compare-and-set loop; keeping them pure
 * lets them be tested against the RFC's pseudocode.
 *
 * <p>Stateless; thread-safe.
 */
public final class AtomicOps {

    /** Atomic operands and Atomic Write data are 64 bits, on 8-byte aligned addresses. */
    public static final int OPERAND_SIZE = 8;

    private AtomicOps() {
    }

    /**
     * Masked FetchAdd (RFC 7306 §5.1.1, A-ATOM-016): adds {@code addData} to {@code original} as
     * independent fields. Each 1 bit of {@code addMask} marks the most significant bit of a field,
     * and the carry out of that bit is dropped. A mask of 0 is a plain 64-bit add modulo 2^64.
     *
     * <p>Computed without a loop: adding with the MSB of every field cleared cannot carry across a
     * field boundary; the field MSBs are then the XOR of the two operands' MSBs and the carry that
     * arrived into them, which is exactly what the RFC's bit-serial pseudocode produces.
     *
     * @param original the 64-bit value at the target before the operation
     * @param addData the Add Data
     * @param addMask the Add Mask
     * @return the new value to store; the response carries {@code original}
     */
    public static long fetchAdd(long original, long addData, long addMask) {
        long sum = (original & ~addMask) + (addData & ~addMask);
        return sum ^ ((original ^ addData) & addMask);
    }

    /**
     * Masked CmpSwap (RFC 7306 §5.1.2, A-ATOM-018): if the bits selected by {@code compareMask} of
     * {@code original} equal those of {@code compareData}, the bits selected by {@code swapMask} are
     * replaced by those of {@code swapData}; otherwise the value is unchanged.
     *
     * @param original the 64-bit value at the target before the operation
     * @param compareData the Compare Data
     * @param compareMask the Compare Mask
     * @param swapData the Swap Data
     * @param swapMask the Swap Mask
     * @return the new value to store (equal to {@code original} when the comparison fails); the
     *         response carries {@code original} either way
     */
    public static long compareSwap(long original, long compareData, long compareMask, long swapData, long swapMask) {
        if (((compareData ^ original) & compareMask) != 0) {
            return original;
        }
        return (original & ~swapMask) | (swapData & swapMask);
    }

    /**
     * {@return whether a masked CmpSwap with these operands would store its swap data}
     *
     * @param original the 64-bit value at the target before the operation
     * @param compareData the Compare Data
     * @param compareMask the Compare Mask
     */
    public static boolean compareMatches(long original, long compareData, long compareMask) {
        return ((compareData ^ original) & compareMask) == 0;
    }

    /**
     * The error for an atomic target address that is not 64-bit aligned: Remote Operation Error
     * "Catastrophic error, localized to RDMAP Stream", 0/2/0x07 (RFC 7306 §8.2, A-ATOM-015); the
     * operation must then not touch memory. The address is the effective ULP buffer address, region
     * base plus (TO - base TO), not the raw Tagged Offset (checklist AMB-28).
     *
     * @param address the effective address of the 64-bit target in the memory region
     * @return {@link RdmapError#CATASTROPHIC_LOCALIZED}, or {@code null} if the address is aligned
     */
    public static RdmapError checkAlignment(long address) {
        return (address & (OPERAND_SIZE - 1)) == 0 ? null : RdmapError.CATASTROPHIC_LOCALIZED;
    }
}
