package io.jrnic.mpa;

import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

/**
 * The errors {@link FpduDeframer} reports, each classified as the Terminate message will carry it.
 *
 * <ul>
 *   <li>CRC and marker errors are MPA errors (RFC 5044 §8 codes 2 and 3).</li>
 *   <li>An impossible ULPDU_Length is not an MPA error code: RDMA Verbs §8.3.3 (Figure 24) reports
 *       "segment size invalid (too small for the header or larger than supported)" as 0x1000, i.e.
 *       Layer DDP, Error Type 0 (local catastrophic), so these carry exactly that classification
 *       ({@code DdpError.fromWire(0, 0)} in rnic-ddp).</li>
 * </ul>
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum DeframeFault implements IwarpError {
    /** The received CRC does not match the computed one (RFC 5044 §4.4, §8 code 2). */
    CRC_MISMATCH(MpaError.CRC_MISMATCH),
    /** A marker's FPDUPTR disagrees with the FPDU start found from ULPDU_Length (RFC 5044 §8 code 3). */
    MARKER_MISMATCH(MpaError.MARKER_MISMATCH),
    /** ULPDU_Length is below the configured minimum (the smallest DDP header, 14). */
    ULPDU_TOO_SHORT(null),
    /** ULPDU_Length is above the configured maximum ULPDU this receiver accepts. */
    ULPDU_TOO_LONG(null);

    private final MpaError mpaError;

    DeframeFault(MpaError mpaError) {
        this.mpaError = mpaError;
    }

    /** {@return the MPA error, or {@code null} for the length faults (which are DDP-classified)} */
    public MpaError mpaError() {
        return mpaError;
    }

    @Override
    public TerminateLayer layer() {
        return mpaError != null ? mpaError.layer() : TerminateLayer.DDP;
    }

    @Override
    public int errorType() {
        return mpaError != null ? mpaError.errorType() : 0;
    }

    @Override
    public int errorCode() {
        return mpaError != null ? mpaError.errorCode() : 0;
    }
}
