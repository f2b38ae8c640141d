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
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The latency path of {@link QpEngine#transmit}: on the link's own event loop the run happens at
 * once (no task hop), off the loop it is scheduled; either way the run is bounded by
 * {@link QpEngine#FPDU_BUDGET}, keeps SQ order and completes every WR exactly once. On
 * {@link LoopLinkPair} the test thread is the event loop (it drives {@code runAll}), and a ULPDU
 * reaches the peer's handler inside {@code send}, so "sent at once" is visible in the wire log.
 */
class TxLatencyPathTest extends LoopEngineFixture {
    private final List<String> log = LoopLinkPair.newLog();
    private static List<WorkCompletion> poll(EngineFixture.Side s) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (s.cq.poll(wc)) {
            out.add(new WorkCompletion().copyFrom(wc));
        }
        return out;
    }

    @Test
    void transmitOnTheLoopSendsWithoutATaskHop() {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, log);
        pair.a.logging = true;
        EngineFixture.Side a = side(pair.a, 0);
        EngineFixture.Side b = side(pair.b, 0);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(7).sge(0, 0, 0));

        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).signaled(true)); // on the loop thread

        assertThat(log).containsExactly("A:3"); // handed to the link inside postSend, no loop task ran
        assertThat(poll(b)).extracting(WorkCompletion::wrId).containsExactly(7L);
        assertThat(poll(a)).isEmpty(); // completes when the link reports it taken (a loop task)
        loop.runAll();
        assertThat(poll(a)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void oneImmediateRunPerTurnOfTheLoop() {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, log);
        pair.a.logging = true;
        EngineFixture.Side a = side(pair.a, 0);
        EngineFixture.Side b = side(pair.b, 0);
        for (int i = 0; i < 3; i++) {
            b.qp.postReceive(new ReceiveWorkRequest().wrId(i).sge(0, 0, 0));
        }

        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND)); // same turn: scheduled
        assertThat(log).containsExactly("A:3");
        loop.runAll();
        assertThat(log).containsExactly("A:3", "A:3");
        a.qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.SEND)); // a new turn: immediate again
        assertThat(log).containsExactly("A:3", "A:3", "A:3");
        loop.runAll();
        assertThat(poll(b)).extracting(WorkCompletion::wrId).containsExactly(0L, 1L, 2L);
    }

    @Test
    void transmitOffTheLoopIsScheduled() throws InterruptedException {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, log);
        pair.a.logging = true;
        EngineFixture.Side a = side(pair.a, 0);
        EngineFixture.Side b = side(pair.b, 0);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(7).sge(0, 0, 0));

        Thread other = new Thread(() -> a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND)));
        other.start();
        other.join();

        assertThat(log).isEmpty(); // queued for the loop
        loop.runAll();
        assertThat(log).containsExactly("A:3");
        assertThat(poll(b)).extracting(WorkCompletion::wrId).containsExactly(7L);
    }

    @Test
    void theImmediateRunIsStillBoundedByTheBudget() {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, log);
        pair.a.logging = true;
        EngineFixture.Side a = side(pair.a, 0);
        EngineFixture.Side b = side(pair.b, 0);
        MemoryRegion big = a.region(1 << 20, EngineFixture.RIGHTS);
        MemoryRegion sink = b.region(1 << 20, EngineFixture.RIGHTS);

        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(big.stag(), a.base(big), 1 << 20).remote(sink.stag(), b.base(sink)));

        assertThat(log).hasSize(QpEngine.FPDU_BUDGET); // one run's worth; the rest yields to the loop
        loop.runAll();
        assertThat(log).hasSize(732);
        assertThat(poll(a)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void pingPongFromCompletionHandlersKeepsOrderAndCompletesEveryWrOnce() {
        int rounds = 500;
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, log);
        AtomicInteger[] received = {new AtomicInteger(), new AtomicInteger()};
        List<Long> order = new ArrayList<>();
        EngineFixture.Side[] sides = new EngineFixture.Side[2];
        SoftRnic[] holder = new SoftRnic[2];
        // each side answers every received Send from its completion handler, i.e. on the loop,
        // inside the peer's run: the reply takes the immediate path or, nested, the scheduled one
        for (int i = 0; i < 2; i++) {
            int me = i;
            holder[i] = SoftRnic.open(new RnicConfig().name("ping-" + i + "-" + System.identityHashCode(this)));
            rnics.add(holder[i]);
            int handler = holder[i].setCompletionEventHandler(0, (r, cq) -> {
                EngineFixture.Side s = sides[me];
                WorkCompletion wc = new WorkCompletion();
                while (cq.poll(wc)) {
                    if (wc.opcode() == Opcode.RECEIVE) {
                        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                        int n = received[me].incrementAndGet();
                        if (me == 0) {
                            order.add(wc.wrId());
                        }
                        s.qp.postReceive(new ReceiveWorkRequest().wrId(n + 1000L).sge(0, 0, 0));
                        if (me == 1 || n < rounds) {
                            s.qp.postSend(new SendWorkRequest().wrId(n).opcode(Opcode.SEND).signaled(true));
                        }
                    } else {
                        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                    }
                }
                cq.requestNotification(io.jrnic.api.NotifyType.NEXT_COMPLETION);
            });
            EngineFixture.Side s = new EngineFixture.Side();
            s.rnic = holder[i];
            s.pd = s.rnic.allocatePd();
            s.cq = s.rnic.createCq(4096, handler);
            s.qp = s.pd.createQueuePair(new QueuePairConfig().cqs(s.cq, s.cq).depths(64, 64).readDepths(4, 4));
            s.engine = new QpEngine(i == 0 ? pair.a : pair.b);
            s.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(s.engine));
            s.cq.requestNotification(io.jrnic.api.NotifyType.NEXT_COMPLETION);
            s.qp.postReceive(new ReceiveWorkRequest().wrId(1000).sge(0, 0, 0));
            sides[i] = s;
        }
        loop.runAll();

        sides[0].qp.postSend(new SendWorkRequest().wrId(0).opcode(Opcode.SEND).signaled(true));
        loop.runAll();

        assertThat(received[1].get()).isEqualTo(rounds);
        assertThat(received[0].get()).isEqualTo(rounds);
        // receives complete in posting order: 1000, 1001, ... (R-ORD-017)
        for (int i = 0; i < order.size(); i++) {
            assertThat(order.get(i)).isEqualTo(1000L + i);
        }
        assertThat(sides[0].qp.state()).isEqualTo(QpState.RTS);
        assertThat(sides[1].qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void sendPayloadIsIntactOnTheImmediatePath() {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, log);
        EngineFixture.Side a = side(pair.a, 0);
        EngineFixture.Side b = side(pair.b, 0);
        MemoryRegion src = a.region(10_000, EngineFixture.RIGHTS);
        MemoryRegion dst = b.region(10_000, EngineFixture.RIGHTS);
        MemorySegment m = a.memory(src);
        for (int i = 0; i < 10_000; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        b.qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(dst.stag(), b.base(dst), 10_000));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(src.stag(), a.base(src), 10_000));
        loop.runAll();
        assertThat(poll(b).getFirst().byteLength()).isEqualTo(10_000);
        assertThat(b.memory(dst).mismatch(m)).isEqualTo(-1L);
    }

    /**
     * A post that races the termination of the link's event loop (its transport closed) must not
     * throw the executor's RejectedExecutionException at the application: the link's closure ran
     * on the loop first and owns the flush.
     */
    @Test
    void postingAfterTheLoopTerminatedDoesNotThrowTheExecutorsRejection() {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, log);
        EngineFixture.Side a = side(pair.a, 0);
        side(pair.b, 0);
        MemoryRegion mr = a.region(64, EngineFixture.RIGHTS);
        loop.terminate();
        // posted from an application thread (the manual loop counts the test thread as the loop's)
        java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
        Thread poster = Thread.ofPlatform().start(() -> {
            try {
                a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(mr.stag(), a.base(mr), 8));
                a.qp.postReceive(new ReceiveWorkRequest().wrId(2).sge(mr.stag(), a.base(mr), 8));
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        try {
            poster.join(10_000);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertThat(poster.isAlive()).isFalse();
        assertThat(thrown.get()).isNull();
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }
}
