package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The receive-side deframer: any split of the stream, markers x CRC, every fault and placement. */
class FpduDeframerTest {

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int[] SIZES = {14, 15, 16, 17, 18, 46, 100, 494, 506, 507, 508, 509, 510, 1020, 1454, 4096, 65535};

    /** Records deliveries (copied) and faults. */
    static class Recorder implements FpduHandler {
        final List<byte[]> ulpdus = new ArrayList<>();
        final List<DeframeFault> faults = new ArrayList<>();
        int zeroCopy;
        MemorySegment input;

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            if (segment == input) {
                zeroCopy++;
            }
            ulpdus.add(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
        }

        @Override
        public void onError(DeframeFault fault) {
            faults.add(fault);
        }
    }

    /** A stream of FPDUs and the ULPDUs in it. */
    record Stream(MemorySegment bytes, List<byte[]> ulpdus, List<Integer> fpduStarts) {
    }

    static Stream stream(Random random, boolean markers, boolean crc, int count) {
        FpduWriter writer = new FpduWriter(markers, crc);
        List<byte[]> ulpdus = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        byte[] wire = new byte[0];
        int used = 0;
        for (int i = 0; i < count; i++) {
            int size = i < SIZES.length ? SIZES[i] : 14 + random.nextInt(2000);
            byte[] ulpdu = new byte[size];
            random.nextBytes(ulpdu);
            ulpdus.add(ulpdu);
            int need = writer.wireLength(size);
            if (used + need > wire.length) {
                wire = java.util.Arrays.copyOf(wire, Math.max(2 * wire.length, used + need));
            }
            starts.add(used);
            used += writer.write(MemorySegment.ofArray(ulpdu), 0, size, MemorySegment.ofArray(wire), used);
        }
        return new Stream(MemorySegment.ofArray(java.util.Arrays.copyOf(wire, used)), ulpdus, starts);
    }

    static void feed(FpduDeframer deframer, MemorySegment bytes, Random random, int maxChunk) {
        long off = 0;
        long size = bytes.byteSize();
        while (off < size) {
            int n = (int) Math.min(size - off, 1 + random.nextInt(maxChunk));
            int taken = deframer.consume(bytes, off, n);
            if (taken < n) {
                return;
            }
            off += n;
        }
    }

    private static void assertSameUlpdus(List<byte[]> actual, List<byte[]> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(actual.get(i)).as("ULPDU %d", i).isEqualTo(expected.get(i));
        }
    }

    @ParameterizedTest
    @CsvSource({"false,false", "false,true", "true,false", "true,true"})
    void deliversEveryUlpduForAnySplitOfTheStream(boolean markers, boolean crc) {
        Random random = new Random(markers ? 17 : 4 + (crc ? 1 : 0));
        Stream s = stream(random, markers, crc, 40);
        for (int iteration = 0; iteration < 20; iteration++) {
            Recorder r = new Recorder();
            FpduDeframer d = new FpduDeframer(markers, crc, r);
            int maxChunk = switch (iteration % 4) {
                case 0 -> 3;
                case 1 -> 64;
                case 2 -> 1500;
                default -> 70000;
            };
            feed(d, s.bytes(), random, maxChunk);
            assertThat(r.faults).isEmpty();
            assertSameUlpdus(r.ulpdus, s.ulpdus());
            assertThat(d.delivered()).isEqualTo(s.ulpdus().size());
            assertThat(d.position()).isEqualTo((int) s.bytes().byteSize());
            assertThat(d.atFpduBoundary()).isTrue();
        }
    }

    @Test
    void singleByteChunksWithMarkersAndCrc() {
        Stream s = stream(new Random(1), true, true, 17);
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(true, true, r);
        for (long off = 0; off < s.bytes().byteSize(); off++) {
            assertThat(d.consume(s.bytes(), off, 1)).isEqualTo(1);
        }
        assertThat(r.faults).isEmpty();
        assertSameUlpdus(r.ulpdus, s.ulpdus());
    }

    @Test
    void fpdusWholeInOneChunkAreDeliveredWithoutCopy() {
        Stream s = stream(new Random(2), false, true, 30);
        Recorder r = new Recorder();
        r.input = s.bytes();
        new FpduDeframer(false, true, r).consume(s.bytes(), 0, (int) s.bytes().byteSize());
        assertSameUlpdus(r.ulpdus, s.ulpdus());
        assertThat(r.zeroCopy).isEqualTo(30);
    }

    @Test
    void withMarkersOnlyFpdusWithoutInteriorMarkerAreZeroCopy() {
        Stream s = stream(new Random(3), true, true, 30);
        Recorder r = new Recorder();
        r.input = s.bytes();
        new FpduDeframer(true, true, r).consume(s.bytes(), 0, (int) s.bytes().byteSize());
        assertSameUlpdus(r.ulpdus, s.ulpdus());
        assertThat(r.zeroCopy).isPositive().isLessThan(30);
    }

    @Test
    void rfc5044Figure5And6AreDeframed() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(true, true, r);
        MemorySegment fig5 = Hex.segment(FpduWriterTest.FIG5_FPDU);
        assertThat(d.consume(fig5, 0, (int) fig5.byteSize())).isEqualTo(52);
        assertThat(Hex.of(r.ulpdus.get(0))).isEqualTo(Hex.normalize(FpduWriterTest.FIG5_ULPDU));

        Recorder r6 = new Recorder();
        FpduDeframer d6 = new FpduDeframer(true, true, FpduDeframer.DEFAULT_MIN_ULPDU_LENGTH, 65535, 0x1EC, r6);
        MemorySegment fig6 = Hex.segment(FpduWriterTest.FIG6_FPDU);
        for (int i = 0; i < fig6.byteSize(); i += 3) {
            d6.consume(fig6, i, (int) Math.min(3, fig6.byteSize() - i));
        }
        assertThat(r6.faults).isEmpty();
        assertThat(Hex.of(r6.ulpdus.get(0))).isEqualTo(Hex.normalize(FpduWriterTest.FIG6_ULPDU));
        assertThat(d6.position()).isEqualTo(0x220);
    }

    @Test
    void workedExampleFpduIsDeframed() {
        Recorder r = new Recorder();
        MemorySegment fpdu = Hex.segment(FpduTest.WORKED_EXAMPLE_FPDU);
        new FpduDeframer(false, true, r).consume(fpdu, 0, 36);
        assertThat(Hex.of(r.ulpdus.get(0))).isEqualTo("c14000001234000000000000100030313233343536373839616263646566");
    }

    @ParameterizedTest
    @CsvSource({"false,1", "false,700", "true,1", "true,700"})
    void corruptedByteGivesCrcMismatchV_ERR_21AndNothingAfter(boolean markers, int maxChunk) {
        Random random = new Random(99);
        Stream s = stream(random, markers, true, 25);
        int victim = 20;
        // Flip a ULPDU byte in FPDU 20 (the last octet before its CRC is ULPDU or pad; use the DDP byte).
        long at = s.fpduStarts().get(victim) + (markers && (s.fpduStarts().get(victim) % 512 == 0) ? 4 : 0) + 3;
        s.bytes().set(ValueLayout.JAVA_BYTE, at, (byte) (s.bytes().get(ValueLayout.JAVA_BYTE, at) ^ 0x10));
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(markers, true, r);
        feed(d, s.bytes(), random, maxChunk);
        assertThat(r.faults).containsExactly(DeframeFault.CRC_MISMATCH);
        assertSameUlpdus(r.ulpdus, s.ulpdus().subList(0, victim));
        assertThat(d.fault()).isEqualTo(DeframeFault.CRC_MISMATCH);
        assertThat(d.fault().terminateCodeBits()).isEqualTo(0x2002);
        assertThat(d.consume(s.bytes(), 0, 100)).isZero();
        assertThat(r.faults).hasSize(1);
        assertThat(d.delivered()).isEqualTo(victim);
    }

    @Test
    void corruptedByteIsIgnoredWhenCrcDisabled() {
        Stream s = stream(new Random(7), false, false, 5);
        long at = s.fpduStarts().get(2) + 5;
        s.bytes().set(ValueLayout.JAVA_BYTE, at, (byte) (s.bytes().get(ValueLayout.JAVA_BYTE, at) ^ 1));
        Recorder r = new Recorder();
        new FpduDeframer(false, false, r).consume(s.bytes(), 0, (int) s.bytes().byteSize());
        assertThat(r.faults).isEmpty();
        assertThat(r.ulpdus).hasSize(5);
        assertThat(r.ulpdus.get(2)[3]).isEqualTo((byte) (s.ulpdus().get(2)[3] ^ 1));
    }

    /** Figure 6 with FPDUPTR 0x0018 instead of 0x0014, CRC recomputed (or not) over the covered bytes. */
    private static MemorySegment fig6WithBadMarker(boolean fixCrc) {
        MemorySegment fpdu = Hex.segment(FpduWriterTest.FIG6_FPDU);
        fpdu.set(ValueLayout.JAVA_BYTE, 0x17, (byte) 0x18);
        if (fixCrc) {
            fpdu.set(U32, 48, Crc32c.toWire(Crc32c.compute(fpdu, 0, 48)));
        }
        return fpdu;
    }

    @ParameterizedTest
    @CsvSource({"1", "5", "52"})
    void badMarkerWithValidCrcGivesMarkerMismatchV_EV_8(int chunk) {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(true, true, 14, 65535, 0x1EC, r);
        MemorySegment fpdu = fig6WithBadMarker(true);
        for (int i = 0; i < 52; i += chunk) {
            d.consume(fpdu, i, Math.min(chunk, 52 - i));
        }
        assertThat(r.faults).containsExactly(DeframeFault.MARKER_MISMATCH);
        assertThat(r.ulpdus).isEmpty();
        assertThat(DeframeFault.MARKER_MISMATCH.terminateCodeBits()).isEqualTo(0x2003);
    }

    @Test
    void badMarkerWithStaleCrcReportsCrcMismatchFirst() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(true, true, 14, 65535, 0x1EC, r);
        d.consume(fig6WithBadMarker(false), 0, 52);
        assertThat(r.faults).containsExactly(DeframeFault.CRC_MISMATCH);
    }

    @Test
    void badMarkerIsCheckedWithCrcOff() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(true, false, 14, 65535, 0x1EC, r);
        d.consume(fig6WithBadMarker(false), 0, 52);
        assertThat(r.faults).containsExactly(DeframeFault.MARKER_MISMATCH);
    }

    @ParameterizedTest
    @CsvSource({"1", "60"})
    void leadingMarkerMustBeZero(int chunk) {
        MemorySegment fpdu = Hex.segment(FpduWriterTest.FIG5_FPDU);
        fpdu.set(ValueLayout.JAVA_BYTE, 3, (byte) 0x04);
        fpdu.set(U32, 48, Crc32c.toWire(Crc32c.compute(fpdu, 0, 48)));
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(true, true, r);
        for (int i = 0; i < 52; i += chunk) {
            d.consume(fpdu, i, Math.min(chunk, 52 - i));
        }
        assertThat(r.faults).containsExactly(DeframeFault.MARKER_MISMATCH);
    }

    @Test
    void markerLowBitsAndReservedHalfAreIgnored() {
        MemorySegment fpdu = Hex.segment(FpduWriterTest.FIG6_FPDU);
        fpdu.set(ValueLayout.JAVA_BYTE, 0x17, (byte) 0x17);
        fpdu.set(ValueLayout.JAVA_BYTE, 0x14, (byte) 0xAB);
        fpdu.set(U32, 48, Crc32c.toWire(Crc32c.compute(fpdu, 0, 48)));
        Recorder r = new Recorder();
        new FpduDeframer(true, true, 14, 65535, 0x1EC, r).consume(fpdu, 0, 52);
        assertThat(r.faults).isEmpty();
        assertThat(r.ulpdus).hasSize(1);
    }

    @ParameterizedTest
    @CsvSource({"1", "64"})
    void ulpduShorterThanDdpHeaderIsRejectedV_ERR_21(int chunk) {
        Stream good = stream(new Random(11), false, true, 2);
        MemorySegment bad = Hex.segment("000d" + Hex.zeros(14) + "00000000");
        MemorySegment all = MemorySegment.ofArray(new byte[(int) (good.bytes().byteSize() + bad.byteSize())]);
        MemorySegment.copy(good.bytes(), 0, all, 0, good.bytes().byteSize());
        MemorySegment.copy(bad, 0, all, good.bytes().byteSize(), bad.byteSize());
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(false, true, r);
        for (int i = 0; i < all.byteSize(); i += chunk) {
            d.consume(all, i, (int) Math.min(chunk, all.byteSize() - i));
        }
        assertThat(r.faults).containsExactly(DeframeFault.ULPDU_TOO_SHORT);
        assertThat(r.ulpdus).hasSize(2);
        assertThat(DeframeFault.ULPDU_TOO_SHORT.terminateCodeBits()).isEqualTo(0x1000);
        assertThat(DeframeFault.ULPDU_TOO_SHORT.mpaError()).isNull();
    }

    @Test
    void ulpduLongerThanConfiguredMaximumIsRejectedAtOnce() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(false, true, 14, 1454, 0, r);
        MemorySegment header = Hex.segment("05af c140");
        assertThat(d.consume(header, 0, 4)).isEqualTo(2);
        assertThat(r.faults).containsExactly(DeframeFault.ULPDU_TOO_LONG);
        assertThat(DeframeFault.ULPDU_TOO_LONG.terminateCodeBits()).isEqualTo(0x1000);
    }

    @Test
    void zeroLengthUlpduAllowedWhenMinimumIsZero() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(false, true, 0, 100, 0, r);
        MemorySegment out = MemorySegment.ofArray(new byte[8]);
        new FpduWriter(false, true).write(out, 0, 0, out, 0);
        assertThat(Hex.of(out, 0, 4)).isEqualTo("00000000");
        d.consume(out, 0, 8);
        assertThat(r.faults).isEmpty();
        assertThat(r.ulpdus).hasSize(1);
        assertThat(r.ulpdus.get(0)).isEmpty();
    }

    @Test
    void rejectsBadConstructorArguments() {
        Recorder r = new Recorder();
        assertThatThrownBy(() -> new FpduDeframer(false, true, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("handler");
        assertThatThrownBy(() -> new FpduDeframer(false, true, 14, 65536, 0, r))
                .hasMessageContaining("maxUlpduLength");
        assertThatThrownBy(() -> new FpduDeframer(false, true, 200, 100, 0, r))
                .hasMessageContaining("minUlpduLength");
        assertThatThrownBy(() -> new FpduDeframer(false, true, 14, 100, 6, r))
                .hasMessageContaining("multiple of 4");
    }

    /**
     * Places payload after the "DDP header" (14 bytes when the first byte has T=0x80, else 18) into
     * one big target area, FPDU after FPDU.
     */
    static class Placer extends Recorder implements PlacementHandler {
        final MemorySegment area = MemorySegment.ofArray(new byte[1 << 20]);
        long next;
        final List<byte[]> placed = new ArrayList<>();
        final List<Integer> prefixes = new ArrayList<>();
        long currentStart;

        @Override
        public int prefixLength(int firstByte, int ulpduLength) {
            return (firstByte & 0x80) != 0 ? 14 : 18;
        }

        @Override
        public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                       PlacementTarget target) {
            currentStart = next;
            target.set(area, next);
            next += ulpduLength - prefixLength;
            return true;
        }

        @Override
        public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
            byte[] whole = new byte[ulpduLength];
            MemorySegment.copy(prefix, ValueLayout.JAVA_BYTE, offset, whole, 0, prefixLength);
            MemorySegment.copy(area, ValueLayout.JAVA_BYTE, currentStart, whole, prefixLength, ulpduLength - prefixLength);
            placed.add(whole);
            prefixes.add(prefixLength);
            ulpdus.add(whole);
        }
    }

    @ParameterizedTest
    @CsvSource({"false,false", "true,true", "false,true", "true,false"})
    void headerThenPayloadPlacesStraddlingFpdusIntoTheTarget(boolean markers, boolean crc) {
        Random random = new Random(31);
        Stream s = stream(random, markers, crc, 30);
        Placer p = new Placer();
        FpduDeframer d = new FpduDeframer(markers, crc, 14, 65535, 0, p);
        feed(d, s.bytes(), random, 900);
        assertThat(p.faults).isEmpty();
        assertSameUlpdus(p.ulpdus, s.ulpdus());
        assertThat(p.placed).isNotEmpty();
        assertThat(p.prefixes).contains(14, 18);
    }

    @Test
    void aPlacingDeframerKeepsOnlyPrefixesAndNeverGrowsItsReassemblyBuffer() {
        Random random = new Random(37);
        Stream s = stream(random, true, true, 30); // 65,535-byte ULPDUs among them, split and with markers
        Placer p = new Placer();
        FpduDeframer d = new FpduDeframer(true, true, 14, 65535, 0, p);
        feed(d, s.bytes(), random, 900);
        assertSameUlpdus(p.ulpdus, s.ulpdus());
        assertThat(d.reassemblyCapacity()).isEqualTo(FpduDeframer.INITIAL_BUFFER);
    }

    @Test
    void theReassemblyBufferGrowsToTheLargestSplitUlpduOnceAndKeepsItsBytes() {
        Random random = new Random(38);
        Stream s = stream(random, false, true, 17); // the SIZES, the last 65,535 bytes
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(false, true, r);
        assertThat(d.reassemblyCapacity()).isEqualTo(FpduDeframer.INITIAL_BUFFER);
        feed(d, s.bytes(), random, 3);
        assertSameUlpdus(r.ulpdus, s.ulpdus());
        assertThat(d.reassemblyCapacity()).isEqualTo(65535);
        feed(d, s.bytes(), random, 3); // again: no growth, the same bytes
        assertThat(d.reassemblyCapacity()).isEqualTo(65535);
        assertThat(r.ulpdus).hasSize(34);
        assertThat(r.ulpdus.get(33)).isEqualTo(s.ulpdus().get(16));
    }

    @ParameterizedTest
    @CsvSource({"false,false", "true,true", "false,true", "true,false"})
    void transportReadsPayloadStraightIntoTheTarget(boolean markers, boolean crc) {
        Random random = new Random(41);
        Stream s = stream(random, markers, crc, 30);
        Placer p = new Placer();
        FpduDeframer d = new FpduDeframer(markers, crc, 14, 65535, 0, p);
        long off = 0;
        long directBytes = 0;
        long size = s.bytes().byteSize();
        while (off < size) {
            int window = d.directWindow();
            if (window > 0) {
                // A "socket read" into the target: at most the window.
                int n = (int) Math.min(window, Math.min(size - off, 1 + random.nextInt(3000)));
                MemorySegment.copy(s.bytes(), off, d.directTarget(), d.directTargetOffset(), n);
                d.placed(n);
                off += n;
                directBytes += n;
            } else {
                // Headers and small reads go through consume, bounded like a placement-aware allocator would.
                int n = (int) Math.min(size - off, 1 + random.nextInt(40));
                assertThat(d.consume(s.bytes(), off, n)).isEqualTo(n);
                off += n;
            }
        }
        assertThat(p.faults).isEmpty();
        assertSameUlpdus(p.ulpdus, s.ulpdus());
        assertThat(directBytes).isGreaterThan(65535);
        assertThatThrownBy(() -> d.placed(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window is 0");
    }

    /**
     * A target revoked in the middle of the stream (RFC 5040 §8.1.1 (6)): from the first refused
     * {@code enter} on, nothing more is written into it -- neither by the deframer's copies nor by
     * direct reads, which {@code beginDirect} now refuses -- while the stream is still framed and
     * CRC-checked to the end and every ULPDU is still reported. Enter and exit stay balanced.
     */
    @ParameterizedTest
    @CsvSource({"false,false,false", "true,true,false", "false,true,true", "true,false,true"})
    void revokedTargetReceivesNothingMoreButTheStreamStaysFramed(boolean markers, boolean crc, boolean direct) {
        Random random = new Random(53);
        Stream s = stream(random, markers, crc, 30);
        byte[][] snapshot = new byte[1][];
        int[] active = new int[1];
        int[] enters = new int[1];
        Placer p = new Placer();
        PlacementTarget.Guard guard = new PlacementTarget.Guard() {
            @Override
            public boolean enter() {
                assertThat(active[0]).as("sections do not nest").isZero();
                if (++enters[0] < 40) {
                    active[0]++;
                    return true;
                }
                if (snapshot[0] == null) {
                    snapshot[0] = p.area.toArray(ValueLayout.JAVA_BYTE); // what was there at the revocation
                }
                return false;
            }

            @Override
            public void exit() {
                active[0]--;
            }
        };
        Placer guarded = new Placer() {
            @Override
            public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                           PlacementTarget target) {
                boolean r = p.placementTarget(prefix, offset, prefixLength, ulpduLength, target);
                target.set(target.segment(), target.offset(), guard);
                return r;
            }

            @Override
            public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
                p.onPlaced(prefix, offset, prefixLength, ulpduLength);
            }

            @Override
            public void onUlpdu(MemorySegment segment, long offset, int length) {
                p.onUlpdu(segment, offset, length);
            }

            @Override
            public void onError(DeframeFault fault) {
                p.onError(fault);
            }
        };
        FpduDeframer d = new FpduDeframer(markers, crc, 14, 65535, 0, guarded);
        long off = 0;
        long size = s.bytes().byteSize();
        while (off < size) {
            if (direct && d.directWindow() > 0 && d.beginDirect()) {
                int n = (int) Math.min(d.directWindow(), Math.min(size - off, 1 + random.nextInt(3000)));
                MemorySegment.copy(s.bytes(), off, d.directTarget(), d.directTargetOffset(), n);
                d.placed(n);
                off += n;
            } else {
                int n = (int) Math.min(size - off, 1 + random.nextInt(700));
                assertThat(d.consume(s.bytes(), off, n)).isEqualTo(n);
                off += n;
            }
            assertThat(active[0]).as("no section open between reads").isZero();
        }
        assertThat(p.faults).isEmpty();
        assertThat(p.ulpdus).hasSameSizeAs(s.ulpdus());
        assertThat(snapshot[0]).as("the guard refused at some point").isNotNull();
        assertThat(p.area.toArray(ValueLayout.JAVA_BYTE)).as("nothing written after the revocation")
                .isEqualTo(snapshot[0]);
        assertThat(d.directWindow()).isZero();
        d.endDirect(); // idempotent, nothing held
        assertThat(active[0]).isZero();
    }

    @Test
    void placementStillDetectsCorruptionBeforeDelivery() {
        Random random = new Random(43);
        Stream s = stream(random, false, true, 20);
        long at = s.fpduStarts().get(16) + 100;      // FPDU 16 is the 65535-byte one
        s.bytes().set(ValueLayout.JAVA_BYTE, at, (byte) (s.bytes().get(ValueLayout.JAVA_BYTE, at) ^ 0x40));
        Placer p = new Placer();
        FpduDeframer d = new FpduDeframer(false, true, 14, 65535, 0, p);
        feed(d, s.bytes(), random, 1000);
        assertThat(p.faults).containsExactly(DeframeFault.CRC_MISMATCH);
        assertThat(p.ulpdus).hasSize(16);
    }

    /** A placement handler that declines: by prefix 0, or by refusing a target. */
    static final class Decliner extends Recorder implements PlacementHandler {
        final boolean byPrefix;
        int asked;

        Decliner(boolean byPrefix) {
            this.byPrefix = byPrefix;
        }

        @Override
        public int prefixLength(int firstByte, int ulpduLength) {
            return byPrefix ? 0 : 14;
        }

        @Override
        public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                       PlacementTarget target) {
            asked++;
            return false;
        }

        @Override
        public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
            throw new AssertionError("nothing was placed");
        }
    }

    @ParameterizedTest
    @CsvSource({"true", "false"})
    void declinedPlacementFallsBackToWholeUlpdus(boolean byPrefix) {
        Random random = new Random(47);
        Stream s = stream(random, true, true, 20);
        Decliner p = new Decliner(byPrefix);
        FpduDeframer d = new FpduDeframer(true, true, 14, 65535, 0, p);
        feed(d, s.bytes(), random, 333);
        assertThat(p.faults).isEmpty();
        assertSameUlpdus(p.ulpdus, s.ulpdus());
        if (byPrefix) {
            assertThat(p.asked).isZero();
        } else {
            assertThat(p.asked).isPositive();
        }
        assertThat(d.directWindow()).isZero();
    }

    @Test
    void tooSmallPlacementTargetIsAProgrammingError() {
        Placer p = new Placer() {
            @Override
            public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                           PlacementTarget target) {
                target.set(MemorySegment.ofArray(new byte[1]), 0);
                return true;
            }
        };
        Stream s = stream(new Random(53), false, false, 10);
        FpduDeframer d = new FpduDeframer(false, false, 14, 65535, 0, p);
        assertThatThrownBy(() -> feed(d, s.bytes(), new Random(1), 7)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("room");
    }

    @ParameterizedTest
    @CsvSource({"false", "true"})
    void streamPositionWrapsAt2To32(boolean markers) {
        int start = -1024;                                   // 0xFFFFFC00: the stream crosses 2^32
        FpduWriter writer = new FpduWriter(markers, true, start);
        Random random = new Random(59);
        MemorySegment wire = MemorySegment.ofArray(new byte[20000]);
        List<byte[]> sent = new ArrayList<>();
        int used = 0;
        for (int i = 0; i < 10; i++) {
            byte[] ulpdu = new byte[14 + random.nextInt(700)];
            random.nextBytes(ulpdu);
            sent.add(ulpdu);
            used += writer.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, wire, used);
        }
        assertThat(Integer.compareUnsigned(writer.position(), 0x10000)).isNegative();
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(markers, true, 14, 65535, start, r);
        feed(d, wire.asSlice(0, used), random, 97);
        assertThat(r.faults).isEmpty();
        assertSameUlpdus(r.ulpdus, sent);
        assertThat(d.position()).isEqualTo(writer.position());
    }

    /** One FPDU (no markers, CRC on) around a ULPDU of {@code length} octets whose first octet is {@code first}. */
    private static MemorySegment oneFpdu(int length, int first, byte[] ulpduOut) {
        new Random(length).nextBytes(ulpduOut);
        if (length > 0) {
            ulpduOut[0] = (byte) first;
        }
        MemorySegment wire = MemorySegment.ofArray(new byte[Fpdu.frameLength(length)]);
        new FpduWriter(false, true).write(MemorySegment.ofArray(ulpduOut), 0, length, wire, 0);
        return wire;
    }

    /**
     * RFC 5044 §4.4, §8 code 2: an FPDU lying whole in one chunk (delivered without copy) is
     * CRC-checked like any other; the bytes up to the end of its CRC are taken, the next FPDU is not.
     */
    @Test
    void wholeFpduInOneChunkWithBadCrcIsRejectedAndTheNextOneNotTaken() {
        for (int victim : new int[] {20, 34}) {                        // a payload octet, a CRC octet
            MemorySegment two = Hex.segment(FpduTest.WORKED_EXAMPLE_FPDU + FpduTest.WORKED_EXAMPLE_FPDU);
            two.set(ValueLayout.JAVA_BYTE, victim, (byte) (two.get(ValueLayout.JAVA_BYTE, victim) ^ 0x01));
            Recorder r = new Recorder();
            FpduDeframer d = new FpduDeframer(false, true, r);
            assertThat(d.consume(two, 0, 72)).as("octet %d", victim).isEqualTo(36);
            assertThat(r.faults).containsExactly(DeframeFault.CRC_MISMATCH);
            assertThat(r.ulpdus).isEmpty();
            assertThat(d.delivered()).isZero();
            assertThat(d.consume(two, 36, 36)).isZero();
        }
    }

    @Test
    void everyOctetInItsOwnOneOctetSegment() {
        // A TCP read of one octet into a buffer of one octet: the deframer reads nothing past it.
        Stream s = stream(new Random(61), false, true, 4);
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(false, true, r);
        for (long off = 0; off < s.bytes().byteSize(); off++) {
            MemorySegment octet = MemorySegment.ofArray(new byte[] {s.bytes().get(ValueLayout.JAVA_BYTE, off)});
            assertThat(d.consume(octet, 0, 1)).isEqualTo(1);
        }
        assertThat(r.faults).isEmpty();
        assertSameUlpdus(r.ulpdus, s.ulpdus());
    }

    /**
     * RFC 5044 §4.3: a marker right before ULPDU_Length belongs to the FPDU that follows (FPDUPTR 0),
     * and an FPDU ending exactly where the next marker starts has no marker inside: both FPDUs are
     * delivered from the chunk without copy.
     */
    @Test
    void fpdusBehindALeadingMarkerAndEndingAtTheNextMarkerAreZeroCopy() {
        FpduWriter w = new FpduWriter(true, true);
        byte[] first = new byte[502];                                  // 4 + 2 + 502 + 0 + 4 = 512
        new Random(67).nextBytes(first);
        byte[] second = new byte[14];                                  // 4 + 2 + 14 + 0 + 4 = 24
        MemorySegment wire = MemorySegment.ofArray(new byte[536]);
        assertThat(w.write(MemorySegment.ofArray(first), 0, 502, wire, 0)).isEqualTo(512);
        assertThat(w.write(MemorySegment.ofArray(second), 0, 14, wire, 512)).isEqualTo(24);
        assertThat(Hex.of(wire, 512, 6)).isEqualTo("00000000000e");
        Recorder r = new Recorder();
        r.input = wire;
        FpduDeframer d = new FpduDeframer(true, true, r);
        assertThat(d.consume(wire, 0, 536)).isEqualTo(536);
        assertThat(r.faults).isEmpty();
        assertSameUlpdus(r.ulpdus, List.of(first, second));
        assertThat(r.zeroCopy).isEqualTo(2);
    }

    @Test
    void ulpduLengthLimitsAreInclusive() {
        for (int length : new int[] {13, 14, 15}) {
            Recorder r = new Recorder();
            FpduDeframer d = new FpduDeframer(false, true, 14, 14, 0, r);
            MemorySegment fpdu = oneFpdu(length, 0xC1, new byte[length]);
            d.consume(fpdu, 0, (int) fpdu.byteSize());
            if (length == 14) {
                assertThat(r.faults).isEmpty();
                assertThat(r.ulpdus).hasSize(1);
            } else {
                assertThat(r.faults).containsExactly(length < 14 ? DeframeFault.ULPDU_TOO_SHORT : DeframeFault.ULPDU_TOO_LONG);
            }
        }
        Recorder r = new Recorder();
        byte[] one = new byte[1];
        MemorySegment fpdu = oneFpdu(1, 0x5A, one);
        new FpduDeframer(false, true, 0, 1, 0, r).consume(fpdu, 0, 8);
        assertThat(r.faults).isEmpty();
        assertThat(r.ulpdus.get(0)).isEqualTo(one);
        assertThatThrownBy(() -> new FpduDeframer(false, true, 0, 0, 0, r)).hasMessageContaining("maxUlpduLength");
        assertThatThrownBy(() -> new FpduDeframer(false, true, -1, 10, 0, r)).hasMessageContaining("minUlpduLength");
    }

    @Test
    void reportsItsModeAndWhetherAnFpduIsInProgress() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer(true, false, r);
        assertThat(d.markers()).isTrue();
        assertThat(d.crcEnabled()).isFalse();
        FpduDeframer e = new FpduDeframer(false, true, r);
        assertThat(e.markers()).isFalse();
        assertThat(e.crcEnabled()).isTrue();
        MemorySegment fpdu = Hex.segment(FpduTest.WORKED_EXAMPLE_FPDU);
        assertThat(e.atFpduBoundary()).isTrue();
        e.consume(fpdu, 0, 10);
        assertThat(e.atFpduBoundary()).isFalse();
        e.consume(fpdu, 10, 26);
        assertThat(e.atFpduBoundary()).isTrue();
        assertThat(r.ulpdus).hasSize(1);
    }

    /** The DDP control octet (RFC 5041 §4.2-§4.3: T decides tagged 14 vs untagged 18) is the ULPDU's own. */
    @Test
    void prefixLengthIsAskedWithTheFirstOctetOfThatVeryUlpdu() {
        Stream s = stream(new Random(71), false, true, 12);
        List<Integer> asked = new ArrayList<>();
        Placer p = new Placer() {
            @Override
            public int prefixLength(int firstByte, int ulpduLength) {
                asked.add(firstByte);
                return super.prefixLength(firstByte, ulpduLength);
            }
        };
        FpduDeframer d = new FpduDeframer(false, true, 14, 65535, 0, p);
        feed(d, s.bytes(), new Random(1), 3);                          // no FPDU arrives whole
        assertThat(p.faults).isEmpty();
        assertSameUlpdus(p.ulpdus, s.ulpdus());
        assertThat(asked).isEqualTo(s.ulpdus().stream().map(u -> u[0] & 0xFF).toList());
    }

    /** PlacementHandler#prefixLength: a prefix not shorter than the ULPDU means "reassemble it whole". */
    @Test
    void ulpduNoLongerThanItsPrefixIsReassembledNotPlaced() {
        // A header-only untagged segment (18 octets) and a header-only tagged one (14): nothing to place.
        List<byte[]> sent = new ArrayList<>();
        MemorySegment wire = MemorySegment.ofArray(new byte[200]);
        FpduWriter w = new FpduWriter(false, true);
        int used = 0;
        for (int i = 0; i < 4; i++) {
            byte[] ulpdu = new byte[i % 2 == 0 ? 18 : 14];
            new Random(i).nextBytes(ulpdu);
            ulpdu[0] = (byte) (i % 2 == 0 ? 0x41 : 0xC1);
            sent.add(ulpdu);
            used += w.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, wire, used);
        }
        Placer p = new Placer();
        FpduDeframer d = new FpduDeframer(false, true, 14, 65535, 0, p);
        feed(d, wire.asSlice(0, used), new Random(2), 5);
        assertThat(p.faults).isEmpty();
        assertSameUlpdus(p.ulpdus, sent);
        assertThat(p.placed).isEmpty();
        assertThat(p.next).isZero();                                   // placementTarget never asked
    }

    /** A placer that puts every payload at one place of {@code into} (not {@link Placer#area}). */
    private static Placer placerAt(MemorySegment into, long at) {
        return new Placer() {
            @Override
            public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                           PlacementTarget target) {
                target.set(into, at);
                return true;
            }

            @Override
            public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
                placed.add(into.asSlice(at, ulpduLength - prefixLength).toArray(ValueLayout.JAVA_BYTE));
            }
        };
    }

    @Test
    void placementTargetMustHoldTheWholePayloadFromItsOffset() {
        byte[] ulpdu = new byte[100];                                  // tagged: 14-octet prefix, 86 to place
        MemorySegment fpdu = oneFpdu(100, 0x80, ulpdu);
        // Exactly room for the payload from offset 8: accepted, the payload lands there.
        Placer fits = placerAt(MemorySegment.ofArray(new byte[94]), 8);
        FpduDeframer d = new FpduDeframer(false, true, 14, 65535, 0, fits);
        feed(d, fpdu, new Random(3), 7);
        assertThat(fits.faults).isEmpty();
        assertThat(fits.placed).singleElement().isEqualTo(java.util.Arrays.copyOfRange(ulpdu, 14, 100));
        // One octet short from offset 9: a programming error, found before anything is written.
        MemorySegment shortArea = MemorySegment.ofArray(new byte[94]);
        FpduDeframer e = new FpduDeframer(false, true, 14, 65535, 0, placerAt(shortArea, 9));
        assertThatThrownBy(() -> feed(e, fpdu, new Random(3), 7)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("room for 86 bytes");
        assertThat(shortArea.toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
    }

    @Test
    void placementTargetOfAnEarlierFpduIsNeverReused() {
        // The handler names a target for the first FPDU only, yet says "set" for the second.
        MemorySegment area = MemorySegment.ofArray(new byte[200]);
        int[] calls = new int[1];
        Placer p = new Placer() {
            @Override
            public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                           PlacementTarget target) {
                if (calls[0]++ == 0) {
                    target.set(area, 0);
                }
                return true;
            }

            @Override
            public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
                placed.add(new byte[0]);
            }
        };
        byte[] ulpdu = new byte[100];
        MemorySegment one = oneFpdu(100, 0x80, ulpdu);
        MemorySegment two = MemorySegment.ofArray(new byte[2 * (int) one.byteSize()]);
        FpduWriter w = new FpduWriter(false, true);
        w.write(MemorySegment.ofArray(ulpdu), 0, 100, two, 0);
        w.write(MemorySegment.ofArray(ulpdu), 0, 100, two, one.byteSize());
        FpduDeframer d = new FpduDeframer(false, true, 14, 65535, 0, p);
        assertThatThrownBy(() -> feed(d, two, new Random(4), 9)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("room");
        assertThat(p.placed).hasSize(1);
        assertThat(calls[0]).isEqualTo(2);
    }

    /** A guard that counts sections and checks that they balance. */
    static final class CountingGuard implements PlacementTarget.Guard {
        int enters;
        int active;

        @Override
        public boolean enter() {
            enters++;
            active++;
            return true;
        }

        @Override
        public void exit() {
            active--;
        }
    }

    @Test
    void directReadsAreBracketedOnceAndBoundedByTheWindow() {
        byte[] ulpdu = new byte[1000];                                 // 14-octet prefix, 986 to place
        MemorySegment fpdu = oneFpdu(1000, 0x80, ulpdu);
        CountingGuard guard = new CountingGuard();
        Placer p = new Placer() {
            @Override
            public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                           PlacementTarget target) {
                super.placementTarget(prefix, offset, prefixLength, ulpduLength, target);
                target.set(target.segment(), target.offset(), guard);
                return true;
            }
        };
        FpduDeframer d = new FpduDeframer(false, true, 14, 65535, 0, p);
        assertThat(d.beginDirect()).as("no window before the header").isFalse();
        assertThat(guard.enters).isZero();
        assertThat(d.consume(fpdu, 0, 16)).isEqualTo(16);              // ULPDU_Length and the prefix
        assertThat(d.directWindow()).isEqualTo(986);
        assertThat(d.beginDirect()).isTrue();
        assertThat(d.beginDirect()).as("already inside").isTrue();
        assertThat(guard.enters).isEqualTo(1);
        assertThatThrownBy(() -> d.placed(987)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window is 986");
        assertThat(guard.active).as("the failed read left the section").isZero();
        assertThat(d.beginDirect()).isTrue();
        assertThatThrownBy(() -> d.placed(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(guard.active).isZero();
        long off = 16;
        for (int n : new int[] {1, 985}) {                             // the smallest read, then the whole window
            assertThat(d.beginDirect()).isTrue();
            MemorySegment.copy(fpdu, off, d.directTarget(), d.directTargetOffset(), n);
            d.placed(n);
            off += n;
            assertThat(guard.active).isZero();
        }
        assertThat(d.directWindow()).isZero();
        assertThat(d.consume(fpdu, off, 6)).isEqualTo(6);              // pad and CRC: nothing goes into the target
        assertThat(p.faults).isEmpty();
        assertThat(p.placed).singleElement().isEqualTo(ulpdu);
        assertThat(guard.enters).as("a section per beginDirect outside one, none for pad and CRC").isEqualTo(4);
        assertThat(guard.active).isZero();
    }

    @Test
    void directReadIntoAnUnguardedTargetNeedsNoSection() {
        byte[] ulpdu = new byte[100];
        MemorySegment fpdu = oneFpdu(100, 0x80, ulpdu);
        Placer p = new Placer();
        FpduDeframer d = new FpduDeframer(false, true, 14, 65535, 0, p);
        d.consume(fpdu, 0, 16);
        assertThat(d.beginDirect()).isTrue();
        MemorySegment.copy(fpdu, 16, d.directTarget(), d.directTargetOffset(), 86);
        d.placed(86);
        d.consume(fpdu, 102, 6);
        assertThat(p.placed).singleElement().isEqualTo(ulpdu);
    }
}
