package io.jrnic.rdmap;

/**
 * The Atomic Operation Codes (AOpCode) of an Atomic Request (RFC 7306 §5.2.1 Figure 5, IANA
 * registry of §10.1). 0x1 is Reserved and 0x3-0xF are unassigned; there is no unmasked Swap
 * despite the RFC's field descriptions (an unconditional swap is CmpSwap with Compare Mask 0 and
 * Swap Mask all-ones, checklist AMB-21). Immutable and thread-safe.
 */
public enum AtomicOpcode {
    /** Masked Fetch and Add (RFC 7306 §5.1.1). */
    FETCH_ADD(0x0),
    /** Masked Compare and Swap (RFC 7306 §5.1.2). */
    COMPARE_SWAP(0x2);

    private final int wireValue;

    AtomicOpcode(int wireValue) {
        this.wireValue = wireValue;
    }

    /** {@return the 4-bit AOpCode value} */
    public int wireValue() {
        return wireValue;
    }

    /**
     * {@return the operation with this AOpCode, or {@code null} for the reserved and unassigned
     * values}
     *
     * @param aopcode the AOpCode field
     */
    public static AtomicOpcode fromWire(int aopcode) {
        return switch (aopcode) {
            case 0x0 -> FETCH_ADD;
            case 0x2 -> COMPARE_SWAP;
            default -> null;
        };
    }
}
