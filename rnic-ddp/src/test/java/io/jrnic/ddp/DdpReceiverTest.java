package io.jrnic.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrnic.ddp.InboundSegment.Outcome;
import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Receive-side validation and reassembly state (RFC 5041 §4.3, §5.2, §5.4, §7.1; wire-format.md §3.5). */
class DdpReceiverTest {

    private static final int IETF = DdpHeaderFlyweight.VERSION_IETF;
    private static final int RDMAC = DdpHeaderFlyweight.VERSION_RDMAC;
    private static final int WRITE = 0x40;
    private static final int READ_RESPONSE = 0x42;
    private static final int SEND = 0x43;

    /** Untagged buffers by queue number; absent queue = NO_BUFFER. Counts calls. */
    static final class Buffers implements UntaggedBufferResolver {
        final Map<Integer, Long> capacityByQueue = new HashMap<>();
        int calls;
        int lastQueue = -1;
        int lastMsn = -1;

        Buffers with(int qn, long capacity) {
            capacityByQueue.put(qn, capacity);
            return this;
        }

        @Override
        public long bufferCapacity(int queueNumber, int msn) {
            calls++;
            lastQueue = queueNumber;
            lastMsn = msn;
            return capacityByQueue.getOrDefault(queueNumber, NO_BUFFER);
        }
    }

    /** A tiny STag table. Counts calls. */
    static final class Regions implements TaggedBufferResolver {
        record Region(long base, long length, boolean writable, boolean associated, Object attachment) {
        }

        final Map<Integer, Region> byStag = new HashMap<>();
        int calls;
        int lastRsvdUlp = -1;

        Regions with(int stag, long base, long length) {
            return with(stag, new Region(base, length, true, true, "region-" + Integer.toHexString(stag)));
        }

        Regions with(int stag, Region region) {
            byStag.put(stag, region);
            return this;
        }

        @Override
        public void resolve(int stag, int rsvdUlp, TaggedBufferDescriptor descriptor) {
            calls++;
            lastRsvdUlp = rsvdUlp;
            assertThat(descriptor.status()).as("descriptor arrives reset").isEqualTo(TaggedBufferDescriptor.Status.INVALID);
            Region region = byStag.get(stag);
            if (region == null) {
                return;
            }
            if (!region.associated()) {
                descriptor.notAssociated();
                return;
            }
            descriptor.valid(region.base(), region.length(), region.writable(), region.attachment());
        }
    }

    private final Buffers buffers = new Buffers().with(0, 4096).with(1, 28).with(2, 100);
    private final Regions regions = new Regions().with(0x1234, 0x1000, 0x100);
    private final DdpReceiver receiver = new DdpReceiver(IETF, DdpReceiver.rdmapQueueNumbers(false), buffers, regions);

    // ---------------------------------------------------------------------------------------------
    // segment builders

    static MemorySegment taggedSegment(boolean last, int version, int rsvdUlp, int stag, long to, int payloadLength) {
        MemorySegment segment = MemorySegment.ofArray(new byte[14 + payloadLength]);
        new TaggedHeaderFlyweight().wrap(segment, 0).encode(last, version, rsvdUlp, stag, to);
        return segment;
    }

    static MemorySegment untaggedSegment(boolean last, int version, int qn, int msn, int mo, int payloadLength) {
        MemorySegment segment = MemorySegment.ofArray(new byte[18 + payloadLength]);
        new UntaggedHeaderFlyweight().wrap(segment, 0).encode(last, version, SEND, 0, qn, msn, mo);
        return segment;
    }

    private InboundSegment deliver(MemorySegment ulpdu) {
        return receiver.onSegment(ulpdu, 0, (int) ulpdu.byteSize());
    }

    private InboundSegment write(int stag, long to, int length) {
        return deliver(taggedSegment(true, IETF, WRITE, stag, to, length));
    }

    private InboundSegment send(int qn, int msn, int mo, int length, boolean last) {
        return deliver(untaggedSegment(last, IETF, qn, msn, mo, length));
    }

    private void assertRejected(InboundSegment result, DdpError error) {
        assertThat(result.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(result.accepted()).isFalse();
        assertThat(result.error()).isEqualTo(error);
        assertThat(receiver.firstError()).isEqualTo(error);
        assertThat(receiver.stopped()).isTrue();
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    class Tagged {

        @Test
        void acceptsTheWorkedExampleWrite_R_HDR_004() {
            // wire-format.md §5.3: ULPDU at FPDU offset 2, 30 bytes: tagged header + 16 payload octets.
            MemorySegment fpdu = Hex.segment("001ec14000001234000000000000100030313233343536373839616263646566496e2784");

            InboundSegment result = receiver.onSegment(fpdu, 2, 30);

            assertThat(result.outcome()).isEqualTo(Outcome.ACCEPTED);
            assertThat(result.error()).isNull();
            assertThat(result.tagged()).isTrue();
            assertThat(result.last()).isTrue();
            assertThat(result.version()).isEqualTo(IETF);
            assertThat(result.rsvdUlp()).isEqualTo(WRITE);
            assertThat(result.stag()).isEqualTo(0x1234);
            assertThat(result.taggedOffset()).isEqualTo(0x1000);
            assertThat(result.headerLength()).isEqualTo(14);
            assertThat(result.payloadOffset()).isEqualTo(16);
            assertThat(result.payloadLength()).isEqualTo(16);
            assertThat(result.bufferOffset()).isZero();
            assertThat(result.attachment()).isEqualTo("region-1234");
            assertThat(Hex.of(fpdu, result.payloadOffset(), result.payloadLength()))
                    .isEqualTo(Hex.compact("30313233343536373839616263646566"));
            assertThat(regions.lastRsvdUlp).as("RsvdULP handed to the resolver").isEqualTo(WRITE);
        }

        @Test
        void acceptsPlacementEndingExactlyAtTheRegionEnd() {
            InboundSegment result = write(0x1234, 0x10F0, 16);

            assertThat(result.accepted()).isTrue();
            assertThat(result.bufferOffset()).isEqualTo(0xF0);
        }

        @Test
        void rejectsUnknownStag_R_ERR_032() {
            assertRejected(write(0x9999, 0x1000, 16), DdpError.TAGGED_INVALID_STAG);
        }

        @Test
        void rejectsStagOfAnotherStream_R_ERR_032() {
            regions.with(0x77, new Regions.Region(0, 1 << 20, true, false, null));

            assertRejected(write(0x77, 0, 16), DdpError.TAGGED_STAG_NOT_ASSOCIATED);
        }

        @Test
        void reportsMissingPlacementRightAsInvalidStag_R_ERR_032() {
            // RFC 5041 §7.1 check 2 has no code of its own: 1/1/0x00, as Linux siw does.
            regions.with(0x88, new Regions.Region(0, 1 << 20, false, true, null));

            assertRejected(write(0x88, 0, 16), DdpError.TAGGED_INVALID_STAG);
        }

        @Test
        void rejectsToBelowBase_R_ERR_032() {
            assertRejected(write(0x1234, 0x0FFF, 16), DdpError.TAGGED_BASE_OR_BOUNDS);
        }

        @Test
        void rejectsToAtOrAfterEnd() {
            assertRejected(write(0x1234, 0x1100, 1), DdpError.TAGGED_BASE_OR_BOUNDS);
        }

        @Test
        void rejectsToPlusLengthBeyondEnd() {
            assertRejected(write(0x1234, 0x10F1, 16), DdpError.TAGGED_BASE_OR_BOUNDS);
        }

        @Test
        void reportsAToPastTheRegionAsBoundsEvenWhereTheLengthWouldWrap() {
            // RFC 5041 §7.1: check 3 (the TO is a legal offset) fails before check 5 (no wrap) is made.
            regions.with(0x66, 0xFFFF_FFFF_FFFF_FF00L, 0xF0);

            assertRejected(write(0x66, 0xFFFF_FFFF_FFFF_FFF0L, 32), DdpError.TAGGED_BASE_OR_BOUNDS);
        }

        @Test
        void resolvesAnUnknownStagAfterAResetWithoutTheLastRegion_R_ERR_032() {
            assertRejected(write(0x1234, 0x2000, 16), DdpError.TAGGED_BASE_OR_BOUNDS); // 0x1234 was looked up
            receiver.reset(IETF);

            assertRejected(write(0x9999, 0x1000, 16), DdpError.TAGGED_INVALID_STAG);
        }

        /** Places 16 octets into a region whose only strong reference is the receiver's, if any. */
        private WeakReference<Object> placeIntoARegionThenForgetIt() {
            Object region = new Object();
            regions.with(0x4321, new Regions.Region(0, 4096, true, true, region));
            assertThat(write(0x4321, 0, 16).attachment()).isSameAs(region);
            regions.byStag.remove(0x4321);
            return new WeakReference<>(region);
        }

        private boolean collected(WeakReference<?> ref) {
            for (int i = 0; i < 50 && ref.get() != null; i++) {
                System.gc();
            }
            return ref.get() == null;
        }

        @Test
        void keepsNoRegionReachableOnceTheNextSegmentIsValidated() {
            // A deregistered region must not stay reachable from the stream (its memory may be freed).
            WeakReference<Object> region = placeIntoARegionThenForgetIt();
            assertThat(send(0, 1, 0, 10, true).accepted()).isTrue();

            assertThat(collected(region)).isTrue();
        }

        @Test
        void keepsNoRegionReachableAfterAReset() {
            WeakReference<Object> region = placeIntoARegionThenForgetIt();
            receiver.reset(IETF);

            assertThat(collected(region)).isTrue();
        }

        @Test
        void rejectsEmptyRegion() {
            regions.with(0x55, 0x2000, 0);

            assertRejected(write(0x55, 0x2000, 1), DdpError.TAGGED_BASE_OR_BOUNDS);
        }

        @Test
        void rejectsToPlusLengthPast2To64AsWrap_R_READ_008() {
            regions.with(0x66, 0xFFFF_FFFF_FFFF_F000L, 0x1000);

            assertRejected(write(0x66, 0xFFFF_FFFF_FFFF_FFF0L, 32), DdpError.TAGGED_TO_WRAP);
        }

        @Test
        void treatsASumOfExactly2To64AsWrap() {
            // RFC 5041 §7.1 check 5 reads literally: the 64-bit unsigned sum TO + length wraps to 0.
            regions.with(0x66, 0xFFFF_FFFF_FFFF_F000L, 0x1000);

            assertRejected(write(0x66, 0xFFFF_FFFF_FFFF_FFF0L, 16), DdpError.TAGGED_TO_WRAP);
        }

        @Test
        void acceptsPlacementJustBelow2To64() {
            regions.with(0x66, 0xFFFF_FFFF_FFFF_F000L, 0x1000);

            InboundSegment result = write(0x66, 0xFFFF_FFFF_FFFF_FFD0L, 32);

            assertThat(result.accepted()).isTrue();
            assertThat(result.bufferOffset()).isEqualTo(0xFD0);
        }

        @Test
        void comparesTaggedOffsetsUnsignedAbove2To63() {
            // Virtual addresses with the top bit set are negative as Java longs.
            regions.with(0x70, 0x8000_0000_0000_0000L, 0x1000);

            assertThat(write(0x70, 0x8000_0000_0000_0800L, 16).bufferOffset()).isEqualTo(0x800);
            assertRejected(write(0x70, 0x7FFF_FFFF_FFFF_FFF8L, 16), DdpError.TAGGED_BASE_OR_BOUNDS);
        }

        @Test
        void treatsRegionLengthAsUnsigned() {
            // Length 2^64 - 1 is -1 as a signed long; a signed comparison would reject everything.
            regions.with(0x71, 0, -1L);

            InboundSegment result = write(0x71, 0x8000_0000_0000_0000L, 16);

            assertThat(result.accepted()).isTrue();
            assertThat(result.bufferOffset()).isEqualTo(0x8000_0000_0000_0000L);
        }

        @Test
        void doesNotCheckStagOrToOfZeroLengthSegments_R_READ_023_R_WRITE_019() {
            // RFC 5041 §5.2: STag and TO of a zero-length tagged segment MUST NOT be checked.
            InboundSegment result = deliver(taggedSegment(true, IETF, READ_RESPONSE, 0xDEAD, 0xFFFF_FFFF_FFFF_FFFFL, 0));

            assertThat(result.accepted()).isTrue();
            assertThat(result.payloadLength()).isZero();
            assertThat(result.stag()).isEqualTo(0xDEAD);
            assertThat(result.attachment()).isNull();
            assertThat(regions.calls).as("no STag lookup").isZero();
        }

        @Test
        void acceptsMultiSegmentWriteAndHandsRsvdUlpToResolver() {
            regions.with(0x42, 0, 1 << 16);
            DdpSegmenter segmenter = new DdpSegmenter().resetTagged(1500, IETF, READ_RESPONSE, 0x42, 100, 4000);
            MemorySegment ulpdu = MemorySegment.ofArray(new byte[1500]);
            int accepted = 0;
            while (segmenter.next(ulpdu, 0)) {
                InboundSegment result = receiver.onSegment(ulpdu, 0, segmenter.ulpduLength());
                assertThat(result.accepted()).isTrue();
                assertThat(result.bufferOffset()).isEqualTo(100 + segmenter.payloadOffset());
                assertThat(result.last()).isEqualTo(segmenter.last());
                accepted++;
            }
            assertThat(accepted).isEqualTo(3);
            assertThat(regions.calls).isEqualTo(3);
            assertThat(regions.lastRsvdUlp).isEqualTo(READ_RESPONSE);
        }

        @Test
        void rejectsWrongVersionEvenForZeroLength() {
            assertRejected(deliver(taggedSegment(true, RDMAC, WRITE, 0, 0, 0)), DdpError.TAGGED_INVALID_VERSION);
        }

        @Test
        void checksVersionBeforeStag() {
            assertRejected(deliver(taggedSegment(true, 2, WRITE, 0x9999, 0, 8)), DdpError.TAGGED_INVALID_VERSION);
            assertThat(regions.calls).isZero();
        }

        @Test
        void rdmacStreamAcceptsVersionZeroAndRejectsOne() {
            DdpReceiver rdmac = new DdpReceiver(RDMAC, new int[] {0}, buffers, regions);

            assertThat(rdmac.onSegment(taggedSegment(true, RDMAC, 0x00, 0x1234, 0x1000, 4), 0, 18).accepted()).isTrue();
            InboundSegment result = rdmac.onSegment(taggedSegment(true, IETF, WRITE, 0x1234, 0x1000, 4), 0, 18);
            assertThat(result.error()).isEqualTo(DdpError.TAGGED_INVALID_VERSION);
            assertThat(rdmac.version()).isEqualTo(RDMAC);
        }
    }

    @Nested
    class Untagged {

        @Test
        void deliversSendHelloWithItsLength_R_HDR_003() {
            // wire-format.md §6: Send "hello", ULPDU 23 at FPDU offset 2.
            MemorySegment fpdu = Hex.segment(
                    "00 17 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 68 65 6c 6c 6f 00 00 00 b9 90 b1 0c");

            InboundSegment result = receiver.onSegment(fpdu, 2, 23);

            assertThat(result.outcome()).isEqualTo(Outcome.ACCEPTED);
            assertThat(result.tagged()).isFalse();
            assertThat(result.rsvdUlp()).isEqualTo(SEND);
            assertThat(result.queueNumber()).isZero();
            assertThat(result.msn()).isEqualTo(1);
            assertThat(result.messageOffset()).isZero();
            assertThat(result.payloadOffset()).isEqualTo(20);
            assertThat(result.payloadLength()).isEqualTo(5);
            assertThat(result.bufferCapacity()).isEqualTo(4096);
            assertThat(result.messageComplete()).isTrue();
            assertThat(result.messageLength()).isEqualTo(5);
            assertThat(receiver.expectedMsn(0)).isEqualTo(2);
            assertThat(receiver.messageInProgress(0)).isFalse();
            assertThat(buffers.lastQueue).isZero();
            assertThat(buffers.lastMsn).isEqualTo(1);
        }

        @Test
        void handsUpInvalidateStag_R_HDR_004() {
            MemorySegment segment = MemorySegment.ofArray(new byte[18]);
            new UntaggedHeaderFlyweight().wrap(segment, 0).encode(true, IETF, 0x44, 0xCAFE_0102, 0, 1, 0);

            InboundSegment result = deliver(segment);

            assertThat(result.rsvdUlp()).isEqualTo(0x44);
            assertThat(result.rsvdUlpWord()).isEqualTo(0xCAFE_0102);
        }

        @Test
        void reassemblesAMultiSegmentSendAndAsksForItsBufferOnce() {
            DdpSegmenter segmenter = new DdpSegmenter().resetUntagged(1500, IETF, SEND, 0, 0, 1, 0, 4000);
            MemorySegment ulpdu = MemorySegment.ofArray(new byte[1500]);
            int completions = 0;
            while (segmenter.next(ulpdu, 0)) {
                InboundSegment result = receiver.onSegment(ulpdu, 0, segmenter.ulpduLength());
                assertThat(result.accepted()).isTrue();
                assertThat(result.messageOffset()).isEqualTo(segmenter.payloadOffset());
                assertThat(receiver.messageInProgress(0)).isEqualTo(!segmenter.last());
                if (result.messageComplete()) {
                    completions++;
                    assertThat(result.messageLength()).isEqualTo(4000);
                } else {
                    assertThat(receiver.acceptedOctets(0)).isEqualTo(segmenter.payloadOffset() + segmenter.payloadLength());
                }
            }
            assertThat(completions).isEqualTo(1);
            assertThat(buffers.calls).isEqualTo(1);
            assertThat(receiver.expectedMsn(0)).isEqualTo(2);
            assertThat(receiver.acceptedOctets(0)).isZero();
        }

        @Test
        void acceptsReadRequestOnQueueOne_R_ERR_025() {
            // wire-format.md §6: Read Request, QN 1 MSN 1, 28-byte RDMAP header as DDP payload.
            MemorySegment fpdu = Hex.segment("00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"
                    + "00 00 56 78 00 00 00 00 00 00 20 00 00 00 00 10 00 00 12 34 00 00 00 00 00 00 10 00 5a c9 bb 24");

            InboundSegment result = receiver.onSegment(fpdu, 2, 46);

            assertThat(result.accepted()).isTrue();
            assertThat(result.queueNumber()).isEqualTo(DdpReceiver.QN_READ_REQUEST);
            assertThat(result.messageLength()).isEqualTo(28);
            assertThat(receiver.expectedMsn(DdpReceiver.QN_READ_REQUEST)).isEqualTo(2);
            assertThat(receiver.expectedMsn(DdpReceiver.QN_SEND)).as("MSNs are per queue").isEqualTo(1);
        }

        @Test
        void keepsIndependentStatePerQueue_R_HDR_002() {
            assertThat(send(0, 1, 0, 100, false).accepted()).isTrue();
            // A Read Request and a Terminate-queue message may arrive between two segments of a Send.
            assertThat(send(1, 1, 0, 28, true).messageComplete()).isTrue();
            assertThat(send(2, 1, 0, 10, true).messageComplete()).isTrue();
            InboundSegment tail = send(0, 1, 100, 50, true);

            assertThat(tail.messageComplete()).isTrue();
            assertThat(tail.messageLength()).isEqualTo(150);
            assertThat(receiver.expectedMsn(0)).isEqualTo(2);
            assertThat(receiver.expectedMsn(1)).isEqualTo(2);
            assertThat(receiver.expectedMsn(2)).isEqualTo(2);
        }

        @Test
        void consumesBufferAndMsnForZeroLengthSend_R_SEND_019() {
            buffers.with(0, 0);

            InboundSegment result = send(0, 1, 0, 0, true);

            assertThat(result.accepted()).isTrue();
            assertThat(result.messageComplete()).isTrue();
            assertThat(result.messageLength()).isZero();
            assertThat(buffers.calls).isEqualTo(1);
            assertThat(receiver.expectedMsn(0)).isEqualTo(2);
        }

        @Test
        void rejectsZeroLengthSendWithoutBuffer() {
            buffers.capacityByQueue.remove(0);

            assertRejected(send(0, 1, 0, 0, true), DdpError.UNTAGGED_NO_BUFFER);
        }

        @Test
        void rejectsUnknownQueue_V_ERR_22() {
            assertRejected(send(3, 1, 0, 12, true), DdpError.UNTAGGED_INVALID_QN);
            assertThat(receiver.firstError().terminateCodeBits()).isEqualTo(0x1201);
            assertThat(buffers.calls).isZero();
        }

        @Test
        void rejectsQueueNumberWithTopBitSet() {
            assertRejected(send(0x8000_0000, 1, 0, 12, true), DdpError.UNTAGGED_INVALID_QN);
        }

        @Test
        void acceptsAtomicResponseQueueWhenConfigured_A_ATOM_040() {
            DdpReceiver withAtomics = new DdpReceiver(IETF, DdpReceiver.rdmapQueueNumbers(true), buffers.with(3, 12), regions);

            InboundSegment result = withAtomics.onSegment(untaggedSegment(true, IETF, 3, 1, 0, 12), 0, 30);

            assertThat(result.accepted()).isTrue();
            assertThat(result.messageLength()).isEqualTo(12);
            assertThat(withAtomics.expectedMsn(DdpReceiver.QN_ATOMIC_RESPONSE)).isEqualTo(2);
        }

        @Test
        void rejectsMsnAheadOfExpected() {
            assertRejected(send(0, 2, 0, 10, true), DdpError.UNTAGGED_MSN_RANGE);
            assertThat(buffers.calls).as("no buffer bound for a bad MSN").isZero();
        }

        @Test
        void rejectsMsnZeroAtStart() {
            // RFC 5041 §4.3: the first MSN is 1.
            assertRejected(send(0, 0, 0, 10, true), DdpError.UNTAGGED_MSN_RANGE);
        }

        @Test
        void rejectsReplayedMsn() {
            send(0, 1, 0, 10, true);

            assertRejected(send(0, 1, 0, 10, true), DdpError.UNTAGGED_MSN_RANGE);
        }

        @Test
        void rejectsNextMsnWhileAMessageIsInProgress() {
            send(0, 1, 0, 10, false);

            assertRejected(send(0, 2, 0, 10, true), DdpError.UNTAGGED_MSN_RANGE);
        }

        @Test
        void wrapsMsnFromFfffffffToZero() {
            receiver.expectedMsn(0, 0xFFFF_FFFF);

            InboundSegment result = send(0, 0xFFFF_FFFF, 0, 8, true);

            assertThat(result.accepted()).isTrue();
            assertThat(result.msn()).isEqualTo(0xFFFF_FFFF);
            assertThat(receiver.expectedMsn(0)).isZero();
            assertThat(send(0, 0, 0, 8, true).accepted()).isTrue();
            assertThat(receiver.expectedMsn(0)).isEqualTo(1);
        }

        @Test
        void rejectsMsnOneAfterTheWrap() {
            receiver.expectedMsn(0, 0xFFFF_FFFF);
            send(0, 0xFFFF_FFFF, 0, 8, true);

            assertRejected(send(0, 1, 0, 8, true), DdpError.UNTAGGED_MSN_RANGE);
        }

        @Test
        void rejectsMissingBuffer_R_SEND_023() {
            buffers.capacityByQueue.remove(0);

            InboundSegment result = send(0, 1, 0, 10, true);

            assertRejected(result, DdpError.UNTAGGED_NO_BUFFER);
            assertThat(result.error().terminateCodeBits()).isEqualTo(0x1202);
        }

        @Test
        void defersWithoutStateChangeWhenResolverAsksToWait_R_SEND_023() {
            buffers.with(0, UntaggedBufferResolver.DEFER);
            MemorySegment segment = untaggedSegment(true, IETF, 0, 1, 0, 10);

            InboundSegment first = receiver.onSegment(segment, 0, 28);

            assertThat(first.outcome()).isEqualTo(Outcome.DEFERRED);
            assertThat(first.error()).isNull();
            assertThat(receiver.stopped()).isFalse();
            assertThat(receiver.firstError()).isNull();
            assertThat(receiver.messageInProgress(0)).isFalse();
            assertThat(receiver.expectedMsn(0)).isEqualTo(1);

            buffers.with(0, 64);
            InboundSegment retry = receiver.onSegment(segment, 0, 28);

            assertThat(retry.accepted()).isTrue();
            assertThat(retry.messageLength()).isEqualTo(10);
            assertThat(buffers.calls).isEqualTo(2);
        }

        @Test
        void rejectsFirstSegmentWithNonZeroMo() {
            assertRejected(send(0, 1, 8, 10, true), DdpError.UNTAGGED_INVALID_MO);
        }

        @Test
        void rejectsMoBeyondTheBuffer() {
            assertRejected(send(0, 1, 5000, 10, true), DdpError.UNTAGGED_INVALID_MO);
        }

        @Test
        void rejectsMoWithAGap() {
            send(0, 1, 0, 100, false);

            assertRejected(send(0, 1, 101, 100, true), DdpError.UNTAGGED_INVALID_MO);
        }

        @Test
        void rejectsRepeatedSegment() {
            send(0, 1, 0, 100, false);

            assertRejected(send(0, 1, 0, 100, false), DdpError.UNTAGGED_INVALID_MO);
        }

        @Test
        void rejectsMoAbove2To31AsUnsigned() {
            send(0, 1, 0, 100, false);

            assertRejected(send(0, 1, 0x8000_0064, 10, true), DdpError.UNTAGGED_INVALID_MO);
        }

        @Test
        void acceptsMessageFillingTheBufferExactly() {
            InboundSegment result = send(2, 1, 0, 100, true);

            assertThat(result.accepted()).isTrue();
            assertThat(result.messageLength()).isEqualTo(100);
        }

        @Test
        void rejectsSingleSegmentLongerThanBuffer_R_SEND_013() {
            InboundSegment result = send(2, 1, 0, 101, true);

            assertRejected(result, DdpError.UNTAGGED_MESSAGE_TOO_LONG);
            assertThat(result.bufferCapacity()).isEqualTo(100);
        }

        @Test
        void rejectsSegmentThatOverrunsTheBuffer_R_SEND_013() {
            assertThat(send(2, 1, 0, 100, false).accepted()).isTrue();

            assertRejected(send(2, 1, 100, 1, true), DdpError.UNTAGGED_MESSAGE_TOO_LONG);
        }

        @Test
        void acceptsZeroLengthLastSegmentAtTheBufferEnd() {
            send(2, 1, 0, 100, false);

            InboundSegment result = send(2, 1, 100, 0, true);

            assertThat(result.accepted()).isTrue();
            assertThat(result.messageLength()).isEqualTo(100);
        }

        @Test
        void rejectsWrongVersion_V_ERR_22() {
            InboundSegment result = deliver(untaggedSegment(true, RDMAC, 0, 1, 0, 4));

            assertRejected(result, DdpError.UNTAGGED_INVALID_VERSION);
            assertThat(result.error().terminateCodeBits()).isEqualTo(0x1206);
            assertThat(buffers.calls).isZero();
        }
    }

    @Nested
    class AfterAnError {

        @Test
        void keepsTheTaggedHeaderAndLengthsForTheTerminate_R_TERM_007_R_HDR_005() {
            MemorySegment bad = taggedSegment(false, IETF, WRITE, 0x9999, 0x1122_3344_5566_7788L, 100);

            deliver(bad);

            assertThat(receiver.firstError()).isEqualTo(DdpError.TAGGED_INVALID_STAG);
            assertThat(receiver.terminateHeaderLength()).isEqualTo(14);
            assertThat(Hex.of(receiver.terminateHeader()))
                    .isEqualTo(Hex.compact("81 40 00009999 1122334455667788"));
            assertThat(receiver.terminateSegmentLength()).isEqualTo(114);
            assertThat(receiver.terminatePayloadLength()).isEqualTo(100);
            assertThat(receiver.terminateHeader().isReadOnly()).isTrue();
            TaggedHeaderFlyweight copy = (TaggedHeaderFlyweight) receiver.terminateDdpHeader();
            assertThat(copy.stag()).isEqualTo(0x9999);
            assertThat(copy.taggedOffset()).isEqualTo(0x1122_3344_5566_7788L);
            assertThat(copy.last()).isFalse();
        }

        @Test
        void keepsTheUntaggedHeaderForTheTerminate_R_TERM_007() {
            send(0, 2, 0, 10, true);

            assertThat(receiver.firstError()).isEqualTo(DdpError.UNTAGGED_MSN_RANGE);
            assertThat(Hex.of(receiver.terminateHeader()))
                    .isEqualTo(Hex.compact("41 43 00000000 00000000 00000002 00000000"));
            assertThat(receiver.terminateSegmentLength()).isEqualTo(28);
            assertThat(receiver.terminatePayloadLength()).isEqualTo(10);
            UntaggedHeaderFlyweight copy = (UntaggedHeaderFlyweight) receiver.terminateDdpHeader();
            assertThat(copy.msn()).isEqualTo(2);
            assertThat(copy.headerLength()).isEqualTo(18);
        }

        @Test
        void silentlyDropsEveryLaterSegment() {
            send(0, 1, 0, 10, false);
            assertRejected(send(0, 5, 0, 10, true), DdpError.UNTAGGED_MSN_RANGE);
            int callsAtError = buffers.calls;

            InboundSegment valid = send(0, 1, 10, 10, true);
            InboundSegment write = write(0x1234, 0x1000, 8);

            assertThat(valid.outcome()).isEqualTo(Outcome.DROPPED);
            assertThat(valid.accepted()).isFalse();
            assertThat(valid.messageComplete()).isFalse();
            assertThat(valid.payloadLength()).isZero();
            assertThat(write.outcome()).isEqualTo(Outcome.DROPPED);
            assertThat(receiver.droppedSegments()).isEqualTo(2);
            assertThat(buffers.calls).isEqualTo(callsAtError);
            assertThat(regions.calls).isZero();
            assertThat(receiver.expectedMsn(0)).as("no state advances").isEqualTo(1);
        }

        @Test
        void reportsOnlyTheFirstError_R_TERM_047() {
            write(0x9999, 0x1000, 8);

            InboundSegment second = send(7, 1, 0, 10, true);

            assertThat(second.outcome()).isEqualTo(Outcome.DROPPED);
            assertThat(second.error()).isNull();
            assertThat(receiver.firstError()).isEqualTo(DdpError.TAGGED_INVALID_STAG);
            assertThat(receiver.terminateHeaderLength()).isEqualTo(14);
        }

        @Test
        void reportsTruncatedUlpduAsLocalCatastrophicWithoutHeader_R_TERM_007() {
            MemorySegment truncated = taggedSegment(true, IETF, WRITE, 0x1234, 0x1000, 0);

            InboundSegment result = receiver.onSegment(truncated, 0, 10);

            assertRejected(result, DdpError.LOCAL_CATASTROPHIC);
            assertThat(receiver.terminateHeaderLength()).isZero();
            assertThat(receiver.terminateHeader().byteSize()).isZero();
            assertThat(receiver.terminateDdpHeader()).isNull();
            assertThat(receiver.terminateSegmentLength()).isEqualTo(10);
        }

        @Test
        void reportsTruncatedUntaggedHeaderAsLocalCatastrophic() {
            // 14 bytes are a whole tagged header but only part of an untagged one.
            MemorySegment segment = untaggedSegment(true, IETF, 0, 1, 0, 0);

            assertRejected(receiver.onSegment(segment, 0, 14), DdpError.LOCAL_CATASTROPHIC);
        }

        @Test
        void reportsEmptyUlpduAsLocalCatastrophic() {
            assertRejected(receiver.onSegment(MemorySegment.ofArray(new byte[0]), 0, 0), DdpError.LOCAL_CATASTROPHIC);
            assertThat(receiver.terminateSegmentLength()).isZero();
        }

        @Test
        void stopDropsSegmentsWithoutADdpError_R_TERM_021() {
            receiver.stop();

            InboundSegment result = send(0, 1, 0, 10, true);

            assertThat(result.outcome()).isEqualTo(Outcome.DROPPED);
            assertThat(receiver.stopped()).isTrue();
            assertThat(receiver.firstError()).isNull();
            assertThat(receiver.terminateHeader().byteSize()).isZero();
            assertThat(receiver.droppedSegments()).isEqualTo(1);
        }

        @Test
        void resetStartsANewStream_V_QPS_13() {
            assertThat(receiver.version()).isEqualTo(IETF);
            send(0, 1, 0, 10, true);
            send(1, 1, 0, 28, true);
            send(0, 9, 0, 10, true);
            send(0, 2, 0, 10, true);

            receiver.reset(RDMAC);

            assertThat(receiver.stopped()).isFalse();
            assertThat(receiver.firstError()).isNull();
            assertThat(receiver.droppedSegments()).isZero();
            assertThat(receiver.terminateHeaderLength()).isZero();
            assertThat(receiver.terminateDdpHeader()).isNull();
            assertThat(receiver.version()).isEqualTo(RDMAC);
            assertThat(receiver.expectedMsn(0)).isEqualTo(1);
            assertThat(receiver.expectedMsn(1)).isEqualTo(1);
            assertThat(receiver.onSegment(untaggedSegment(true, RDMAC, 0, 1, 0, 4), 0, 22).accepted()).isTrue();
        }
    }

    @Nested
    class Misuse {

        @Test
        void rejectsNegativeUlpduLength() {
            assertThatThrownBy(() -> receiver.onSegment(MemorySegment.ofArray(new byte[18]), 0, -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative ULPDU length -1");
        }

        @Test
        void rejectsSegmentThatDoesNotHoldTheHeader() {
            MemorySegment partial = MemorySegment.ofArray(new byte[10]);
            partial.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 0xC1);

            assertThatThrownBy(() -> receiver.onSegment(partial, 0, 100)).isInstanceOf(IndexOutOfBoundsException.class);
        }

        @Test
        void validatesConstructorArguments() {
            assertThatThrownBy(() -> new DdpReceiver(IETF, new int[0], buffers, regions))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one");
            assertThatThrownBy(() -> new DdpReceiver(IETF, new int[] {0, 1, 0}, buffers, regions))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue number 0 is listed twice");
            assertThatThrownBy(() -> new DdpReceiver(3, new int[] {0}, buffers, regions))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DDP version 3");
            assertThatThrownBy(() -> new DdpReceiver(IETF, new int[] {0}, null, regions))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("untaggedResolver");
            assertThatThrownBy(() -> new DdpReceiver(IETF, new int[] {0}, buffers, null))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("taggedResolver");
            assertThatThrownBy(() -> new DdpReceiver(IETF, null, buffers, regions))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("queueNumbers");
        }

        @Test
        void copiesTheQueueNumbers() {
            int[] qns = {0, 1};
            DdpReceiver copy = new DdpReceiver(IETF, qns, buffers, regions);
            qns[1] = 9;

            assertThat(copy.expectedMsn(1)).isEqualTo(1);
            assertThatThrownBy(() -> copy.expectedMsn(9)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void rejectsQueriesForUnknownQueues() {
            assertThatThrownBy(() -> receiver.expectedMsn(3))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue number 3 is not configured");
            assertThatThrownBy(() -> receiver.messageInProgress(-1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4294967295");
        }

        @Test
        void listsRdmapQueues() {
            assertThat(DdpReceiver.rdmapQueueNumbers(false)).containsExactly(0, 1, 2);
            assertThat(DdpReceiver.rdmapQueueNumbers(true)).containsExactly(0, 1, 2, 3);
        }
    }

    @Test
    void describesResultsForLogs() {
        assertThat(send(0, 1, 0, 5, true).toString())
                .isEqualTo("InboundSegment[ACCEPTED untagged L=true QN=0 MSN=1 MO=0 payload=5 complete length=5]");
        assertThat(write(0x1234, 0x2000, 4).toString())
                .isEqualTo("InboundSegment[REJECTED TAGGED_BASE_OR_BOUNDS tagged L=true STag=0x00001234 TO=0x2000 payload=4]");
        assertThat(write(0x1234, 0x1000, 4).toString()).isEqualTo("InboundSegment[DROPPED]");
        assertThat(receiver.toString()).isEqualTo("DdpReceiver[version=1 queues=3 stopped error=TAGGED_BASE_OR_BOUNDS dropped=1]");
    }
}
