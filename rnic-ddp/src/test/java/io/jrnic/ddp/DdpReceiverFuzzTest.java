package io.jrnic.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing (Jazzer) of {@link DdpReceiver}, the validation of every inbound DDP
 * segment before placement (RFC 5041 §7.1), over a stream of segments whose accepted payloads are
 * really placed into registered regions and untagged buffers fenced by guard bytes. The corpus is
 * under {@code src/test/resources/io/jrnic/ddp/DdpReceiverFuzzTestInputs/} (docs/reliability.md).
 */
class DdpReceiverFuzzTest {

    private static final int GUARD = 16;
    private static final byte GUARD_BYTE = (byte) 0x5A;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    /** A registered region as the QP layer would describe it; its bytes sit between guards. */
    record Region(int stag, long base, long length, boolean writable, boolean associated) {
        BigInteger baseU() {
            return new BigInteger(Long.toUnsignedString(base));
        }
    }

    /** The STag table of the fuzzed stream: edge cases of RFC 5041 §7.1 checks 1-5. */
    static final Region[] REGIONS = {
        new Region(0x100, 0x1000, 64, true, true),
        new Region(0x200, 0xFFFF_FFFF_FFFF_FFC0L, 64, true, true),          // ends at 2^64
        new Region(0x300, 0x2000, 64, false, true),                         // no remote write
        new Region(0x400, 0x3000, 64, true, false),                         // another stream's
        new Region(0x500, 0x4000, 0, true, true),                           // zero-length
        new Region(0x600, 0x7FFF_FFFF_FFFF_FFF0L, 32, true, true),          // crosses 2^63
        new Region(0x700, 0, 256, true, true),
    };

    /** Untagged buffer capacities by QN; MSN 5 and later find no buffer, MSN 3 on QN 0 is deferred. */
    static final long[] CAPACITY = {100, 28, 64, 0};

    /**
     * A stream of segments. Input: byte 0 the stream (bit 0 DDP version 1 instead of 0, bit 1 the
     * fourth queue for RFC 7306 responses); then records of one length byte L and L bytes, each
     * record one ULPDU as MPA hands it up (the DDP header and payload).
     *
     * <p>Invariants: no exception; each verdict is the one an independent reading of RFC 5041 §7.1
     * (and its order documented by {@link DdpReceiver}) gives for the stream so far; a rejection
     * carries Layer 1 and the RFC 5041 §7.2 type and code, copies the failing header for the
     * Terminate and stops the stream, whose later segments are dropped; an accepted payload placed at
     * the offset the receiver names never touches a byte outside its region or buffer.
     */
    @FuzzTest(maxDuration = "30s")
    void segments(byte[] input) {
        if (input.length < 1) {
            return;
        }
        int version = (input[0] & 1) != 0 ? DdpHeaderFlyweight.VERSION_IETF : DdpHeaderFlyweight.VERSION_RDMAC;
        boolean atomics = (input[0] & 2) != 0;
        Model model = new Model(version, atomics);
        DdpReceiver receiver = new DdpReceiver(version, DdpReceiver.rdmapQueueNumbers(atomics),
                (qn, msn) -> model.capacity(qn, msn), (stag, rsvdUlp, d) -> model.resolve(stag, d));

        int i = 1;
        while (i < input.length) {
            int length = Math.min(input[i] & 0xFF, input.length - i - 1);
            MemorySegment ulpdu = MemorySegment.ofArray(Arrays.copyOfRange(input, i + 1, i + 1 + length));
            i += 1 + length;
            Verdict expected = model.expect(ulpdu, length);
            InboundSegment s = receiver.onSegment(ulpdu, 0, length);
            assertThat(s.outcome()).as("outcome of %s", expected).isEqualTo(expected.outcome);
            assertThat(s.error()).isEqualTo(expected.error);
            switch (s.outcome()) {
                case REJECTED -> checkRejection(receiver, s.error(), ulpdu, length);
                case DROPPED -> assertThat(receiver.stopped()).isTrue();
                case ACCEPTED -> place(model, s, ulpdu);
                case DEFERRED -> assertThat(s.tagged()).isFalse();
                default -> throw new AssertionError(s.outcome());
            }
            model.checkGuards();
        }
        assertThat(receiver.droppedSegments()).isEqualTo(model.dropped);
    }

    private static void checkRejection(DdpReceiver receiver, DdpError error, MemorySegment ulpdu, int length) {
        // RFC 5041 §7.2 / RFC 6580 §3.2: Layer 1 with a registered type and code.
        assertThat(error.terminateCodeBits() >>> 12).isEqualTo(1);
        assertThat(DdpError.fromWire(error.errorType(), error.errorCode())).isSameAs(error);
        assertThat(receiver.stopped()).isTrue();
        assertThat(receiver.firstError()).isSameAs(error);
        int header = receiver.terminateHeaderLength();
        if (error == DdpError.LOCAL_CATASTROPHIC) {
            assertThat(header).isZero();            // RFC 5040 §4.8: no header with a catastrophic error
            assertThat(receiver.terminateDdpHeader()).isNull();
        } else {
            int control = ulpdu.get(ValueLayout.JAVA_BYTE, 0) & 0xFF;
            assertThat(header).isEqualTo(DdpHeaderFlyweight.headerLength(control));
            assertThat(receiver.terminateHeader().toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(ulpdu.asSlice(0, header).toArray(ValueLayout.JAVA_BYTE));
            assertThat(receiver.terminateSegmentLength()).isEqualTo(length);
            assertThat(receiver.terminatePayloadLength()).isEqualTo(length - header);
        }
    }

    /** Places an accepted payload where the receiver says, into the arena behind its guards. */
    private static void place(Model model, InboundSegment s, MemorySegment ulpdu) {
        int n = s.payloadLength();
        if (n == 0) {
            return;
        }
        byte[] arena;
        long at;
        if (s.tagged()) {
            arena = model.regionBytes[model.regionIndex(s.stag())];
            at = s.bufferOffset();
        } else {
            arena = model.bufferBytes[s.queueNumber()];
            at = s.messageOffset();
        }
        assertThat(at).isBetween(0L, (long) arena.length - 2 * GUARD - n);
        MemorySegment.copy(ulpdu, s.payloadOffset(), MemorySegment.ofArray(arena), GUARD + at, n);
    }

    record Verdict(InboundSegment.Outcome outcome, DdpError error) {
        static Verdict accept() {
            return new Verdict(InboundSegment.Outcome.ACCEPTED, null);
        }

        static Verdict reject(DdpError error) {
            return new Verdict(InboundSegment.Outcome.REJECTED, error);
        }
    }

    /**
     * The oracle: RFC 5041 §7.1 read apart from the receiver, with unsigned TO arithmetic done in
     * BigInteger, and the state of each untagged queue (RFC 5041 §4.3: MSNs from 1, MOs in order).
     */
    static final class Model {
        final int version;
        final int[] queues;
        final byte[][] regionBytes = new byte[REGIONS.length][];
        final byte[][] bufferBytes = new byte[CAPACITY.length][];
        final int[] expectedMsn = new int[CAPACITY.length];
        final boolean[] inProgress = new boolean[CAPACITY.length];
        final long[] accepted = new long[CAPACITY.length];
        boolean stopped;
        long dropped;

        Model(int version, boolean atomics) {
            this.version = version;
            this.queues = DdpReceiver.rdmapQueueNumbers(atomics);
            for (int r = 0; r < REGIONS.length; r++) {
                regionBytes[r] = guarded((int) REGIONS[r].length);
            }
            for (int q = 0; q < CAPACITY.length; q++) {
                bufferBytes[q] = guarded((int) CAPACITY[q]);
            }
            Arrays.fill(expectedMsn, 1);
        }

        static byte[] guarded(int length) {
            byte[] b = new byte[GUARD + length + GUARD];
            Arrays.fill(b, GUARD_BYTE);
            return b;
        }

        void checkGuards() {
            for (byte[][] all : new byte[][][] {regionBytes, bufferBytes}) {
                for (byte[] b : all) {
                    for (int k = 0; k < GUARD; k++) {
                        // Plain check, not AssertJ: this runs after every segment of every input.
                        if (b[k] != GUARD_BYTE || b[b.length - 1 - k] != GUARD_BYTE) {
                            throw new AssertionError("a byte outside a registered region or buffer was written");
                        }
                    }
                }
            }
        }

        int regionIndex(int stag) {
            for (int r = 0; r < REGIONS.length; r++) {
                if (REGIONS[r].stag == stag) {
                    return r;
                }
            }
            return -1;
        }

        void resolve(int stag, TaggedBufferDescriptor d) {
            int r = regionIndex(stag);
            if (r < 0) {
                d.invalid();
            } else if (!REGIONS[r].associated) {
                d.notAssociated();
            } else {
                d.valid(REGIONS[r].base, REGIONS[r].length, REGIONS[r].writable, REGIONS[r]);
            }
        }

        long capacity(int qn, int msn) {
            if (qn < 0 || qn >= CAPACITY.length) {
                throw new AssertionError("buffer asked for an unknown queue " + qn);
            }
            if (qn == 0 && msn == 3) {
                return UntaggedBufferResolver.DEFER;
            }
            return msn >= 5 || msn < 1 ? UntaggedBufferResolver.NO_BUFFER : CAPACITY[qn];
        }

        Verdict expect(MemorySegment u, int length) {
            if (stopped) {
                dropped++;
                return new Verdict(InboundSegment.Outcome.DROPPED, null);   // RFC 5041 §7.1: silently dropped
            }
            Verdict v = judge(u, length);
            if (v.outcome() == InboundSegment.Outcome.REJECTED) {
                stopped = true;
            }
            return v;
        }

        private Verdict judge(MemorySegment u, int length) {
            if (length == 0) {
                return Verdict.reject(DdpError.LOCAL_CATASTROPHIC);
            }
            int control = u.get(ValueLayout.JAVA_BYTE, 0) & 0xFF;
            boolean tagged = (control & 0x80) != 0;
            int header = tagged ? 14 : 18;
            if (length < header) {
                return Verdict.reject(DdpError.LOCAL_CATASTROPHIC);
            }
            boolean versionOk = (control & 3) == version;
            int payload = length - header;
            if (tagged) {
                if (!versionOk) {
                    return Verdict.reject(DdpError.TAGGED_INVALID_VERSION);
                }
                if (payload == 0) {
                    return Verdict.accept();             // RFC 5041 §5.2: no STag/TO checks
                }
                int stag = u.get(U32, 2);
                BigInteger to = new BigInteger(Long.toUnsignedString(u.get(U64, 6)));
                int r = regionIndex(stag);
                if (r < 0) {
                    return Verdict.reject(DdpError.TAGGED_INVALID_STAG);
                }
                Region region = REGIONS[r];
                if (!region.associated) {
                    return Verdict.reject(DdpError.TAGGED_STAG_NOT_ASSOCIATED);
                }
                if (!region.writable) {
                    return Verdict.reject(DdpError.TAGGED_INVALID_STAG);
                }
                BigInteger end = region.baseU().add(BigInteger.valueOf(region.length));
                if (to.compareTo(region.baseU()) < 0 || to.compareTo(end) >= 0) {
                    return Verdict.reject(DdpError.TAGGED_BASE_OR_BOUNDS);
                }
                BigInteger last = to.add(BigInteger.valueOf(payload));
                // RFC 5041 §7.1 check 5 as written: the 64-bit unsigned sum TO + length wraps when
                // it reaches 2^64, so even a segment ending exactly at 2^64 is a TO wrap.
                if (last.compareTo(TWO_64) >= 0) {
                    return Verdict.reject(DdpError.TAGGED_TO_WRAP);
                }
                if (last.compareTo(end) > 0) {
                    return Verdict.reject(DdpError.TAGGED_BASE_OR_BOUNDS);
                }
                return Verdict.accept();
            }
            if (!versionOk) {
                return Verdict.reject(DdpError.UNTAGGED_INVALID_VERSION);
            }
            int qn = u.get(U32, 6);
            int msn = u.get(U32, 10);
            long mo = Integer.toUnsignedLong(u.get(U32, 14));
            int q = -1;
            for (int k = 0; k < queues.length; k++) {
                if (queues[k] == qn) {
                    q = k;
                }
            }
            if (q < 0) {
                return Verdict.reject(DdpError.UNTAGGED_INVALID_QN);
            }
            if (msn != expectedMsn[q]) {
                return Verdict.reject(DdpError.UNTAGGED_MSN_RANGE);
            }
            if (!inProgress[q]) {
                long c = capacity(qn, msn);
                if (c == UntaggedBufferResolver.DEFER) {
                    return new Verdict(InboundSegment.Outcome.DEFERRED, null);
                }
                if (c < 0) {
                    return Verdict.reject(DdpError.UNTAGGED_NO_BUFFER);
                }
                inProgress[q] = true;
                accepted[q] = 0;
            }
            if (mo != accepted[q]) {
                return Verdict.reject(DdpError.UNTAGGED_INVALID_MO);
            }
            if (mo + payload > CAPACITY[q]) {
                return Verdict.reject(DdpError.UNTAGGED_MESSAGE_TOO_LONG);
            }
            accepted[q] = mo + payload;
            if ((control & 0x40) != 0) {
                inProgress[q] = false;                   // RFC 5041 §4.3: the next message, MSN + 1
                accepted[q] = 0;
                expectedMsn[q]++;
            }
            return Verdict.accept();
        }
    }
}
