package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.RemoteAtomics;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The RFC 7306 data path allocates nothing in steady state: Atomic Requests and Responses, the
 * execution on the responder, the result write, Immediate Data and its receive completion, with QP
 * posting and CQ polling, on the deterministic single-threaded {@link LoopLinkPair}.
 */
class EngineAtomicAllocationTest extends LoopEngineFixture {
    @Test
    void steadyStateAtomicsAndImmediateDataAllocateNothing() {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, LoopLinkPair.newLog());
        EngineFixture.Side a = side(pair.a);
        EngineFixture.Side b = side(pair.b);
        MemoryRegion results = a.region(64, EngineFixture.RIGHTS);
        MemoryRegion target = b.region(64, EngineFixture.RIGHTS | AccessRights.REMOTE_ATOMIC);
        MemoryRegion receives = b.region(64, EngineFixture.RIGHTS);
        SendWorkRequest add = new SendWorkRequest(1);
        SendWorkRequest swap = new SendWorkRequest(1);
        SendWorkRequest imm = new SendWorkRequest(1);
        ReceiveWorkRequest recv = new ReceiveWorkRequest(1);
        WorkCompletion[] batch = new WorkCompletion[8];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        long ra = a.base(results);
        long tb = b.base(target);
        long rb = b.base(receives);
        int rounds = 5_000;
        long best = Long.MAX_VALUE;
        long completed = 0;
        for (int pass = 0; pass < 5; pass++) { // the first passes warm up class loading and the JIT
            long before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                b.qp.postReceive(recv.reset().wrId(i).sge(receives.stag(), rb, 8));
                a.qp.postSend(add.reset().wrId(i).fetchAdd(3).remote(target.stag(), tb).sge(results.stag(), ra, 8));
                a.qp.postSend(swap.reset().wrId(i).compareSwap(0, 0, i, 0xFF).remote(target.stag(), tb + 8)
                        .sge(results.stag(), ra + 8, 8));
                a.qp.postSend(imm.reset().wrId(i).immediateData(i, (i & 1) == 0));
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
                while ((n = b.cq.poll(batch)) > 0) {
                    completed += n;
                }
            }
            best = Math.min(best, AllocationProbe.allocatedBytes() - before);
        }
        assertThat(completed).isEqualTo(5L * 4 * rounds);
        assertThat(RemoteAtomics.read(b.memory(target), 0)).isEqualTo(3L * 5 * rounds);
        assertThat(RemoteAtomics.read(b.memory(target), 8)).isEqualTo((rounds - 1) & 0xFF);
        // 5,000 rounds = 20,000 WRs, 15,000 wire messages and their 10,000 Atomic Responses
        assertThat(best).as("bytes allocated by the best pass of %d rounds", rounds).isLessThan(2048);
    }
}
