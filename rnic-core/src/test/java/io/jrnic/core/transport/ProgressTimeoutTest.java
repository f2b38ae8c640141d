package io.jrnic.core.transport;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.Wire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The progress timeout ({@link ConnectionSettings#progressTimeout}, issue 13) over loopback TCP
 * against a raw peer that stalls: with work outstanding and no FPDU moving either way for the
 * timeout, the connection is reset and the queue pair goes to Error with LLP Connection Lost, every
 * work request completing exactly once (Verbs §6.2.4: flushed). A slow but live peer, and an idle
 * connection, are not timed out.
 */
class ProgressTimeoutTest {
    private static final Duration TIMEOUT = Duration.ofMillis(300);

    private RawInitiator peer;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    private void connect(Duration progressTimeout) throws Exception {
        peer = new RawInitiator(new ConnectionSettings().progressTimeout(progressTimeout));
        peer.connect();
    }

    /** All completions until n arrived, then checks that no further one follows (exactly once). */
    private List<WorkCompletion> exactly(int n) {
        List<WorkCompletion> wcs = peer.completions(n);
        assertThat(wcs).hasSize(n);
        assertThat(peer.cq.poll(new WorkCompletion())).as("no completion beyond the %d WRs", n).isFalse();
        return wcs;
    }

    /** The raw peer sees our reset: the connection was aborted, not closed (no Terminate, no FIN). */
    private void assertResetSeen(InputStream in) {
        assertThatThrownBy(() -> {
            byte[] buffer = new byte[1 << 16];
            while (in.read(buffer) >= 0) {
                // drain what was queued before the reset
            }
        }).as("RST from the RNIC").isInstanceOf(SocketException.class);
    }

    @Test
    void peerThatStopsReadingLosesTheConnectionAndEveryWriteCompletesOnce() throws Exception {
        connect(TIMEOUT);
        // 16 MiB of Writes toward a peer that reads nothing: the socket buffers and the outbound
        // queue fill, then nothing moves
        int size = 1 << 20;
        MemoryRegion mr = peer.pd.registerMemory(peer.rnic.allocateMemory(size, 4096), RawInitiator.RIGHTS);
        int wrs = 16;
        for (int i = 0; i < wrs; i++) {
            peer.qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).signaled(true)
                    .sge(mr.stag(), mr.query().baseTo(), size).remote(0x4201, 0));
        }
        peer.awaitState(QpState.ERROR);
        peer.awaitEvent(AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
        List<WorkCompletion> wcs = exactly(wrs);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(
                java.util.stream.LongStream.range(0, wrs).boxed().toArray(Long[]::new));
        // those the LLP took before the stall succeeded; the rest are flushed (Verbs §6.2.4)
        assertThat(wcs).extracting(WorkCompletion::status).contains(WorkCompletionStatus.FLUSHED)
                .containsOnly(WorkCompletionStatus.SUCCESS, WorkCompletionStatus.FLUSHED);
        assertResetSeen(peer.raw.getInputStream());
    }

    @Test
    void readThatIsNeverAnsweredIsFlushedAfterTheTimeout() throws Exception {
        connect(TIMEOUT);
        MemoryRegion sink = peer.pd.registerMemory(peer.rnic.allocateMemory(4096, 4096), RawInitiator.RIGHTS);
        long posted = System.nanoTime();
        peer.qp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), sink.query().baseTo(), 64).remote(0x4201, 0x9000));
        byte[] request = RawFpdus.receive(peer.raw.getInputStream());
        assertThat(request[1] & 0x0F).as("a Read Request").isEqualTo(Wire.READ_REQUEST);
        // the peer takes the request and never answers: TCP is content, the Read would wait forever
        peer.awaitState(QpState.ERROR);
        assertThat(System.nanoTime() - posted).as("not before the timeout").isGreaterThanOrEqualTo(TIMEOUT.toNanos());
        peer.awaitEvent(AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
        List<WorkCompletion> wcs = exactly(1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(9L);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        assertResetSeen(peer.raw.getInputStream());
    }

    /**
     * Observability of the timeout (docs/observability.md): the QP's and the RNIC's
     * {@code progressTimeouts} counter goes to 1, and one {@code io.jrnic.ProgressTimeout} JFR event
     * names the QP, how long it stalled and the outstanding work (here the one unanswered Read).
     */
    @Test
    void theTimeoutIsCountedOnceAndRecordedAsAJfrEvent() throws Exception {
        try (io.jrnic.core.JfrCapture jfr = new io.jrnic.core.JfrCapture()) {
            connect(TIMEOUT);
            MemoryRegion sink = peer.pd.registerMemory(peer.rnic.allocateMemory(4096, 4096), RawInitiator.RIGHTS);
            peer.qp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ).signaled(true)
                    .sge(sink.stag(), sink.query().baseTo(), 64).remote(0x4201, 0x9000));
            RawFpdus.receive(peer.raw.getInputStream());
            assertThat(peer.qp.counters().progressTimeouts()).as("not before the timeout").isZero();
            peer.awaitState(QpState.ERROR);
            peer.awaitEvent(AsyncEventType.LLP_CONNECTION_LOST);
            assertThat(exactly(1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            assertResetSeen(peer.raw.getInputStream());

            assertThat(peer.qp.counters().progressTimeouts()).isEqualTo(1);
            assertThat(peer.rnic.counters().progressTimeouts()).isEqualTo(1);
            assertThat(peer.qp.counters().toString()).contains("progressTimeouts=1");
            var events = jfr.events("io.jrnic.ProgressTimeout", e -> e.getString("rnic").equals(peer.rnic.name()));
            assertThat(events).singleElement().satisfies(e -> {
                assertThat(e.getInt("qp")).isEqualTo(peer.qp.id());
                assertThat(e.getDuration("stalled")).isGreaterThanOrEqualTo(TIMEOUT);
                assertThat(e.getDuration("timeout")).isEqualTo(TIMEOUT);
                assertThat(e.getInt("requestsAwaitingResponse")).as("the Read").isEqualTo(1);
                assertThat(e.getInt("messagesNotTaken")).isZero();
                assertThat(e.getInt("responsesOwed")).isZero();
            });
        }
    }

    @Test
    void readResponsesOwedToAPeerThatStopsReadingEndTheConnection() throws Exception {
        connect(TIMEOUT);
        // the peer asks for 16 MiB and reads none of the answer: the Read Responses we owe stall
        int size = 16 << 20;
        MemoryRegion source = peer.pd.registerMemory(peer.rnic.allocateMemory(size, 4096), RawInitiator.RIGHTS);
        RawFpdus.send(peer.raw.getOutputStream(),
                Wire.readRequest(1, 0x5501, 0, size, source.stag(), source.query().baseTo()));
        peer.awaitState(QpState.ERROR);
        peer.awaitEvent(AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
        assertResetSeen(peer.raw.getInputStream());
    }

    @Test
    void slowReaderOfLargeWritesIsNotTimedOutEvenWhenTheTransferOutlastsTheTimeout() throws Exception {
        // Outbound progress is what the socket accepts, and Linux lets a writer in only once about a
        // third of its send buffer (autotuned up to 4 MiB) drained: the reader's pace must free that
        // well within the timeout (docs/reliability.md "Stalled peers"). 1 s here.
        Duration timeout = Duration.ofSeconds(1);
        peer = new RawInitiator(new ConnectionSettings().progressTimeout(timeout));
        peer.rawReceiveBuffer = 32 << 10; // a small window, so that the peer's pace sets the rate
        peer.connect();
        // 16 MiB: on loopback the socket buffers and the outbound queue hold about 5 MiB of it
        int size = 1 << 20;
        int wrs = 16;
        MemoryRegion mr = peer.pd.registerMemory(peer.rnic.allocateMemory(size, 4096), RawInitiator.RIGHTS);
        long posted = System.nanoTime();
        for (int i = 0; i < wrs; i++) {
            peer.qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).signaled(true)
                    .sge(mr.stag(), mr.query().baseTo(), size).remote(0x4201, 0));
        }
        // The peer reads at most 64 KiB every 5 ms (about 12 MiB/s, less on a busy machine): FPDUs
        // keep moving while the last WRs wait. The pause is the peer's pace, not a wait for an
        // event of the RNIC's.
        InputStream in = peer.raw.getInputStream();
        byte[] chunk = new byte[64 << 10];
        List<WorkCompletion> wcs = new java.util.ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        long readBytes = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (wcs.size() < wrs) {
            assertThat(System.nanoTime()).as("the transfer ends").isLessThan(deadline);
            int n = in.read(chunk);
            assertThat(n).as("the connection stays up").isPositive();
            readBytes += n;
            while (peer.cq.poll(wc)) {
                wcs.add(new WorkCompletion().copyFrom(wc));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        long elapsed = System.nanoTime() - posted;
        assertThat(elapsed).as("work was outstanding for longer than the timeout (%d bytes read)", readBytes)
                .isGreaterThan(timeout.toNanos());
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
        assertThat(peer.eventTypes()).isEmpty();
    }

    @Test
    void longReadWhoseResponsesTrickleInIsNotTimedOut() throws Exception {
        connect(TIMEOUT);
        // a 1 MiB Read answered in 64 Read Responses of 16 KiB, one every 20 ms: about 1.3 s, four
        // timeouts, with the Read outstanding throughout; each FPDU that arrives is progress
        int segment = 16 << 10;
        int segments = 64;
        MemoryRegion sink = peer.pd.registerMemory(peer.rnic.allocateMemory(segment * segments, 4096),
                RawInitiator.RIGHTS);
        long posted = System.nanoTime();
        peer.qp.postSend(new SendWorkRequest().wrId(7).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), sink.query().baseTo(), segment * segments).remote(0x4201, 0x9000));
        byte[] request = RawFpdus.receive(peer.raw.getInputStream());
        java.nio.ByteBuffer rr = java.nio.ByteBuffer.wrap(request, 18, 12); // RFC 5040 §4.4: sink STag, TO
        int sinkStag = rr.getInt();
        long sinkTo = rr.getLong();
        byte[] payload = new byte[segment];
        java.util.Arrays.fill(payload, (byte) 0x5A);
        for (int i = 0; i < segments; i++) {
            RawFpdus.send(peer.raw.getOutputStream(), Wire.tagged(Wire.READ_RESPONSE, i == segments - 1, sinkStag,
                    sinkTo + (long) i * segment, payload));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // the peer's pace
            assertThat(peer.qp.state()).as("still up after %d responses", i + 1).isEqualTo(QpState.RTS);
        }
        List<WorkCompletion> wcs = exactly(1);
        assertThat(System.nanoTime() - posted).as("the Read outlasted the timeout").isGreaterThan(3 * TIMEOUT.toNanos());
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
        assertThat(peer.eventTypes()).isEmpty();
    }

    @Test
    void idleConnectionStaysUpPastTheTimeout() throws Exception {
        connect(TIMEOUT);
        MemoryRegion mr = peer.pd.registerMemory(peer.rnic.allocateMemory(4096, 4096), RawInitiator.RIGHTS);
        peer.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(mr.stag(), mr.query().baseTo(), 64).remote(0x4201, 0));
        RawFpdus.receive(peer.raw.getInputStream());
        assertThat(exactly(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        // nothing outstanding now: for five timeouts the raw peer sees neither data nor a reset
        peer.raw.setSoTimeout((int) (5 * TIMEOUT.toMillis()));
        assertThatThrownBy(() -> peer.raw.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
        assertThat(peer.eventTypes()).isEmpty();
        assertThat(peer.qp.counters().progressTimeouts()).isZero();
        // and the connection still works
        peer.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(mr.stag(), mr.query().baseTo(), 64).remote(0x4201, 0));
        RawFpdus.receive(peer.raw.getInputStream());
        assertThat(exactly(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void zeroTimeoutWaitsAsLongAsTcpDoes() throws Exception {
        connect(Duration.ZERO);
        MemoryRegion sink = peer.pd.registerMemory(peer.rnic.allocateMemory(4096, 4096), RawInitiator.RIGHTS);
        peer.qp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), sink.query().baseTo(), 64).remote(0x4201, 0x9000));
        RawFpdus.receive(peer.raw.getInputStream());
        // no progress timeout: an unanswered Read stays outstanding (here for 1 s), no reset
        peer.raw.setSoTimeout(1000);
        assertThatThrownBy(() -> peer.raw.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
        assertThat(peer.cq.poll(new WorkCompletion())).isFalse();
    }

    @Test
    void progressTimeoutIsPositiveOrZeroForNone() {
        ConnectionSettings settings = new ConnectionSettings();
        assertThat(settings.progressTimeout()).isEqualTo(Duration.ofSeconds(60))
                .isEqualTo(ConnectionSettings.DEFAULT_PROGRESS_TIMEOUT);
        assertThat(settings.progressTimeout(Duration.ofMillis(1)).progressTimeout()).isEqualTo(Duration.ofMillis(1));
        assertThat(settings.progressTimeout(Duration.ZERO).progressTimeout()).isEqualTo(Duration.ZERO);
        assertThat(settings.toString()).contains("progress PT0S");
        assertThatThrownBy(() -> settings.progressTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("progress timeout must be positive, or zero for none: PT-0.001S");
        assertThatThrownBy(() -> settings.progressTimeout(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("progress timeout must be positive, or zero for none: null");
        assertThat(settings.progressTimeout()).as("a refused value changes nothing").isEqualTo(Duration.ZERO);
    }
}
