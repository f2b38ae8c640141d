package io.jrnic.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Segmentation of tagged and untagged DDP messages (RFC 5041 §5.2; wire-format.md §3.2 to §3.4). */
class DdpSegmenterTest {

    private static final int IETF = DdpHeaderFlyweight.VERSION_IETF;

    private final DdpSegmenter segmenter = new DdpSegmenter();
    private final MemorySegment header = MemorySegment.ofArray(new byte[32]);
    private final TaggedHeaderFlyweight tagged = new TaggedHeaderFlyweight();
    private final UntaggedHeaderFlyweight untagged = new UntaggedHeaderFlyweight();

    @Test
    void splitsTheRfcTaggedExample() {
        // RFC 5041 §5.2: 2048 octets at TO 16384, MULPDU 1500 -> (16384, 1486), (17870, 562).
        segmenter.resetTagged(1500, IETF, 0x40, 0x1234, 16384, 2048);

        assertThat(segmenter.tagged()).isTrue();
        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(Hex.of(header, 0, 14)).isEqualTo(Hex.compact("81 40 00001234 0000000000004000"));
        assertThat(segmenter.taggedOffset()).isEqualTo(16384);
        assertThat(segmenter.payloadOffset()).isZero();
        assertThat(segmenter.payloadLength()).isEqualTo(1486);
        assertThat(segmenter.ulpduLength()).isEqualTo(1500);
        assertThat(segmenter.last()).isFalse();

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(Hex.of(header, 0, 14)).isEqualTo(Hex.compact("c1 40 00001234 00000000000045ce"));
        assertThat(segmenter.taggedOffset()).isEqualTo(17870);
        assertThat(segmenter.messageOffset()).isEqualTo(1486);
        assertThat(segmenter.payloadOffset()).isEqualTo(1486);
        assertThat(segmenter.payloadLength()).isEqualTo(562);
        assertThat(segmenter.ulpduLength()).isEqualTo(14 + 562);
        assertThat(segmenter.last()).isTrue();

        assertThat(segmenter.next(header, 0)).isFalse();
        assertThat(segmenter.hasNext()).isFalse();
        assertThat(segmenter.segmentCount()).isEqualTo(2);
    }

    @Test
    void splitsTheRfcUntaggedExample_R_SEND_010() {
        // RFC 5041 §5.2: 2048 octets, MULPDU 1500 -> (MO 0, 1482), (MO 1482, 566).
        segmenter.resetUntagged(1500, IETF, 0x43, 0, DdpReceiver.QN_SEND, 7, 0, 2048);

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(Hex.of(header, 0, 18)).isEqualTo(Hex.compact("01 43 00000000 00000000 00000007 00000000"));
        assertThat(segmenter.messageOffset()).isZero();
        assertThat(segmenter.payloadLength()).isEqualTo(1482);
        assertThat(segmenter.ulpduLength()).isEqualTo(1500);

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(Hex.of(header, 0, 18)).isEqualTo(Hex.compact("41 43 00000000 00000000 00000007 000005ca"));
        assertThat(segmenter.messageOffset()).isEqualTo(1482);
        assertThat(segmenter.payloadOffset()).isEqualTo(1482);
        assertThat(segmenter.payloadLength()).isEqualTo(566);
        assertThat(segmenter.last()).isTrue();
        assertThat(segmenter.next(header, 0)).isFalse();
    }

    @Test
    void zeroLengthTaggedMessageIsOneLastSegment_R_WRITE_019() {
        // wire-format.md §6, RTR zero-length Write: c1 40 00000000 0000000000000000.
        segmenter.resetTagged(1500, IETF, 0x40, 0, 0, 0);

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(Hex.of(header, 0, 14)).isEqualTo(Hex.compact("c1 40 00000000 0000000000000000"));
        assertThat(segmenter.payloadLength()).isZero();
        assertThat(segmenter.ulpduLength()).isEqualTo(14);
        assertThat(segmenter.last()).isTrue();
        assertThat(segmenter.next(header, 0)).isFalse();
        assertThat(segmenter.segmentCount()).isEqualTo(1);
    }

    @Test
    void zeroLengthUntaggedMessageIsOneLastSegment_R_SEND_019() {
        // wire-format.md §6, RTR zero-length Send: 41 43 00000000 00000000 00000001 00000000.
        segmenter.resetUntagged(1500, IETF, 0x43, 0, DdpReceiver.QN_SEND, 1, 0, 0);

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(Hex.of(header, 0, 18)).isEqualTo(Hex.compact("41 43 00000000 00000000 00000001 00000000"));
        assertThat(segmenter.ulpduLength()).isEqualTo(18);
        assertThat(segmenter.last()).isTrue();
        assertThat(segmenter.next(header, 0)).isFalse();
    }

    @Test
    void readRequestHeaderCountsAsPayloadOfOneSegment_R_READ_015() {
        // wire-format.md §6: Read Request ULPDU 46 = 18 DDP + 28 RDMAP header, QN 1, MSN 1, MO 0, L=1.
        segmenter.resetUntagged(1500, IETF, 0x41, 0, DdpReceiver.QN_READ_REQUEST, 1, 28, 0);

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(Hex.of(header, 0, 18)).isEqualTo(Hex.compact("41 41 00000000 00000001 00000001 00000000"));
        assertThat(segmenter.ulpHeaderLength()).isEqualTo(28);
        assertThat(segmenter.payloadLength()).isZero();
        assertThat(segmenter.ulpduLength()).isEqualTo(46);
        assertThat(segmenter.last()).isTrue();
        assertThat(segmenter.next(header, 0)).isFalse();
    }

    @Test
    void ulpHeaderOccupiesOnlyTheFirstSegmentAndCountsTowardsMo() {
        // 28-byte ULP header + 200 data octets, MULPDU 100: 82 DDP payload octets per segment.
        segmenter.resetUntagged(100, IETF, 0x47, 0, DdpReceiver.QN_TERMINATE, 1, 28, 200);

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(segmenter.ulpHeaderLength()).isEqualTo(28);
        assertThat(segmenter.payloadOffset()).isZero();
        assertThat(segmenter.payloadLength()).isEqualTo(54);
        assertThat(segmenter.ulpduLength()).isEqualTo(100);
        assertThat(untagged.wrap(header, 0).messageOffset()).isZero();
        assertThat(segmenter.messageOffset()).as("the ULP header starts the message").isZero();
        assertThat(segmenter.tagged()).isFalse();

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(segmenter.ulpHeaderLength()).isZero();
        assertThat(segmenter.payloadOffset()).isEqualTo(54);
        assertThat(segmenter.payloadLength()).isEqualTo(82);
        assertThat(untagged.wrap(header, 0).messageOffset()).isEqualTo(82);
        assertThat(segmenter.messageOffset()).isEqualTo(82);

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(segmenter.payloadOffset()).isEqualTo(136);
        assertThat(segmenter.payloadLength()).isEqualTo(64);
        assertThat(untagged.wrap(header, 0).messageOffset()).isEqualTo(164);
        assertThat(untagged.last()).isTrue();
        assertThat(segmenter.next(header, 0)).isFalse();
    }

    @Test
    void ulpHeaderMayFillTheFirstSegmentExactly() {
        segmenter.resetUntagged(18 + 28, IETF, 0x41, 0, 1, 1, 28, 5);

        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(segmenter.ulpduLength()).isEqualTo(46);
        assertThat(segmenter.payloadLength()).isZero();
        assertThat(segmenter.last()).isFalse();
        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(segmenter.payloadLength()).isEqualTo(5);
        assertThat(untagged.wrap(header, 0).messageOffset()).isEqualTo(28);
        assertThat(segmenter.last()).isTrue();
        assertThat(DdpSegmenter.segmentsFor(46, false, 28, 5)).isEqualTo(2);
    }

    @Test
    void taggedOffsetAdvancesWithUnsignedWrapAround() {
        // The segmenter computes TO mod 2^64; whether that is acceptable is the Data Sink's TO wrap check.
        segmenter.resetTagged(1500, IETF, 0x40, 1, 0xFFFF_FFFF_FFFF_FC00L, 2048);

        segmenter.next(header, 0);
        assertThat(tagged.wrap(header, 0).taggedOffset()).isEqualTo(0xFFFF_FFFF_FFFF_FC00L);
        segmenter.next(header, 0);
        assertThat(tagged.wrap(header, 0).taggedOffset()).isEqualTo(1486L - 1024);
        assertThat(segmenter.taggedOffset()).isEqualTo(462L);
    }

    @Test
    void handlesTheLargestMessageWithMoAbove2To31() {
        // RFC 5041 §5.2: a message is shorter than 2^32 octets; MO must go above 0x7FFFFFFF unsigned.
        long length = DdpSegmenter.MAX_MESSAGE_LENGTH;
        segmenter.resetUntagged(65535, IETF, 0x43, 0, 0, 1, 0, length);
        long expectedMo = 0;
        long segments = 0;
        int lastFlags = 0;
        while (segmenter.next(header, 0)) {
            untagged.wrap(header, 0);
            assertThat(Integer.toUnsignedLong(untagged.messageOffset())).isEqualTo(expectedMo);
            expectedMo += segmenter.payloadLength();
            segments++;
            lastFlags += untagged.last() ? 1 : 0;
        }
        assertThat(expectedMo).isEqualTo(length);
        assertThat(segments).isEqualTo(DdpSegmenter.segmentsFor(65535, false, 0, length)).isEqualTo(65_556);
        assertThat(lastFlags).isEqualTo(1);
    }

    static Stream<Arguments> lengthsAndMulpdus() {
        List<Arguments> cases = new ArrayList<>();
        int[] mulpdus = {19, 20, 64, 1436 + 14, 1500, 9000, 65535};
        for (boolean isTagged : new boolean[] {true, false}) {
            int headerLength = isTagged ? 14 : 18;
            for (int mulpdu : mulpdus) {
                int room = mulpdu - headerLength;
                long[] lengths = {0, 1, room - 1, room, room + 1, 2L * room - 1, 2L * room, 2L * room + 1, 10L * room + 7};
                for (long length : lengths) {
                    if (length >= 0) {
                        cases.add(Arguments.of(isTagged, mulpdu, length));
                    }
                }
            }
            cases.add(Arguments.of(isTagged, 1500, 3L * 1024 * 1024 + 5));   // multi-MiB
            cases.add(Arguments.of(isTagged, 65535, 8L * 1024 * 1024));       // multi-MiB, large MULPDU
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "tagged={0} MULPDU={1} length={2}")
    @MethodSource("lengthsAndMulpdus")
    void payloadsReassembleTheMessageWithinMulpdu(boolean isTagged, int mulpdu, long length) {
        byte[] message = new byte[(int) length];
        new SplittableRandom(length * 31 + mulpdu).nextBytes(message);
        MemorySegment source = MemorySegment.ofArray(message);
        MemorySegment reassembled = MemorySegment.ofArray(new byte[(int) length]);
        final long initialTo = 0x7FFF_FFFF_FFFF_F000L;
        final int msn = 0xFFFF_FFFF;
        if (isTagged) {
            segmenter.resetTagged(mulpdu, IETF, 0x40, 0xABCD_EF01, initialTo, length);
        } else {
            segmenter.resetUntagged(mulpdu, IETF, 0x44, 0x0BAD_F00D, 3, msn, 0, length);
        }

        long covered = 0;
        long segments = 0;
        int lastFlags = 0;
        boolean sawLast = false;
        while (segmenter.next(header, 3)) {
            assertThat(sawLast).as("no segment after the L=1 segment").isFalse();
            assertThat(segmenter.ulpduLength()).isLessThanOrEqualTo(mulpdu);
            assertThat(segmenter.payloadOffset()).as("contiguous, in order").isEqualTo(covered);
            if (!segmenter.last()) {
                assertThat(segmenter.ulpduLength()).as("only the last segment may be short").isEqualTo(mulpdu);
            }
            if (isTagged) {
                tagged.wrap(header, 3);
                assertThat(tagged.tagged()).isTrue();
                assertThat(tagged.stag()).isEqualTo(0xABCD_EF01);
                assertThat(tagged.rsvdUlp()).isEqualTo(0x40);
                assertThat(tagged.taggedOffset()).isEqualTo(initialTo + covered);
                assertThat(tagged.last()).isEqualTo(segmenter.last());
            } else {
                untagged.wrap(header, 3);
                assertThat(untagged.tagged()).isFalse();
                assertThat(untagged.queueNumber()).isEqualTo(3);
                assertThat(untagged.msn()).isEqualTo(msn);
                assertThat(untagged.rsvdUlp()).isEqualTo(0x44);
                assertThat(untagged.rsvdUlpWord()).isEqualTo(0x0BAD_F00D);
                assertThat(Integer.toUnsignedLong(untagged.messageOffset())).isEqualTo(covered);
                assertThat(untagged.last()).isEqualTo(segmenter.last());
            }
            assertThat(header.get(ValueLayout.JAVA_BYTE, 3) & DdpHeaderFlyweight.DV_MASK).isEqualTo(IETF);
            MemorySegment.copy(source, segmenter.payloadOffset(), reassembled, covered, segmenter.payloadLength());
            covered += segmenter.payloadLength();
            segments++;
            if (segmenter.last()) {
                lastFlags++;
                sawLast = true;
            }
        }

        assertThat(covered).isEqualTo(length);
        assertThat(lastFlags).as("exactly one L flag").isEqualTo(1);
        assertThat(segments).isEqualTo(DdpSegmenter.segmentsFor(mulpdu, isTagged, 0, length));
        assertThat(reassembled.mismatch(source)).as("concatenated payloads equal the message").isEqualTo(-1);
        assertThat(segmenter.remaining()).isZero();
    }

    @Test
    void countsSegments() {
        assertThat(DdpSegmenter.segmentsFor(1500, true, 0, 0)).isEqualTo(1);
        assertThat(DdpSegmenter.segmentsFor(1500, true, 0, 1486)).isEqualTo(1);
        assertThat(DdpSegmenter.segmentsFor(1500, true, 0, 1487)).isEqualTo(2);
        assertThat(DdpSegmenter.segmentsFor(1500, true, 0, 2048)).isEqualTo(2);
        assertThat(DdpSegmenter.segmentsFor(1500, false, 0, 2048)).isEqualTo(2);
        assertThat(DdpSegmenter.segmentsFor(1500, false, 28, 0)).isEqualTo(1);
        assertThat(DdpSegmenter.segmentsFor(100, false, 28, 200)).isEqualTo(3);
        assertThat(DdpSegmenter.segmentsFor(15, true, 0, 1000)).isEqualTo(1000);
    }

    @Test
    void isReusableAcrossMessages() {
        segmenter.resetTagged(1500, IETF, 0x40, 1, 0, 3000);
        segmenter.next(header, 0);
        assertThat(segmenter.hasNext()).isTrue();

        // Abandon the first message half-way and start an untagged one: no state may leak across.
        segmenter.resetUntagged(1500, IETF, 0x43, 0, 0, 2, 0, 10);

        assertThat(segmenter.hasNext()).isTrue();
        assertThat(segmenter.segmentCount()).isZero();
        assertThat(segmenter.next(header, 0)).isTrue();
        assertThat(segmenter.tagged()).isFalse();
        assertThat(segmenter.headerLength()).isEqualTo(18);
        assertThat(segmenter.taggedOffset()).isZero();
        assertThat(Hex.of(header, 0, 18)).isEqualTo(Hex.compact("41 43 00000000 00000000 00000002 00000000"));
        assertThat(segmenter.payloadLength()).isEqualTo(10);
        assertThat(segmenter.next(header, 0)).isFalse();
    }

    @Test
    void writesRdmacVersion() {
        segmenter.resetTagged(1500, DdpHeaderFlyweight.VERSION_RDMAC, 0x00, 5, 0, 4);

        segmenter.next(header, 0);

        assertThat(Hex.of(header, 0, 2)).isEqualTo("c000");
    }

    @Test
    void refusesToIterateBeforeAReset() {
        assertThat(segmenter.hasNext()).isFalse();
        assertThatThrownBy(() -> segmenter.next(header, 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("resetTagged or resetUntagged");
    }

    @Test
    void rejectsAHeaderBufferThatIsTooSmall() {
        segmenter.resetUntagged(1500, IETF, 0x43, 0, 0, 1, 0, 10);

        assertThatThrownBy(() -> segmenter.next(MemorySegment.ofArray(new byte[17]), 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void rejectsMulpduWithoutRoomForPayload() {
        assertThatThrownBy(() -> segmenter.resetTagged(14, IETF, 0x40, 0, 0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MULPDU 14");
        assertThatThrownBy(() -> segmenter.resetUntagged(18, IETF, 0x43, 0, 0, 1, 0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MULPDU 18");
        assertThatThrownBy(() -> segmenter.resetUntagged(45, IETF, 0x41, 0, 1, 1, 28, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("28-byte ULP header");
        assertThat(segmenter.resetTagged(15, IETF, 0x40, 0, 0, 1).hasNext()).isTrue();
    }

    @Test
    void rejectsMessagesOf2To32OctetsOrMore() {
        assertThatThrownBy(() -> segmenter.resetTagged(1500, IETF, 0x40, 0, 0, 1L << 32))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RFC 5041 §5.2");
        assertThatThrownBy(() -> segmenter.resetUntagged(1500, IETF, 0x41, 0, 1, 1, 28, (1L << 32) - 28))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ULP header 28");
        assertThatThrownBy(() -> segmenter.resetTagged(1500, IETF, 0x40, 0, 0, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length -1");
        assertThat(segmenter.resetUntagged(1500, IETF, 0x41, 0, 1, 1, 28, (1L << 32) - 29).hasNext()).isTrue();
    }

    @Test
    void rejectsBadVersionRsvdUlpAndUlpHeader() {
        assertThatThrownBy(() -> segmenter.resetTagged(1500, 2, 0x40, 0, 0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DDP version 2");
        assertThatThrownBy(() -> segmenter.resetTagged(1500, IETF, 0x140, 0, 0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RsvdULP 0x140");
        assertThatThrownBy(() -> segmenter.resetUntagged(1500, IETF, 0x43, 0, 0, 1, -1, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative ULP header");
        assertThatThrownBy(() -> DdpSegmenter.segmentsFor(1500, false, -2, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative ULP header");
    }

    @Test
    void describesItselfForLogs() {
        segmenter.resetTagged(1500, IETF, 0x40, 0, 0, 2048);
        segmenter.next(header, 0);

        assertThat(segmenter.toString()).isEqualTo("DdpSegmenter[tagged segment=1 payload=0+1486 L=false remaining=562]");
    }

    @Test
    void countingSegmentsChecksTheArgumentsLikeAReset() {
        assertThatThrownBy(() -> DdpSegmenter.segmentsFor(14, true, 0, 100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MULPDU 14 leaves no room");
        assertThatThrownBy(() -> DdpSegmenter.segmentsFor(46, false, 29, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("29-byte ULP header");
        assertThatThrownBy(() -> DdpSegmenter.segmentsFor(1500, true, 0, DdpSegmenter.MAX_MESSAGE_LENGTH + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RFC 5041 §5.2");
    }
}
