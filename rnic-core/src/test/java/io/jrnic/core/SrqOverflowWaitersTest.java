package io.jrnic.core;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SrqFairShare;
import io.jrnic.core.qp.SoftQueuePair;
import io.jrnic.core.qp.SoftSharedReceiveQueue;
import io.jrnic.core.wq.ReceiveWqe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiters of a shared receive queue for graceful receive overflow (Verbs §13.2, V-WRP-65/66),
 * driven directly: QPs that hold a Send for want of a WQE are granted posted WQEs in the order
 * they were held, one each, and woken; grants are reserved against the other QPs; the fair-share
 * policy's refusal is not held; a destroyed waiter is forgotten; posting allocates nothing.
 */
class SrqOverflowWaitersTest {
    private SoftRnic rnic;
    private SoftSharedReceiveQueue srq;
    private SoftQueuePair qp1;
    private SoftQueuePair qp2;
    private SoftQueuePair qp3;
    private final AtomicInteger wakes1 = new AtomicInteger();
    private final AtomicInteger wakes2 = new AtomicInteger();
    private final AtomicInteger wakes3 = new AtomicInteger();
    private final Runnable wake1 = wakes1::incrementAndGet;
    private final Runnable wake2 = wakes2::incrementAndGet;
    private final Runnable wake3 = wakes3::incrementAndGet;
    private ReceiveWorkRequest wr;

    @BeforeEach
    void setUp() {
        rnic = SoftRnic.open(new RnicConfig().name("srq-waiters"));
        ProtectionDomain pd = rnic.allocatePd();
        CompletionQueue cq = rnic.createCq(64);
        srq = (SoftSharedReceiveQueue) pd.createSharedReceiveQueue(16, 1, 0);
        qp1 = qp(pd, cq);
        qp2 = qp(pd, cq);
        qp3 = qp(pd, cq);
        MemoryRegion mr = pd.registerMemory(rnic.allocateMemory(4096, 8), EngineFixture.RIGHTS);
        wr = new ReceiveWorkRequest().wrId(1).sge(mr.stag(), mr.query().baseTo(), 4096);
    }

    private SoftQueuePair qp(ProtectionDomain pd, CompletionQueue cq) {
        return (SoftQueuePair) pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).srq(srq, 0));
    }

    @AfterEach
    void tearDown() {
        rnic.close();
    }

    private List<Integer> wakes() {
        return List.of(wakes1.get(), wakes2.get(), wakes3.get());
    }

    @Test
    void waitersAreGrantedInTheOrderTheyWereHeldOneEach_V_WRP_65() {
        assertThat(srq.take(qp1)).isNull();
        assertThat(srq.awaitWqe(qp1, wake1)).isTrue();
        assertThat(srq.awaitWqe(qp2, wake2)).isTrue();
        assertThat(srq.awaitWqe(qp3, wake3)).isTrue();
        assertThat(srq.awaitWqe(qp1, wake1)).isTrue(); // keeps its place
        assertThat(srq.waiters()).containsExactly(qp1, qp2, qp3);

        srq.postReceive(wr);
        assertThat(wakes()).containsExactly(1, 0, 0);
        assertThat(srq.waiters()).containsExactly(qp2, qp3);
        assertThat(srq.reserved()).isEqualTo(1);
        assertThat(srq.waitsForWqe(qp1)).isTrue(); // granted, not taken yet
        // the WQE is qp1's: a later waiter and a QP that never waited find none
        assertThat(srq.take(qp3)).isNull();
        assertThat(srq.take(qp2)).isNull();
        ReceiveWqe w1 = srq.take(qp1);
        assertThat(w1).isNotNull();
        assertThat(srq.reserved()).isZero();
        assertThat(srq.waitsForWqe(qp1)).isFalse();

        // two WQEs in one post: one for each of the next two waiters, in order
        srq.postReceive(new ReceiveWorkRequest[] {wr, wr}, 0, 2);
        assertThat(wakes()).containsExactly(1, 1, 1);
        assertThat(srq.waiters()).isEmpty();
        assertThat(srq.reserved()).isEqualTo(2);
        assertThat(srq.take(qp1)).isNull(); // both are reserved
        assertThat(srq.take(qp3)).isNotNull();
        assertThat(srq.take(qp2)).isNotNull();
        assertThat(srq.reserved()).isZero();
        assertThat(srq.query().available()).isZero();
    }

    @Test
    void aWqePostedBeforeTheSecondLookIsTakenAndLeavesTheWaiters_V_WRP_65() {
        assertThat(srq.take(qp1)).isNull();
        srq.postReceive(wr); // between the first look and the enlisting: nobody to wake
        assertThat(srq.awaitWqe(qp1, wake1)).isTrue();
        assertThat(srq.take(qp1)).isNotNull(); // the second look
        assertThat(srq.waiters()).isEmpty();
        assertThat(srq.waitsForWqe(qp1)).isFalse();
        srq.postReceive(wr);
        assertThat(wakes()).containsExactly(0, 0, 0);
        assertThat(srq.reserved()).isZero();
    }

    @Test
    void unreservedWqesStayAvailableToEveryQp_V_WRP_65() {
        srq.postReceive(new ReceiveWorkRequest[] {wr, wr, wr}, 0, 3);
        assertThat(srq.awaitWqe(qp1, wake1)).isTrue(); // a QP enlisting while WQEs are there
        assertThat(srq.take(qp2)).isNotNull();
        assertThat(srq.take(qp1)).isNotNull();
        assertThat(srq.waiters()).isEmpty();
        assertThat(srq.take(qp3)).isNotNull();
        assertThat(wakes()).containsExactly(0, 0, 0);
    }

    @Test
    void aQpOverItsFairShareIsNotHeld_V_WRP_65() {
        srq.fairShare(SrqFairShare.inProcess(1, true));
        srq.postReceive(new ReceiveWorkRequest[] {wr, wr}, 0, 2);
        assertThat(srq.take(qp1)).isNotNull(); // in process until its completion is written
        assertThat(srq.take(qp1)).isNull(); // RFC 5042 §6.4.3.1: refused, not empty
        assertThat(srq.awaitWqe(qp1, wake1)).isFalse();
        assertThat(srq.waitsForWqe(qp1)).isFalse();
        assertThat(srq.waiters()).isEmpty();
        assertThat(srq.query().available()).isEqualTo(1); // kept for the other QPs
    }

    @Test
    void aGrantRefusedByTheFairSharePassesToTheNextWaiter_V_WRP_65() {
        srq.fairShare(SrqFairShare.inProcess(1, true));
        srq.postReceive(wr);
        assertThat(srq.take(qp1)).isNotNull();
        assertThat(srq.take(qp1)).isNull(); // empty: qp1 may wait
        assertThat(srq.awaitWqe(qp1, wake1)).isTrue();
        assertThat(srq.take(qp2)).isNull();
        assertThat(srq.awaitWqe(qp2, wake2)).isTrue();
        srq.postReceive(wr);
        assertThat(wakes()).containsExactly(1, 0, 0);
        assertThat(srq.take(qp1)).isNull(); // over its share: terminated, the WQE goes on
        assertThat(srq.waitsForWqe(qp1)).isFalse();
        assertThat(wakes()).containsExactly(1, 1, 0);
        assertThat(srq.reserved()).isEqualTo(1);
        assertThat(srq.take(qp2)).isNotNull();
    }

    @Test
    void aDestroyedWaiterIsForgottenAndItsGrantPassesOn_V_WRP_65() {
        assertThat(srq.awaitWqe(qp1, wake1)).isTrue();
        assertThat(srq.awaitWqe(qp2, wake2)).isTrue();
        assertThat(srq.awaitWqe(qp3, wake3)).isTrue();
        qp2.close(); // waiting, not granted
        assertThat(srq.waiters()).containsExactly(qp1, qp3);
        srq.postReceive(wr);
        assertThat(wakes()).containsExactly(1, 0, 0);
        qp1.close(); // granted: the WQE goes to the next waiter
        assertThat(wakes()).containsExactly(1, 0, 1);
        assertThat(srq.waiters()).isEmpty();
        assertThat(srq.reserved()).isEqualTo(1);
        assertThat(srq.take(qp3)).isNotNull();
        assertThat(srq.reserved()).isZero();
        // its engine may still be finishing a Send: a destroyed QP does not enlist again
        assertThat(srq.awaitWqe(qp1, wake1)).isFalse();
        assertThat(srq.waiters()).isEmpty();
        assertThat(srq.waitsForWqe(qp1)).isFalse();
    }

    @Test
    void aStoppedQpLeavesTheWaiters_V_WRP_65() {
        assertThat(srq.awaitWqe(qp1, wake1)).isTrue();
        assertThat(srq.awaitWqe(qp2, wake2)).isTrue();
        srq.cancelWait(qp1);
        assertThat(srq.waiters()).containsExactly(qp2);
        srq.postReceive(wr);
        assertThat(wakes()).containsExactly(0, 1, 0);
        srq.cancelWait(qp2); // granted, then its Send failed: nothing stays reserved
        assertThat(srq.reserved()).isZero();
        assertThat(srq.take(qp3)).isNotNull();
    }

    @Test
    void postingAndGrantingAllocateNothing_V_WRP_65() {
        ReceiveWorkRequest[] batch = {wr, wr};
        int rounds = 10_000;
        long bestGranting = Long.MAX_VALUE;
        long bestPlain = Long.MAX_VALUE;
        for (int pass = 0; pass < 6; pass++) { // the first passes warm up class loading and the JIT
            long before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                cycle(batch);
            }
            bestGranting = Math.min(bestGranting, AllocationProbe.allocatedBytes() - before);
            before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                srq.postReceive(wr); // nobody waiting: one null check on top of the post
                done(srq.take(qp3));
            }
            bestPlain = Math.min(bestPlain, AllocationProbe.allocatedBytes() - before);
        }
        assertThat(wakes()).containsExactly(6 * rounds, 6 * rounds, 0);
        // a single allocation per round would be at least 160,000 bytes; the margin covers the probe
        assertThat(bestGranting).as("bytes allocated by the best granting pass").isLessThan(1024);
        assertThat(bestPlain).as("bytes allocated by the best plain pass").isLessThan(1024);
    }

    /** Two QPs wait, a batch post grants both, each takes its WQE and recycles it. */
    private void cycle(ReceiveWorkRequest[] batch) {
        srq.awaitWqe(qp1, wake1);
        srq.awaitWqe(qp2, wake2);
        srq.postReceive(batch, 0, 2);
        ReceiveWqe a = srq.take(qp2);
        ReceiveWqe b = srq.take(qp1);
        if (a == null || b == null) {
            throw new AssertionError("a granted WQE was not taken");
        }
        done(a);
        done(b);
    }

    /** What the QP does once the WQE's completion entry was polled: the slot is free again. */
    private void done(ReceiveWqe w) {
        w.account.release();
        srq.recycle(w);
    }
}
