package io.jrnic.rdmap;

import io.jrnic.ddp.DdpError;
import io.jrnic.mpa.MpaError;
import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

/**
 * Maps the Layer / Error Type / Error Code of a received Terminate to the error constant of any
 * layer: {@link RdmapError} (layer 0), {@link DdpError} (layer 1), {@link MpaError} (layer 2, error
 * type 0). The registries are those of RFC 6580 §3.1-3.3.
 *
 * <p>Lookups go through arrays built once and allocate nothing. Stateless; thread-safe.
 */
public final class IwarpErrors {

    /** DDP errors indexed by {@code type << 8 | code}; built once so that lookups allocate nothing. */
    private static final DdpError[] DDP_BY_TYPE_CODE = new DdpError[16 * 256];
    /** MPA errors (error type 0) indexed by code. */
    private static final MpaError[] MPA_BY_CODE = new MpaError[256];

    static {
        for (DdpError e : DdpError.values()) {
            DDP_BY_TYPE_CODE[e.errorType() << 8 | e.errorCode()] = e;
        }
        for (MpaError e : MpaError.values()) {
            MPA_BY_CODE[e.errorCode()] = e;
        }
    }

    private IwarpErrors() {
    }

    /**
     * {@return the registered error with these wire values, or {@code null} if the combination is
     * not registered (including DDP Error Type 3, which RFC 5041 reserves for the LLP without
     * codes, and layers 0x3-0xF)}
     *
     * @param layer     the 4-bit Layer field
     * @param errorType the 4-bit Error Type field
     * @param errorCode the 8-bit Error Code field
     */
    public static IwarpError fromWire(int layer, int errorType, int errorCode) {
        if ((errorType & ~0xF) != 0 || (errorCode & ~0xFF) != 0) {
            return null;
        }
        if (layer == TerminateLayer.RDMAP.wireValue()) {
            return RdmapError.fromWire(errorType, errorCode);
        }
        if (layer == TerminateLayer.DDP.wireValue()) {
            return DDP_BY_TYPE_CODE[errorType << 8 | errorCode];
        }
        if (layer == TerminateLayer.LLP.wireValue() && errorType == MpaError.ERROR_TYPE_MPA) {
            return MPA_BY_CODE[errorCode];
        }
        return null;
    }

    /**
     * {@return the registered error for the first 16 bits of a Terminate control field, {@code
     * Layer<<12 | EType<<8 | Code} (the inverse of {@link IwarpError#terminateCodeBits()}), or
     * {@code null} if none is registered}
     *
     * @param codeBits the first 16 bits of the control field
     */
    public static IwarpError fromCodeBits(int codeBits) {
        return fromWire(codeBits >>> 12 & 0xF, codeBits >>> 8 & 0xF, codeBits & 0xFF);
    }

    /**
     * {@return whether the error is a local catastrophic error of its layer (RDMAP 0/0, DDP 1/0)}
     * RFC 5040 §4.8 never includes the DDP header in a Terminate for these.
     *
     * @param error the error
     */
    public static boolean isLocalCatastrophic(IwarpError error) {
        return error.layer() != TerminateLayer.LLP && error.errorType() == 0;
    }
}
