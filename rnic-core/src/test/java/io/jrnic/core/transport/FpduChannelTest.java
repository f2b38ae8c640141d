package io.jrnic.core.transport;

import io.jrnic.api.IoTransport;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.transport.TransportFixture.Endpoint;
import io.jrnic.core.transport.TransportFixture.ArrivalEndpoint;
import io.jrnic.core.transport.TransportFixture.Pair;
import io.jrnic.core.transport.TransportFixture.PlacingEndpoint;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.Fpdu;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.RtrForm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.jrnic.core.transport.TransportFixture.LOOPBACK;
import static io.jrnic.core.transport.TransportFixture.assertSameBytes;
import static io.jrnic.core.transport.TransportFixture.await;
import static io.jrnic.core.transport.TransportFixture.fpduCount;
import static io.jrnic.core.transport.TransportFixture.onLoop;
import static io.jrnic.core.transport.TransportFixture.pattern;
import static io.jrnic.core.transport.TransportFixture.total;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The established channel over real loopback TCP: data both ways, placement, backpressure, close. */
class FpduChannelTest {

    /** Message sizes of the exchange tests: 0 .. 256 KiB, around FPDU and marker boundaries. */
    private static final int[] SIZES = {0, 1, 3, 4, 13, 511, 512, 1440, 1441, 1454, 4096, 65535, 65536, 100_003, 262_144};

    /** Messages of every size, split across reads, for the shared staging test. */
    private static final int[] STAGING_SIZES = {1, 13, 511, 1454, 4096, 65535, 100_003, 3, 262_144, 700};
    private static final int STAGING_PAIRS = 3;

    private IwarpTransport transport;

    @BeforeEach
    void open() {
        transport = new IwarpTransport(TransportFixture.config().build());
    }

    @AfterEach
    void close() {
        transport.close();
    }

    private static MpaSettings settings(CrcPolicy crc, boolean requestMarkers) {
        return MpaSettings.builder().crcPolicy(crc).requestMarkers(requestMarkers).build();
    }

    private static void exchange(Pair pair, int[] sizesAtoB, int[] sizesBtoA, boolean placing) {
        FpduChannel a = pair.initiator();
        FpduChannel b = pair.responder();
        long aToB = total(sizesAtoB);
        long bToA = total(sizesBtoA);
        Endpoint ea = placing ? new PlacingEndpoint(bToA, fpduCount(sizesBtoA, b.mulpdu()))
                : new Endpoint(bToA, fpduCount(sizesBtoA, b.mulpdu()));
        Endpoint eb = placing ? new PlacingEndpoint(aToB, fpduCount(sizesAtoB, a.mulpdu()))
                : new Endpoint(aToB, fpduCount(sizesAtoB, a.mulpdu()));
        ea.start(a);
        eb.start(b);
        MemorySegment dataA = pattern(aToB, 1);
        MemorySegment dataB = pattern(bToA, 2);
        ea.send(dataA, sizesAtoB);
        eb.send(dataB, sizesBtoA);
        await(ea.done);
        await(eb.done);
        assertSameBytes(eb.received, dataA, aToB);
        assertSameBytes(ea.received, dataB, bToA);
        assertThat(eb.fault).isNotDone();
        assertThat(ea.fault).isNotDone();
    }

    @ParameterizedTest(name = "initiator CRC {0} markers {1}, responder CRC {2} markers {3}")
    @CsvSource({
            "OPTIONAL, false, OPTIONAL, false",
            "OFF, false, OFF, false",
            "OFF, true, OFF, false",
            "OFF, false, OFF, true",
            "OPTIONAL, true, OFF, true",
            "OFF, true, OPTIONAL, true"
    })
    void exchangesMessagesBothWaysByteForByte(CrcPolicy crcI, boolean markersI, CrcPolicy crcR, boolean markersR)
            throws Exception {
        Pair pair = TransportFixture.connect(transport, settings(crcI, markersI), settings(crcR, markersR));
        ConnectionInfo info = pair.initiator().info();
        assertThat(info.parameters().crc()).isEqualTo(crcI != CrcPolicy.OFF || crcR != CrcPolicy.OFF);
        assertThat(info.parameters().markersOnReceive()).isEqualTo(markersI);
        assertThat(info.parameters().markersOnSend()).isEqualTo(markersR);
        // RFC 5044 §4.5: FPDUs sized to the EMSS, fewer payload bytes when we insert markers.
        assertThat(pair.initiator().mulpdu()).isEqualTo(Fpdu.mulpdu(TransportConfig.ETHERNET_EMSS, markersR));
        assertThat(pair.responder().mulpdu()).isEqualTo(Fpdu.mulpdu(TransportConfig.ETHERNET_EMSS, markersI));
        exchange(pair, SIZES, SIZES, false);
    }

    @ParameterizedTest(name = "CRC {0}, markers {1}")
    @CsvSource({"OPTIONAL, false", "OFF, false", "OPTIONAL, true", "OFF, true"})
    void exchangesLargeFpdusWithPlacement(CrcPolicy crc, boolean markers) throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().emss(TransportConfig.MAX_EMSS).build());
        Pair pair = TransportFixture.connect(transport, settings(crc, markers), settings(crc, markers));
        assertThat(pair.initiator().mulpdu()).isEqualTo(Fpdu.MAX_MULPDU); // RFC 5044 §4.1
        exchange(pair, SIZES, SIZES, true);
    }

    @Test
    void readsLargePayloadStraightIntoTheTarget() throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().emss(TransportConfig.MAX_EMSS).build());
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        int[] sizes = {4 * 1024 * 1024};
        long total = total(sizes);
        PlacingEndpoint receiver = new PlacingEndpoint(total, fpduCount(sizes, pair.initiator().mulpdu()));
        Endpoint sender = new Endpoint(0, 0);
        receiver.start(pair.responder());
        sender.start(pair.initiator());
        MemorySegment data = pattern(total, 7);
        sender.send(data, sizes);
        await(receiver.done);
        assertSameBytes(receiver.received, data, total);

        long[] stats = new long[2];
        onLoop(pair.responder(), () -> {
            stats[0] = pair.responder().bytesReceived();
            stats[1] = pair.responder().bytesPlacedDirect();
        });
        long direct = stats[1];
        // Payload copies: through the staging buffer into the target (deframer) or by the handler.
        long copiedByDeframer = receiver.payloadPlaced - direct;
        long copied = copiedByDeframer + receiver.payloadViaUlpdu;
        double copiesPerByte = (double) copied / total;
        System.out.printf("direct placement: %d of %d payload bytes read into the target, %.4f copies per payload byte"
                + " (%d socket bytes)%n", direct, total, copiesPerByte, stats[0]);
        assertThat(receiver.payloadPlaced + receiver.payloadViaUlpdu).isEqualTo(total);
        // After the first large FPDU every staging read stops after a header: only a few dozen payload
        // bytes per 64 KiB FPDU are copied.
        assertThat(copiesPerByte).isLessThan(0.03);
    }

    /** A connection of the largest FPDUs, CRC and markers off, on epoll; the test is skipped elsewhere. */
    /** As {@link #largeFpdus}, on epoll, with the segment rule on whatever this machine's congestion control. */
    private Pair largeFpdusOnEpoll(String why) throws Exception {
        return largeFpdusOnEpoll(why, true);
    }

    private Pair largeFpdusOnEpoll(String why, boolean segmentRule) throws Exception {
        Pair pair = largeFpdus(settings(CrcPolicy.OFF, false), TransportFixture.config().segmentRule(segmentRule));
        assumeTrue(pair.initiator().ioTransport() == IoTransport.EPOLL, why);
        return pair;
    }

    /** A connection of a transport whose FPDUs grow to the largest MULPDU (EMSS {@link TransportConfig#MAX_EMSS}). */
    private Pair largeFpdus(MpaSettings settings) throws Exception {
        return largeFpdus(settings, TransportFixture.config());
    }

    private Pair largeFpdus(MpaSettings settings, TransportConfig.Builder config) throws Exception {
        transport.close();
        transport = new IwarpTransport(config.emss(TransportConfig.MAX_EMSS).build());
        return TransportFixture.connect(transport, settings, settings);
    }

    /**
     * On the channel's loop: its segment size at Full Operation, after {@link FpduFramingHandler#SEGMENT_SIZE_REFRESH}
     * flushes (when epoll reads it again), and the reference value read from the socket then.
     */
    private static int[] segmentSizesAcrossARefresh(FpduChannel a, java.util.function.ToIntFunction<FpduChannel> reference)
            throws Exception {
        int[] segment = new int[3];
        onLoop(a, () -> {
            segment[0] = a.segmentSize();
            for (int i = 0; i < FpduFramingHandler.SEGMENT_SIZE_REFRESH; i++) {
                a.flush();
            }
            segment[1] = a.segmentSize();
            segment[2] = reference.applyAsInt(a);
        });
        return segment;
    }

    @Test
    void withoutTheSegmentRuleAConnectionKeepsNoSegmentSize() throws Exception {
        // under a congestion control that does not pace (CUBIC) the rule only costs (docs/transport.md)
        Pair pair = largeFpdusOnEpoll("the segment rule needs the send MSS (epoll)", false);
        int[] segment = segmentSizesAcrossARefresh(pair.initiator(), a -> SocketMss.segmentSize(a.nettyChannel()));
        assertThat(segment[2]).as("the socket has a send MSS").isPositive();
        assertThat(segment[0]).as("none at Full Operation: the rule is off").isZero();
        assertThat(segment[1]).as("none after %d flushes either", FpduFramingHandler.SEGMENT_SIZE_REFRESH).isZero();
    }

    /**
     * NIO reports no MSS: the rule cuts by the MTU's segment, at most the kernel's MSS (SocketMss),
     * read once at Full Operation and kept (nothing to read again). Without it the rule was off on NIO
     * and its 4 KiB lists ran at half the speed (docs/transport.md).
     */
    @Test
    void onNioTheSegmentRuleCutsByTheMtusSegment() throws Exception {
        Pair pair = largeFpdus(settings(CrcPolicy.OFF, false), TransportFixture.config().segmentRule(true));
        assumeTrue(pair.initiator().ioTransport() == IoTransport.NIO, "the MTU's segment is NIO's (epoll reads the MSS)");
        int[] segment = segmentSizesAcrossARefresh(pair.initiator(), a -> SocketMss.mtuSegment(a.nettyChannel().localAddress()));
        assertThat(segment[0]).as("at Full Operation").isPositive().isEqualTo(segment[2]);
        assertThat(segment[1]).as("after %d flushes", FpduFramingHandler.SEGMENT_SIZE_REFRESH).isEqualTo(segment[2]);
    }

    @Test
    void theSegmentRuleFollowsTheSocketsSendMssAsTheWindowOpens() throws Exception {
        Pair pair = largeFpdusOnEpoll("the send MSS is read on epoll only");
        FpduChannel a = pair.initiator();
        int[] first = new int[2];
        onLoop(a, () -> {
            first[0] = a.segmentSize();
            first[1] = SocketMss.segmentSize(a.nettyChannel());
        });
        assertThat(first[0]).as("read at Full Operation").isPositive().isEqualTo(first[1]);

        // 4 MiB open the window (Linux holds the MSS to half the peer's largest window), then enough
        // flushes for the next read
        int[] sizes = {4 * 1024 * 1024};
        long total = total(sizes);
        Endpoint receiver = new Endpoint(total, fpduCount(sizes, a.mulpdu()));
        Endpoint sender = new Endpoint(0, 0);
        receiver.start(pair.responder());
        sender.start(a);
        sender.send(pattern(total, 3), sizes);
        await(receiver.done);
        int[] later = new int[2];
        onLoop(a, () -> {
            for (int i = 0; i < FpduFramingHandler.SEGMENT_SIZE_REFRESH; i++) {
                a.flush();
            }
            later[0] = a.segmentSize();
            later[1] = SocketMss.segmentSize(a.nettyChannel());
        });
        assertThat(later[1]).as("loopback's MSS, once the window has grown").isGreaterThan(first[1]);
        assertThat(later[0]).as("read again within %d flushes", FpduFramingHandler.SEGMENT_SIZE_REFRESH)
                .isEqualTo(later[1]);
    }

    @Test
    void aSendFromOnSentDuringASegmentFlushFollowsTheFpduBeingFramed() throws Exception {
        Pair pair = largeFpdusOnEpoll("the segment rule needs the send MSS (epoll)");
        FpduChannel a = pair.initiator();
        int[] segment = new int[1];
        onLoop(a, () -> segment[0] = a.segmentSize());
        // two FPDUs of 5/8 of a segment each: the second one's send writes the first on its own
        int payload = segment[0] * 5 / 8;
        ArrivalEndpoint receiver = new ArrivalEndpoint(3L * payload, 3);
        MemorySegment source = pattern(3L * payload, 5);
        Endpoint sender = new Endpoint(0, 0) {
            @Override
            public void onSent(long token) {
                if (token == 0) {
                    // "post from the completion": the next message, after everything framed before
                    fpdu(2L * payload, -1);
                    channel.flush();
                }
            }

            void fpdu(long to, long token) {
                int h = encoder.taggedHeader(header, 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true, 0x1234, to);
                if (token >= 0) {
                    channel.send(header, 0, h, source, to, payload, token);
                } else {
                    channel.send(header, 0, h, source, to, payload);
                }
            }

            @Override
            void send(MemorySegment source, int[] sizes) {
                onLoop(channel, () -> {
                    fpdu(0, 0);
                    fpdu(payload, 1);   // the segment flush: TCP takes FPDU 0 here
                    channel.flush();
                });
            }
        };
        receiver.start(pair.responder());
        sender.start(a);
        sender.send(source, null);
        await(receiver.done);
        assertThat(receiver.arrivals).as("TOs in arrival order").containsExactly(0L, (long) payload, 2L * payload);
        assertSameBytes(receiver.received, source, 3L * payload);
    }

    @Test
    void smallFpdusGoThroughTheStagingBuffer() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        int[] sizes = {256 * 1024};
        long total = total(sizes);
        PlacingEndpoint receiver = new PlacingEndpoint(total, fpduCount(sizes, pair.initiator().mulpdu()));
        Endpoint sender = new Endpoint(0, 0);
        receiver.start(pair.responder());
        sender.start(pair.initiator());
        MemorySegment data = pattern(total, 8);
        sender.send(data, sizes);
        await(receiver.done);
        assertSameBytes(receiver.received, data, total);
        long[] direct = new long[1];
        onLoop(pair.responder(), () -> direct[0] = pair.responder().bytesPlacedDirect());
        // Below the 8 KiB threshold staging reads are never cut: at most the tail of an FPDU that
        // straddles two reads is read directly.
        assertThat(direct[0]).isLessThan(total / 2);
        System.out.printf("1454-byte FPDUs: %d of %d payload bytes read directly%n", direct[0], total);
    }

    @Test
    void sendsFromHeapSegmentsAndPlacesIntoHeapTargets() throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().emss(TransportConfig.MAX_EMSS).build());
        MpaSettings markers = settings(CrcPolicy.OPTIONAL, true);
        Pair pair = TransportFixture.connect(transport, markers, markers);
        int[] sizes = {1, 70_000, 300_000};
        int total = (int) total(sizes);
        PlacingEndpoint receiver = new PlacingEndpoint(total, fpduCount(sizes, pair.initiator().mulpdu()), true);
        Endpoint sender = new Endpoint(0, 0);
        receiver.start(pair.responder());
        sender.start(pair.initiator());
        MemorySegment data = TransportFixture.heapPattern(total, 5);
        sender.send(data, sizes);
        await(receiver.done);
        assertSameBytes(receiver.received, data, total);
        long[] direct = new long[1];
        onLoop(pair.responder(), () -> direct[0] = pair.responder().bytesPlacedDirect());
        if (transport.ioTransport() == IoTransport.NIO) {
            assertThat(direct[0]).isPositive();     // the JDK reads into a heap buffer through a copy of its own
        } else {
            // epoll reads by address and heap memory has none: the payload comes through the staging buffer
            assertThat(direct[0]).isZero();
        }
    }

    /**
     * Heap pieces up to TxFpdu.HEAP_COPY_LIMIT travel as a copy behind the FPDU's own octets, larger
     * ones as views: sizes on both sides of the limit, CRC on (the CRC covers the copied bytes).
     */
    @ParameterizedTest(name = "markers {0}")
    @ValueSource(booleans = {false, true})
    void smallHeapPayloadsAreCopiedBehindTheHeaderByteForByte(boolean markers) throws Exception {
        int limit = TxFpdu.HEAP_COPY_LIMIT;
        int[] sizes = {0, 1, 7, 8, 64, limit - 1, limit, limit + 1, 1400, 5000, 3};
        sendsByteForByteWithCrc(markers, sizes, TransportFixture.heapPattern((int) total(sizes), 9));
    }

    /**
     * Native payload pieces up to TxFpdu.SMALL_PAYLOAD_COPY_LIMIT travel as a copy laid out in wire
     * order with the FPDU's own octets (one buffer), larger ones as views: sizes on both sides of the
     * limit, CRC on (it covers the copied bytes), with and without markers (which the writer places
     * inside the copied range), over the socket.
     */
    @ParameterizedTest(name = "markers {0}")
    @ValueSource(booleans = {false, true})
    void smallNativePayloadsTravelInOneBufferWithTheHeaderByteForByte(boolean markers) throws Exception {
        int limit = TxFpdu.SMALL_PAYLOAD_COPY_LIMIT;
        int[] sizes = {1, 8, 64, limit - 1, limit, limit + 1, 3, limit, 600, limit - 2, 64, 64, 64, 64, 64, 64, 64};
        sendsByteForByteWithCrc(markers, sizes, pattern(total(sizes), 21));
    }

    /** Sends {@code data} cut into messages of {@code sizes} with CRC on and checks every byte and no fault. */
    private void sendsByteForByteWithCrc(boolean markers, int[] sizes, MemorySegment data) throws Exception {
        MpaSettings crc = settings(CrcPolicy.REQUIRED, markers);
        Pair pair = TransportFixture.connect(transport, crc, crc);
        int total = (int) total(sizes);
        Endpoint receiver = new Endpoint(total, fpduCount(sizes, pair.initiator().mulpdu()));
        Endpoint sender = new Endpoint(0, 0);
        receiver.start(pair.responder());
        sender.start(pair.initiator());
        sender.send(data, sizes);
        await(receiver.done);
        assertSameBytes(receiver.received, data, total);
        assertThat(receiver.fault).isNotDone();
    }

    @Test
    void pausesWhenNotWritableAndResumesOnWritable() throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().writeWaterMarks(8 * 1024, 32 * 1024).build());
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        int[] sizes = {8 * 1024 * 1024};
        long total = total(sizes);
        Endpoint receiver = new Endpoint(total, fpduCount(sizes, pair.initiator().mulpdu()));
        Endpoint sender = new Endpoint(0, 0);
        sender.start(pair.initiator());
        MemorySegment data = pattern(total, 9);
        // The receiver is not started, so nothing is read and the sender must hit the high water mark.
        sender.send(data, sizes);
        assertThat(sender.allSent).isNotDone();
        onLoop(pair.initiator(), () -> assertThat(pair.initiator().isWritable()).isFalse());
        receiver.start(pair.responder());
        await(receiver.done);
        await(sender.allSent);
        assertThat(sender.pauses).isPositive();
        assertSameBytes(receiver.received, data, total);
    }

    /** A connection without markers on epoll, where the framing handler writes directly (skipped elsewhere). */
    private Pair directWritingPair(CrcPolicy crc) throws Exception {
        MpaSettings settings = settings(crc, false);
        Pair pair = TransportFixture.connect(transport, settings, settings);
        assumeTrue(pair.initiator().ioTransport() == IoTransport.EPOLL, "netty writes on NIO");
        return pair;
    }

    @Test
    void writesDirectlyUntilTheSendBufferFillsThenThroughNettyInOrderThenDirectlyAgain() throws Exception {
        // with the segment rule a flush goes out every segment or so, which bounds the queue below;
        // without it (a congestion control that does not pace) one flush queues all 8 MiB of FPDUs
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().segmentRule(true).build());
        Pair pair = directWritingPair(CrcPolicy.OFF);
        FpduChannel a = pair.initiator();
        int[] sizes = {8 * 1024 * 1024, 1024 * 1024};
        long total = total(sizes);
        java.util.concurrent.CompletableFuture<Void> firstArrived = new java.util.concurrent.CompletableFuture<>();
        Endpoint receiver = new Endpoint(total, fpduCount(sizes, a.mulpdu())) {
            @Override
            public void onUlpdu(MemorySegment seg, long offset, int length) {
                super.onUlpdu(seg, offset, length);
                if (bytes >= sizes[0]) {
                    firstArrived.complete(null);
                }
            }
        };
        Endpoint sender = new Endpoint(0, 0);
        sender.start(a);
        MemorySegment data = pattern(total, 11);
        // nothing is read yet: the kernel takes part of the 8 MiB, netty holds the rest
        sender.send(data, new int[] {sizes[0]});
        long[] before = new long[2];
        onLoop(a, () -> {
            before[0] = a.directWriter().writes;
            before[1] = a.directWriter().handedOver;
        });
        assertThat(before[0]).as("direct writes while the kernel took them").isPositive();
        assertThat(before[1]).as("the rest went to netty").isPositive();
        receiver.start(pair.responder());
        await(firstArrived);
        onLoop(a, () -> assertThat(a.nettyChannel().unsafe().outboundBuffer().totalPendingWriteBytes()).isZero());
        sender.send(data, sizes);       // the next message, once netty holds nothing: direct again
        await(receiver.done);
        onLoop(a, () -> {
            assertThat(a.directWriter().writes).as("direct writes after netty drained").isGreaterThan(before[0]);
            assertThat(a.directWriter().queuedBytes()).as("nothing left queued").isZero();
            assertThat(a.directWriter().queueCapacity()).as("the queue starts over after each flush")
                    .isPositive().isLessThanOrEqualTo(64);
        });
        assertSameBytes(receiver.received, data, total);
    }

    @Test
    void whileNettyHoldsBytesTheDirectWriterQueuesBehindThem() throws Exception {
        Pair pair = directWritingPair(CrcPolicy.REQUIRED);   // CRC: the hand-framed FPDU carries one
        FpduChannel a = pair.initiator();
        int payload = 1000;
        ArrivalEndpoint receiver = new ArrivalEndpoint(2L * payload, 2);
        MemorySegment source = pattern(2L * payload, 17);
        Endpoint sender = new Endpoint(0, 0);
        receiver.start(pair.responder());
        sender.start(a);
        // the first FPDU, framed here (CRC, no markers: no stream state) and handed to netty unflushed
        int h = sender.encoder.taggedHeader(sender.header, 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true, 0x1234, 0);
        byte[] ulpdu = new byte[h + payload];
        MemorySegment.copy(sender.header, 0, MemorySegment.ofArray(ulpdu), 0, h);
        MemorySegment.copy(source, 0, MemorySegment.ofArray(ulpdu), h, payload);
        io.jrnic.mpa.FpduWriter raw = new io.jrnic.mpa.FpduWriter(false, true);
        byte[] first = new byte[raw.wireLength(ulpdu.length)];
        raw.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, MemorySegment.ofArray(first), 0);
        onLoop(a, () -> {
            a.nettyChannel().write(io.netty.buffer.Unpooled.wrappedBuffer(first));
            int h2 = sender.encoder.taggedHeader(sender.header, 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true,
                    0x1234, payload);
            a.send(sender.header, 0, h2, source, payload, payload);
            a.flush();
            assertThat(a.directWriter().writes).as("no direct write past the bytes netty holds").isZero();
        });
        await(receiver.done);
        assertThat(receiver.arrivals).as("TOs in arrival order").containsExactly(0L, (long) payload);
        assertSameBytes(receiver.received, source, 2L * payload);
    }

    @Test
    void anFpduOfMoreIovecsThanTheArrayHoldsGrowsItAndIsWrittenDirectly() throws Exception {
        Pair pair = largeFpdus(settings(CrcPolicy.OFF, true));
        FpduChannel a = pair.initiator();
        assumeTrue(a.ioTransport() == IoTransport.EPOLL, "netty writes on NIO");
        int[] initial = new int[1];
        onLoop(a, () -> initial[0] = a.directWriter().iovCapacity());
        // markers every 512 octets: a full FPDU is hundreds of pieces (payload runs, markers)
        int[] sizes = {a.mulpdu() - 14};
        long total = total(sizes);
        Endpoint receiver = new Endpoint(total, fpduCount(sizes, a.mulpdu()));
        Endpoint sender = new Endpoint(0, 0);
        receiver.start(pair.responder());
        sender.start(a);
        // registered-like memory: on epoll only that stays a view (other memory is copied, one piece)
        MemorySegment data = TransportFixture.fill(TestIoTransport.stableMemory(total), total, 19);
        sender.send(data, sizes);
        await(receiver.done);
        onLoop(a, () -> {
            assertThat(a.directWriter().iovCapacity()).as("grown").isGreaterThan(initial[0])
                    .isLessThanOrEqualTo(DirectWriter.IOV_MAX);
            assertThat(a.directWriter().writes).as("written directly").isPositive();
            assertThat(a.directWriter().handedOver).as("not handed to netty").isZero();
        });
        assertSameBytes(receiver.received, data, total);
    }

    @Test
    void anAbortDropsWhatWasFramedButNotFlushedUnreported() throws Exception {
        Pair pair = largeFpdus(settings(CrcPolicy.OFF, false));
        FpduChannel a = pair.initiator();
        java.util.List<Long> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
        Endpoint sender = new Endpoint(0, 0) {
            @Override
            public void onSent(long token) {
                reported.add(token);
            }
        };
        Endpoint receiver = new Endpoint(0, 0);
        sender.start(a);
        receiver.start(pair.responder());
        // above the open message's 16 KiB: a message of its own, in the direct writer's queue on epoll
        // (one: a second would carry the first past half a segment, and the segment rule writes it)
        int payload = 20_000;
        MemorySegment source = TransportFixture.fill(TestIoTransport.stableMemory(payload), payload, 23);
        onLoop(a, () -> {
            int h = sender.encoder.taggedHeader(sender.header, 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true,
                    0x1234, 0);
            a.send(sender.header, 0, h, source, 0, payload, 0);
            a.abort();                         // before any flush: nothing of it goes out
        });
        assertThat(await(sender.closed)).isEqualTo(FpduLink.Closure.LOCAL_ABORT);
        assertThat(await(receiver.closed)).isEqualTo(FpduLink.Closure.REMOTE_RESET);
        assertThat(reported).as("tokens of FPDUs never written").isEmpty();
        assertThat(receiver.fpdus).as("FPDUs the peer received").isZero();
    }

    @Test
    void aListenerSendingFromEverySentCallbackIsWrittenInOrder() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OFF, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        int count = 200;
        int payload = 1000;     // above the small-payload copy: header, view, trailer
        ArrivalEndpoint receiver = new ArrivalEndpoint((long) count * payload, count);
        MemorySegment source = pattern((long) count * payload, 13);
        Endpoint sender = new Endpoint(0, 0) {
            @Override
            public void onSent(long token) {
                if (token + 1 < count) {
                    // each completion posts the next message and flushes, inside the writer's flush
                    fpdu(token + 1);
                    channel.flush();
                }
            }

            void fpdu(long n) {
                long to = n * payload;
                int h = encoder.taggedHeader(header, 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true, 0x1234, to);
                channel.send(header, 0, h, source, to, payload, n);
            }

            @Override
            void send(MemorySegment source, int[] sizes) {
                onLoop(channel, () -> {
                    fpdu(0);
                    channel.flush();
                });
            }
        };
        receiver.start(pair.responder());
        sender.start(pair.initiator());
        sender.send(source, null);
        await(receiver.done);
        java.util.List<Long> expected = new java.util.ArrayList<>();
        for (long n = 0; n < count; n++) {
            expected.add(n * payload);
        }
        assertThat(receiver.arrivals).as("TOs in arrival order").isEqualTo(expected);
        assertSameBytes(receiver.received, source, (long) count * payload);
        FpduChannel a = pair.initiator();
        if (a.ioTransport() == IoTransport.EPOLL) {
            onLoop(a, () -> assertThat(a.directWriter().queuedBytes()).as("nothing left queued").isZero());
        }
    }

    @Test
    void reportsSendCompletionWithTheToken() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        java.util.concurrent.CompletableFuture<Long> sent = new java.util.concurrent.CompletableFuture<>();
        Endpoint receiver = new Endpoint(100, 1);
        receiver.start(pair.responder());
        FpduChannel ch = pair.initiator();
        onLoop(ch, () -> ch.start(new Endpoint(0, 0), new FpduLink.Listener() {
            @Override
            public void onSent(long token) {
                sent.complete(token);
            }

            @Override
            public void onClosed(FpduLink.Closure closure) {
            }
        }));
        MemorySegment data = pattern(100, 3);
        MemorySegment header = Arena.ofAuto().allocate(14);
        new io.jrnic.rdmap.RdmapMessageEncoder(io.jrnic.rdmap.RdmapFeatures.RFC_5040)
                .taggedHeader(header, 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true, 1, 0);
        onLoop(ch, () -> {
            ch.send(header, 0, 14, data, 0, 100, 42L);
            ch.flush();
        });
        assertThat(await(sent)).isEqualTo(42L);
        await(receiver.done);
        assertSameBytes(receiver.received, data, 100);
    }

    @Test
    void countsEveryFpduTheSocketTookAndRunsPeriodicTasksOnItsLoop() throws Exception {
        // the engine's progress timeout (docs/engine.md "Progress timeout"): FPDUs without a token
        // count as outbound progress too, and its check runs on the channel's own event loop
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        java.util.concurrent.CompletableFuture<Long> sent = new java.util.concurrent.CompletableFuture<>();
        Endpoint receiver = new Endpoint(400, 4);
        receiver.start(pair.responder());
        FpduChannel ch = pair.initiator();
        onLoop(ch, () -> ch.start(new Endpoint(0, 0), new FpduLink.Listener() {
            @Override
            public void onSent(long token) {
                sent.complete(ch.fpdusWritten()); // read on the loop, where it is written
            }

            @Override
            public void onClosed(FpduLink.Closure closure) {
            }
        }));
        MemorySegment data = pattern(100, 3);
        MemorySegment header = Arena.ofAuto().allocate(14);
        new io.jrnic.rdmap.RdmapMessageEncoder(io.jrnic.rdmap.RdmapFeatures.RFC_5040)
                .taggedHeader(header, 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true, 1, 0);
        onLoop(ch, () -> {
            assertThat(ch.fpdusWritten()).isZero();
            for (int i = 0; i < 3; i++) {
                ch.send(header, 0, 14, data, 0, 100); // no token
            }
            ch.send(header, 0, 14, data, 0, 100, 7L);
            ch.flush();
        });
        assertThat(await(sent)).as("the three without a token and the one with it").isEqualTo(4L);
        await(receiver.done);

        java.util.concurrent.CountDownLatch runs = new java.util.concurrent.CountDownLatch(3);
        java.util.concurrent.atomic.AtomicBoolean offLoop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CompletableFuture<java.util.concurrent.Future<?>> timer =
                new java.util.concurrent.CompletableFuture<>();
        onLoop(ch, () -> timer.complete(ch.schedulePeriodic(() -> {
            offLoop.compareAndSet(false, !ch.inEventLoop());
            runs.countDown();
        }, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(5))));
        assertThat(runs.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("runs again and again").isTrue();
        assertThat(await(timer).cancel(false)).isTrue();
        assertThat(offLoop).as("every run on the channel's loop").isFalse();
    }

    @Test
    void refusesUlpdusAboveMulpduAndOffLoopUse() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        FpduChannel ch = pair.initiator();
        MemorySegment big = Arena.ofAuto().allocate(ch.mulpdu() + 1);
        onLoop(ch, () -> assertThatThrownBy(() -> ch.send(big, 0, 0, big, 0, ch.mulpdu() + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MULPDU " + ch.mulpdu()));
        assertThatThrownBy(() -> ch.send(big, 0, 0, big, 0, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("off its event loop");
        assertThatThrownBy(ch::flush).isInstanceOf(IllegalStateException.class);
    }

    /**
     * The channel is the engine's {@link FpduLink} with no adapter: the first MSNs it reports are
     * those the RTR left (RFC 6581 §9.3), which the engine primes its MSN counters from.
     */
    @ParameterizedTest
    @EnumSource(RtrForm.class)
    void asTheEnginesLinkReportsTheMsnsTheRtrConsumed(RtrForm form) throws Exception {
        Pair pair = TransportFixture.connect(transport, MpaSettings.builder().rtrForms(form).build(),
                MpaSettings.builder().build());
        FpduLink i = pair.initiator();
        FpduLink r = pair.responder();
        int send = form == RtrForm.SEND ? 2 : 1;
        int read = form == RtrForm.READ ? 2 : 1;
        assertThat(new int[] {i.firstOutboundSendMsn(), i.firstOutboundReadRequestMsn(), i.firstInboundSendMsn(),
                i.firstInboundReadRequestMsn()}).containsExactly(send, read, 1, 1);
        assertThat(new int[] {r.firstOutboundSendMsn(), r.firstOutboundReadRequestMsn(), r.firstInboundSendMsn(),
                r.firstInboundReadRequestMsn()}).containsExactly(1, 1, send, read);
        assertThat(i.mulpdu()).isEqualTo(pair.initiator().info().mulpdu());
        assertThat(i.executor()).isSameAs(pair.initiator().executor());
    }

    /**
     * Graceful receive overflow is the channel's setting (V-WRP-65): off by default, so a Send
     * without a receive WQE terminates the stream (RFC 5040 §5.3), and set per channel. Pausing and
     * resuming reception belong to the event loop like the rest of the data path.
     */
    @Test
    void gracefulReceiveOverflowIsOffUntilSetAndPausingIsEventLoopOnly_V_WRP_65() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        FpduChannel a = pair.initiator();
        FpduChannel b = pair.responder();
        assertThat(a.gracefulReceiveOverflow()).isFalse();
        assertThat(b.gracefulReceiveOverflow()).isFalse();
        b.gracefulReceiveOverflow(true);
        assertThat(b.gracefulReceiveOverflow()).isTrue();
        assertThat(a.gracefulReceiveOverflow()).isFalse();
        b.gracefulReceiveOverflow(false);
        assertThat(b.gracefulReceiveOverflow()).isFalse();
        assertThatThrownBy(a::pauseReceive).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("off its event loop");
        assertThatThrownBy(a::resumeReceive).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("off its event loop");
    }

    @Test
    void gracefulCloseDeliversPendingDataThenFin_V_CM_10() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        int[] sizes = {300_000};
        Endpoint receiver = new Endpoint(300_000, fpduCount(sizes, pair.initiator().mulpdu()));
        Endpoint sender = new Endpoint(0, 0);
        receiver.start(pair.responder());
        sender.start(pair.initiator());
        MemorySegment data = pattern(300_000, 4);
        sender.send(data, sizes);
        pair.initiator().close();          // queued behind the FPDUs: they all go out first
        assertThat(await(sender.closed)).isEqualTo(FpduLink.Closure.LOCAL_CLOSE);
        assertThat(await(receiver.closed)).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        await(receiver.done);
        assertSameBytes(receiver.received, data, 300_000);
        // Exactly once, also after a second close from either side.
        pair.initiator().close();
        pair.responder().close();
        onLoop(pair.initiator(), () -> { });
        onLoop(pair.responder(), () -> { });
        assertThat(sender.closedCalls).isEqualTo(1);
        assertThat(receiver.closedCalls).isEqualTo(1);
        assertThat(pair.initiator().isOpen()).isFalse();
    }

    @Test
    void abortiveCloseResetsThePeer_V_CM_12() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        Endpoint a = new Endpoint(0, 0);
        Endpoint b = new Endpoint(0, 0);
        a.start(pair.initiator());
        b.start(pair.responder());
        pair.initiator().abort();
        assertThat(await(a.closed)).isEqualTo(FpduLink.Closure.LOCAL_ABORT);
        assertThat(await(b.closed)).isEqualTo(FpduLink.Closure.REMOTE_RESET);
        pair.initiator().abort();
        onLoop(pair.responder(), () -> { });
        assertThat(a.closedCalls).isEqualTo(1);
        assertThat(b.closedCalls).isEqualTo(1);
    }

    @Test
    void finBeforeStartIsSeenAtStart() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        Endpoint a = new Endpoint(0, 0);
        a.start(pair.initiator());
        pair.initiator().close();
        Endpoint b = new Endpoint(0, 0);
        // The responder reads nothing before start(); then it sees the FIN and answers with its own.
        b.start(pair.responder());
        assertThat(await(b.closed)).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        assertThat(await(a.closed)).isEqualTo(FpduLink.Closure.LOCAL_CLOSE);
    }

    @Test
    void closedBeforeStartIsReportedAtStart() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        pair.responder().abort();
        onLoop(pair.responder(), () -> { });     // the close and its inactive event have run
        assertThat(pair.responder().isOpen()).isFalse();
        Endpoint b = new Endpoint(0, 0);
        b.start(pair.responder());
        assertThat(b.closed).isCompletedWithValue(FpduLink.Closure.LOCAL_ABORT);
    }

    @Test
    void transportCloseClosesLiveChannels() throws Exception {
        MpaSettings plain = settings(CrcPolicy.OPTIONAL, false);
        Pair pair = TransportFixture.connect(transport, plain, plain);
        Endpoint a = new Endpoint(0, 0);
        Endpoint b = new Endpoint(0, 0);
        a.start(pair.initiator());
        b.start(pair.responder());
        transport.close();
        assertThat(await(a.closed)).isEqualTo(FpduLink.Closure.TRANSPORT_CLOSED);
        assertThat(await(b.closed)).isEqualTo(FpduLink.Closure.TRANSPORT_CLOSED);
        assertThat(transport.isClosed()).isTrue();
        assertThatThrownBy(() -> transport.listen(LOOPBACK, MpaSettings.defaults(), r -> { }))
                .isInstanceOf(IllegalStateException.class);
    }

    /**
     * {@link ReadStaging}: six connection ends on one event loop stream at once in both directions,
     * FPDUs of every size split across reads, CRCs and markers on; every byte arrives where it
     * belongs, and the loop has one staging area.
     */
    @Test
    void connectionsOfOneLoopShareItsStagingAndStreamAtOnceByteForByte() throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().eventLoopThreads(1).build());
        MpaSettings settings = MpaSettings.builder().crcPolicy(CrcPolicy.OPTIONAL).requestMarkers(true).build();
        long bytes = total(STAGING_SIZES);
        List<Endpoint> ends = new ArrayList<>();
        List<MemorySegment> data = new ArrayList<>();
        for (int i = 0; i < STAGING_PAIRS; i++) {
            Pair pair = TransportFixture.connect(transport, settings, settings);
            // each end sends STAGING_SIZES and expects the other end's STAGING_SIZES
            Endpoint a = new Endpoint(bytes, fpduCount(STAGING_SIZES, pair.responder().mulpdu()));
            Endpoint b = new Endpoint(bytes, fpduCount(STAGING_SIZES, pair.initiator().mulpdu()));
            a.start(pair.initiator());
            b.start(pair.responder());
            ends.add(a);
            ends.add(b);
            data.add(pattern(bytes, 2L * i + 1));
            data.add(pattern(bytes, 2L * i + 2));
        }
        for (int e = 0; e < ends.size(); e++) {
            ends.get(e).send(data.get(e), STAGING_SIZES);
        }
        for (Endpoint end : ends) {
            await(end.done);
        }
        for (int e = 0; e < ends.size(); e++) {
            Endpoint peer = ends.get(e ^ 1); // the other end of the same connection
            assertSameBytes(peer.received, data.get(e), bytes);
            assertThat(peer.fault).isNotDone();
        }
        assertThat(transport.stagingAreas()).as("one staging area for the loop's six connection ends").isEqualTo(1);
    }
}
