package io.jrnic.wire;

/**
 * The protocol layer that detected an error, as carried in the 4-bit Layer field of an RDMAP
 * Terminate message (RFC 5040 §4.8, values registered by RFC 6580 §3).
 */
public enum TerminateLayer {
    /** RDMAP (RFC 5040): errors from RDMAP processing. */
    RDMAP(0x0),
    /** DDP (RFC 5041): errors found while validating or placing a DDP segment. */
    DDP(0x1),
    /** The lower layer protocol, here MPA over TCP (RFC 5044 §8, RFC 6581 §8). */
    LLP(0x2);

    private final int wireValue;

    TerminateLayer(int wireValue) {
        this.wireValue = wireValue;
    }

    /** {@return the 4-bit value sent in the Layer field} */
    public int wireValue() {
        return wireValue;
    }

    /**
     * {@return the layer for a received 4-bit Layer value}
     *
     * @param value the 4-bit Layer field
     * @throws IllegalArgumentException if the value names no layer (RFC 6580 leaves 0x3-0xF unassigned)
     */
    public static TerminateLayer fromWire(int value) {
        return switch (value) {
            case 0x0 -> RDMAP;
            case 0x1 -> DDP;
            case 0x2 -> LLP;
            default -> throw new IllegalArgumentException("unassigned Terminate layer 0x" + Integer.toHexString(value));
        };
    }
}
