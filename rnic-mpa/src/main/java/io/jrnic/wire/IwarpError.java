package io.jrnic.wire;

/**
 * An error of one of the iWARP layers, classified the way an RDMAP Terminate message reports it:
 * layer, error type and error code (RFC 5040 §4.8, RFC 6580 §3).
 *
 * <p>Each protocol module defines its errors as an enum implementing this interface
 * ({@code MpaError}, {@code DdpError}, {@code RdmapError}), so that protocol code reports errors as
 * values, never as exceptions, and the QP engine can turn any of them into a Terminate message
 * without knowing which layer produced it.
 */
public interface IwarpError {

    /** {@return the layer that detected the error} */
    TerminateLayer layer();

    /** {@return the 4-bit Error Type within the layer} */
    int errorType();

    /** {@return the 8-bit Error Code within the error type} */
    int errorCode();

    /**
     * {@return the first 16 bits of the Terminate control field: {@code Layer<<12 | EType<<8 |
     * Code} (RFC 5040 §4.8, Figure 7)}
     */
    default int terminateCodeBits() {
        return layer().wireValue() << 12 | (errorType() & 0xF) << 8 | (errorCode() & 0xFF);
    }

    /**
     * {@return a short description with the wire values, e.g. {@code "DDP 1/1/0x00 invalid STag"}}
     */
    default String describe() {
        return String.format("%s %d/%d/0x%02x %s", layer(), layer().wireValue(), errorType(), errorCode(), this);
    }
}
