package io.jrnic.rdmap;

/**
 * The RDMAP Control Field: the first octet of the DDP RsvdULP field (RFC 5040 §4.1, Figure 3).
 *
 * <pre>
 *   RFC 5040 / RFC 7306                 draft-talpey-rdma-commit-01 §3.1
 *   0 1 2 3 4 5 6 7                     0 1 2 3 4 5 6 7
 *  +-+-+-+-+-+-+-+-+                   +-+-+-+-+-+-+-+-+
 *  | RV|Rsv| Opcode|                   | RV|R| Opcode  |
 *  +-+-+-+-+-+-+-+-+                   +-+-+-+-+-+-+-+-+
 * </pre>
 *
 * RFC 5040 has a 2-bit reserved field and a 4-bit opcode; the commit draft needs opcodes 0x10 and
 * 0x11 and draws a 1-bit reserved field and a 5-bit opcode. The 5-bit reading is used only when the
 * draft is enabled ({@link RdmapFeatures#commitDraft()}); otherwise bit 0x10 is reserved and ignored
 * as RFC 5040 requires, and the T/QN cross-check of {@link RdmapValidator} rejects a draft message
 * that a legacy decoder reads as Write or Read Request (see docs/rdmap.md, "Opcode width").
 *
 * <p>Stateless; all methods are static and thread-safe.
 */
public final class RdmapControl {

    /** Mask of the RDMAP version (RV) in the control byte. */
    public static final int RV_MASK = 0xC0;
    /** Shift of the RDMAP version in the control byte. */
    public static final int RV_SHIFT = 6;
    /** Mask of the RFC 5040 reserved bits (26-27 of the DDP header word); sent as zero, ignored. */
    public static final int RSV_MASK = 0x30;
    /** Mask of the RFC 5040 4-bit opcode. */
    public static final int OPCODE_MASK = 0x0F;
    /** Mask of the commit draft's 1-bit reserved field. */
    public static final int EXTENDED_RSV_MASK = 0x20;
    /** Mask of the commit draft's 5-bit opcode. */
    public static final int EXTENDED_OPCODE_MASK = 0x1F;

    /** RV 01b: an RNIC that follows RFC 5040 (RFC 5040 §4.1). */
    public static final int VERSION_IETF = 1;
    /** RV 00b: an RNIC that follows the RDMA Consortium specification (RFC 5040 §4.1). */
    public static final int VERSION_RDMAC = 0;

    private RdmapControl() {
    }

    /**
     * {@return the RDMAP version (RV) of a control byte}
     *
     * @param controlByte the RDMAP control byte (DDP's RsvdULP[0:7] or the tagged RsvdULP)
     */
    public static int version(int controlByte) {
        return (controlByte & RV_MASK) >>> RV_SHIFT;
    }

    /**
     * {@return the opcode bits of a control byte}
     *
     * @param controlByte the RDMAP control byte (DDP's RsvdULP[0:7] or the tagged RsvdULP)
     * @param extended true to read the commit draft's 5-bit opcode, false for RFC 5040's 4 bits
     */
    public static int opcode(int controlByte, boolean extended) {
        return controlByte & (extended ? EXTENDED_OPCODE_MASK : OPCODE_MASK);
    }

    /**
     * {@return a control byte with zero reserved bits}
     *
     * @param version the RDMAP version (RV)
     * @param opcode the opcode
     * @throws IllegalArgumentException if the version is not 0..3 or the opcode not 0..0x1F
     */
    public static int encode(int version, int opcode) {
        if ((version & ~0x3) != 0) {
            throw new IllegalArgumentException("RDMAP version must be 0..3, was " + version);
        }
        if ((opcode & ~EXTENDED_OPCODE_MASK) != 0) {
            throw new IllegalArgumentException("RDMAP opcode must be 0..0x1F, was 0x" + Integer.toHexString(opcode));
        }
        return version << RV_SHIFT | opcode;
    }
}
