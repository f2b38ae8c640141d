package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.core.wq.SendWqeChain;
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

    private final EnginePair pair = new EnginePair().start();

    @AfterEach
    void tearDown() {
        pair.close();
    }

    @Test
    void workRequestsQueuedBackToBackLeaveInOneFlushPerBudgetOfFpdus() throws InterruptedException {
        MemoryRegion src = pair.pdA.registerMemory(pair.memA.memory(1), RIGHTS);
        MemoryRegion dst = pair.pdB.registerMemory(pair.memB.memory(1), RIGHTS);
        long flushesBefore = pair.link.a.flushesWithData;
        long fpdusBefore = pair.link.a.fpdusSent;

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
                pair.a.transmit(w);
            }
        });
        poster.join();
        pair.link.settle();

        assertThat(pair.link.a.fpdusSent - fpdusBefore).isEqualTo(count);
        // 16 + 16 + 8: one gathering write per run of the engine, not one per work request
        assertThat(pair.link.a.flushesWithData - flushesBefore).isEqualTo(3);
        assertThat(pair.upcallsA.names()).hasSize(count).containsOnly("sendCompleted");
        assertThat(pair.upcallsB.names()).as("every Write placed").isEmpty();
    }

    @Test
    void aChainHandedOverTogetherIsTakenInOnceAndCompletesPerWriteNotPerWorkRequest() {
        MemoryRegion src = pair.pdA.registerMemory(pair.memA.memory(1), RIGHTS);
        MemoryRegion dst = pair.pdB.registerMemory(pair.memB.memory(1), RIGHTS);
        long flushesBefore = pair.link.a.flushesWithData;

        int count = 2 * QpEngine.FPDU_BUDGET + 8;
        SendWqeChain list = new SendWqeChain();
        for (int i = 0; i < count; i++) { // a post list, as processSq links it
            SendWqe w = new SendWqe(4, 64);
            w.copyFrom(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE)
                    .sge(src.stag(), src.query().baseTo() + 64L * i, 64)
                    .remote(dst.stag(), dst.query().baseTo() + 64L * i), true);
            w.inFlight = true;
            list.add(w);
        }
        pair.a.transmitAll(list.takeAll());
        pair.link.settle();

        // every Write, in SQ order, each once
        assertThat(pair.upcallsA.calls).extracting(c -> c.send().wrId())
                .containsExactlyElementsOf(java.util.stream.LongStream.range(0, count).boxed().toList());
        // one upcall per gathering write that TCP took, carrying all of its Writes
        long writes = pair.link.a.flushesWithData - flushesBefore;
        assertThat(pair.upcallsA.completionBatches).hasSize((int) writes).allSatisfy(n -> assertThat(n).isGreaterThan(1));
        assertThat(pair.upcallsA.completionBatches.stream().mapToInt(Integer::intValue).sum()).isEqualTo(count);
        assertThat(pair.upcallsB.names()).as("every Write placed").isEmpty();
    }
}
