package io.jrnic.mpa;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes the seed corpus of {@link StartupFrameFuzzTest} and {@link FpduDeframerFuzzTest}: valid
 * frames made by this module's own encoders, and a few classic bad ones. Not a test; run it after a
 * change of an input layout (docs/reliability.md):
 * {@code java -cp rnic-mpa/target/classes:rnic-mpa/target/test-classes io.jrnic.mpa.MpaFuzzSeeds rnic-mpa/src/test/resources}
 */
public final class MpaFuzzSeeds {

    private MpaFuzzSeeds() {
    }

    /**
     * Writes the seeds.
     *
     * @param args the test resources root
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0], "io", "jrnic", "mpa");
        Path parser = root.resolve("StartupFrameFuzzTestInputs/parser");
        Path negotiator = root.resolve("StartupFrameFuzzTestInputs/negotiator");
        Path anyStream = root.resolve("FpduDeframerFuzzTestInputs/anyStream");
        Path roundTrip = root.resolve("FpduDeframerFuzzTestInputs/writerRoundTrip");

        MpaSettings rev2 = MpaSettings.defaults();
        MpaSettings rev1 = MpaSettings.builder().revision(1).peerToPeer(false).requestMarkers(true).build();
        byte[] request2 = request(rev2, 0);
        byte[] request1 = request(rev1, 7);
        byte[] reply2 = reply(rev2, request2, false);
        byte[] reply1 = reply(rev1, request1, true);

        // parser: expected kind, limit, split seed, stream.
        write(parser, "request-rev2", cat(bytes(0, 0xFF, 1), request2, Hex.bytes(FpduTest.WORKED_EXAMPLE_FPDU)));
        write(parser, "request-rev1-private-data", cat(bytes(0, 128, 2), request1));
        write(parser, "reply-rev2", cat(bytes(1, 0xFF, 3), reply2));
        write(parser, "reply-rev1-reject", cat(bytes(1, 4, 4), reply1));
        write(parser, "worked-request", cat(bytes(0, 0xFF, 5), Hex.bytes(StartupFrameTest.WORKED_REQUEST)));
        write(parser, "bad-key-initiator-initiator", cat(bytes(1, 0xFF, 6), request2));
        write(parser, "bad-revision-0", cat(bytes(0, 0xFF, 7), with(request2, 17, 0)));
        write(parser, "pd-length-513", cat(bytes(0, 0xFF, 8), with(with(request2, 18, 2), 19, 1)));
        write(parser, "pd-length-over-limit", cat(bytes(0, 1, 9), request1));
        write(parser, "enhanced-with-rev1", cat(bytes(0, 0xFF, 10), with(request2, 17, 1)));
        write(parser, "enhanced-without-word", cat(bytes(0, 0xFF, 11), with(with(request2, 19, 2), 16, 0x50)));
        write(parser, "truncated", cat(bytes(0, 0xFF, 12), Arrays.copyOf(request1, 22)));

        // negotiator: switches, RTR forms, IRD cap, IRD, ORD, required ORD, frame.
        write(negotiator, "responder-rev2", cat(bytes(0xE0, 7, 127, 16, 16, 0), request2));
        write(negotiator, "responder-rev1-crc-required", cat(bytes(0x9A, 0, 8, 4, 4, 0), request1));
        write(negotiator, "responder-insufficient-ird", cat(bytes(0xE0, 7, 127, 16, 16, 120), request2));
        write(negotiator, "initiator-rev2", cat(bytes(0xE1, 7, 127, 16, 16, 0), reply2));
        write(negotiator, "initiator-rev1-rejected", cat(bytes(0x19, 0, 8, 4, 4, 0), reply1));
        write(negotiator, "initiator-no-rtr", cat(bytes(0xE1, 2, 127, 16, 16, 0), reply2));
        write(negotiator, "initiator-enhanced-mismatch", cat(bytes(0x81, 0, 8, 4, 4, 0), reply2));

        // anyStream: configuration, split seed, position / 4, stream.
        for (int cfg = 0; cfg < 8; cfg++) {
            boolean markers = (cfg & 1) != 0;
            boolean crc = (cfg & 2) != 0;
            write(anyStream, "valid-" + cfg, cat(bytes(cfg, cfg, 0), fpdus(markers, crc, 0, 14, 100, 600, 20)));
        }
        write(anyStream, "valid-near-wrap", cat(bytes(3, 9, -6), fpdus(true, true, -24, 30, 14, 700)));
        byte[] badCrc = fpdus(false, true, 0, 40, 40);
        badCrc[badCrc.length - 1] ^= 1;
        write(anyStream, "crc-mismatch", cat(bytes(2, 1, 0), badCrc));
        byte[] badMarker = fpdus(true, false, 0, 600);
        badMarker[512 + 3] ^= 0x10;       // the FPDUPTR of the marker inside the FPDU
        write(anyStream, "marker-mismatch", cat(bytes(1, 2, 0), badMarker));
        write(anyStream, "ulpdu-too-short", cat(bytes(0, 3, 0), Hex.bytes("000d 00000000000000000000000000 00000000")));
        write(anyStream, "ulpdu-too-long", cat(bytes(3 << 3, 4, 0), fpdus(false, false, 0, 100)));
        write(anyStream, "placement-revoked", cat(bytes(0x85, 5, 0), fpdus(true, false, 0, 1000, 14)));

        // writerRoundTrip: configuration, split seed, position / 4, corrupted offset, XOR, ULPDUs.
        byte[] records = cat(Hex.bytes("0000"), new byte[14], Hex.bytes("0250"), new byte[40], Hex.bytes("07ff"));
        write(roundTrip, "plain", cat(bytes(0, 1, 0, 0xFF, 0xFF, 0), records));
        write(roundTrip, "markers-crc-placement", cat(bytes(7, 2, 0, 0xFF, 0xFF, 0), records));
        write(roundTrip, "near-wrap", cat(bytes(3, 3, -2, 0xFF, 0xFF, 0), records));
        write(roundTrip, "corrupted-crc-on", cat(bytes(3, 4, 0, 0, 40, 0x20), records));
        write(roundTrip, "corrupted-length", cat(bytes(2, 5, 0, 0, 0, 0x80), records));
    }

    private static byte[] request(MpaSettings settings, int pd) {
        MemorySegment out = MemorySegment.ofArray(new byte[StartupFrame.MAX_FRAME_LENGTH]);
        MemorySegment data = MemorySegment.ofArray(new byte[pd]);
        int n = new MpaNegotiator(settings).writeRequest(out, 0, data, 0, pd);
        return out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] reply(MpaSettings settings, byte[] request, boolean reject) {
        MpaNegotiator negotiator = new MpaNegotiator(settings);
        Negotiation n = negotiator.onRequest(new StartupFrame().wrap(MemorySegment.ofArray(request), 0), request.length);
        MemorySegment out = MemorySegment.ofArray(new byte[StartupFrame.MAX_FRAME_LENGTH]);
        int len = negotiator.writeReply(n, reject, out, 0, null, 0, 0);
        return out.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
    }

    /** FPDUs made by the writer for ULPDUs of the given lengths, starting at a stream position. */
    static byte[] fpdus(boolean markers, boolean crc, int position, int... lengths) {
        FpduWriter writer = new FpduWriter(markers, crc, position);
        List<byte[]> parts = new ArrayList<>();
        for (int length : lengths) {
            byte[] ulpdu = new byte[length];
            for (int i = 0; i < length; i++) {
                ulpdu[i] = (byte) (i * 7 + length);
            }
            ulpdu[0] = (byte) (length % 2 == 0 ? 0xC1 : 0x41);   // a tagged or untagged DDP control byte
            byte[] wire = new byte[Fpdu.maxWireLength(length, true)];
            int n = writer.write(MemorySegment.ofArray(ulpdu), 0, length, MemorySegment.ofArray(wire), 0);
            parts.add(Arrays.copyOf(wire, n));
        }
        return cat(parts.toArray(byte[][]::new));
    }

    static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    static byte[] with(byte[] b, int index, int value) {
        byte[] copy = b.clone();
        copy[index] = (byte) value;
        return copy;
    }

    static byte[] cat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    static void write(Path dir, String name, byte[] content) throws IOException {
        Files.createDirectories(dir);
        Files.write(dir.resolve(name), content);
    }
}
