package io.jrnic.ddp;

import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

/**
 * DDP errors as reported in an RDMAP Terminate: Layer 1 (DDP) with the error types and codes of
 * RFC 5041 §7.2 as registered by RFC 6580 §3.2.
 *
 * <p>Immutable and thread-safe.
 */
public enum DdpError implements IwarpError {
    /** Local catastrophic error (EType 0). */
    LOCAL_CATASTROPHIC(DdpError.TYPE_CATASTROPHIC, 0x00),

    /** Tagged buffer: invalid STag (RFC 5041 §7.2). */
    TAGGED_INVALID_STAG(DdpError.TYPE_TAGGED, 0x00),
    /** Tagged buffer: base or bounds violation. */
    TAGGED_BASE_OR_BOUNDS(DdpError.TYPE_TAGGED, 0x01),
    /** Tagged buffer: STag not associated with this DDP stream. */
    TAGGED_STAG_NOT_ASSOCIATED(DdpError.TYPE_TAGGED, 0x02),
    /** Tagged buffer: TO wrap. */
    TAGGED_TO_WRAP(DdpError.TYPE_TAGGED, 0x03),
    /** Tagged buffer: invalid DDP version. */
    TAGGED_INVALID_VERSION(DdpError.TYPE_TAGGED, 0x04),

    /** Untagged buffer: invalid QN. */
    UNTAGGED_INVALID_QN(DdpError.TYPE_UNTAGGED, 0x01),
    /** Untagged buffer: invalid MSN, no buffer available. */
    UNTAGGED_NO_BUFFER(DdpError.TYPE_UNTAGGED, 0x02),
    /** Untagged buffer: invalid MSN, MSN range is not valid. */
    UNTAGGED_MSN_RANGE(DdpError.TYPE_UNTAGGED, 0x03),
    /** Untagged buffer: invalid MO. */
    UNTAGGED_INVALID_MO(DdpError.TYPE_UNTAGGED, 0x04),
    /** Untagged buffer: DDP message too long for the available buffer. */
    UNTAGGED_MESSAGE_TOO_LONG(DdpError.TYPE_UNTAGGED, 0x05),
    /** Untagged buffer: invalid DDP version. */
    UNTAGGED_INVALID_VERSION(DdpError.TYPE_UNTAGGED, 0x06);

    /** Error Type: local catastrophic. */
    public static final int TYPE_CATASTROPHIC = 0x0;
    /** Error Type: tagged buffer error. */
    public static final int TYPE_TAGGED = 0x1;
    /** Error Type: untagged buffer error. */
    public static final int TYPE_UNTAGGED = 0x2;
    /** Error Type 0x3 is reserved for the LLP (RFC 5041 §7.2). */
    public static final int TYPE_RESERVED_LLP = 0x3;

    // values() clones its array on every call; fromWire must not allocate.
    private static final DdpError[] VALUES = values();

    private final int type;
    private final int code;

    DdpError(int type, int code) {
        this.type = type;
        this.code = code;
    }

    @Override
    public TerminateLayer layer() {
        return TerminateLayer.DDP;
    }

    @Override
    public int errorType() {
        return type;
    }

    @Override
    public int errorCode() {
        return code;
    }

    /**
     * {@return the DDP error with this type and code, or {@code null} if none is assigned}
     * Allocation-free.
     *
     * @param type the error type
     * @param code the error code
     */
    public static DdpError fromWire(int type, int code) {
        for (DdpError e : VALUES) {
            if (e.type == type && e.code == code) {
                return e;
            }
        }
        return null;
    }
}
