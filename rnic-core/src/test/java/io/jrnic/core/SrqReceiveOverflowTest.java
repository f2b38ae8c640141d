package io.jrnic.core;

import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.qp.SoftQueuePair;
import io.jrnic.core.qp.SoftSharedReceiveQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Graceful receive overflow for QPs on a shared receive queue (Verbs §13.2, V-WRP-65/66) over two
 * memory links: two QPs of one S-RQ hold their Sends and pause their LLPs, posts to the S-RQ wake
 * them in the order they were held, one WQE per waiting QP, and every message arrives byte for
 * byte; a held QP that is destroyed or reset is forgotten by the S-RQ. Without the option an S-RQ
 * QP still terminates (RxReceiveOverflowTest#sharedReceiveQueueWithoutTheOptionKeepsTheRfcBehaviour_V_WRP_65).
 */
class SrqReceiveOverflowTest extends EngineFixture {
    private static final int SLOT = 100_000;

    private MemoryLinkPair link2;
    private Side a1;
    private Side a2;
    private Side b1;
    private Side b2;
    private SoftSharedReceiveQueue srq;
    private MemoryRegion src1;
    private MemoryRegion src2;
    private MemoryRegion sink;

    /** Senders a1 (link) and a2 (link2); receivers b1 and b2: one RNIC, one S-RQ, a CQ each. */
    private void connect(MemoryLinkPair.Options options) {
        link = new MemoryLinkPair(options);
        link2 = new MemoryLinkPair(options);
        link.b.gracefulOverflow = true;
        link2.b.gracefulOverflow = true;
        a1 = side(link.a);
        a2 = side(link2.a);
        b1 = new Side();
        b1.rnic = SoftRnic.open(new RnicConfig().name("srq-overflow"));
        b1.rnic.setAsyncEventHandler((r, e) -> b1.events.add(e));
        b1.pd = b1.rnic.allocatePd();
        srq = (SoftSharedReceiveQueue) b1.pd.createSharedReceiveQueue(16, 2, 0);
        b2 = new Side();
        b2.rnic = b1.rnic;
        b2.pd = b1.pd;
        receiver(b1, link.b);
        receiver(b2, link2.b);
        sides.add(b1); // closes the shared RNIC once
        src1 = a1.region(1 << 20, RIGHTS);
        fill(a1.memory(src1), 3);
        src2 = a2.region(1 << 20, RIGHTS);
        fill(a2.memory(src2), 5);
        sink = b1.region(16 * SLOT, RIGHTS);
    }

    private void receiver(Side s, FpduLink l) {
        s.cq = s.rnic.createCq(64);
        s.qp = s.pd.createQueuePair(new QueuePairConfig().cqs(s.cq, s.cq).srq(srq, 0));
        s.engine = new QpEngine(l);
        s.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(s.engine));
    }

    @AfterEach
    void closeSecondLink() {
        if (link2 != null) {
            link2.close();
        }
    }

    /** Waits (bounded, no sleeping) letting the four event loops run. */
    private void awaitAll(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            link.a.barrier();
            link.b.barrier();
            link2.a.barrier();
            link2.b.barrier();
            Thread.onSpinWait();
        }
    }

    private void settleAll() {
        link.settle();
        link2.settle();
    }

    private static void send(Side from, MemoryRegion src, long wrId, long offset, int length) {
        from.qp.postSend(new SendWorkRequest().wrId(wrId).opcode(Opcode.SEND)
                .sge(src.stag(), from.base(src) + offset, length));
    }

    private ReceiveWorkRequest slot(long wrId) {
        return new ReceiveWorkRequest().wrId(wrId).sge(sink.stag(), b1.base(sink) + (wrId - 10) * SLOT, SLOT);
    }

    /** The receive completions of a receiver, polled so far. */
    private List<WorkCompletion> polled(Side s) {
        return completions(s, 0);
    }

    /** Each receiver's n-th completion holds the sender's n-th message, byte for byte. */
    private void assertDelivered(Side b, Side a, MemoryRegion src, long[] offsets, int[] lengths) {
        List<WorkCompletion> wcs = polled(b);
        assertThat(wcs).hasSize(offsets.length);
        for (int i = 0; i < offsets.length; i++) {
            WorkCompletion wc = wcs.get(i);
            assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(wc.queuePair()).isSameAs(b.qp);
            assertThat(wc.byteLength()).isEqualTo(lengths[i]);
            assertThat(bytes(b1.memory(sink), (wc.wrId() - 10) * SLOT, lengths[i]))
                    .isEqualTo(bytes(a.memory(src), offsets[i], lengths[i]));
        }
    }

    /** a1 sends three messages and b1 holds, then a2 two and b2 holds: b1 was held first. */
    private void holdBoth(long[] off1, int[] len1, long[] off2, int[] len2) {
        for (int i = 0; i < off1.length; i++) {
            send(a1, src1, i, off1[i], len1[i]);
        }
        awaitAll(() -> link.b.pauses == 1, "b1 pausing its LLP");
        for (int i = 0; i < off2.length; i++) {
            send(a2, src2, i, off2[i], len2[i]);
        }
        awaitAll(() -> link2.b.pauses == 1, "b2 pausing its LLP");
        settleAll();
        assertThat(srq.waiters()).containsExactly((SoftQueuePair) b1.qp, (SoftQueuePair) b2.qp);
        assertThat(b1.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b2.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b1.events).isEmpty();
        assertThat(polled(b1)).isEmpty();
        assertThat(polled(b2)).isEmpty();
    }

    @Test
    void twoQpsHeldOnOneSrqAreWokenInOrderOneWqeEach_V_WRP_65_V_WRP_66() {
        connect(MemoryLinkPair.Options.defaults().withMaxChunk(700));
        long[] off1 = {0, 1000, 70_000};
        int[] len1 = {700, 57_000, 0}; // one segment, 40 segments, zero length
        long[] off2 = {11, 5000};
        int[] len2 = {900, 40_000};
        holdBoth(off1, len1, off2, len2);

        // two WQEs in one post: one for each waiting QP, although b1 has more Sends held
        srq.postReceive(new ReceiveWorkRequest[] {slot(10), slot(11)}, 0, 2);
        awaitAll(() -> polled(b1).size() == 1 && polled(b2).size() == 1, "one message on each QP");
        awaitAll(() -> srq.waiters().size() == 2, "both QPs holding their next Send");
        settleAll();
        assertThat(polled(b1)).hasSize(1);
        assertThat(polled(b2)).hasSize(1);
        assertThat(srq.reserved()).isZero();

        // then one WQE at a time: it goes to the QP that has waited longest
        int[] remaining = {2, 1};
        for (long wrId = 12; wrId <= 14; wrId++) {
            int waiting = (remaining[0] > 0 ? 1 : 0) + (remaining[1] > 0 ? 1 : 0);
            awaitAll(() -> srq.waiters().size() == waiting, waiting + " waiting QPs");
            SoftQueuePair first = srq.waiters().getFirst();
            Side expected = first == b1.qp ? b1 : b2;
            int k = expected == b1 ? 0 : 1;
            int before = polled(expected).size();
            srq.postReceive(slot(wrId));
            awaitAll(() -> polled(expected).size() == before + 1, "the message for the longest waiter");
            assertThat(polled(expected).getLast().wrId()).isEqualTo(wrId);
            remaining[k]--;
        }
        settleAll();
        assertThat(remaining).containsExactly(0, 0);
        assertThat(srq.waiters()).isEmpty();
        assertDelivered(b1, a1, src1, off1, len1);
        assertDelivered(b2, a2, src2, off2, len2);
        assertThat(link.b.unreadBytes).isZero();
        assertThat(link2.b.unreadBytes).isZero();
        assertThat(completions(a1, 3)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(completions(a2, 2)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(b1.events).isEmpty();
        assertThat(a1.events).isEmpty();
        assertThat(a2.events).isEmpty();
        assertThat(b1.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b2.qp.state()).isEqualTo(QpState.RTS);
        assertThat(srq.query().outstanding()).isZero();
    }

    @Test
    void heldQpDestroyedIsForgottenByTheSrq_V_WRP_65() {
        connect(MemoryLinkPair.Options.defaults());
        holdBoth(new long[] {0}, new int[] {300}, new long[] {64}, new int[] {500});
        b1.qp.close();
        assertThat(srq.waiters()).containsExactly((SoftQueuePair) b2.qp);
        srq.postReceive(slot(10));
        awaitAll(() -> polled(b2).size() == 1, "b2's message");
        assertDelivered(b2, a2, src2, new long[] {64}, new int[] {500});
        settleAll();
        assertThat(srq.waiters()).isEmpty();
        assertThat(srq.reserved()).isZero();
        assertThat(b2.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void heldQpResetIsForgottenAndItsGrantPassesOn_V_WRP_65() {
        connect(MemoryLinkPair.Options.defaults());
        holdBoth(new long[] {0}, new int[] {300}, new long[] {64}, new int[] {500});
        b1.qp.modify(new QueuePairModification().nextState(QpState.ERROR)); // the engine stops: no retry
        awaitAll(() -> srq.waiters().equals(List.of((SoftQueuePair) b2.qp)), "b1 leaving the waiters");
        srq.postReceive(slot(10));
        awaitAll(() -> polled(b2).size() == 1, "b2's message");
        assertDelivered(b2, a2, src2, new long[] {64}, new int[] {500});
        assertThat(polled(b1)).isEmpty();
        assertThat(srq.reserved()).isZero();
        assertThat(b2.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void qpsOfOneSrqWithoutWaitersUseTheirWqesWithoutPausing_V_WRP_65() {
        connect(MemoryLinkPair.Options.defaults());
        srq.postReceive(new ReceiveWorkRequest[] {slot(10), slot(11)}, 0, 2);
        send(a1, src1, 1, 0, 2000);
        awaitAll(() -> polled(b1).size() == 1, "b1's message");
        send(a2, src2, 1, 7, 3000);
        awaitAll(() -> polled(b2).size() == 1, "b2's message");
        assertDelivered(b1, a1, src1, new long[] {0}, new int[] {2000});
        assertDelivered(b2, a2, src2, new long[] {7}, new int[] {3000});
        assertThat(link.b.pauses).isZero();
        assertThat(link2.b.pauses).isZero();
        assertThat(b1.engine.rx.receivePauses + b2.engine.rx.receivePauses).isZero();
    }
}
