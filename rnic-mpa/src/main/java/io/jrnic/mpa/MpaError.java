package io.jrnic.mpa;

import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

/**
 * MPA errors as reported in an RDMAP Terminate: Layer 2 (LLP), Error Type 0 (MPA), with the codes
 * of RFC 5044 §8 and RFC 6581 §8 as registered by RFC 6580 §3.3.
 */
public enum MpaError implements IwarpError {
    /** TCP connection closed, terminated or lost (RFC 5044 §8). */
    TCP_CONNECTION_LOST(0x01),
    /** Received MPA CRC does not match the computed value (RFC 5044 §8). */
    CRC_MISMATCH(0x02),
    /** Marker and ULPDU_Length disagree on where an FPDU starts (RFC 5044 §8). */
    MARKER_MISMATCH(0x03),
    /** Invalid MPA Request or Reply frame; TCP must be closed at once (RFC 5044 §8). */
    INVALID_STARTUP_FRAME(0x04),
    /** Local catastrophic error (RFC 6581 §8). */
    LOCAL_CATASTROPHIC(0x05),
    /** Insufficient IRD resources (RFC 6581 §8). */
    INSUFFICIENT_IRD(0x06),
    /** No matching RTR option (RFC 6581 §8). */
    NO_MATCHING_RTR(0x07);

    /** The Error Type of every MPA error. */
    public static final int ERROR_TYPE_MPA = 0x0;

    private final int code;

    MpaError(int code) {
        this.code = code;
    }

    @Override
    public TerminateLayer layer() {
        return TerminateLayer.LLP;
    }

    @Override
    public int errorType() {
        return ERROR_TYPE_MPA;
    }

    @Override
    public int errorCode() {
        return code;
    }

    /**
     * {@return the MPA error with this code, or {@code null} if the code is not assigned}
     *
     * @param code the error code
     */
    public static MpaError fromCode(int code) {
        for (MpaError e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return null;
    }
}
