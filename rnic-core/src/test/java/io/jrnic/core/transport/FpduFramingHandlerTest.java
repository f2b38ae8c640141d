package io.jrnic.core.transport;

import io.jrnic.core.link.FpduLink;
import io.jrnic.core.transport.ConnectionInfo.Role;
import io.jrnic.core.transport.MpaSetupHandlerTest.Ulpdus;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.Fpdu;
import io.jrnic.mpa.FpduWriter;
import io.jrnic.mpa.MpaParameters;
import io.jrnic.mpa.PlacementHandler;
import io.jrnic.mpa.PlacementTarget;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.jrnic.core.transport.EmbeddedReads.read;
import static io.jrnic.core.transport.EmbeddedReads.written;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FpduFramingHandler} alone on an {@link EmbeddedChannel}, built from a hand-made
 * {@link FpduFramingHandler.FullOperation} as the setup handler would hand it over: FPDUs in any
 * split of reads reach the handler (RFC 5044 §4), direct placement through the allocator, TX
 * framing to the byte, a CRC fault on its way to the close, and the client/server Responder's TX
 * gate (RFC 5044 §7.1.2 rule 4). The loopback TCP counterparts are in {@link FpduChannelTest},
 * {@link FirstFpduFaultTest} and {@link RxAllocationTest}.
 */
class FpduFramingHandlerTest {

    private final IwarpTransport transport = new IwarpTransport(TransportFixture.config().build());
    private EmbeddedChannel ch;
    private ConnectionContext cx;
    private FpduFramingHandler framing;

    @AfterEach
    void close() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
        transport.close();
    }

    private static MpaParameters params(boolean markers) {
        return new MpaParameters(2, true, true, markers, markers, 16, 16, 16, 16, false, 0, null);
    }

    /** Installs a framing handler as the setup handler would at Full Operation. */
    private FpduChannel install(Role role, MpaParameters params, FpduWriter writer, byte[] pending, boolean txOpen) {
        return install(role, params, writer, pending, txOpen, 0);
    }

    /** Installs a framing handler whose socket cuts writes into segments of {@code segmentSize} bytes. */
    private FpduChannel install(Role role, MpaParameters params, FpduWriter writer, byte[] pending, boolean txOpen,
                                int segmentSize) {
        ch = new EmbeddedChannel();
        cx = new ConnectionContext(transport, role);
        ConnectionInfo info = ConnectionInfo.of(role, params, null, Fpdu.mulpdu(1460, params.markersOnSend()),
                new byte[0], new byte[0], ch.localAddress(), ch.remoteAddress());
        ByteBuf held = pending == null ? null : Unpooled.copiedBuffer(pending);
        framing = new FpduFramingHandler(cx, ch,
                new FpduFramingHandler.FullOperation(info, writer, 0, held, txOpen, false, 0, 0,
                        segmentSize));
        ch.pipeline().addLast(MpaSetupHandler.FRAMING_HANDLER_NAME, framing);
        cx.allocator.source(framing);
        return framing.channel();
    }

    private static byte[] ulpduOf(byte[] fpdu) {
        int length = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
        return Arrays.copyOfRange(fpdu, 2, 2 + length);
    }

    private static byte[] payload(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + 31 * i);
        }
        return b;
    }

    @ParameterizedTest(name = "reads of at most {0} bytes")
    @ValueSource(ints = {1, 2, 3, 7, 13, 64, 1000, Integer.MAX_VALUE})
    void fpdusInAnySplitReachTheHandlerWhole(int chunk) {
        List<byte[]> fpdus = new ArrayList<>();
        for (int size : new int[] {0, 1, 2, 3, 100, 1000, 4000}) {
            fpdus.add(RawFrames.writeFpdu(payload(size, size), size));
        }
        byte[] stream = RawFrames.concat(fpdus.toArray(byte[][]::new));
        // the setup handler hands over what it read past its frame: here the first FPDU and a half
        int handed = fpdus.get(0).length + fpdus.get(1).length / 2;
        FpduChannel channel = install(Role.RESPONDER, params(false), new FpduWriter(false, true),
                Arrays.copyOf(stream, handed), true);
        Ulpdus rx = new Ulpdus();
        channel.start(rx, rx);
        read(ch, cx.allocator, Arrays.copyOfRange(stream, handed, stream.length), chunk);

        assertThat(rx.fault).isNull();
        assertThat(rx.ulpdus).hasSize(fpdus.size());
        for (int i = 0; i < fpdus.size(); i++) {
            assertThat(rx.ulpdus.get(i)).as("ULPDU %d", i).isEqualTo(ulpduOf(fpdus.get(i)));
        }
        assertThat(channel.bytesReceived()).isEqualTo(stream.length);
        assertThat(channel.fpdusReceived()).isEqualTo(fpdus.size());
    }

    /** Places the payload of every tagged FPDU at its TO in one target segment. */
    static class Placing extends Ulpdus implements PlacementHandler {
        // RNIC-like memory: every socket kind may read into it by address (epoll: NativeViews.stable)
        final MemorySegment target = TestIoTransport.stableMemory(16384);
        int placed;

        @Override
        public int prefixLength(int firstByte, int ulpduLength) {
            return 14;       // the tagged DDP/RDMAP header (RFC 5041 §4.2)
        }

        @Override
        public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                       PlacementTarget t) {
            long to = prefix.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset + 6);
            t.set(target, to);
            return true;
        }

        @Override
        public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
            placed++;
        }
    }

    /** Also copies the payload of a tagged ULPDU delivered whole to its TO, as the RNIC's receive path does. */
    static final class PlacingWhole extends Placing {
        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            super.onUlpdu(segment, offset, length);
            long to = segment.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset + 6);
            MemorySegment.copy(segment, offset + 14, target, to, length - 14);
        }
    }

    @Test
    void payloadIsReadStraightIntoThePlacementTarget() {
        byte[] a = payload(4000, 1);
        byte[] b = payload(6000, 2);
        byte[] stream = RawFrames.concat(RawFrames.writeFpdu(a, 0), RawFrames.writeFpdu(b, 4000));
        FpduChannel channel = install(Role.RESPONDER, params(false), new FpduWriter(false, true), null, true);
        Placing rx = new Placing();
        channel.start(rx, rx);
        // 64-byte reads, as a cut staging read would be: after each header the allocator hands out a
        // window of the target, which takes the rest of the payload in one read
        read(ch, cx.allocator, stream, TransportConfig.HEADER_READ_LENGTH);

        assertThat(rx.fault).isNull();
        assertThat(rx.placed).isEqualTo(2);
        assertThat(rx.target.asSlice(0, 10000).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(RawFrames.concat(a, b));
        assertThat(channel.bytesPlacedDirect()).as("read into the target by the allocator's windows")
                .isGreaterThan(9000);
        assertThat(channel.bytesReceived()).isEqualTo(stream.length);
    }

    @Test
    void afterALargeFpduStagingReadsStayCutForFourMoreFpdus() {
        FpduChannel channel = install(Role.RESPONDER, params(false), new FpduWriter(false, true), null, true);
        Placing rx = new Placing();
        channel.start(rx, rx);
        int full = cx.config.stagingBufferSize();
        int threshold = cx.config.directPlacementThreshold();
        int cut = TransportConfig.HEADER_READ_LENGTH;
        assertThat(framing.nextReadSize()).as("nothing large seen yet").isEqualTo(full);

        read(ch, cx.allocator, RawFrames.writeFpdu(payload(threshold - 14 - 1, 1), 0));
        assertThat(framing.nextReadSize()).as("a ULPDU one byte under the threshold is small").isEqualTo(full);

        read(ch, cx.allocator, RawFrames.writeFpdu(payload(threshold - 14, 2), 0), cut);
        assertThat(framing.nextReadSize()).as("a ULPDU of the threshold is large").isEqualTo(cut);
        // between FPDUs the cut read stays a header's (the small FPDU behind a large one lengthens
        // only the read that ends a large one: aSmallFpduBehindEachLargeOne...)
        for (int i = 1; i <= FpduFramingHandler.LARGE_FPDU_MEMORY; i++) {
            read(ch, cx.allocator, RawFrames.writeFpdu(payload(100, 2 + i), 0), cut);
            assertThat(framing.nextReadSize()).as("after %d small FPDUs", i)
                    .isEqualTo(i < FpduFramingHandler.LARGE_FPDU_MEMORY ? cut : full);
        }
        assertThat(rx.fault).isNull();
        assertThat(channel.fpdusReceived()).isEqualTo(2 + FpduFramingHandler.LARGE_FPDU_MEMORY);
    }

    @Test
    void aSmallFpduBehindEachLargeOneComesInTheReadAfterTheLargePayload() {
        // A 64 KiB Write over loopback is a large FPDU and a small one (64,754 + 782 payload bytes):
        // the read after a large payload takes the CRC, the whole small FPDU and the next header,
        // two reads per message where reads cut to a header made four (issue 11).
        FpduChannel channel = install(Role.RESPONDER, params(false), new FpduWriter(false, true), null, true);
        PlacingWhole rx = new PlacingWhole();
        channel.start(rx, rx);
        int large = cx.config.directPlacementThreshold() - 14;      // at TO 0
        int small = 782;                                            // behind it, at TO 8192
        int messages = 8;
        List<byte[]> fpdus = new ArrayList<>();
        for (int m = 0; m < messages; m++) {
            fpdus.add(RawFrames.writeFpdu(payload(large, 2 * m), 0));
            fpdus.add(RawFrames.writeFpdu(payload(small, 2 * m + 1), 8192));
        }
        int firstMessage = fpdus.get(0).length + fpdus.get(1).length;
        byte[] stream = RawFrames.concat(fpdus.toArray(byte[][]::new));
        read(ch, cx.allocator, Arrays.copyOf(stream, firstMessage));      // learns the shape
        assertThat(framing.nextReadSize()).as("between FPDUs: a header").isEqualTo(TransportConfig.HEADER_READ_LENGTH);
        int beforeCrc = fpdus.get(2).length - Fpdu.padLength(14 + large) - Fpdu.CRC_LENGTH;   // its payload's end
        int readsOfLarge = read(ch, cx.allocator, Arrays.copyOfRange(stream, firstMessage, firstMessage + beforeCrc));
        assertThat(framing.nextReadSize()).as("at a large FPDU's pad and CRC: with the small FPDU behind it")
                .isEqualTo(TransportConfig.HEADER_READ_LENGTH + Fpdu.frameLength(14 + small));
        firstMessage += beforeCrc;

        int reads = read(ch, cx.allocator, Arrays.copyOfRange(stream, firstMessage, stream.length));

        assertThat(rx.fault).isNull();
        assertThat(channel.fpdusReceived()).isEqualTo(2 * messages);
        assertThat(rx.target.asSlice(0, large).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payload(large, 2 * messages - 2));
        assertThat(rx.target.asSlice(8192, small).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(payload(small, 2 * messages - 1));
        assertThat(readsOfLarge + reads).as("reads for %d messages", messages - 1)
                .isLessThanOrEqualTo(2 * (messages - 1) + 1);
        // copied instead: the payload bytes behind each header in a cut read, and the first read's
        assertThat(channel.bytesPlacedDirect()).as("the large payloads still read into their target")
                .isGreaterThan((long) (messages - 1) * (large - TransportConfig.HEADER_READ_LENGTH) - 1024);
        assertThat(channel.bytesReceived()).isEqualTo(stream.length);
    }

    @Test
    void aLargeFpduWhereTheLastOneWasFollowedByASmallOneIsPlacedWhole() {
        // the guess misses: the read cut for a small FPDU takes the start of a large payload instead
        FpduChannel channel = install(Role.RESPONDER, params(false), new FpduWriter(false, true), null, true);
        PlacingWhole rx = new PlacingWhole();
        channel.start(rx, rx);
        int large = cx.config.directPlacementThreshold() - 14;
        List<byte[]> fpdus = List.of(RawFrames.writeFpdu(payload(large, 1), 0),
                RawFrames.writeFpdu(payload(2000, 2), 8192),
                RawFrames.writeFpdu(payload(large, 3), 0),
                RawFrames.writeFpdu(payload(large, 4), 0),
                RawFrames.writeFpdu(payload(large, 5), 0));
        for (byte[] fpdu : fpdus) {
            read(ch, cx.allocator, fpdu);
        }

        assertThat(rx.fault).isNull();
        assertThat(channel.fpdusReceived()).isEqualTo(fpdus.size());
        assertThat(rx.target.asSlice(0, large).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payload(large, 5));
        assertThat(rx.target.asSlice(8192, 2000).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payload(2000, 2));
        assertThat(framing.nextReadSize()).as("large after large: cut to a header again")
                .isEqualTo(TransportConfig.HEADER_READ_LENGTH);
    }

    @Test
    void txFramingIsExactAndContinuesTheHandedOverMarkerPosition() {
        // the writer comes from setup having framed a 24-byte RTR already: markers follow that position
        FpduWriter handed = new FpduWriter(true, true);
        FpduWriter reference = new FpduWriter(true, true);
        byte[] rtr = new byte[handed.wireLength(18)];
        handed.write(MemorySegment.ofArray(new byte[18]), 0, 18, MemorySegment.ofArray(rtr), 0);
        reference.write(MemorySegment.ofArray(new byte[18]), 0, 18, MemorySegment.ofArray(new byte[rtr.length]), 0);

        FpduChannel channel = install(Role.INITIATOR, params(true), handed, null, true);
        channel.start(new Ulpdus(), new Ulpdus());
        byte[] header = payload(14, 3);
        byte[] body = payload(1000, 4);        // crosses the marker at stream position 512
        assertThat(channel.send(MemorySegment.ofArray(header), 0, 14, MemorySegment.ofArray(body), 0, body.length))
                .isTrue();
        assertThat(channel.send(MemorySegment.ofArray(header), 0, 14, null, 0, 0)).isTrue();
        assertThat(written(ch)).as("nothing before flush").isEmpty();
        channel.flush();

        byte[] first = new byte[reference.wireLength(14 + body.length)];
        reference.write(MemorySegment.ofArray(header), 0, 14, MemorySegment.ofArray(body), 0, body.length,
                MemorySegment.ofArray(first), 0);
        byte[] second = new byte[reference.wireLength(14)];
        reference.write(MemorySegment.ofArray(header), 0, 14, MemorySegment.ofArray(second), 0);
        assertThat(written(ch)).isEqualTo(RawFrames.concat(first, second));
        assertThat(channel.fpdusSent()).isEqualTo(2);
    }

    /** Sends one FPDU of {@code wire} bytes (a 14-byte header and payload; no markers, CRC on) and returns its bytes. */
    private static byte[] sendFpdu(FpduChannel channel, FpduWriter reference, int wire, int seed) {
        int ulpdu = wire - 6;             // MPA length field and CRC (RFC 5044 §4); multiples of 4 need no pad
        byte[] header = payload(14, seed);
        byte[] body = payload(ulpdu - 14, seed + 1);
        channel.send(MemorySegment.ofArray(header), 0, 14, MemorySegment.ofArray(body), 0, body.length);
        byte[] fpdu = new byte[reference.wireLength(ulpdu)];
        assertThat(fpdu).hasSize(wire);
        reference.write(MemorySegment.ofArray(header), 0, 14, MemorySegment.ofArray(body), 0, body.length,
                MemorySegment.ofArray(fpdu), 0);
        return fpdu;
    }

    /** An initiator's channel, CRC off, started, whose segment rule sees this send MSS (0: none). */
    private FpduChannel startedWithSegment(int segmentSize) {
        FpduChannel channel = install(Role.INITIATOR, params(false), new FpduWriter(false, true), null, true, segmentSize);
        channel.start(new Ulpdus(), new Ulpdus());
        return channel;
    }

    @Test
    void fpdusFillingMostOfASegmentGoBeforeAnFpduThatWouldRunPastIt() {
        FpduChannel channel = startedWithSegment(1000);
        FpduWriter reference = new FpduWriter(false, true);
        byte[] a = sendFpdu(channel, reference, 300, 1);
        byte[] b = sendFpdu(channel, reference, 300, 3);
        assertThat(written(ch)).as("600 of 1000 bytes: they wait for the flush").isEmpty();
        byte[] c = sendFpdu(channel, reference, 600, 5);
        assertThat(written(ch)).as("1200 would leave a 200-byte segment: the first 600 went on their own")
                .isEqualTo(RawFrames.concat(a, b));
        byte[] d = sendFpdu(channel, reference, 400, 7);
        assertThat(written(ch)).as("600 + 400 fit the segment exactly").isEmpty();
        byte[] e = sendFpdu(channel, reference, 100, 9);
        assertThat(written(ch)).as("a whole segment goes before what would follow it").isEqualTo(RawFrames.concat(c, d));
        channel.flush();
        assertThat(written(ch)).isEqualTo(e);
        assertThat(channel.fpdusSent()).isEqualTo(5);
    }

    @Test
    void exactlyHalfASegmentGoesBeforeAnFpduThatWouldRunPastTheSegment() {
        FpduChannel channel = startedWithSegment(1000);
        FpduWriter reference = new FpduWriter(false, true);
        byte[] a = sendFpdu(channel, reference, 500, 1);
        byte[] b = sendFpdu(channel, reference, 504, 3);
        assertThat(written(ch)).isEqualTo(a);
        channel.flush();
        assertThat(written(ch)).isEqualTo(b);
    }

    @Test
    void fpdusOfAWholeSegmentEachWaitForTheFlushTogether() {
        // EMSS = the send MSS (1448 on Ethernet): every full FPDU is one segment, and a write of
        // several of them is whole segments only
        FpduChannel channel = startedWithSegment(1000);
        FpduWriter reference = new FpduWriter(false, true);
        byte[] a = sendFpdu(channel, reference, 1000, 1);
        byte[] b = sendFpdu(channel, reference, 1000, 3);
        byte[] c = sendFpdu(channel, reference, 1000, 5);
        assertThat(written(ch)).as("two and three whole segments: nothing small to avoid").isEmpty();
        channel.flush();
        assertThat(written(ch)).isEqualTo(RawFrames.concat(a, b, c));
    }

    @Test
    void fpdusBelowHalfASegmentOrPastOneWaitForTheFlush() {
        FpduChannel channel = startedWithSegment(1000);
        FpduWriter reference = new FpduWriter(false, true);
        byte[] a = sendFpdu(channel, reference, 496, 1);
        byte[] b = sendFpdu(channel, reference, 1004, 3);
        assertThat(written(ch)).as("496 bytes are under half a segment: a write of their own would be small")
                .isEmpty();
        byte[] c = sendFpdu(channel, reference, 500, 5);
        assertThat(written(ch)).as("1500 bytes are past one segment already: batching wins").isEmpty();
        channel.flush();
        assertThat(written(ch)).isEqualTo(RawFrames.concat(a, b, c));
    }

    @Test
    void withoutASegmentSizeOnlyTheFlushWrites() {
        FpduChannel channel = startedWithSegment(0);
        FpduWriter reference = new FpduWriter(false, true);
        byte[] a = sendFpdu(channel, reference, 1000, 1);
        byte[] b = sendFpdu(channel, reference, 1000, 3);
        assertThat(written(ch)).isEmpty();
        channel.flush();
        assertThat(written(ch)).isEqualTo(RawFrames.concat(a, b));
    }

    @Test
    void aResponderHoldsItsFpdusUntilTheInitiatorsFirst() {
        FpduChannel channel = install(Role.RESPONDER, params(false), new FpduWriter(false, true), null, false);
        Ulpdus rx = new Ulpdus();
        channel.start(rx, rx);
        channel.send(MemorySegment.ofArray(payload(14, 5)), 0, 14, null, 0, 0);
        channel.flush();
        assertThat(written(ch)).as("RFC 5044 §7.1.2 rule 4: gated").isEmpty();
        read(ch, cx.allocator, RawFrames.writeFpdu(payload(8, 6), 0));
        assertThat(rx.ulpdus).hasSize(1);
        assertThat(written(ch)).as("the deferred flush after the first valid FPDU").hasSize(20);
    }

    @Test
    void aCrcFaultOpensTheGateForTheTerminateWhichLeavesBeforeTheClose() {
        FpduChannel channel = install(Role.RESPONDER, params(false), new FpduWriter(false, true), null, false);
        byte[] terminate = payload(28, 7);
        Ulpdus rx = new Ulpdus() {
            @Override
            public void onError(DeframeFault f) {
                super.onError(f);
                // what the QP does (RFC 5044 §8, RFC 5040 §7): a Terminate, then the graceful close
                framing.channel().send(MemorySegment.ofArray(terminate), 0, terminate.length, null, 0, 0);
                framing.channel().flush();
                framing.channel().close();
            }
        };
        channel.start(rx, rx);
        byte[] bad = RawFrames.writeFpdu(payload(100, 8), 0);
        bad[bad.length - 1] ^= 1;
        read(ch, cx.allocator, bad, 33);
        ch.runPendingTasks();                  // close() hops onto the loop

        assertThat(rx.fault).isEqualTo(DeframeFault.CRC_MISMATCH);
        assertThat(rx.ulpdus).isEmpty();
        FpduWriter w = new FpduWriter(false, true);
        byte[] expected = new byte[w.wireLength(terminate.length)];
        w.write(MemorySegment.ofArray(terminate), 0, terminate.length, MemorySegment.ofArray(expected), 0);
        assertThat(written(ch)).as("the Terminate went out (issue 9 item 1)").isEqualTo(expected);
        assertThat(ch.isOpen()).isFalse();
        assertThat(rx.closure).isEqualTo(FpduLink.Closure.LOCAL_CLOSE);
    }

    @Test
    void aFinInsideAnFpduIsATruncatedStream() {
        FpduChannel channel = install(Role.INITIATOR, params(false), new FpduWriter(false, true), null, true);
        Ulpdus rx = new Ulpdus();
        channel.start(rx, rx);
        byte[] fpdu = RawFrames.writeFpdu(payload(100, 9), 0);
        read(ch, cx.allocator, Arrays.copyOf(fpdu, 50));
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        ch.runPendingTasks();
        assertThat(ch.isOpen()).isFalse();
        assertThat(rx.closure).as("RFC 5044 §8 code 1").isEqualTo(FpduLink.Closure.REMOTE_CLOSE_MID_FPDU);
    }

    @Test
    void aFinAtAnFpduBoundaryIsARemoteClose() {
        FpduChannel channel = install(Role.INITIATOR, params(false), new FpduWriter(false, true), null, true);
        Ulpdus rx = new Ulpdus();
        channel.start(rx, rx);
        read(ch, cx.allocator, RawFrames.writeFpdu(payload(100, 9), 0));
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        ch.runPendingTasks();
        assertThat(ch.isOpen()).isFalse();
        assertThat(rx.ulpdus).hasSize(1);
        assertThat(rx.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
    }

    @Test
    void aReadIntoABufferTheConnectionDidNotProvideAbortsIt() {
        FpduChannel channel = install(Role.INITIATOR, params(false), new FpduWriter(false, true), null, true);
        Ulpdus rx = new Ulpdus();
        channel.start(rx, rx);
        // not the loop's staging (ReadStaging) nor the direct-placement window: its bytes are not deframed
        ch.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(RawFrames.writeFpdu(payload(100, 9), 0)));
        ch.runPendingTasks();
        assertThat(rx.ulpdus).isEmpty();
        assertThat(ch.isOpen()).isFalse();
        assertThat(rx.closure).isEqualTo(FpduLink.Closure.LOCAL_ABORT);
    }
}
