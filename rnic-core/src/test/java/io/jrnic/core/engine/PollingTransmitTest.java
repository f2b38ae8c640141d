package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.link.DrivableExecutor;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.FpduHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Polling mode's transmit (issue 11, docs/transport.md "Polling mode"): a post runs the engine's
 * queued work on the posting thread ({@link QpEngine#progress()} calls
 * {@link DrivableExecutor#runQueued()}: no socket pass), and while the socket would block it also
 * drives the loop's I/O pass ({@link DrivableExecutor#drive()}), which finds the socket writable
 * again and moves what waits in the outbound buffer. Without that, an application that posts a
 * stream of large Writes and polls its CQ only now and then leaves the socket idle between polls
 * (the I/O thread stays out while the application drives). The engine runs on a {@link SteppedLink}
 * whose executor is a counting {@link DrivableExecutor} over a caller-thread {@link MemoryLinkPair}.
 */
class PollingTransmitTest {
    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE;

    private final FakeRnic mem = new FakeRnic();
    private final FakeQpContext context = new FakeQpContext(11, mem.pd(), mem.table);
    private final RecordingUpcalls upcalls = new RecordingUpcalls(context.pd);
    private final AtomicInteger received = new AtomicInteger();
    private MemoryLinkPair pair;
    private SteppedLink link;
    private CountingDriver driver;
    private QpEngine engine;
    private MemoryRegion mr;

    /** The caller-thread pair's loop as a polling-mode executor: every run drains both sides. */
    private static final class CountingDriver implements DrivableExecutor {
        final MemoryLinkPair pair;
        int drives;
        int queuedRuns;
        int directRuns;
        /** Another thread holds the loop: {@link #tryRun} fails. */
        boolean busy;
        /** The loop has terminated: nothing runs, {@link #execute} refuses. */
        boolean terminated;
        /** Event-loop mode with posts on the caller: CQ polls do not drive it. */
        boolean eventLoop;
        int executed;
        private boolean inside;

        CountingDriver(MemoryLinkPair pair) {
            this.pair = pair;
        }

        @Override
        public void execute(Runnable task) {
            if (terminated) {
                throw new java.util.concurrent.RejectedExecutionException("event loop terminated");
            }
            executed++;
            pair.a.executor().execute(task);
        }

        @Override
        public boolean drivesOnPoll() {
            return !eventLoop;
        }

        @Override
        public boolean drive() {
            drives++;
            return run();
        }

        @Override
        public boolean runQueued() {
            queuedRuns++;
            return run();
        }

        @Override
        public boolean tryRun(Runnable task) {
            if (busy || terminated) {
                return false; // another thread runs the loop now
            }
            directRuns++;
            inside = true;
            try {
                task.run(); // the task only: what is queued waits for a drive or runQueued
            } finally {
                inside = false;
            }
            return true;
        }

        private boolean run() {
            if (busy) {
                return false;
            }
            inside = true;
            try {
                pair.settle();
            } finally {
                inside = false;
            }
            return true;
        }

        @Override
        public void yieldToIoThread() {
        }

        @Override
        public boolean inExecutor() {
            return inside;
        }
    }

    @BeforeEach
    void start() {
        pair = MemoryLinkPair.onCallerThread(MemoryLinkPair.Options.defaults());
        link = new SteppedLink(pair.a);
        driver = new CountingDriver(pair);
        link.executor = driver;
        engine = new QpEngine(link, Duration.ofSeconds(10), Duration.ZERO);
        upcalls.engine = engine;
        FpduHandler peer = new FpduHandler() {
            @Override
            public void onUlpdu(MemorySegment segment, long offset, int length) {
                received.incrementAndGet();
            }

            @Override
            public void onError(DeframeFault fault) {
                throw new AssertionError("the peer could not deframe: " + fault);
            }
        };
        pair.b.executor().execute(() -> pair.b.start(peer, closure -> { }));
        engine.start(context, upcalls, null);
        pair.settle();
        mr = context.pd.registerMemory(mem.memory(1), RIGHTS);
    }

    @AfterEach
    void tearDown() {
        pair.close();
        mem.close();
    }

    /** As {@code SoftQueuePair.postSend}: the WQE goes to the engine, then the poster's progress. */
    private void post(long wrId) {
        engine.transmitPosted(write(wrId));
        engine.progress();
    }

    /** An 8-byte Write, processed by the QP. */
    private SendWqe write(long wrId) {
        SendWqe w = new SendWqe(4, 64);
        w.copyFrom(new SendWorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), mr.query().baseTo(), 8)
                .remote(0x4301, 0), true);
        w.inFlight = true;
        return w;
    }

    @Test
    void runsThatStopAtTheirBudgetLeaveTheFlushToTheLastRun() {
        int count = 2 * QpEngine.FPDU_BUDGET + 3; // three runs: budget, budget, the rest
        for (int i = 0; i < count; i++) {
            engine.transmit(write(i));
        }
        pair.settle();
        assertThat(received.get()).isEqualTo(count);
        assertThat(link.flushesMoreFollow).as("runs with more to send").isEqualTo(2);
        assertThat(link.flushes).as("the last run").isEqualTo(1);

        for (int i = 0; i < QpEngine.FPDU_BUDGET; i++) { // exactly a budget: nothing follows
            engine.transmit(write(count + i));
        }
        pair.settle();
        assertThat(received.get()).isEqualTo(count + QpEngine.FPDU_BUDGET);
        assertThat(link.flushesMoreFollow).isEqualTo(2);
        assertThat(link.flushes).isEqualTo(2);
    }

    @Test
    void aRunStoppedByAFullSocketFlushesEvenAtItsBudget() {
        link.fullAt = QpEngine.FPDU_BUDGET; // the socket fills with the run's last FPDU
        for (int i = 0; i < QpEngine.FPDU_BUDGET + 1; i++) {
            engine.transmit(write(i));
        }
        pair.settle();
        assertThat(received.get()).as("what the run sent is on its way").isEqualTo(QpEngine.FPDU_BUDGET);
        assertThat(link.flushesMoreFollow).isZero();
        assertThat(link.flushes).isEqualTo(1);
    }

    @Test
    void aPostOnAWritableSocketRunsItsWorkWithoutASocketPassOrATask() {
        for (int i = 0; i < 5; i++) {
            post(i);
            assertThat(link.sends).as("sent by the post itself").isEqualTo(i + 1);
        }
        pair.settle();
        assertThat(received.get()).isEqualTo(5);
        assertThat(driver.directRuns).isEqualTo(5);
        assertThat(driver.queuedRuns).as("no task queued and fetched per post").isZero();
        assertThat(driver.drives).isZero(); // nothing waits for the socket: no epoll pass per post
        assertThat(upcalls.names()).containsOnly("sendCompleted").hasSize(5);
    }

    @Test
    void aPostWhileAnotherThreadRunsTheLoopQueuesItsRunForThatThread() {
        driver.busy = true;
        post(1);
        assertThat(link.sends).as("the loop's holder has not run it yet").isZero();
        assertThat(driver.directRuns).isZero();

        driver.busy = false;
        driver.drive(); // the next drive (a CQ poll, or the holder's turn) runs the queued task
        assertThat(link.sends).isEqualTo(1);
        post(2); // and the next post runs its own again
        assertThat(link.sends).isEqualTo(2);
        assertThat(driver.directRuns).isEqualTo(1);
        pair.settle();
        assertThat(received.get()).isEqualTo(2);
        assertThat(upcalls.names()).containsOnly("sendCompleted").hasSize(2);
    }

    @Test
    void aPostAfterTheLoopTerminatedDoesNotSeeTheExecutorsRefusal() {
        // the link's closure ran on the loop first and took the QP to Error, whose flush completes
        // the WQEs; the poster racing that must not get the loop's RejectedExecutionException
        driver.terminated = true;
        post(1);
        post(2); // the owed run was given up: this post owes one again, and is refused again quietly
        assertThat(link.sends).isZero();
        assertThat(driver.directRuns).isZero();
    }

    @Test
    void aPostListLongerThanTheBudgetLeavesInOnePost() {
        int count = 2 * QpEngine.FPDU_BUDGET + 3; // a run sends a budget, then queues the rest
        SendWqe first = write(0);
        SendWqe last = first;
        for (int i = 1; i < count; i++) {
            last.txNext = write(i);
            last = last.txNext;
        }
        engine.transmitPosted(first);
        engine.progress();
        assertThat(link.sends).as("the post's own run and the runs it left").isEqualTo(count);
        assertThat(driver.directRuns).isEqualTo(1);
        assertThat(driver.queuedRuns).isEqualTo(1);
        pair.settle();
        assertThat(received.get()).isEqualTo(count);
    }

    @Test
    void aPostOnTheLoopRunsInThatTurnOfTheLoop() {
        // a post from a callback on the loop (a reply from a completion handler) takes the loop's
        // immediate path, not a run owed to a progress() that a thread holding the loop cannot make
        pair.a.executor().execute(() -> engine.transmitPosted(write(1)));
        driver.runQueued();
        assertThat(received.get()).isEqualTo(1);
        assertThat(driver.directRuns).isZero();
    }

    @Test
    void inEventLoopModeAPostOnAWritableSocketRunsOnThePosterAndLeavesTheRestToTheIoThread() {
        driver.eventLoop = true;
        int executed = driver.executed;
        post(1);
        assertThat(driver.directRuns).isEqualTo(1);
        assertThat(driver.executed - executed).as("no task").isZero();
        assertThat(driver.queuedRuns + driver.drives).as("the queue is the I/O thread's").isZero();
        pair.settle(); // the peer reads
        assertThat(received.get()).isEqualTo(1);
    }

    @Test
    void inEventLoopModeAPostWhileTheSocketWouldBlockIsHandedToTheIoThread() {
        driver.eventLoop = true;
        link.windowClosed = true; // the socket takes the first FPDU, then would block
        post(1);
        pair.settle();
        assertThat(received.get()).isEqualTo(1);
        int direct = driver.directRuns;
        int executed = driver.executed;

        post(2); // the I/O thread resumes the sends when the socket drains: the poster takes no turn
        assertThat(driver.directRuns).isEqualTo(direct);
        assertThat(driver.drives).isZero();
        assertThat(driver.executed - executed).as("the run is queued for the I/O thread").isEqualTo(1);
        link.windowClosed = false;
        pair.a.executor().execute(() -> link.listener.onWritable());
        pair.settle();
        assertThat(received.get()).isEqualTo(2);
        assertThat(upcalls.names()).containsOnly("sendCompleted").hasSize(2);
    }

    @Test
    void aPostWhileTheSocketWouldBlockDrivesTheLoopsIoPass() {
        link.windowClosed = true; // the socket takes the first FPDU, then would block
        post(1);
        assertThat(received.get()).isEqualTo(1);
        int drives = driver.drives;

        post(2); // waits behind the full socket: this post must drive the I/O pass that would move it
        assertThat(received.get()).isEqualTo(1);
        assertThat(driver.drives).isGreaterThan(drives);

        // the socket drains (the loop's pass saw it writable): the second Write goes, and posts go back
        // to running queued work only
        link.windowClosed = false;
        pair.a.executor().execute(() -> link.listener.onWritable());
        pair.settle();
        assertThat(received.get()).isEqualTo(2);
        drives = driver.drives;
        post(3);
        assertThat(driver.drives).isEqualTo(drives);
        pair.settle();
        assertThat(received.get()).isEqualTo(3);
        assertThat(upcalls.names()).containsOnly("sendCompleted").hasSize(3);
    }
}
