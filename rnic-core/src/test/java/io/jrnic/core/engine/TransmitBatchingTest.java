package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11's batching on the transmit side: work requests that reach the engine back to back (a
 * post list, or posts made while the engine's loop was busy) leave in gathering writes of up to
 * {@link QpEngine#FPDU_BUDGET} FPDUs, one flush per run, not one system call per work request. The
 * engine runs over a {@link MemoryLinkPair} on the test's thread, so nothing runs until the test
 * drains the loop: every WQE is queued before the first run.
 */
class TransmitBatchingTest {
    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE;

    private final FakeRnic memA = new FakeRnic();
    private final FakeRnic memB = new FakeRnic();
    private final MemoryLinkPair link = MemoryLinkPair.onCallerThread(MemoryLinkPair.Options.defaults());

    @AfterEach
    void tearDown() {
        link.close();
        memA.close();
        memB.close();
    }

    @Test
    void workRequestsQueuedBackToBackLeaveInOneFlushPerBudgetOfFpdus() throws InterruptedException {
        RecordingUpcalls upcallsA = new RecordingUpcalls(memA.pd());
        QpEngine a = new QpEngine(link.a);
        upcallsA.engine = a;
        a.start(new FakeQpContext(1, memA.pd(), memA.table), upcallsA, null);
        SoftProtectionDomain pdB = memB.pd();
        RecordingUpcalls upcallsB = new RecordingUpcalls(pdB);
        QpEngine b = new QpEngine(link.b);
        upcallsB.engine = b;
        b.start(new FakeQpContext(2, pdB, memB.table), upcallsB, null);
        link.settle();
        MemoryRegion src = memA.pd().registerMemory(memA.memory(1), RIGHTS);
        MemoryRegion dst = pdB.registerMemory(memB.memory(1), RIGHTS);
        long flushesBefore = link.a.flushesWithData;
        long fpdusBefore = link.a.fpdusSent;

        int count = 2 * QpEngine.FPDU_BUDGET + 8; // 40 small Writes, one FPDU each
        // posted by an application thread (the test's thread runs the loop here, and a WQE posted on
        // the loop itself is sent at once: the latency path)
        Thread poster = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < count; i++) {
                SendWqe w = new SendWqe(4, 64);
                w.copyFrom(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE)
                        .sge(src.stag(), src.query().baseTo() + 64L * i, 64)
                        .remote(dst.stag(), dst.query().baseTo() + 64L * i), true);
                w.inFlight = true; // as the QP's processSq hands it over
                a.transmit(w);
            }
        });
        poster.join();
        link.settle();

        assertThat(link.a.fpdusSent - fpdusBefore).isEqualTo(count);
        // 16 + 16 + 8: one gathering write per run of the engine, not one per work request
        assertThat(link.a.flushesWithData - flushesBefore).isEqualTo(3);
        assertThat(upcallsA.names()).hasSize(count).containsOnly("sendCompleted");
        assertThat(upcallsB.names()).as("every Write placed").isEmpty();
    }

    @Test
    void aChainHandedOverTogetherIsTakenInOnceAndCompletesPerWriteNotPerWorkRequest() {
        RecordingUpcalls upcallsA = new RecordingUpcalls(memA.pd());
        QpEngine a = new QpEngine(link.a);
        upcallsA.engine = a;
        a.start(new FakeQpContext(1, memA.pd(), memA.table), upcallsA, null);
        SoftProtectionDomain pdB = memB.pd();
        RecordingUpcalls upcallsB = new RecordingUpcalls(pdB);
        QpEngine b = new QpEngine(link.b);
        upcallsB.engine = b;
        b.start(new FakeQpContext(2, pdB, memB.table), upcallsB, null);
        link.settle();
        MemoryRegion src = memA.pd().registerMemory(memA.memory(1), RIGHTS);
        MemoryRegion dst = pdB.registerMemory(memB.memory(1), RIGHTS);
        long flushesBefore = link.a.flushesWithData;

        int count = 2 * QpEngine.FPDU_BUDGET + 8;
        SendWqe first = null;
        SendWqe last = null;
        for (int i = 0; i < count; i++) { // a post list, as processSq links it
            SendWqe w = new SendWqe(4, 64);
            w.copyFrom(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE)
                    .sge(src.stag(), src.query().baseTo() + 64L * i, 64)
                    .remote(dst.stag(), dst.query().baseTo() + 64L * i), true);
            w.inFlight = true;
            if (last == null) {
                first = w;
            } else {
                last.txNext = w;
            }
            last = w;
        }
        a.transmitAll(first);
        link.settle();

        // every Write, in SQ order, each once
        assertThat(upcallsA.calls).extracting(c -> c.send().wrId())
                .containsExactlyElementsOf(java.util.stream.LongStream.range(0, count).boxed().toList());
        // one upcall per gathering write that TCP took, carrying all of its Writes
        long writes = link.a.flushesWithData - flushesBefore;
        assertThat(upcallsA.completionBatches).hasSize((int) writes).allSatisfy(n -> assertThat(n).isGreaterThan(1));
        assertThat(upcallsA.completionBatches.stream().mapToInt(Integer::intValue).sum()).isEqualTo(count);
        assertThat(upcallsB.names()).as("every Write placed").isEmpty();
    }
}
