package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * Coverage-guided fuzzing (Jazzer) of {@link FpduDeframer}, the receive side of MPA Full Operation,
 * with markers and CRCs on or off, at any stream position (the 2^32 wrap included), in any split of
 * the byte stream, with and without a {@link PlacementHandler} whose targets are fenced by guard
 * bytes. The corpus is under {@code src/test/resources/io/jrnic/mpa/FpduDeframerFuzzTestInputs/}
 * (docs/reliability.md).
 */
class FpduDeframerFuzzTest {

    private static final int GUARD = 16;
    private static final byte GUARD_BYTE = (byte) 0xA5;
    private static final int[] MAX_ULPDU = {Fpdu.MAX_ULPDU_LENGTH, 14, 18, 100, 512, 1024, 2048, 4096};

    /**
     * Arbitrary bytes as the TCP stream. Input: byte 0 the configuration (bit 0 markers, bit 1 CRC,
     * bit 2 placement handler, bits 3-5 the maximum ULPDU_Length, bit 6 minimum 0 instead of 14,
     * bit 7 the placement target revoked from the start); byte 1 the seed of the split; byte 2 the
     * stream position of the first byte, divided by 4 (signed: the 2^32 wrap is 512 bytes away at
     * most); the rest the stream.
     *
     * <p>Invariants: no exception; the ULPDUs delivered, the fault and the bytes taken are the same
     * whether the stream comes whole (the zero-copy fast path) or in pieces (the state machine), and
     * are what a byte-at-a-time reading of RFC 5044 §4 gives; a fault is reported once, nothing is
     * delivered after it, and it carries 2/0/0x02 (CRC), 2/0/0x03 (marker, only with a valid CRC) or
     * 1/0/0x00 (impossible ULPDU_Length, Verbs §8.3.3); nothing is written outside a placement
     * target.
     */
    @FuzzTest(maxDuration = "30s")
    void anyStream(byte[] input) {
        if (input.length < 3) {
            return;
        }
        Config config = Config.of(input[0], input[2]);
        byte[] stream = Arrays.copyOfRange(input, 3, input.length);
        Run whole = run(config, stream, null);
        Run pieces = run(config, stream, new Random(input[1]));
        Run reference = reference(config, stream);

        assertThat(pieces.consumed).isEqualTo(whole.consumed);
        assertThat(pieces.fault).isEqualTo(whole.fault);
        assertThat(pieces.position).isEqualTo(whole.position);
        assertSameUlpdus(config, pieces, whole);
        assertThat(whole.fault).isEqualTo(reference.fault);
        assertSameUlpdus(config, whole, reference);
        if (whole.fault == null) {
            assertThat(whole.consumed).isEqualTo(stream.length);
            assertThat(whole.position).isEqualTo(config.position + stream.length);
        } else {
            assertThat(whole.fault.terminateCodeBits()).isEqualTo(switch (whole.fault) {
                case CRC_MISMATCH -> 0x2002;                 // RFC 5044 §8 code 2
                case MARKER_MISMATCH -> 0x2003;              // RFC 5044 §8 code 3
                case ULPDU_TOO_SHORT, ULPDU_TOO_LONG -> 0x1000;
            });
            if (whole.fault == DeframeFault.CRC_MISMATCH || whole.fault == DeframeFault.MARKER_MISMATCH) {
                assertThat(config.crc || whole.fault == DeframeFault.MARKER_MISMATCH).isTrue();
                assertThat(config.markers || whole.fault == DeframeFault.CRC_MISMATCH).isTrue();
            }
        }
    }

    /**
     * Valid FPDUs made by {@link FpduWriter}, optionally with one corrupted byte. Input: bytes 0-2 as
     * in {@link #anyStream}; bytes 3-4 the offset of the corrupted byte (0xFFFF: none), byte 5 the
     * value XORed into it (0: none); the rest the ULPDUs, each a 2-byte length selector (14 plus the
     * low 11 bits) followed by its bytes, repeated from the input when it runs short.
     *
     * <p>Invariants: uncorrupted, every ULPDU comes out unchanged and in order, in any split, placed
     * or not, and the deframer ends at the writer's stream position; corrupted, every FPDU before the
     * corrupted one still comes out unchanged and, with CRCs on, nothing from the corrupted one on
     * does (RFC 5044 §4.4).
     */
    @FuzzTest(maxDuration = "30s")
    void writerRoundTrip(byte[] input) {
        if (input.length < 6) {
            return;
        }
        Config config = Config.of((byte) (input[0] & 0x47), input[2]);  // default limits, never revoked
        List<byte[]> ulpdus = ulpdus(input, 6);
        if (ulpdus.isEmpty()) {
            return;
        }
        FpduWriter writer = new FpduWriter(config.markers, config.crc, config.position);
        byte[] wire = new byte[ulpdus.stream().mapToInt(u -> Fpdu.maxWireLength(u.length, true)).sum()];
        MemorySegment out = MemorySegment.ofArray(wire);
        int used = 0;
        int[] ends = new int[ulpdus.size()];
        for (int i = 0; i < ulpdus.size(); i++) {
            byte[] u = ulpdus.get(i);
            used += writer.write(MemorySegment.ofArray(u), 0, u.length, out, used);
            ends[i] = used;
        }
        byte[] stream = Arrays.copyOf(wire, used);
        int corrupt = ((input[3] & 0xFF) << 8 | input[4] & 0xFF);
        boolean corrupted = corrupt != 0xFFFF && input[5] != 0 && corrupt < used;
        if (corrupted) {
            stream[corrupt] ^= input[5];
        }
        Run run = run(config, stream, new Random(input[1]));
        if (!corrupted) {
            assertThat(run.fault).isNull();
            assertThat(run.consumed).isEqualTo(used);
            assertThat(run.position).isEqualTo(writer.position());
            assertThat(run.ulpdus).hasSize(ulpdus.size());
            for (int i = 0; i < ulpdus.size(); i++) {
                assertThat(run.ulpdus.get(i)).isEqualTo(ulpdus.get(i));
            }
            return;
        }
        int hit = 0;
        while (ends[hit] <= corrupt) {
            hit++;
        }
        assertThat(run.ulpdus.size()).isGreaterThanOrEqualTo(hit);
        for (int i = 0; i < hit; i++) {
            assertThat(run.ulpdus.get(i)).isEqualTo(ulpdus.get(i));
        }
        if (config.crc) {
            assertThat(run.ulpdus).hasSize(hit);
        }
    }

    /** The deframer's settings, decoded from the first input byte and the position byte. */
    record Config(boolean markers, boolean crc, boolean placement, boolean revoked, int minUlpdu, int maxUlpdu,
                  int position) {
        static Config of(byte flags, byte position) {
            int max = MAX_ULPDU[flags >>> 3 & 7];
            return new Config((flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0, (flags & 0x80) != 0,
                    (flags & 0x40) != 0 ? 0 : Math.min(FpduDeframer.DEFAULT_MIN_ULPDU_LENGTH, max), max, position * 4);
        }
    }

    /** What a deframer did with a stream. */
    static final class Run {
        final List<byte[]> ulpdus = new ArrayList<>();
        DeframeFault fault;
        int faults;
        int consumed;
        int position;
    }

    /**
     * Feeds a stream to a new deframer, whole or in pieces of 1..1100 bytes (so that FPDUs of every
     * size are split somewhere and markers fall inside pieces), and records what it delivers.
     */
    private static Run run(Config config, byte[] stream, Random split) {
        Run run = new Run();
        FpduHandler handler = config.placement ? new GuardedPlacement(run, config.revoked) : new FpduHandler() {
            @Override
            public void onUlpdu(MemorySegment segment, long offset, int length) {
                check(run.fault == null, "delivered after the fault");
                run.ulpdus.add(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
            }

            @Override
            public void onError(DeframeFault fault) {
                run.fault = fault;
                run.faults++;
            }
        };
        FpduDeframer deframer = new FpduDeframer(config.markers, config.crc, config.minUlpdu, config.maxUlpdu,
                config.position, handler);
        MemorySegment bytes = MemorySegment.ofArray(stream);
        int offset = 0;
        while (offset < stream.length) {
            int n = split == null ? stream.length : Math.min(stream.length - offset, 1 + split.nextInt(1100));
            int taken = deframer.consume(bytes, offset, n);
            check(taken >= 0 && taken <= n, "consume took " + taken + " of " + n);
            run.consumed += taken;
            if (taken < n) {
                assertThat(deframer.fault()).isNotNull();
                break;
            }
            offset += n;
        }
        assertThat(run.faults).isLessThanOrEqualTo(1);
        assertThat(deframer.fault()).isEqualTo(run.fault);
        if (run.fault != null) {
            // RFC 5044 §8: nothing is taken or delivered on this half connection after the fault.
            assertThat(deframer.consume(bytes, 0, stream.length)).isZero();
        }
        assertThat(deframer.delivered()).isEqualTo(run.ulpdus.size());
        run.position = deframer.position();
        if (handler instanceof GuardedPlacement g) {
            g.checkGuards();
        }
        return run;
    }

    private static void assertSameUlpdus(Config config, Run actual, Run expected) {
        assertThat(actual.ulpdus).hasSameSizeAs(expected.ulpdus);
        for (int i = 0; i < expected.ulpdus.size(); i++) {
            byte[] a = actual.ulpdus.get(i);
            byte[] e = expected.ulpdus.get(i);
            if (config.placement && config.revoked) {
                // Payload bytes of a revoked target are discarded (RFC 5040 §8.1.1 (6)): the length
                // and header are all that is comparable.
                assertThat(a.length).isEqualTo(e.length);
                int header = Math.min(e.length, 14);
                assertThat(Arrays.copyOf(a, header)).isEqualTo(Arrays.copyOf(e, header));
            } else {
                assertThat(a).isEqualTo(e);
            }
        }
    }

    /**
     * A placement handler in the style of DDP's: a 14- or 18-byte prefix by the T bit, and a target
     * of exactly the payload's size inside a larger array whose bytes around it must never change.
     */
    private static final class GuardedPlacement implements PlacementHandler, PlacementTarget.Guard {
        private final Run run;
        private final boolean revoked;
        private final List<byte[]> arenas = new ArrayList<>();
        private MemorySegment target;
        private boolean inside;
        private int guarded;

        GuardedPlacement(Run run, boolean revoked) {
            this.run = run;
            this.revoked = revoked;
        }

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            check(run.fault == null, "delivered after the fault");
            run.ulpdus.add(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
        }

        @Override
        public void onError(DeframeFault fault) {
            run.fault = fault;
            run.faults++;
        }

        @Override
        public int prefixLength(int firstByte, int ulpduLength) {
            return (firstByte & 0x80) != 0 ? 14 : 18;
        }

        @Override
        public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                       PlacementTarget t) {
            checkGuards();
            int room = ulpduLength - prefixLength;
            check(room > 0, "placement asked for an FPDU without payload after its prefix");
            byte[] arena = new byte[GUARD + room + GUARD];
            Arrays.fill(arena, GUARD_BYTE);
            arenas.add(arena);
            target = MemorySegment.ofArray(arena).asSlice(GUARD, room);
            t.set(MemorySegment.ofArray(arena), GUARD, this);
            return true;
        }

        @Override
        public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
            check(run.fault == null, "placed after the fault");
            checkGuards();
            byte[] whole = new byte[ulpduLength];
            MemorySegment.copy(prefix, ValueLayout.JAVA_BYTE, offset, whole, 0, prefixLength);
            MemorySegment.copy(target, ValueLayout.JAVA_BYTE, 0, whole, prefixLength, ulpduLength - prefixLength);
            run.ulpdus.add(whole);
        }

        @Override
        public boolean enter() {
            check(!inside, "guard entered twice");
            inside = !revoked;
            return !revoked;
        }

        @Override
        public void exit() {
            check(inside, "guard left without being entered");
            inside = false;
        }

        void checkGuards() {
            // Plain checks, not AssertJ: this runs for every FPDU of every input.
            check(!inside, "a write into the target is still in progress");
            for (int a = guarded; a < arenas.size(); a++) {
                byte[] arena = arenas.get(a);
                for (int i = 0; i < GUARD; i++) {
                    check(arena[i] == GUARD_BYTE && arena[arena.length - 1 - i] == GUARD_BYTE,
                            "a byte outside placement target " + a + " was written");
                }
            }
            // A target is only written while its FPDU is in progress: earlier ones need no new look.
            guarded = Math.max(0, arenas.size() - 1);
        }
    }

    /**
     * A byte-at-a-time reading of RFC 5044 §4 (framing, §4.3 markers, §4.4 CRC) written apart from
     * the deframer: the oracle for {@link #anyStream}.
     */
    private static Run reference(Config config, byte[] s) {
        Run run = new Run();
        Reader r = new Reader(config, s);
        try {
            while (true) {
                r.crc.reset();
                r.markerBad = false;
                r.inFpdu = false;
                r.markerIfDue(); // a marker right before ULPDU_Length belongs to this FPDU, FPDUPTR 0
                r.inFpdu = true;
                r.lengthAt = r.position;
                int len = r.next(true) << 8 | r.next(true);
                if (len < config.minUlpdu) {
                    run.fault = DeframeFault.ULPDU_TOO_SHORT;
                    return run;
                }
                if (len > config.maxUlpdu) {
                    run.fault = DeframeFault.ULPDU_TOO_LONG;
                    return run;
                }
                byte[] ulpdu = new byte[len];
                for (int i = 0; i < len; i++) {
                    ulpdu[i] = (byte) r.next(true);
                }
                for (int i = 0; i < Fpdu.padLength(len); i++) {
                    r.next(true);
                }
                r.markerIfDue();    // a marker right before the CRC field is inside the FPDU and its CRC
                int computed = (int) r.crc.getValue();
                int received = 0;
                for (int i = 0; i < 4; i++) {
                    received |= r.next(false) << 8 * i;     // the CRC goes out least significant byte first
                }
                if (config.crc && computed != received) {
                    run.fault = DeframeFault.CRC_MISMATCH;
                    return run;
                }
                if (config.markers && r.markerBad) {
                    run.fault = DeframeFault.MARKER_MISMATCH;
                    return run;
                }
                run.ulpdus.add(ulpdu);
            }
        } catch (EndOfStream end) {
            return run;
        }
    }

    private static final class EndOfStream extends RuntimeException {
        EndOfStream() {
            super(null, null, false, false);
        }
    }

    private static final class Reader {
        final boolean markers;
        final byte[] s;
        final CRC32C crc = new CRC32C();
        int index;
        int position;
        int lengthAt;
        boolean inFpdu;
        boolean markerBad;

        Reader(Config config, byte[] s) {
            this.markers = config.markers;
            this.s = s;
            this.position = config.position;
        }

        void markerIfDue() {
            if (!markers || position % 512 != 0) {
                return;
            }
            if (index + 4 > s.length) {
                throw new EndOfStream();
            }
            crc.update(s, index, 4);
            int fpduPtr = (s[index + 2] & 0xFF) << 8 | s[index + 3] & 0xFF;
            int expected = inFpdu ? (position - lengthAt) & 0xFFFF : 0;
            // RFC 5044 §4.3: the low two bits of FPDUPTR are ignored on receive.
            if ((fpduPtr & 0xFFFC) != (expected & 0xFFFC)) {
                markerBad = true;
            }
            index += 4;
            position += 4;
        }

        int next(boolean inCrc) {
            markerIfDue();
            if (index >= s.length) {
                throw new EndOfStream();
            }
            int b = s[index++] & 0xFF;
            position++;
            if (inCrc) {
                crc.update(b);
            }
            return b;
        }
    }

    private static List<byte[]> ulpdus(byte[] input, int from) {
        List<byte[]> ulpdus = new ArrayList<>();
        int i = from;
        while (i + 2 <= input.length && ulpdus.size() < 16) {
            int len = 14 + (((input[i] & 0xFF) << 8 | input[i + 1] & 0xFF) & 0x7FF);
            i += 2;
            byte[] u = new byte[len];
            for (int k = 0; k < len; k++) {
                u[k] = i < input.length ? input[i++] : (byte) k;
            }
            ulpdus.add(u);
        }
        return ulpdus;
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
