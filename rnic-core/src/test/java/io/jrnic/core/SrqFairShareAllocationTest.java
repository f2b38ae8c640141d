package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.SrqFairShare;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.wq.ReceiveWqe;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fair-share accounting adds no allocation to the S-RQ receive path: post to the S-RQ, take
 * by two QPs under an active policy, complete, poll ({@link AllocationProbe}).
 */
class SrqFairShareAllocationTest extends VerbsFixture {
    @Test
    void accountedTakesAllocateNothing_R_SEC_026() {
        MemoryRegion mr = pd.registerMemory(rnic.allocateMemory(4096, 4096), AccessRights.LOCAL, 0,
                AddressType.ZERO_BASED, 0, false);
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(64, 1, 0);
        srq.fairShare(new SrqFairShare(4, 0.5, 0, true)); // both limits checked on every take
        QueuePair a = pd.createQueuePair(qpConfig().srq(srq, 0));
        QueuePair b = pd.createQueuePair(qpConfig().srq(srq, 0));
        FakeTransport ta = toRts(a);
        FakeTransport tb = toRts(b);
        ReceiveWorkRequest recv = new ReceiveWorkRequest(1);
        WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion()};
        int rounds = 10_000;
        long best = Long.MAX_VALUE;
        long polled = 0;
        for (int pass = 0; pass < 6; pass++) { // the first passes warm up class loading and the JIT
            long before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                srq.postReceive(recv.reset().wrId(i).sge(mr.stag(), 0, 256));
                srq.postReceive(recv.reset().wrId(i).sge(mr.stag(), 256, 256));
                ReceiveWqe wa = ta.upcalls.takeReceive(); // a and b alternate: exactly half the window each
                ta.upcalls.receiveCompleted(wa, WorkCompletionStatus.SUCCESS, 10, false, 0);
                ReceiveWqe wb = tb.upcalls.takeReceive();
                tb.upcalls.receiveCompleted(wb, WorkCompletionStatus.SUCCESS, 10, false, 0);
                polled += cq.poll(batch);
            }
            best = Math.min(best, AllocationProbe.allocatedBytes() - before);
        }
        assertThat(polled).isEqualTo(6L * 2 * rounds);
        assertThat(events).isEmpty(); // nobody exceeded its share
        assertThat(srq.consumption(a).taken()).isEqualTo(6L * rounds);
        assertThat(best).as("bytes allocated by the best pass of %d rounds", rounds).isLessThan(1024);
    }
}
