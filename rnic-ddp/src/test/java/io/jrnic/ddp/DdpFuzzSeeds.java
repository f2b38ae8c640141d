package io.jrnic.ddp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the seed corpus of {@link DdpReceiverFuzzTest}: segment streams made by
 * {@link DdpSegmenter}, valid and with the classic errors of RFC 5041 §7.1. Not a test; run it after
 * a change of the input layout (docs/reliability.md):
 * {@code java -cp rnic-mpa/target/classes:rnic-ddp/target/classes:rnic-ddp/target/test-classes io.jrnic.ddp.DdpFuzzSeeds rnic-ddp/src/test/resources}
 */
public final class DdpFuzzSeeds {

    private DdpFuzzSeeds() {
    }

    /**
     * Writes the seeds.
     *
     * @param args the test resources root
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0], "io", "jrnic", "ddp", "DdpReceiverFuzzTestInputs", "segments");
        Files.createDirectories(dir);
        int v = DdpHeaderFlyweight.VERSION_IETF;
        write(dir, "tagged-valid", new Stream(1).tagged(v, 0x100, 0x1000, 64, 40).tagged(v, 0x700, 0x10, 100, 60));
        write(dir, "tagged-end-of-2^64", new Stream(1).tagged(v, 0x200, 0xFFFF_FFFF_FFFF_FFC0L, 63, 100));
        write(dir, "tagged-to-wrap", new Stream(1).tagged(v, 0x200, 0xFFFF_FFFF_FFFF_FFF0L, 16, 100));
        write(dir, "tagged-crosses-2^63", new Stream(1).tagged(v, 0x600, 0x7FFF_FFFF_FFFF_FFF0L, 32, 100));
        write(dir, "tagged-bounds", new Stream(1).tagged(v, 0x100, 0x1030, 32, 100));
        write(dir, "tagged-below-base", new Stream(1).tagged(v, 0x100, 0xFFF, 8, 100));
        write(dir, "tagged-read-only", new Stream(1).tagged(v, 0x300, 0x2000, 8, 100));
        write(dir, "tagged-not-associated", new Stream(1).tagged(v, 0x400, 0x3000, 8, 100));
        write(dir, "tagged-invalid-stag", new Stream(1).tagged(v, 0x12345678, 0, 8, 100));
        write(dir, "tagged-zero-length", new Stream(1).tagged(v, 0x99, 0, 0, 100).tagged(v, 0x500, 0x4000, 0, 100));
        write(dir, "tagged-version-0", new Stream(1).tagged(0, 0x100, 0x1000, 8, 100));
        write(dir, "rdmac-stream", new Stream(0).tagged(0, 0x100, 0x1000, 8, 100).untagged(0, 0, 1, 50, 100));
        write(dir, "untagged-sends", new Stream(1).untagged(v, 0, 1, 100, 60).untagged(v, 0, 2, 0, 100)
                .untagged(v, 1, 1, 28, 100).untagged(v, 2, 1, 10, 100));
        write(dir, "untagged-deferred", new Stream(1).untagged(v, 0, 1, 1, 100).untagged(v, 0, 2, 1, 100)
                .untagged(v, 0, 3, 1, 100).untagged(v, 0, 3, 1, 100));
        write(dir, "untagged-too-long", new Stream(1).untagged(v, 0, 1, 101, 200));
        write(dir, "untagged-msn-range", new Stream(1).untagged(v, 0, 2, 10, 100).untagged(v, 0, 1, 10, 100));
        write(dir, "untagged-invalid-qn", new Stream(1).untagged(v, 7, 1, 10, 100));
        write(dir, "untagged-atomic-queue", new Stream(3).untagged(v, 3, 1, 0, 100).untagged(v, 3, 2, 1, 100));
        write(dir, "untagged-no-buffer", new Stream(1).untagged(v, 2, 1, 1, 100).untagged(v, 2, 2, 1, 100)
                .untagged(v, 2, 3, 1, 100).untagged(v, 2, 4, 1, 100).untagged(v, 2, 5, 1, 100));
        write(dir, "short-segments", new Stream(1).raw(new byte[0]).raw(new byte[] {(byte) 0xC1, 0, 0}));
        write(dir, "dropped-after-error", new Stream(1).untagged(v, 9, 1, 1, 100).tagged(v, 0x100, 0x1000, 8, 100));
    }

    /** A fuzz input: the stream byte, then one record (length, ULPDU) per segment. */
    private static final class Stream {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final DdpSegmenter segmenter = new DdpSegmenter();
        final MemorySegment header = MemorySegment.ofArray(new byte[18]);

        Stream(int config) {
            out.write(config);
        }

        Stream tagged(int version, int stag, long to, int length, int mulpdu) {
            segmenter.resetTagged(mulpdu, version, 0x40 | version << 6, stag, to, length);
            return segments();
        }

        Stream untagged(int version, int qn, int msn, int length, int mulpdu) {
            segmenter.resetUntagged(mulpdu, version, 0x43 | version << 6, 0, qn, msn, 0, length);
            return segments();
        }

        Stream raw(byte[] ulpdu) {
            out.write(ulpdu.length);
            out.writeBytes(ulpdu);
            return this;
        }

        private Stream segments() {
            while (segmenter.next(header, 0)) {
                int h = segmenter.headerLength();
                byte[] ulpdu = new byte[h + segmenter.payloadLength()];
                MemorySegment.copy(header, 0, MemorySegment.ofArray(ulpdu), 0, h);
                for (int i = h; i < ulpdu.length; i++) {
                    ulpdu[i] = (byte) i;
                }
                raw(ulpdu);
            }
            return this;
        }
    }

    private static void write(Path dir, String name, Stream s) throws IOException {
        Files.write(dir.resolve(name), s.out.toByteArray());
    }
}
