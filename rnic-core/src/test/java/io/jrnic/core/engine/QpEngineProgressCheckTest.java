package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.internal.CounterLayout;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The progress timeout's check (issue 13, docs/engine.md "Progress timeout") step by step: the
 * engine's periodic timer is captured instead of run by a clock, and the test runs each check
 * itself on the (caller-thread) loop. With a timeout of one nanosecond, a check that sees no
 * progress since the previous one while work is outstanding reports the connection lost; anything
 * that counts as progress, or the absence of outstanding work, or a close under way restarts the
 * clock. The timed end-to-end cases are EngineProgressTimeoutTest and transport.ProgressTimeoutTest.
 */
class QpEngineProgressCheckTest {
    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;

    private final FakeRnic mem = new FakeRnic();
    private final MemoryLinkPair pair = MemoryLinkPair.onCallerThread(MemoryLinkPair.Options.defaults());
    private final SteppedLink link = new SteppedLink(pair.a);
    private final FakeQpContext context = new FakeQpContext(3, mem.pd(), mem.table);
    private final RecordingUpcalls upcalls = new RecordingUpcalls(context.pd);
    private final Peer peer = new Peer();
    private QpEngine engine;

    /** Side B: a peer that answers nothing and records its closure. */
    private static final class Peer implements FpduHandler, FpduLink.Listener {
        volatile FpduLink.Closure closure;
        int received;

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            received++;
        }

        @Override
        public void onError(DeframeFault fault) {
            throw new AssertionError("the peer could not deframe: " + fault);
        }

        @Override
        public void onClosed(FpduLink.Closure c) {
            closure = c;
        }
    }

    @AfterEach
    void tearDown() {
        pair.close();
        mem.close();
    }

    private void start(Duration progressTimeout) {
        engine = new QpEngine(link, Duration.ofSeconds(10), progressTimeout);
        upcalls.engine = engine;
        pair.b.executor().execute(() -> pair.b.start(peer, peer));
        engine.start(context, upcalls, null);
        pair.settle();
    }

    /** One run of the progress check on the loop, then whatever it started. */
    private void check() {
        pair.a.executor().execute(link.timerTask);
        pair.settle();
    }

    private boolean lost() {
        return upcalls.names().contains("connectionFailed(lost)");
    }

    private static SendWqe wqe(SendWorkRequest wr) {
        SendWqe w = new SendWqe(4, 64);
        w.copyFrom(wr, true);
        w.inFlight = true;
        return w;
    }

    private MemoryRegion region() {
        return context.pd.registerMemory(mem.memory(1), RIGHTS);
    }

    /** A Read of 64 bytes from a peer that never answers: the ORD holds it (work outstanding). */
    private void readNeverAnswered() {
        MemoryRegion sink = region();
        engine.transmit(wqe(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ)
                .sge(sink.stag(), sink.query().baseTo(), 64).remote(0x4201, 0x9000)));
        pair.settle();
        assertThat(peer.received).isEqualTo(1);
    }

    private void assertLostOnce() {
        assertLostOnce(1);
    }

    /** Lost, reported once, and the peer got nothing more than {@code fpdus} FPDUs before the reset. */
    private void assertLostOnce(int fpdus) {
        assertThat(upcalls.names()).containsExactly("connectionFailed(lost)");
        assertThat(peer.closure).as("reset, no Terminate, no FIN").isEqualTo(FpduLink.Closure.REMOTE_RESET);
        assertThat(peer.received).as("nothing after the last FPDU").isEqualTo(fpdus);
        assertThat(context.counters.get(CounterLayout.PROGRESS_TIMEOUTS)).isEqualTo(1);
        assertThat(link.timer.isCancelled()).isTrue();
        assertThat(engine.established()).isFalse();
    }

    @Test
    void theCheckRunsFourTimesPerTimeoutAndNoTimerRunsWithoutATimeout() {
        start(Duration.ofMillis(400));
        assertThat(link.timers).isEqualTo(1);
        assertThat(link.timerPeriod).isEqualTo(100_000_000L);
        QpEngine shortest = new QpEngine(link, Duration.ofSeconds(10), Duration.ofNanos(3));
        shortest.start(new FakeQpContext(4, context.pd, mem.table), new RecordingUpcalls(context.pd), null);
        pair.settle();
        assertThat(link.timers).isEqualTo(2);
        assertThat(link.timerPeriod).as("never a period of 0").isEqualTo(1);
        QpEngine none = new QpEngine(link, Duration.ofSeconds(10), Duration.ZERO);
        none.start(new FakeQpContext(5, context.pd, mem.table), new RecordingUpcalls(context.pd), null);
        pair.settle();
        assertThat(link.timers).as("progress timeout 0: no timer").isEqualTo(2);
    }

    @Test
    void aReadNeverAnsweredIsALostConnectionAtTheFirstCheckWithoutProgress_RFC_5040_6_2_1() {
        start(Duration.ofNanos(1));
        readNeverAnswered();
        check(); // sees the Read Request go out: progress
        assertThat(upcalls.calls).isEmpty();
        check(); // nothing moved since, and the Read is outstanding
        assertLostOnce();
        check(); // the engine is dead: reported once
        assertLostOnce();
    }

    @Test
    void anIdleConnectionNeverTimesOut() {
        start(Duration.ofNanos(1));
        for (int i = 0; i < 4; i++) {
            check();
        }
        assertThat(upcalls.calls).isEmpty();
        assertThat(link.timer.isCancelled()).isFalse();
        assertThat(context.counters.get(CounterLayout.PROGRESS_TIMEOUTS)).isZero();
    }

    @Test
    void aLongTimeoutIsNotReachedByAFewChecks() {
        start(Duration.ofHours(1));
        readNeverAnswered();
        for (int i = 0; i < 4; i++) {
            check();
        }
        assertThat(upcalls.calls).isEmpty();
        assertThat(link.timer.isCancelled()).isFalse();
    }

    @Test
    void everySignOfProgressRestartsTheClock() {
        start(Duration.ofNanos(1));
        readNeverAnswered();
        check();
        link.fpdusWritten++; // the LLP took an FPDU whole
        check();
        link.listener.onWritable(); // the link's window opened
        check();
        link.listener.onSent(-1); // the link reported an FPDU handed over
        check();
        // an FPDU received: a zero-length Read Request of the peer (RFC 5040 §5.2.1, R-READ-023)
        byte[] rr = new byte[RdmapMessageEncoder.READ_REQUEST_LENGTH];
        new RdmapMessageEncoder(RdmapFeatures.RFC_5040).readRequest(MemorySegment.ofArray(rr), 0, 1, 0x77, 0, 0, 0, 0);
        pair.b.inject(rr);
        pair.settle();
        assertThat(context.counters.get(CounterLayout.FPDUS_RECEIVED)).isEqualTo(1);
        check();
        MemoryRegion src = region();
        engine.transmit(wqe(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE)
                .sge(src.stag(), src.query().baseTo(), 8).remote(0x4301, 0)));
        pair.settle(); // a WQE taken in (and its FPDU)
        check();
        assertThat(upcalls.names()).as("only the Write's completion").containsExactly("sendCompleted");
        upcalls.calls.clear();
        check(); // and now nothing moved
        assertLostOnce(3); // the Read Request, the Read Response, the Write
    }

    @Test
    void aWriteWhoseLastFpduTheLinkNeverReportedIsOutstanding() {
        start(Duration.ofNanos(1));
        link.withholdOnSent = true;
        MemoryRegion src = region();
        engine.transmit(wqe(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_WRITE)
                .sge(src.stag(), src.query().baseTo(), 8).remote(0x4301, 0)));
        pair.settle();
        check();
        assertThat(upcalls.calls).isEmpty();
        check();
        assertThat(upcalls.names()).containsExactly("connectionFailed(lost)");
        assertThat(context.counters.get(CounterLayout.PROGRESS_TIMEOUTS)).isEqualTo(1);
    }

    @Test
    void aCloseUnderWayIsBoundedByTheCloseTimeoutNotTheProgressTimeout() {
        start(Duration.ofNanos(1));
        readNeverAnswered();
        check();
        engine.close(); // requested, not yet served (nothing runs until the loop does)
        link.timerTask.run(); // the check runs first on the loop
        assertThat(upcalls.calls).isEmpty();
        link.timerTask.run();
        assertThat(upcalls.calls).isEmpty();
        pair.settle(); // the close: FIN, the peer's FIN
        assertThat(upcalls.names()).containsExactly("closeCompleted");
        assertThat(link.timer.isCancelled()).as("stopped when the link closed").isTrue();
        check();
        assertThat(upcalls.names()).containsExactly("closeCompleted");
        assertThat(context.counters.get(CounterLayout.PROGRESS_TIMEOUTS)).isZero();
    }

    /**
     * The timeout's io.jrnic.ProgressTimeout event (docs/observability.md) names what was left: SQ
     * messages not taken whole by the LLP (one in progress, one queued behind it, one whose last FPDU
     * the link never reported), the Read awaiting its response (ORD) and the peer's Read we owe (IRD).
     */
    @Test
    void theTimeoutsEventCountsWhatWasOutstanding() throws Exception {
        try (io.jrnic.core.JfrCapture jfr = new io.jrnic.core.JfrCapture()) {
            start(Duration.ofNanos(1));
            MemoryRegion mr = region();
            long base = mr.query().baseTo();
            link.withholdOnSent = true;
            engine.transmit(wqe(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), base, 8)
                    .remote(0x4301, 0)));
            engine.transmit(wqe(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).sge(mr.stag(), base, 64)
                    .remote(0x4201, 0x9000)));
            pair.settle();
            link.windowClosed = true; // the next FPDU fills the socket
            engine.transmit(wqe(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), base, 4096)
                    .remote(0x4301, 0)));
            engine.transmit(wqe(new SendWorkRequest().wrId(4).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), base, 8)
                    .remote(0x4301, 0)));
            pair.settle();
            byte[] rr = new byte[RdmapMessageEncoder.READ_REQUEST_LENGTH];
            new RdmapMessageEncoder(RdmapFeatures.RFC_5040).readRequest(MemorySegment.ofArray(rr), 0, 1, 0x77, 0, 64,
                    mr.stag(), base);
            pair.b.inject(rr);
            pair.settle();
            assertThat(peer.received).as("Write, Read Request, the first segment of the second Write").isEqualTo(3);
            check();
            check();
            assertThat(upcalls.names()).containsExactly("connectionFailed(lost)");
            var events = jfr.events("io.jrnic.ProgressTimeout", e -> e.getInt("qp") == 3);
            assertThat(events).hasSize(1);
            var e = events.getFirst();
            assertThat(e.getInt("messagesNotTaken")).isEqualTo(3);
            assertThat(e.getInt("requestsAwaitingResponse")).isEqualTo(1);
            assertThat(e.getInt("responsesOwed")).isEqualTo(1);
            assertThat(e.getLong("timeout")).isEqualTo(1);
            // how long nothing moved: from the last check that saw progress to this one, within the test's own time
            assertThat(e.getLong("stalled")).isPositive().isLessThan(TimeUnit.MINUTES.toNanos(1));
        }
    }
}
