package io.jrnic.core;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.Counters;
import io.jrnic.api.IoMode;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.transport.DrivableEventLoop;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IoMode#POLLING} over real loopback TCP (issue 11): application threads that busy-poll run
 * their connections' work themselves, the RNIC's I/O thread serves a connection nobody polls, and a
 * blocking poll hands its connections to the I/O thread while it waits. The takeover time is set
 * far above the tests' bounded waits (30 s), so that a connection the application stops driving is
 * served within the wait only if the code under test handed it over.
 */
class PollingModeTest extends LoopbackFixture {
    private static final Duration TAKEOVER = Duration.ofSeconds(30);
    private static final int ROUND_TRIPS = 1_000;
    private static final int SIZE = 8;

    @Override
    RnicConfig nodeConfig(String name) {
        // on the socket kind under test: the POM's nio-data-path execution runs these on NIO too
        return TestIoMode.config(name).ioMode(IoMode.POLLING).pollingTakeover(TAKEOVER);
    }

    @Test
    void busyPollingThreadsRunEveryReadPlacementAndWriteOfTheirConnections() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        Buffer inA = a.buffer(SIZE);
        Buffer inB = b.buffer(SIZE);
        Buffer outA = a.buffer(SIZE);
        Buffer outB = b.buffer(SIZE);
        qpA.postReceive(new ReceiveWorkRequest().wrId(0).sge(inA.stag(), inA.to(), SIZE));
        qpB.postReceive(new ReceiveWorkRequest().wrId(0).sge(inB.stag(), inB.to(), SIZE));
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        DrivableEventLoop loopA = loop(qpA);
        DrivableEventLoop loopB = loop(qpB);

        AtomicReference<Throwable> echoFailure = new AtomicReference<>();
        Thread echo = Thread.ofPlatform().name("polling-echo").start(() -> {
            try {
                WorkCompletion wc = new WorkCompletion();
                SendWorkRequest send = new SendWorkRequest();
                ReceiveWorkRequest recv = new ReceiveWorkRequest();
                for (int i = 0; i < ROUND_TRIPS; i++) {
                    spinFor(b, wc, Opcode.RECEIVE);
                    qpB.postReceive(recv.reset().wrId(i + 1).sge(inB.stag(), inB.to(), SIZE));
                    outB.memory().set(JAVA_LONG, 0, inB.memory()
                            .get(JAVA_LONG, 0));
                    qpB.postSend(send.reset().wrId(i).opcode(Opcode.SEND).sge(outB.stag(), outB.to(), SIZE));
                    spinFor(b, wc, Opcode.SEND);
                }
            } catch (Throwable t) {
                echoFailure.set(t);
            }
        });

        WorkCompletion wc = new WorkCompletion();
        SendWorkRequest send = new SendWorkRequest();
        ReceiveWorkRequest recv = new ReceiveWorkRequest();
        Counters counters = new Counters();
        long turnsA = 0;
        long turnsB = 0;
        for (int i = 0; i < ROUND_TRIPS; i++) {
            if (i == ROUND_TRIPS / 2) { // warmed up: from here on nobody but the pollers may move the bytes
                turnsA = loopA.ioThreadTurns();
                turnsB = loopB.ioThreadTurns();
            }
            outA.memory().set(JAVA_LONG, 0, i);
            long fpdus = qpA.counters(counters).fpdusSent();
            qpA.postSend(send.reset().wrId(i).opcode(Opcode.SEND).sge(outA.stag(), outA.to(), SIZE));
            // the post framed and wrote its FPDU on this thread before it returned (nobody else drives A)
            if (i >= ROUND_TRIPS / 2) {
                assertThat(qpA.counters(counters).fpdusSent()).as("FPDUs sent when post %d returned", i)
                        .isEqualTo(fpdus + 1);
            }
            spinFor(a, wc, Opcode.SEND);
            spinFor(a, wc, Opcode.RECEIVE);
            assertThat(inA.memory().get(JAVA_LONG, 0)).isEqualTo(i);
            qpA.postReceive(recv.reset().wrId(i + 1).sge(inA.stag(), inA.to(), SIZE));
        }
        echo.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(echoFailure.get()).isNull();
        // The I/O threads took no turn in the second half: with a 30 s takeover they could only have
        // run for a task or a hand-back, so the pollers did every read, placement, completion and write.
        assertThat(loopA.ioThreadTurns() - turnsA).isZero();
        assertThat(loopB.ioThreadTurns() - turnsB).isZero();
        assertThat(loopA.applicationDrives()).isGreaterThan(ROUND_TRIPS);
        assertThat(loopB.applicationDrives()).isGreaterThan(ROUND_TRIPS);
    }

    @Test
    void aConnectionNobodyPollsIsServedByTheIoThread() throws Exception {
        // b never polls: its I/O thread must answer a's Read and place a's Write. With a 30 s takeover,
        // that happens within the test's wait only because b has never driven its loop.
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        Buffer source = b.buffer(4096);
        fill(source.memory(), 7);
        Buffer sink = a.buffer(4096);
        qpA.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), 4096)
                .remote(source.stag(), source.to()));
        WorkCompletion wc = new WorkCompletion();
        spinFor(a, wc, Opcode.RDMA_READ);
        assertThat(bytes(sink.memory(), 0, 4096)).isEqualTo(bytes(source.memory(), 0, 4096));
        assertThat(loop(qpB).ioThreadTurns()).isPositive();
        assertThat(loop(qpB).applicationDrives()).isZero();
    }

    @Test
    void aBlockingPollThatStopsSpinningHandsItsConnectionsToTheIoThread() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        Buffer inB = b.buffer(SIZE);
        qpB.postReceive(new ReceiveWorkRequest().wrId(9).sge(inB.stag(), inB.to(), SIZE));
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        // b drives its loop once, so that its I/O thread stays out for the 30 s takeover ...
        WorkCompletion wc = new WorkCompletion();
        assertThat(b.cq.poll(wc)).isFalse();
        AtomicReference<WorkCompletion> taken = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().name("blocking-poll").start(() -> {
            try {
                taken.set(b.cq.take(new WorkCompletion()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // ... until the blocking poll gives up spinning and waits on the CQ's monitor
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (waiter.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(waiter.getState()).isEqualTo(Thread.State.WAITING);
        Buffer outA = a.buffer(SIZE);
        qpA.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(outA.stag(), outA.to(), SIZE));
        waiter.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(taken.get()).isNotNull();
        assertThat(taken.get().wrId()).isEqualTo(9);
        assertThat(taken.get().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    /**
     * Posters that share loops with a poller (docs/transport.md, "Posts run on the posting thread"):
     * six application threads post inline RDMA Writes to six QPs, so that at least two QPs share
     * each of the RNIC's (at most four) loops, while a seventh thread polls their CQ and so drives
     * those loops. A post's transmit runs on its poster when it gets the loop, else in the drive of
     * whoever holds it: every WR completes exactly once and in its QP's SQ order, and the peer holds
     * each QP's last Write.
     */
    @Test
    void postersThatShareLoopsWithAPollerLoseNoWorkRequest() throws Exception {
        int qps = 6;
        int writes = 3_000;
        int window = 32;
        QueuePair[] posting = new QueuePair[qps];
        Buffer sink = b.buffer(qps * 8L);
        for (int q = 0; q < qps; q++) {
            posting[q] = a.qp();
            connect(new ConnectionSettings(), new ConnectionSettings(), posting[q], b.qp(), null, null);
        }
        java.util.concurrent.atomic.AtomicLongArray completed = new java.util.concurrent.atomic.AtomicLongArray(qps);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread poller = Thread.ofPlatform().name("polling-poller").start(() -> {
            WorkCompletion[] batch = new WorkCompletion[16];
            for (int i = 0; i < batch.length; i++) {
                batch[i] = new WorkCompletion();
            }
            try {
                while (!stop.get()) {
                    int n = a.cq.poll(batch, 0, batch.length);
                    for (int i = 0; i < n; i++) {
                        WorkCompletion wc = batch[i];
                        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                        int q = java.util.Arrays.asList(posting).indexOf(wc.queuePair());
                        long expected = completed.get(q);
                        assertThat(wc.wrId()).as("QP %d completes in SQ order, each WR once", q).isEqualTo(expected);
                        completed.set(q, expected + 1);
                    }
                    if (n == 0) {
                        Thread.yield();
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        Thread[] posters = new Thread[qps];
        for (int q = 0; q < qps; q++) {
            int qp = q;
            posters[q] = Thread.ofPlatform().name("polling-poster-" + q).start(() ->
                    postWindowedWrites(a, posting[qp], sink, qp, writes, window, completed, failure));
        }
        for (Thread t : posters) {
            t.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        for (int q = 0; q < qps && failure.get() == null; q++) {
            while (completed.get(q) < writes && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        }
        stop.set(true);
        poller.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(failure.get()).isNull();
        for (int q = 0; q < qps; q++) {
            assertThat(completed.get(q)).as("completions of QP %d", q).isEqualTo(writes);
            awaitSlot(sink, q, writes - 1, "QP " + q + "'s last Write at the peer");
        }
    }

    private static DrivableEventLoop loop(QueuePair qp) {
        return (DrivableEventLoop) ((QpEngine) qp.query().llpStream()).executor;
    }

    /** Busy-polls the node's CQ (each empty poll drives its connections) for one completion of the type. */
    private static void spinFor(Node node, WorkCompletion wc, Opcode opcode) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!node.cq.poll(wc)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + opcode + " completion within " + WAIT_SECONDS + " s on " + node.rnic);
            }
            Thread.yield(); // two spinning threads on a loaded 2-core machine: let the other one run
        }
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wc.opcode()).isEqualTo(opcode);
    }
}
