package io.jrnic.rdmap;

import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

/**
 * RDMAP errors as reported in a Terminate: Layer 0 with the error types and codes of RFC 5040 §4.8
 * Figure 9 as registered by RFC 6580 §3.1. RFC 7306 (§8.2) and draft-talpey-rdma-commit-01 (§5)
 * register no codes of their own; RFC 7306 reports a misaligned atomic as
 * {@link #CATASTROPHIC_LOCALIZED} (0/2/0x07).
 *
 * <p>Local Catastrophic Error (0/0) has no code: any value is acceptable on receive (RFC 6580 "ALL"),
 * so {@link #fromWire(int, int)} maps every code of type 0 to {@link #LOCAL_CATASTROPHIC}, which
 * sends 0x00. Immutable and thread-safe.
 */
public enum RdmapError implements IwarpError {
    /** Local Catastrophic Error, 0/0/any (R-ERR-001). */
    LOCAL_CATASTROPHIC(RdmapError.TYPE_LOCAL_CATASTROPHIC, 0x00, "local catastrophic error"),

    /** Remote Protection Error: Invalid STag, 0/1/0x00 (R-ERR-002). */
    INVALID_STAG(RdmapError.TYPE_REMOTE_PROTECTION, 0x00, "invalid STag"),
    /** Remote Protection Error: Base or bounds violation, 0/1/0x01 (R-ERR-003). */
    BASE_OR_BOUNDS_VIOLATION(RdmapError.TYPE_REMOTE_PROTECTION, 0x01, "base or bounds violation"),
    /** Remote Protection Error: Access rights violation, 0/1/0x02 (R-ERR-004). */
    ACCESS_RIGHTS_VIOLATION(RdmapError.TYPE_REMOTE_PROTECTION, 0x02, "access rights violation"),
    /** Remote Protection Error: STag not associated with RDMAP Stream, 0/1/0x03 (R-ERR-005). */
    STAG_NOT_ASSOCIATED(RdmapError.TYPE_REMOTE_PROTECTION, 0x03, "STag not associated with RDMAP stream"),
    /** Remote Protection Error: TO wrap, 0/1/0x04 (R-ERR-006). */
    TO_WRAP(RdmapError.TYPE_REMOTE_PROTECTION, 0x04, "TO wrap"),
    /** Remote Protection Error: STag cannot be Invalidated, 0/1/0x09 (R-ERR-007, AMB-06). */
    PROTECTION_STAG_CANNOT_BE_INVALIDATED(RdmapError.TYPE_REMOTE_PROTECTION, 0x09, "STag cannot be invalidated"),
    /** Remote Protection Error: Unspecified Error, 0/1/0xFF (R-ERR-008). */
    PROTECTION_UNSPECIFIED(RdmapError.TYPE_REMOTE_PROTECTION, 0xFF, "unspecified protection error"),

    /** Remote Operation Error: Invalid RDMAP version, 0/2/0x05 (R-ERR-009). */
    INVALID_RDMAP_VERSION(RdmapError.TYPE_REMOTE_OPERATION, 0x05, "invalid RDMAP version"),
    /** Remote Operation Error: Unexpected OpCode, 0/2/0x06 (R-ERR-010). */
    UNEXPECTED_OPCODE(RdmapError.TYPE_REMOTE_OPERATION, 0x06, "unexpected opcode"),
    /**
     * Remote Operation Error: Catastrophic error, localized to RDMAP Stream, 0/2/0x07 (R-ERR-011);
     * also a misaligned atomic (RFC 7306 §8.2, A-ATOM-073) or Atomic Write (C-FLUSH-055).
     */
    CATASTROPHIC_LOCALIZED(RdmapError.TYPE_REMOTE_OPERATION, 0x07, "catastrophic error, localized to RDMAP stream"),
    /** Remote Operation Error: Catastrophic error, global, 0/2/0x08 (R-ERR-012). */
    CATASTROPHIC_GLOBAL(RdmapError.TYPE_REMOTE_OPERATION, 0x08, "catastrophic error, global"),
    /** Remote Operation Error: STag cannot be Invalidated, 0/2/0x09 (R-ERR-013, AMB-06). */
    OPERATION_STAG_CANNOT_BE_INVALIDATED(RdmapError.TYPE_REMOTE_OPERATION, 0x09, "STag cannot be invalidated"),
    /** Remote Operation Error: Unspecified Error, 0/2/0xFF (R-ERR-014). */
    OPERATION_UNSPECIFIED(RdmapError.TYPE_REMOTE_OPERATION, 0xFF, "unspecified operation error");

    /** Error Type 0: Local Catastrophic Error. */
    public static final int TYPE_LOCAL_CATASTROPHIC = 0x0;
    /** Error Type 1: Remote Protection Error. */
    public static final int TYPE_REMOTE_PROTECTION = 0x1;
    /** Error Type 2: Remote Operation Error. */
    public static final int TYPE_REMOTE_OPERATION = 0x2;

    private static final RdmapError[] PROTECTION_BY_CODE = new RdmapError[256];
    private static final RdmapError[] OPERATION_BY_CODE = new RdmapError[256];

    static {
        for (RdmapError e : values()) {
            if (e.type == TYPE_REMOTE_PROTECTION) {
                PROTECTION_BY_CODE[e.code] = e;
            } else if (e.type == TYPE_REMOTE_OPERATION) {
                OPERATION_BY_CODE[e.code] = e;
            }
        }
    }

    private final int type;
    private final int code;
    private final String description;

    RdmapError(int type, int code, String description) {
        this.type = type;
        this.code = code;
        this.description = description;
    }

    @Override
    public TerminateLayer layer() {
        return TerminateLayer.RDMAP;
    }

    @Override
    public int errorType() {
        return type;
    }

    @Override
    public int errorCode() {
        return code;
    }

    /** {@return the error name of RFC 5040 Figure 9, e.g. {@code "unexpected opcode"}} */
    public String description() {
        return description;
    }

    /**
     * {@return the RDMAP error with this type and code, or {@code null} if none is registered}
     * Every code of Error Type 0 yields {@link #LOCAL_CATASTROPHIC} (RFC 5040 Figure 9: "any value
     * is acceptable").
     *
     * @param type the error type
     * @param code the error code
     */
    public static RdmapError fromWire(int type, int code) {
        if ((code & ~0xFF) != 0) {
            return null;
        }
        return switch (type) {
            case TYPE_LOCAL_CATASTROPHIC -> LOCAL_CATASTROPHIC;
            case TYPE_REMOTE_PROTECTION -> PROTECTION_BY_CODE[code];
            case TYPE_REMOTE_OPERATION -> OPERATION_BY_CODE[code];
            default -> null;
        };
    }
}
