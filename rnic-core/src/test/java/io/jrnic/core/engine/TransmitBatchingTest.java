package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11's batching on the transmit side: work requests that reach the engine back to back (a
 * post list, or posts made while the engine's loop was busy) leave in one gathering write: the engine
 * frames {@link QpEngine#FPDU_BUDGET} FPDUs per run (fairness among the loop's QPs) and flushes once,
 * in the run that ends the burst, not once per run nor one system call per work request; FPDUs
 * large enough to fill {@link QpEngine#DEFERRED_FLUSH_BYTES} are flushed run by run. The
 * engine runs over a {@link MemoryLinkPair} on the test's thread, so nothing runs until the test
 * drains the loop: every WQE is queued before the first run.
 */
class TransmitBatchingTest {
    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE;

    /** Source and target places the Writes cycle through (the fixture's regions are small). */
    private static final int SLOTS = 8;

    private final FakeRnic memA = new FakeRnic();
    private final FakeRnic memB = new FakeRnic();
    private MemoryLinkPair link;

    @AfterEach
    void tearDown() {
        if (link != null) {
            link.close();
        }
        memA.close();
        memB.close();
    }

    @Test
    void smallWorkRequestsQueuedBackToBackLeaveInOneFlush() throws InterruptedException {
        int count = 2 * QpEngine.FPDU_BUDGET + 8; // 40 Writes of 64 bytes, one FPDU each
        // three runs (16 + 16 + 8 FPDUs), one gathering write: the burst's last run flushes it
        assertThat(flushesToSend(MemoryLinkPair.Options.defaults(), count, 64)).isEqualTo(1);
    }

    @Test
    void largeFpdusAreFlushedRunByRunOnceADeferredFlushWouldHoldTooMuch() throws InterruptedException {
        int mulpdu = 8192;
        int payload = 5000; // one FPDU each; a run of 16 hands the link 80 KB > DEFERRED_FLUSH_BYTES
        assertThat(QpEngine.FPDU_BUDGET * payload).isGreaterThan(QpEngine.DEFERRED_FLUSH_BYTES);
        int count = 2 * QpEngine.FPDU_BUDGET + 8;
        // 16 + 16 + 8: every run flushes, so the socket is never left idle behind a long framing
        assertThat(flushesToSend(MemoryLinkPair.Options.defaults().withMulpdu(mulpdu), count, payload))
                .isEqualTo(3);
    }

    /**
     * Queues {@code count} RDMA Writes of {@code size} bytes (each within one FPDU) on an engine
     * whose loop runs only when the test settles the link, and returns the flushes that carried them.
     */
    private long flushesToSend(MemoryLinkPair.Options options, int count, int size) throws InterruptedException {
        link = MemoryLinkPair.onCallerThread(options);
        RecordingUpcalls upcallsA = new RecordingUpcalls(memA.pd());
        QpEngine a = new QpEngine(link.a);
        upcallsA.engine = a;
        a.start(new FakeQpContext(1, memA.pd(), memA.table), upcallsA, null);
        RecordingUpcalls upcallsB = new RecordingUpcalls(memB.pd());
        QpEngine b = new QpEngine(link.b);
        upcallsB.engine = b;
        b.start(new FakeQpContext(2, memB.pd(), memB.table), upcallsB, null);
        link.settle();
        int pages = (int) ((long) SLOTS * size / 4096 + 1); // the Writes reuse SLOTS places
        MemoryRegion src = memA.pd().registerMemory(memA.memory(pages), RIGHTS);
        MemoryRegion dst = memB.pd().registerMemory(memB.memory(pages), RIGHTS);
        long flushesBefore = link.a.flushesWithData;
        long fpdusBefore = link.a.fpdusSent;

        // posted by an application thread (the test's thread runs the loop here, and a WQE posted on
        // the loop itself is sent at once: the latency path)
        Thread poster = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < count; i++) {
                SendWqe w = new SendWqe(4, 64);
                w.copyFrom(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE)
                        .sge(src.stag(), src.query().baseTo() + (long) size * (i % SLOTS), size)
                        .remote(dst.stag(), dst.query().baseTo() + (long) size * (i % SLOTS)), true);
                w.inFlight = true; // as the QP's processSq hands it over
                a.transmit(w);
            }
        });
        poster.join();
        link.settle();

        assertThat(link.a.fpdusSent - fpdusBefore).isEqualTo(count);
        assertThat(upcallsA.names()).hasSize(count).containsOnly("sendCompleted");
        return link.a.flushesWithData - flushesBefore;
    }
}
