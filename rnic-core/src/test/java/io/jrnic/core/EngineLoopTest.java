package io.jrnic.core;

import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine on a deterministic single-threaded loop: no allocation per operation in steady state,
 * and fairness between QPs that share an event loop.
 */
class EngineLoopTest extends LoopEngineFixture {
    @Test
    void steadyStateWriteSendAndReadAllocateNothing() {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, LoopLinkPair.newLog());
        EngineFixture.Side a = side(pair.a);
        EngineFixture.Side b = side(pair.b);
        MemoryRegion la = a.region(8192, EngineFixture.RIGHTS);
        MemoryRegion lb = b.region(8192, EngineFixture.RIGHTS);
        SendWorkRequest write = new SendWorkRequest(2);
        SendWorkRequest send = new SendWorkRequest(1);
        SendWorkRequest read = new SendWorkRequest(1);
        ReceiveWorkRequest recv = new ReceiveWorkRequest(1);
        WorkCompletion[] batch = new WorkCompletion[8];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        long baseA = a.base(la);
        long baseB = b.base(lb);
        int sa = la.stag();
        int sb = lb.stag();
        int rounds = 5_000;
        long best = Long.MAX_VALUE;
        long completed = 0;
        for (int pass = 0; pass < 5; pass++) { // the first passes warm up class loading and the JIT
            long before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                b.qp.postReceive(recv.reset().wrId(i).sge(sb, baseB, 256));
                a.qp.postSend(write.reset().wrId(i).opcode(Opcode.RDMA_WRITE).sge(sa, baseA, 3000)
                        .sge(sa, baseA + 4096, 1000).remote(sb, baseB + 4096));
                a.qp.postSend(send.reset().wrId(i).opcode(Opcode.SEND).sge(sa, baseA, 200));
                a.qp.postSend(read.reset().wrId(i).opcode(Opcode.RDMA_READ).sge(sa, baseA, 2000).remote(sb, baseB));
                loop.runAll();
                int n;
                while ((n = a.cq.poll(batch)) > 0) {
                    for (int k = 0; k < n; k++) {
                        if (batch[k].status() != WorkCompletionStatus.SUCCESS) {
                            throw new AssertionError("completion failed: " + batch[k].status());
                        }
                    }
                    completed += n;
                }
                completed += b.cq.poll(batch);
            }
            best = Math.min(best, AllocationProbe.allocatedBytes() - before);
        }
        assertThat(completed).isEqualTo(5L * 4 * rounds);
        // 5,000 rounds = 20,000 WRs, 15,000 wire messages, about 30,000 FPDUs each way
        assertThat(best).as("bytes allocated by the best pass of %d rounds", rounds).isLessThan(2048);
    }

    @Test
    void qpsSharingALoopTakeTurns() {
        List<String> log = LoopLinkPair.newLog();
        LoopLinkPair first = new LoopLinkPair(loop, 1448, log);
        LoopLinkPair second = new LoopLinkPair(loop, 1448, log);
        first.a.logging = true;
        second.a.logging = true;
        EngineFixture.Side a1 = side(first.a);
        EngineFixture.Side b1 = side(first.b);
        EngineFixture.Side a2 = side(second.a);
        EngineFixture.Side b2 = side(second.b);
        MemoryRegion big = a1.region(1 << 20, EngineFixture.RIGHTS);
        MemoryRegion sink = b1.region(1 << 20, EngineFixture.RIGHTS);
        MemoryRegion small = a2.region(64, EngineFixture.RIGHTS);
        b2.qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(0, 0, 0));
        a1.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(big.stag(), a1.base(big), 1 << 20)
                .remote(sink.stag(), b1.base(sink)));
        a2.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND));
        loop.runAll();
        // the 1 MiB Write needs 732 FPDUs; the other QP's Send goes out after at most one budget of them
        int send = log.indexOf("A:3");
        assertThat(send).isBetween(0, QpEngine.FPDU_BUDGET);
        assertThat(log).hasSize(733);
        assertThat(b2.cq.poll(new WorkCompletion())).isTrue();
        assertThat(a1.cq.poll(new WorkCompletion())).isTrue();
    }
}
