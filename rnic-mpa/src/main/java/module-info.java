/**
 * MPA framing over TCP (RFC 5044, RFC 6581): connection-setup frames, FPDU framing, CRC32c,
 * markers and a stream deframer. No I/O: everything works on memory segments.
 */
module io.jrnic.mpa {
    exports io.jrnic.wire;
    exports io.jrnic.mpa;
}
