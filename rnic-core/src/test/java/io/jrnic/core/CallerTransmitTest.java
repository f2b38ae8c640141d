package io.jrnic.core;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.IoMode;
import io.jrnic.api.IoTransport;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.transport.DrivableEventLoop;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link IoMode#EVENT_LOOP} with posts on the caller ({@link RnicConfig#callerTransmit}, the default,
 * on epoll; issue 11) over real loopback TCP: a post made while its connection's I/O thread waits on
 * the sockets frames and writes on the posting thread, the I/O thread still receives everything, and
 * a CQ poll does not run the connection's work (the I/O thread does).
 */
class CallerTransmitTest extends LoopbackFixture {
    private static final int MESSAGES = 200;
    private static final int SIZE = 64;

    /** The sockets under test (NIO: {@link CallerTransmitNioTest}). */
    IoTransport transport() {
        return IoTransport.EPOLL;
    }

    @BeforeEach
    void needsTheTransport() {
        assumeTrue(transport() != IoTransport.EPOLL || Epoll.isAvailable(), "needs netty's native epoll transport");
    }

    @Override
    RnicConfig nodeConfig(String name) {
        return new RnicConfig().name(name).ioMode(IoMode.EVENT_LOOP).ioTransport(transport());
    }

    /**
     * Large Writes, a window of them far beyond what the sockets hold, the poster waiting on its CQ
     * between windows: its writes fill the socket again and again, and each time the rest goes out
     * when the socket drains, without a post or a poll to move it (the I/O thread's wait must see the
     * socket's new interest: on NIO a waiting selector only sees it when woken).
     */
    @Test
    void aStreamThatFillsTheSocketKeepsMoving() throws Exception {
        int size = 256 * 1024;
        int writes = 400;
        int window = 16;
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        Buffer out = a.buffer(size);
        Buffer in = b.buffer(size);
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        WorkCompletion wc = new WorkCompletion();
        SendWorkRequest write = new SendWorkRequest();
        long start = System.nanoTime();
        long completed = 0;
        for (int i = 0; i < writes; i++) {
            while (i - completed >= window) {
                assertThat(a.cq.poll(wc, WAIT_SECONDS, TimeUnit.SECONDS)).as("write %d completed", completed).isTrue();
                assertThat(wc.status()).as("write %d", completed).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(wc.wrId()).isEqualTo(completed++);
            }
            qpA.postSend(write.reset().wrId(i).opcode(Opcode.RDMA_WRITE).sge(out.stag(), out.to(), size)
                    .remote(in.stag(), in.to()));
        }
        while (completed < writes) {
            assertThat(a.cq.poll(wc, WAIT_SECONDS, TimeUnit.SECONDS)).as("write %d completed", completed).isTrue();
            assertThat(wc.wrId()).isEqualTo(completed++);
        }
        System.out.printf("%s: %d Writes of %d KiB in %d ms%n", transport(), writes, size / 1024,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        // the source is not rewritten while Writes of it are outstanding (the CRC is taken at framing)
        out.memory().set(JAVA_LONG, size - 8, 4242L);
        qpA.postSend(write.reset().wrId(writes).opcode(Opcode.RDMA_WRITE).sge(out.stag(), out.to(), size)
                .remote(in.stag(), in.to()));
        assertThat(a.cq.poll(wc, WAIT_SECONDS, TimeUnit.SECONDS)).as("the last write completed").isTrue();
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        awaitSlot(in, size / 8 - 1, 4242L, "the last Write's last bytes at the peer");
    }

    @Test
    void postsTransmitOnThePostingThreadAndEveryMessageArrivesInOrder() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        Buffer out = a.buffer(SIZE);
        Buffer in = b.buffer((long) SIZE * MESSAGES);
        for (int i = 0; i < MESSAGES; i++) {
            qpB.postReceive(new ReceiveWorkRequest().wrId(i).sge(in.stag(), in.to() + (long) i * SIZE, SIZE));
        }
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        DrivableEventLoop loopA = loop(qpA);
        long drivesBefore = loopA.applicationDrives();

        WorkCompletion wc = new WorkCompletion();
        SendWorkRequest send = new SendWorkRequest();
        for (int i = 0; i < MESSAGES; i++) {
            out.memory().set(JAVA_LONG, 0, 1000L + i);
            qpA.postSend(send.reset().wrId(i).opcode(Opcode.SEND).sge(out.stag(), out.to(), SIZE));
            // one at a time: the source is rewritten, and the I/O thread is idle again at the next post
            assertThat(a.cq.poll(wc, WAIT_SECONDS, TimeUnit.SECONDS)).as("send %d completed", i).isTrue();
            assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(wc.wrId()).isEqualTo(i);
        }
        for (int i = 0; i < MESSAGES; i++) {
            assertThat(b.cq.poll(wc, WAIT_SECONDS, TimeUnit.SECONDS)).as("receive %d", i).isTrue();
            assertThat(wc.wrId()).as("receives complete in order").isEqualTo(i);
            assertThat(in.memory().get(JAVA_LONG, (long) i * SIZE)).isEqualTo(1000L + i);
        }
        // Most posts find the I/O thread waiting in epoll and run on this thread; with posts handed to
        // the I/O thread (callerTransmit off, or an I/O thread that held the loop while waiting) none do.
        assertThat(loopA.applicationDrives() - drivesBefore).isGreaterThan(MESSAGES / 2);
    }

    @Test
    void aCqPollDoesNotRunTheConnectionsWork() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        DrivableEventLoop loopA = loop(qpA);
        assertThat(loopA.drivesOnPoll()).isFalse();
        long drivesBefore = loopA.applicationDrives();
        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < 1_000; i++) {
            assertThat(a.cq.poll(wc)).isFalse(); // in polling mode each of these drives the loop
        }
        assertThat(loopA.applicationDrives()).isEqualTo(drivesBefore);
    }

    /**
     * Six QP pairs, a posting thread per QP on both sides, Writes both ways: each side's posters
     * share their loops with its I/O thread, which places the other side's Writes and completes the
     * sends it wrote itself, while the posters write theirs on their own threads. Every WR completes
     * once and in SQ order, and the last Write of each QP lands.
     */
    @Test
    void postersAndTheIoThreadSharingLoopsBothWaysLoseNoWorkRequest() throws Exception {
        int qps = 6;
        int writes = 2_000;
        QueuePair[] fromA = new QueuePair[qps];
        QueuePair[] fromB = new QueuePair[qps];
        Buffer sinkA = a.buffer(qps * 8L);
        Buffer sinkB = b.buffer(qps * 8L);
        for (int q = 0; q < qps; q++) {
            fromA[q] = a.qp();
            fromB[q] = b.qp();
            connect(new ConnectionSettings(), new ConnectionSettings(), fromA[q], fromB[q], null, null);
        }
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        Side sideA = new Side(a, fromA, sinkB, writes, failure);
        Side sideB = new Side(b, fromB, sinkA, writes, failure);
        sideA.start();
        sideB.start();
        sideA.join();
        sideB.join();
        assertThat(failure.get()).isNull();
        sideA.check(sinkB);
        sideB.check(sinkA);
    }

    /** One side's posting threads (one per QP, a window of 32 Writes) and the thread that takes its completions. */
    private static final class Side {
        private static final int WINDOW = 32;
        private final Node node;
        private final QueuePair[] qps;
        private final Buffer remote;
        private final int writes;
        private final java.util.concurrent.atomic.AtomicReference<Throwable> failure;
        private final java.util.concurrent.atomic.AtomicLongArray completed;
        private final java.util.List<Thread> threads = new java.util.ArrayList<>();

        Side(Node node, QueuePair[] qps, Buffer remote, int writes,
             java.util.concurrent.atomic.AtomicReference<Throwable> failure) {
            this.node = node;
            this.qps = qps;
            this.remote = remote;
            this.writes = writes;
            this.failure = failure;
            this.completed = new java.util.concurrent.atomic.AtomicLongArray(qps.length);
        }

        void start() {
            threads.add(Thread.ofPlatform().name(node.rnic.name() + "-completions").start(this::takeCompletions));
            for (int q = 0; q < qps.length; q++) {
                int qp = q;
                threads.add(Thread.ofPlatform().name(node.rnic.name() + "-poster-" + q).start(() -> post(qp)));
            }
        }

        private void post(int q) {
            postWindowedWrites(node, qps[q], remote, q, writes, WINDOW, completed, failure);
        }

        private void takeCompletions() {
            WorkCompletion wc = new WorkCompletion();
            java.util.List<QueuePair> order = java.util.Arrays.asList(qps);
            try {
                for (long total = 0; total < (long) writes * qps.length && failure.get() == null; total++) {
                    assertThat(node.cq.poll(wc, WAIT_SECONDS, TimeUnit.SECONDS)).as("completion %d", total).isTrue();
                    assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                    int q = order.indexOf(wc.queuePair());
                    long expected = completed.get(q);
                    assertThat(wc.wrId()).as("QP %d completes in SQ order, each WR once", q).isEqualTo(expected);
                    completed.set(q, expected + 1);
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }

        void join() throws InterruptedException {
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(3 * WAIT_SECONDS));
                assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
            }
        }

        void check(Buffer sink) {
            for (int q = 0; q < qps.length; q++) {
                assertThat(completed.get(q)).as("completions of QP %d", q).isEqualTo(writes);
                awaitSlot(sink, q, writes - 1, "QP " + q + "'s last Write at the peer");
            }
        }
    }

    private static DrivableEventLoop loop(QueuePair qp) {
        return (DrivableEventLoop) ((QpEngine) qp.query().llpStream()).executor;
    }
}
