package io.jrnic.rdmap;

import io.jrnic.ddp.DdpError;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.mpa.MpaError;
import io.jrnic.wire.IwarpError;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * Writes the seed corpus of {@link RdmapFuzzTest}: headers and Terminates made by
 * {@link RdmapMessageEncoder} and {@link TerminateHeaderFlyweight}, in RFC and Linux siw bit order,
 * and a few malformed ones. Not a test; run it after a change of an input layout
 * (docs/reliability.md): {@code java -cp rnic-mpa/target/classes:rnic-ddp/target/classes:rnic-rdmap/target/classes:rnic-rdmap/target/test-classes io.jrnic.rdmap.RdmapFuzzSeeds rnic-rdmap/src/test/resources}
 */
public final class RdmapFuzzSeeds {

    private RdmapFuzzSeeds() {
    }

    /**
     * Writes the seeds.
     *
     * @param args the test resources root
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0], "io", "jrnic", "rdmap", "RdmapFuzzTestInputs");
        Path validator = root.resolve("validator");
        Path terminate = root.resolve("terminateDecoder");
        Files.createDirectories(validator);
        Files.createDirectories(terminate);

        RdmapMessageEncoder all = new RdmapMessageEncoder(RdmapFeatures.ALL);
        RdmapMessageEncoder base = new RdmapMessageEncoder(RdmapFeatures.RFC_5040);
        MemorySegment h = MemorySegment.ofArray(new byte[18]);
        for (RdmapOpcode op : RdmapOpcode.values()) {
            RdmapMessageEncoder encoder = op.spec() == RdmapSpec.RFC_5040 ? base : all;
            int n = op.tagged() ? encoder.taggedHeader(h, 0, op, true, 0x1234, 0x1000)
                    : encoder.untaggedHeader(h, 0, op, true, 0x99, 1, 0);
            int features = op.spec() == RdmapSpec.RFC_5040 ? 0 : op.spec() == RdmapSpec.RFC_7306 ? 1 : 2;
            write(validator, "valid-" + op.name().toLowerCase(),
                    cat(new byte[] {(byte) features, 0, 0, 0, (byte) op.headerLength()}, bytes(h, 0, n)));
        }
        base.untaggedHeader(h, 0, RdmapOpcode.READ_REQUEST, false, 0, 1, 0);
        write(validator, "read-request-not-last", cat(new byte[] {0, 0, 0, 0, 28}, bytes(h, 0, 18)));
        base.untaggedHeader(h, 0, RdmapOpcode.READ_REQUEST, true, 0, 1, 4);
        write(validator, "read-request-message-offset-4", cat(new byte[] {0, 0, 0, 0, 28}, bytes(h, 0, 18)));
        base.untaggedHeader(h, 0, RdmapOpcode.SEND, true, 0, 1, 0);
        h.set(ValueLayout.JAVA_BYTE, 1, (byte) 0x03);                     // RV 00 on an IETF stream
        write(validator, "rdmap-version-0", cat(new byte[] {0, 0, 0, 0, 0}, bytes(h, 0, 18)));
        h.set(ValueLayout.JAVA_BYTE, 1, (byte) 0x50);                     // 0x10 without the draft
        write(validator, "draft-opcode-on-base-stream", cat(new byte[] {1, 0, 0, 0, 0}, bytes(h, 0, 18)));
        all.taggedHeader(h, 0, RdmapOpcode.RDMA_WRITE, true, 1, 2);
        write(validator, "write-on-rdmac-stream", cat(new byte[] {3, 0, 0, 1, 0}, bytes(h, 0, 14)));

        // Terminates (after the DDP header), RFC bit order, as this project sends them.
        MemorySegment t = MemorySegment.ofArray(new byte[TerminateHeaderFlyweight.MAX_LENGTH]);
        TerminateHeaderFlyweight th = new TerminateHeaderFlyweight().wrap(t, 0);
        base.taggedHeader(h, 0, RdmapOpcode.RDMA_WRITE, true, 0x1234, 0x1000);
        TaggedHeaderFlyweight tagged = new TaggedHeaderFlyweight().wrap(h, 0);
        term(terminate, "ddp-invalid-stag-tagged", th, t, DdpError.TAGGED_INVALID_STAG, tagged, 100, null, false);
        MemorySegment rr = MemorySegment.ofArray(new byte[18 + 28]);
        base.readRequest(rr, 0, 1, 0x10, 0x2000, 4096, 0x20, 0x3000);
        UntaggedHeaderFlyweight untagged = new UntaggedHeaderFlyweight().wrap(rr, 0);
        ReadRequestHeaderFlyweight read = new ReadRequestHeaderFlyweight().wrap(rr, 18);
        term(terminate, "rdmap-protection-read-request", th, t, RdmapError.BASE_OR_BOUNDS_VIOLATION, untagged, 28,
                read, false);
        term(terminate, "rdmap-unexpected-opcode", th, t, RdmapError.UNEXPECTED_OPCODE, untagged, 28, null, false);
        term(terminate, "mpa-crc", th, t, MpaError.CRC_MISMATCH, null, 0, null, false);
        term(terminate, "mpa-insufficient-ird-first", th, t, MpaError.INSUFFICIENT_IRD, null, 0, null, true);
        term(terminate, "ddp-catastrophic", th, t, DdpError.LOCAL_CATASTROPHIC, null, 0, null, false);
        // Linux siw's bit order (interop README), and malformed ones.
        write(terminate, "siw-mpa-crc", hex("00 02020000"));
        write(terminate, "siw-unexpected-opcode-headers", hex("00 20060300 0012") );
        write(terminate, "ambiguous-20060000", hex("00 20060000"));
        write(terminate, "ambiguous-20060000-first", hex("01 20060000"));
        write(terminate, "short", hex("00 1000"));
        write(terminate, "trailing-bytes", hex("00 10000000 deadbeef"));
        write(terminate, "d-bit-without-header", hex("00 11004000 0010"));
        write(terminate, "unregistered-code", hex("00 30770000"));
    }

    private static void term(Path dir, String name, TerminateHeaderFlyweight th, MemorySegment t, IwarpError error,
                             io.jrnic.ddp.DdpHeaderFlyweight ddp, int length, ReadRequestHeaderFlyweight read,
                             boolean first) throws IOException {
        t.fill((byte) 0);
        int n = th.encode(error, ddp, length, read);
        write(dir, name, cat(new byte[] {(byte) (first ? 1 : 0)}, bytes(t, 0, n)));
    }

    private static byte[] bytes(MemorySegment s, long offset, long length) {
        return s.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static byte[] cat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static void write(Path dir, String name, byte[] content) throws IOException {
        Files.write(dir.resolve(name), content);
    }
}
