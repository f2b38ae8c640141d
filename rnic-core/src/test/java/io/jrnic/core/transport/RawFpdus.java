package io.jrnic.core.transport;

import io.jrnic.mpa.FpduWriter;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * MPA framing for a raw-socket peer after {@link RawInitiator#connect()}: ULPDUs (built with
 * {@code io.jrnic.core.Wire}) go out as FPDUs with CRC and without markers (RFC 5044 §4), FPDUs
 * read back come out as their ULPDUs, the CRC checked.
 */
final class RawFpdus {
    private RawFpdus() {
    }

    /** Frames one ULPDU (CRC on, no markers) and writes it in one write. */
    static void send(OutputStream out, byte[] ulpdu) throws IOException {
        FpduWriter writer = new FpduWriter(false, true);
        byte[] fpdu = new byte[writer.wireLength(ulpdu.length)];
        writer.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, MemorySegment.ofArray(fpdu), 0);
        out.write(fpdu);
        out.flush();
    }

    /**
     * Reads the next FPDU (the socket's read timeout bounds the wait) and returns its ULPDU.
     *
     * @throws AssertionError if the stream ends first or the CRC does not match
     */
    static byte[] receive(InputStream in) throws IOException {
        byte[] length = in.readNBytes(2);
        if (length.length < 2) {
            throw new AssertionError("the stream ended instead of an FPDU");
        }
        int ulpduLength = (length[0] & 0xFF) << 8 | length[1] & 0xFF;
        int pad = -(2 + ulpduLength) & 3;
        byte[] rest = in.readNBytes(ulpduLength + pad + 4);
        byte[] fpdu = RawFrames.concat(length, rest);
        if (rest.length < ulpduLength + pad + 4 || !RawFrames.crcValid(fpdu)) {
            throw new AssertionError("a truncated or corrupt FPDU: " + HexFormat.of().formatHex(fpdu));
        }
        return Arrays.copyOfRange(fpdu, 2, 2 + ulpduLength);
    }
}
