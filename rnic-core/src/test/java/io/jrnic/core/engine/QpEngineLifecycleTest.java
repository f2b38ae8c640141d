package io.jrnic.core.engine;

import io.jrnic.api.TerminateMessage;
import io.jrnic.api.internal.CounterLayout;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.FpduHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's life around the data path, on its own (issue 13): what it accepts when built and
 * started, what it reports before its QP is attached, the Terminate of a code no registry names,
 * and how long Close RNIC waits for a Terminate's graceful close. One {@link QpEngine} on side A of
 * a {@link MemoryLinkPair} run on the test's thread ({@link MemoryLinkPair#onCallerThread}: nothing
 * runs until the test settles it), a raw peer on side B that records the ULPDUs it receives.
 */
class QpEngineLifecycleTest {
    private static final HexFormat HEX = HexFormat.of();
    /** The untagged DDP/RDMAP header of every Terminate: QN 2, MSN 1, MO 0 (RFC 5040 §4.8, R-TERM-020). */
    private static final String TERMINATE_HEADER = "4147" + "00000000" + "00000002" + "00000001" + "00000000";

    private final FakeRnic mem = new FakeRnic();
    private final MemoryLinkPair link = MemoryLinkPair.onCallerThread(MemoryLinkPair.Options.defaults());
    private final FakeQpContext context = new FakeQpContext(7, mem.pd(), mem.table);
    private final RecordingUpcalls upcalls = new RecordingUpcalls(context.pd);
    private final RawPeer peer = new RawPeer();
    /** Side A as the engines see it: counts the link's aborts. */
    private final SteppedLink a = new SteppedLink(link.a);

    /** The peer side: records whole ULPDUs and its closure. */
    private static final class RawPeer implements FpduHandler, FpduLink.Listener {
        final List<byte[]> received = new CopyOnWriteArrayList<>();
        volatile FpduLink.Closure closure;

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            received.add(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
        }

        @Override
        public void onError(DeframeFault fault) {
            throw new AssertionError("the peer could not deframe: " + fault);
        }

        @Override
        public void onWritable() {
        }

        @Override
        public void onSent(long token) {
        }

        @Override
        public void onClosed(FpduLink.Closure c) {
            closure = c;
        }
    }

    @AfterEach
    void tearDown() {
        link.close();
        mem.close();
    }

    private QpEngine started(Duration closeTimeout) {
        QpEngine engine = new QpEngine(a, closeTimeout, Duration.ZERO);
        upcalls.engine = engine;
        link.b.executor().execute(() -> link.b.start(peer, peer));
        engine.start(context, upcalls, null);
        link.settle();
        return engine;
    }

    @Test
    void anEngineNeedsALinkAndAProgressTimeoutOfZeroOrMore() {
        assertThatThrownBy(() -> new QpEngine(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new QpEngine(link.a, Duration.ofSeconds(1), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new QpEngine(link.a, Duration.ofSeconds(1), Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        QpEngine none = new QpEngine(link.a, Duration.ofSeconds(1), Duration.ZERO);
        assertThat(none.established()).isTrue();
        assertThat(none.link).isSameAs(link.a);
        assertThat(none.executor).isSameAs(link.a.executor());
    }

    @Test
    void startNeedsTheQpsContextAndUpcallsAndHappensOnce() {
        QpEngine engine = new QpEngine(link.a);
        assertThatThrownBy(() -> engine.start(null, upcalls, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.start(context, null, null)).isInstanceOf(IllegalArgumentException.class);
        engine.start(context, upcalls, null);
        assertThatThrownBy(() -> engine.start(context, upcalls, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void beforeItsQpIsAttachedTheEngineHasNothingInProgress() {
        QpEngine engine = new QpEngine(link.a);
        assertThat(engine.remoteReadsInProgress()).isFalse();
        assertThat(engine.bytesCopied()).isZero();
        assertThat(engine.bytesPlacedDirect()).isZero();
        assertThat(engine.linkEnded()).isFalse();
        assertThat(engine.driver()).as("a thread-owned loop cannot be driven").isNull();
        engine.receivePosted(); // a receive posted before the start has nothing to wake
        engine.progress();
        assertThat(engine.toString()).isEqualTo("QpEngine[unbound]");
        engine.start(context, upcalls, null);
        assertThat(engine.toString()).isEqualTo("QpEngine[fake QP 7]");
    }

    /**
     * A Terminate code the registries (RFC 6580 §3) do not name, e.g. a Verbs-only value, still goes
     * on the wire with the QP's Layer, Error Type and Error Code (RFC 5040 §4.8); a layer value that
     * is no layer is sent as RDMAP's. No header is copied: the error is not in an inbound segment.
     */
    @Test
    void aTerminateCodeNoRegistryNamesIsSentAsItIs_RFC_5040_4_8() {
        QpEngine engine = started(Duration.ofSeconds(10));
        engine.terminate(new TerminateMessage(0x12FE, true, null));
        link.settle();
        assertThat(peer.received).hasSize(1);
        assertThat(HEX.formatHex(peer.received.getFirst())).isEqualTo(TERMINATE_HEADER + "12fe0000");
        assertThat(upcalls.names()).containsExactly("closeCompleted");
        // counted as one Terminate message of 4 RDMAP bytes in one FPDU (docs/observability.md)
        QpCounters c = context.counters;
        int terminate = io.jrnic.api.MessageType.TERMINATE.ordinal();
        assertThat(c.get(CounterLayout.TERMINATES_SENT)).isEqualTo(1);
        assertThat(c.get(CounterLayout.MESSAGES_SENT + terminate)).isEqualTo(1);
        assertThat(c.get(CounterLayout.BYTES_SENT + terminate)).isEqualTo(4);
        assertThat(c.get(CounterLayout.FPDUS_SENT)).isEqualTo(1);
        assertThat(c.get(CounterLayout.TERMINATES_RECEIVED)).isZero();

        QpEngine.RawError noLayer = new QpEngine.RawError(0x72FE);
        assertThat(noLayer.layer()).isEqualTo(io.jrnic.wire.TerminateLayer.RDMAP);
        assertThat(new QpEngine.RawError(0x22FE).layer()).isEqualTo(io.jrnic.wire.TerminateLayer.LLP);
        assertThat(noLayer.errorType()).isEqualTo(2);
        assertThat(noLayer.errorCode()).isEqualTo(0xFE);
        assertThat(noLayer.describe()).isEqualTo("Terminate code 0x72fe");
        assertThat(engine.errorFor(0x12FE)).isEqualTo(new QpEngine.RawError(0x12FE));
        assertThat(engine.errorFor(0x0103)).isEqualTo(io.jrnic.rdmap.RdmapError.STAG_NOT_ASSOCIATED);
    }

    /**
     * A Terminate from the peer (RFC 5040 §5.4) is counted and reported once, with its code and
     * headers as received, and never answered (R-TERM-048); nothing counts it as sent.
     */
    @Test
    void aReceivedTerminateIsCountedAndReportedOnce_R_TERM_023() {
        QpEngine engine = started(Duration.ofSeconds(10));
        byte[] terminate = HEX.parseHex(TERMINATE_HEADER + "02050000");
        link.b.inject(terminate);
        link.settle();
        assertThat(upcalls.names()).containsExactly("terminateReceived");
        TerminateMessage m = upcalls.first("terminateReceived").message();
        assertThat(m.terminateControl()).isEqualTo(0x0205);
        assertThat(m.locallyGenerated()).isFalse();
        assertThat(context.counters.get(CounterLayout.TERMINATES_RECEIVED)).isEqualTo(1);
        assertThat(context.counters.get(CounterLayout.TERMINATES_SENT)).isZero();
        assertThat(context.counters.get(CounterLayout.MESSAGES_RECEIVED
                + io.jrnic.api.MessageType.TERMINATE.ordinal())).isEqualTo(1);
        assertThat(peer.received).as("never answered").isEmpty();
        assertThat(engine.established()).isTrue();
    }

    /**
     * A Terminate that fails its own validation (MSN 5 on queue 2, where only MSN 1 can be: RFC 5040
     * §5.4, §7.1) is still the peer's last message: it is counted as a received Terminate and
     * recorded as io.jrnic.TerminateReceived with what it failed, reported once with that error's
     * event, and never answered (R-TERM-048).
     */
    @Test
    void anInvalidTerminateIsCountedRecordedAndNotAnswered_R_TERM_048() throws Exception {
        try (io.jrnic.core.JfrCapture jfr = new io.jrnic.core.JfrCapture()) {
            started(Duration.ofSeconds(10));
            link.b.inject(HEX.parseHex("4147" + "00000000" + "00000002" + "00000005" + "00000000" + "02050000"));
            link.settle();
            assertThat(upcalls.names()).containsExactly("terminateReceived");
            assertThat(upcalls.first("terminateReceived").event())
                    .isNotEqualTo(io.jrnic.api.AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
            assertThat(context.counters.get(CounterLayout.TERMINATES_RECEIVED)).isEqualTo(1);
            assertThat(peer.received).as("never answered").isEmpty();
            var received = jfr.events("io.jrnic.TerminateReceived", e -> e.getInt("qp") == 7);
            assertThat(received).hasSize(1);
            assertThat(received.getFirst().getString("validationError")).isNotBlank();
        }
    }

    /** A tagged RDMA Write of 4 bytes to an STag nobody registered: DDP 1/1/0x00 Invalid STag (RFC 5041 §7.2). */
    private static byte[] writeToUnknownStag() {
        return HEX.parseHex("c140" + "00004401" + "0000000000001000" + "01020304");
    }

    /**
     * The Terminate carries the failed segment's headers only when its error is the one latched for
     * that segment (RFC 5040 §4.8, §7.1): the QP hands back the latched message and the DDP header
     * goes with it; a QP that terminates with another code (its own, Verbs §6.2.3) sends no header.
     */
    @Test
    void theFailedSegmentsHeaderGoesOnlyWithItsOwnError_RFC_5040_4_8() {
        QpEngine engine = started(Duration.ofSeconds(10));
        byte[] write = writeToUnknownStag();
        link.b.inject(write);
        link.settle();
        assertThat(upcalls.names()).containsExactly("remoteError");
        TerminateMessage latched = upcalls.first("remoteError").message();
        assertThat(latched.terminateControl()).isEqualTo(0x1100);
        engine.terminate(new TerminateMessage(0x0205, true, null)); // not the latched error
        link.settle();
        assertThat(peer.received).hasSize(1);
        assertThat(HEX.formatHex(peer.received.getFirst())).isEqualTo(TERMINATE_HEADER + "02050000");
    }

    @Test
    void theLatchedErrorsTerminateCarriesTheFailedDdpHeader_RFC_5040_4_8() {
        QpEngine engine = started(Duration.ofSeconds(10));
        byte[] write = writeToUnknownStag();
        link.b.inject(write);
        link.settle();
        engine.terminate(upcalls.first("remoteError").message());
        link.settle();
        assertThat(peer.received).hasSize(1);
        // DDP layer, Invalid STag; M=1 D=1 R=0; the segment length field (its 4 payload bytes, as
        // TerminateLatch defines it) and its 14-byte DDP header
        assertThat(HEX.formatHex(peer.received.getFirst())).isEqualTo(
                TERMINATE_HEADER + "1100c000" + "0004" + HEX.formatHex(write, 0, 14));
    }

    /**
     * A reset (Destroy QP, Modify to Error) that overtakes a Terminate the QP generated does not drop
     * it (RFC 5040 §6.2.1, issue 9 item 2): the Terminate goes out first, then a graceful close,
     * not an RST; the engine reports nothing more (Verbs §6.1.4: the QP is gone).
     */
    @Test
    void aResetRightAfterATerminateStillDeliversTheTerminate_R_TERM_034() {
        QpEngine engine = started(Duration.ofSeconds(10));
        engine.terminate(new TerminateMessage(0x0205, true, null));
        engine.reset(); // before the engine's turn
        assertThat(engine.established()).isFalse();
        link.settle();
        assertThat(peer.received).hasSize(1);
        assertThat(HEX.formatHex(peer.received.getFirst())).isEqualTo(TERMINATE_HEADER + "02050000");
        assertThat(peer.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        assertThat(upcalls.calls).isEmpty();
        assertThat(engine.linkEnded()).isTrue();
        assertThat(a.aborts).as("no RST behind the Terminate").isZero();
    }

    @Test
    void aResetWithoutATerminateIsAnAbortAndReportsNothing_V_QPS_39() {
        QpEngine engine = started(Duration.ofSeconds(10));
        engine.reset();
        link.settle();
        assertThat(peer.received).isEmpty();
        assertThat(peer.closure).isEqualTo(FpduLink.Closure.REMOTE_RESET);
        assertThat(upcalls.calls).isEmpty();
        assertThat(a.aborts).isEqualTo(1);
    }

    @Test
    void aResetBeforeTheEngineRanAbortsTheLinkUnlessATerminateWaits() {
        QpEngine engine = new QpEngine(a);
        link.b.executor().execute(() -> link.b.start(peer, peer));
        engine.start(context, upcalls, null);
        engine.reset(); // the start on the loop has not run yet
        link.settle();
        assertThat(peer.closure).isEqualTo(FpduLink.Closure.REMOTE_RESET);
        assertThat(peer.received).isEmpty();
        assertThat(upcalls.calls).isEmpty();
        assertThat(engine.established()).isFalse();
    }

    @Test
    void aTerminateRequestedBeforeTheEngineRanGoesOutEvenIfAResetFollows() {
        QpEngine engine = new QpEngine(a);
        upcalls.engine = engine;
        link.b.executor().execute(() -> link.b.start(peer, peer));
        engine.start(context, upcalls, null);
        engine.terminate(new TerminateMessage(0x0205, true, null));
        engine.reset();
        link.settle();
        assertThat(peer.received).hasSize(1);
        assertThat(HEX.formatHex(peer.received.getFirst())).isEqualTo(TERMINATE_HEADER + "02050000");
        assertThat(peer.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        assertThat(upcalls.calls).isEmpty();
        assertThat(a.aborts).isZero();
    }

    /** A Terminate asked for after the peer closed the connection has no stream to go on: the close ends. */
    @Test
    void aTerminateAfterThePeersCloseSendsNothingAndCompletesTheClose() {
        QpEngine engine = started(Duration.ofSeconds(10));
        link.b.close();
        link.settle();
        assertThat(upcalls.names()).containsExactly("remoteClosed"); // Verbs §6.2.2.2
        engine.terminate(new TerminateMessage(0x0205, true, null));
        link.settle();
        assertThat(upcalls.names()).containsExactly("remoteClosed", "closeCompleted");
        assertThat(peer.received).isEmpty();
        assertThat(context.counters.get(CounterLayout.TERMINATES_SENT)).isZero();
    }

    /**
     * The peer's FIN that crosses our own close request (Verbs §6.2.3) ends that close: the QP hears
     * the close completed, not a remote close it would answer (Verbs §6.2.2.2 is for a FIN we did not
     * ask for), and nothing is sent.
     */
    @Test
    void thePeersFinCrossingOurCloseRequestCompletesTheClose() {
        QpEngine engine = started(Duration.ofSeconds(10));
        link.b.close(); // the peer's FIN reaches us in a later task of the loop ...
        link.a.executor().execute(engine::close); // ... after our close was requested, before it was served
        link.settle();
        assertThat(upcalls.names()).containsExactly("closeCompleted");
        assertThat(peer.received).isEmpty();
        assertThat(engine.linkEnded()).isTrue();
    }

    /**
     * RFC 5040 §5.4: once this side sent its Terminate, nothing more of the stream is processed. A
     * Write the peer sent before it read our Terminate and FIN reaches a QP that is only closing (the
     * link is not closed yet): it is not placed, and nothing but the close is reported. The
     * Terminate is recorded once as io.jrnic.TerminateSent (docs/observability.md).
     */
    @Test
    void afterOurTerminateAWriteStillArrivingIsNotPlaced_RFC_5040_5_4() throws Exception {
        try (io.jrnic.core.JfrCapture jfr = new io.jrnic.core.JfrCapture()) {
            QpEngine engine = started(Duration.ofSeconds(10));
            MemorySegment memory = mem.memory(1);
            io.jrnic.api.MemoryRegion mr = context.pd.registerMemory(memory,
                    io.jrnic.api.AccessRights.LOCAL_WRITE | io.jrnic.api.AccessRights.REMOTE_WRITE);
            byte[] write = new byte[14 + 8];
            int n = new io.jrnic.rdmap.RdmapMessageEncoder(io.jrnic.rdmap.RdmapFeatures.RFC_5040).taggedHeader(
                    MemorySegment.ofArray(write), 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true, mr.stag(),
                    mr.query().baseTo());
            java.util.Arrays.fill(write, n, write.length, (byte) 0x5A);
            engine.terminate(new TerminateMessage(0x0205, true, null));
            link.b.inject(write); // queued behind the engine's run: it crosses our Terminate and FIN
            link.settle();
            assertThat(peer.received).hasSize(1); // the Terminate
            assertThat(memory.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
            assertThat(upcalls.names()).containsExactly("closeCompleted");
            var sent = jfr.events("io.jrnic.TerminateSent", e -> e.getInt("qp") == 7);
            assertThat(sent).hasSize(1);
            assertThat(sent.getFirst().getInt("terminateControl")).isEqualTo(0x0205);
        }
    }

    /**
     * A Terminate the QP asks for before the engine started (the transport may be called from any
     * thread at any time) is sent as soon as the engine starts on its loop.
     */
    @Test
    void aTerminateAskedBeforeTheStartGoesOutWhenTheEngineStarts() {
        QpEngine engine = new QpEngine(a, Duration.ofSeconds(10), Duration.ZERO);
        upcalls.engine = engine;
        link.b.executor().execute(() -> link.b.start(peer, peer));
        engine.terminate(new TerminateMessage(0x12FE, true, null));
        link.settle(); // the engine's run finds it not started: nothing yet
        assertThat(peer.received).isEmpty();
        engine.start(context, upcalls, null);
        link.settle();
        assertThat(peer.received).hasSize(1);
        assertThat(HEX.formatHex(peer.received.getFirst())).isEqualTo(TERMINATE_HEADER + "12fe0000");
    }

    /**
     * Close RNIC after a Terminate (R-TERM-034, issue 9 item 2): {@link QpEngine#awaitTerminateClose}
     * waits while the Terminate's graceful close is under way and returns when the link closed; it
     * does not wait at all for a QP that generated no Terminate.
     */
    @Test
    void closeRnicWaitsForTheTerminatesCloseAndOnlyThen_R_TERM_034() throws Exception {
        QpEngine engine = started(Duration.ofHours(1));
        CompletableFuture.runAsync(engine::awaitTerminateClose).get(10, TimeUnit.SECONDS); // no Terminate: no wait
        assertThat(engine.linkEnded()).isFalse();

        engine.terminate(new TerminateMessage(0x0205, true, null)); // nothing runs until the test settles
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(engine::awaitTerminateClose);
        assertThatThrownBy(() -> waiting.get(200, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        link.settle(); // the Terminate, the FIN, the peer's FIN: the link closed
        assertThat(engine.linkEnded()).isTrue();
        waiting.get(10, TimeUnit.SECONDS);
        assertThat(peer.received).hasSize(1);
        assertThat(context.terminateClosing.get()).isEqualTo(1);
        assertThat(context.terminateClosed.get()).isEqualTo(1);
    }
}
