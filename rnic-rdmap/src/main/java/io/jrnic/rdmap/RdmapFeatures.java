package io.jrnic.rdmap;

/**
 * The RDMAP feature set of one stream: the RDMAP version fixed at connection setup and which
 * extensions both peers agreed to use. Extensions are negotiated by the ULP, not on the wire
 * (RFC 7306 §1.1, draft-talpey-rdma-commit-01 §3.1.4), so each side is told explicitly.
 *
 * <p>Rules applied by {@link #enables(RdmapOpcode)}:
 * <ul>
 *   <li>RFC 5040 opcodes are always enabled;</li>
 *   <li>RFC 7306 opcodes need {@code rfc7306} and RV 01b (RFC 7306 §4.1 requires RV 01b; on an RDMAC
 *       stream they are rejected as Unexpected OpCode, checklist AMB-33);</li>
 *   <li>commit-draft opcodes need {@code commitDraft} and RV 01b; the draft builds on RFC 7306's QN 3,
 *       so enabling it does not require atomics, but both share the response queue.</li>
 * </ul>
 * Immutable and thread-safe.
 *
 * @param version     the RDMAP version of the stream, {@link RdmapControl#VERSION_IETF} or
 *                    {@link RdmapControl#VERSION_RDMAC}
 * @param rfc7306     whether Atomic Operations and Immediate Data (RFC 7306) are enabled
 * @param commitDraft whether RDMA Flush, Verify and Atomic Write (draft-talpey-rdma-commit-01) are
 *                    enabled; this also switches the control byte to the draft's 5-bit opcode
 */
public record RdmapFeatures(int version, boolean rfc7306, boolean commitDraft) {

    /** RFC 5040 only, RV 01b. */
    public static final RdmapFeatures RFC_5040 = new RdmapFeatures(RdmapControl.VERSION_IETF, false, false);
    /** RFC 5040 and RFC 7306, RV 01b: the default of jrnic. */
    public static final RdmapFeatures RFC_7306 = new RdmapFeatures(RdmapControl.VERSION_IETF, true, false);
    /** Everything, including the commit draft, RV 01b. */
    public static final RdmapFeatures ALL = new RdmapFeatures(RdmapControl.VERSION_IETF, true, true);
    /** An RDMA Consortium peer: RV 00b, base opcodes only. */
    public static final RdmapFeatures RDMAC = new RdmapFeatures(RdmapControl.VERSION_RDMAC, false, false);

    /**
     * Checks the version.
     *
     * @throws IllegalArgumentException if the version is neither 01b (IETF) nor 00b (RDMAC)
     */
    public RdmapFeatures {
        if (version != RdmapControl.VERSION_IETF && version != RdmapControl.VERSION_RDMAC) {
            throw new IllegalArgumentException("RDMAP version must be 1 (IETF) or 0 (RDMAC), was " + version);
        }
    }

    /**
     * {@return whether this stream may send and receive the opcode}
     *
     * @param opcode the opcode
     */
    public boolean enables(RdmapOpcode opcode) {
        return switch (opcode.spec()) {
            case RFC_5040 -> true;
            case RFC_7306 -> rfc7306 && version == RdmapControl.VERSION_IETF;
            case COMMIT_DRAFT -> commitDraft && version == RdmapControl.VERSION_IETF;
        };
    }

    /**
     * {@return the opcode bits of a received control byte: 5 bits with the commit draft, else 4}
     *
     * @param controlByte the RDMAP control byte
     */
    public int opcodeBits(int controlByte) {
        return RdmapControl.opcode(controlByte, commitDraft);
    }
}
