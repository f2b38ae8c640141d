package io.jrnic.core.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandle;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The event loop of polling mode on its own: who runs its work, when its I/O thread takes over and
 * hands back, shutdown. Waits are bounded and wait for events; the one pause (10 ms gaps between
 * messages in the I/O thread's spin test) is that test's stimulus, not a wait.
 */
class DrivableEventLoopTest {
    private static final long WAIT_SECONDS = 10;
    private DrivableEventLoopGroup group;

    private DrivableEventLoop open(long takeoverNanos) {
        return open(takeoverNanos, 0);
    }

    private DrivableEventLoop open(long takeoverNanos, long spinNanos) {
        return open(takeoverNanos, spinNanos, NioIoHandler.newFactory());
    }

    private DrivableEventLoop open(long takeoverNanos, long spinNanos, IoHandlerFactory factory) {
        group = new DrivableEventLoopGroup(1, r -> new Thread(r, "drivable-test-io"), factory, takeoverNanos, spinNanos);
        DrivableEventLoop loop = (DrivableEventLoop) group.next();
        // The I/O thread starts asynchronously and holds the loop once to initialise its handler: a
        // drive racing that start-up fails. Nobody has driven yet, so its first turn follows at once.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (loop.ioThreadTurns() == 0) {
            assertThat(System.nanoTime()).as("the I/O thread's first turn").isLessThan(deadline);
            Thread.onSpinWait();
        }
        return loop;
    }

    /** NIO's handler, counting the wake-ups of a thread blocked in its selector. */
    private static IoHandlerFactory countingWakeups(AtomicInteger wakeups) {
        return observed(wakeups, context -> { });
    }

    /** NIO's handler, counting wake-ups and showing every context it runs with to {@code beforeRun} first. */
    private static IoHandlerFactory observed(AtomicInteger wakeups, java.util.function.Consumer<IoHandlerContext> beforeRun) {
        return observed(NioIoHandler.newFactory(), wakeups, beforeRun, new AtomicBoolean());
    }

    /**
     * The given handler, counting wake-ups, showing every context it runs with to {@code beforeRun}
     * first and keeping {@code running} set while it runs.
     */
    private static IoHandlerFactory observed(IoHandlerFactory base, AtomicInteger wakeups,
                                             java.util.function.Consumer<IoHandlerContext> beforeRun,
                                             AtomicBoolean running) {
        return executor -> {
            IoHandler handler = base.newHandler(executor);
            return new IoHandler() {
                @Override
                public void initialize() {
                    handler.initialize();
                }

                @Override
                public int run(IoHandlerContext context) {
                    beforeRun.accept(context);
                    running.set(true);
                    try {
                        return handler.run(context);
                    } finally {
                        running.set(false);
                    }
                }

                @Override
                public void prepareToDestroy() {
                    handler.prepareToDestroy();
                }

                @Override
                public void destroy() {
                    handler.destroy();
                }

                @Override
                public IoRegistration register(IoHandle handle) throws Exception {
                    return handler.register(handle);
                }

                @Override
                public void wakeup() {
                    wakeups.incrementAndGet();
                    handler.wakeup();
                }

                @Override
                public boolean isCompatible(Class<? extends IoHandle> handleType) {
                    return handler.isCompatible(handleType);
                }
            };
        };
    }

    @AfterEach
    void close() throws InterruptedException {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            assertThat(group.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** Drives until the I/O thread, which serves the loop at start, has handed it to this thread. */
    private static void takeOver(DrivableEventLoop loop) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!loop.drive()) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void aTaskQueuedByAnotherThreadRunsInTheDriveOfTheThreadThatPolls() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop); // from now on the I/O thread stays out for 30 s
        long turns = loop.ioThreadTurns();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicBoolean inLoop = new AtomicBoolean();
        Thread other = Thread.ofPlatform().start(() -> loop.execute(() -> {
            ranOn.set(Thread.currentThread());
            inLoop.set(loop.inEventLoop());
        }));
        other.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(ranOn.get()).isNull(); // queued, not run: nobody drives
        assertThat(loop.drive()).isTrue();
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(inLoop.get()).isTrue();
        assertThat(loop.inEventLoop()).isFalse(); // only while driving
        assertThat(loop.ioThreadTurns()).isEqualTo(turns);
    }

    @Test
    void runQueuedRunsTasksOnThePostingThread() {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        loop.execute(() -> ranOn.set(Thread.currentThread()));
        assertThat(loop.runQueued()).isTrue();
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
    }

    @Test
    void tryRunRunsItsTaskOnTheCallingThreadAheadOfTheQueuedOnes() {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        long drives = loop.applicationDrives();
        List<String> order = new ArrayList<>();
        AtomicBoolean inLoop = new AtomicBoolean();
        loop.execute(() -> order.add("queued"));
        assertThat(loop.tryRun(() -> {
            order.add("direct");
            inLoop.set(loop.inEventLoop());
        })).isTrue();
        assertThat(order).as("the queued task waits for a drive").containsExactly("direct");
        assertThat(inLoop.get()).as("the task runs as the loop's thread").isTrue();
        assertThat(loop.inEventLoop()).isFalse();
        assertThat(loop.applicationDrives()).isEqualTo(drives + 1);

        assertThat(loop.tryRun(() -> {
            throw new IllegalStateException("a task that fails");
        })).as("logged, as on the loop's own thread").isTrue();
        assertThat(loop.inEventLoop()).isFalse();
        assertThat(loop.runQueued()).isTrue();
        assertThat(order).containsExactly("direct", "queued");
    }

    @Test
    void tryRunWhileAnotherThreadRunsTheLoopLeavesTheTaskToTheCaller() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        loop.execute(() -> {
            holding.countDown();
            try {
                release.await(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread holder = Thread.ofPlatform().start(loop::runQueued);
        try {
            assertThat(holding.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            AtomicBoolean ran = new AtomicBoolean();
            assertThat(loop.tryRun(() -> ran.set(true))).isFalse();
            assertThat(ran.get()).isFalse();
        } finally {
            release.countDown();
            holder.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        }
        assertThat(loop.tryRun(() -> { })).isTrue();
    }

    @Test
    void tryRunWhileTheIoThreadBlocksAsksForTheLoopBackAndKeepsItOut() throws Exception {
        CountDownLatch blocking = new CountDownLatch(1);
        long takeover = TimeUnit.MILLISECONDS.toNanos(300);
        DrivableEventLoop loop = open(takeover, 0, observed(new AtomicInteger(), context -> {
            if (context.canBlock()) {
                blocking.countDown();
            }
        }));
        // the I/O thread serves the loop at start (nobody drove yet) and blocks in its selector; a
        // tryRun fails but has it hand the loop back, long before its select's 1 s timeout
        assertThat(blocking.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        long start = System.nanoTime();
        while (!loop.tryRun(() -> { })) {
            assertThat(System.nanoTime() - start).as("the I/O thread hands the loop back").isLessThan(
                    TimeUnit.MILLISECONDS.toNanos(900));
            Thread.onSpinWait();
        }
        // tryRuns alone, with no drive, for several takeover periods: each counts as driving the loop
        long turns = loop.ioThreadTurns();
        long end = System.nanoTime() + 4 * takeover;
        while (System.nanoTime() - end < 0) {
            assertThat(loop.tryRun(() -> { })).isTrue();
        }
        assertThat(loop.ioThreadTurns()).isEqualTo(turns);
    }

    @Test
    void aDriveInsideADriveRunsNothingAndTheOuterDriveRunsWhatItQueued() {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        AtomicBoolean nested = new AtomicBoolean(true);
        AtomicBoolean innerTaskRan = new AtomicBoolean();
        loop.execute(() -> {
            loop.execute(() -> innerTaskRan.set(true));
            nested.set(loop.drive() || loop.runQueued());
        });
        assertThat(loop.drive()).isTrue();
        assertThat(nested.get()).isFalse();
        assertThat(innerTaskRan.get()).isTrue();
    }

    @Test
    void withNobodyDrivingTheIoThreadRunsATaskAtOnce() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1));
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        loop.execute(() -> {
            ranOn.set(Thread.currentThread());
            ran.countDown();
        });
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(loop.isIoThread(ranOn.get())).isTrue();
    }

    @Test
    void aRunningLoopIsNeitherTerminatedNorDoneAwaitingTermination() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        assertThat(loop.isShuttingDown()).isFalse();
        assertThat(loop.isShutdown()).isFalse();
        assertThat(loop.isTerminated()).isFalse();
        assertThat(loop.awaitTermination(10, TimeUnit.MILLISECONDS)).isFalse(); // bounded: it runs on
        assertThat(loop.terminationFuture().isDone()).isFalse();
    }

    @Test
    void aDriveWakesAnIoThreadBlockedUntilAFarDeadline() throws Exception {
        AtomicLong blockedUntil = new AtomicLong(); // the deadline of the latest blocking select, netty's clock
        AtomicInteger blocks = new AtomicInteger();
        // nobody drove yet: the I/O thread serves the loop; a task scheduled a minute out makes its
        // select block until then, so only the drive's wake-up (not a timeout) hands the loop back
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, observed(new AtomicInteger(), context -> {
            if (context.canBlock()) {
                blockedUntil.set(context.deadlineNanos());
                blocks.incrementAndGet();
            }
        }));
        loop.schedule(() -> { }, 60, TimeUnit.SECONDS);
        // its first select, before the task, waits a second at most: wait for the one until the task
        awaitCondition(() -> blockedUntil.get() - loop.getCurrentTimeNanos() > TimeUnit.SECONDS.toNanos(30));
        takeOver(loop); // fails after WAIT_SECONDS if the I/O thread sleeps on in its selector
        long turns = loop.ioThreadTurns();
        assertThat(loop.drive()).isTrue();
        assertThat(loop.ioThreadTurns()).isEqualTo(turns);
        // and again: after a yield the I/O thread serves and blocks until the task; the next drive
        // asks for the loop back as the first did (the hand-back request was cleared when served)
        int served = blocks.get();
        loop.yieldToIoThread();
        awaitCondition(() -> blocks.get() > served);
        takeOver(loop);
    }

    @Test
    @SuppressWarnings("deprecation")
    void aChannelRegisteredWithItsOwnPromiseFromAForeignThreadIsRegisteredByTheNextDrive() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        Channel channel = new NioSocketChannel();
        ChannelFuture registered = loop.register(channel, channel.newPromise());
        assertThat(registered.isDone()).isFalse(); // queued: nobody drove
        driveUntil(loop, registered::isDone);
        assertThat(registered.isSuccess()).isTrue();
        assertThat(channel.isRegistered()).isTrue();
        assertThat(channel.eventLoop()).isSameAs(loop);
        ChannelFuture closed = channel.close();
        driveUntil(loop, closed::isDone);
    }

    @Test
    void theGroupKnowsItsLoopsIoThreadAndItsDrivingThreadAsLoopThreads() throws Exception {
        // nobody drove yet, so the I/O thread runs the first task; after the take-over it stays out for
        // 30 s (with a short takeover it could take the loop back before this thread's drive)
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Thread> ioThread = new AtomicReference<>();
        AtomicBoolean drivingThreadRunsLoop = new AtomicBoolean();
        loop.execute(() -> {
            ioThread.set(Thread.currentThread());
            ran.countDown();
        });
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(loop.isIoThread(ioThread.get())).isTrue();
        assertThat(loop.isIoThread(Thread.currentThread())).isFalse();
        assertThat(group.runsLoop(ioThread.get())).as("the I/O thread, even between turns").isTrue();
        takeOver(loop);
        loop.execute(() -> drivingThreadRunsLoop.set(group.runsLoop(Thread.currentThread())));
        assertThat(loop.drive()).isTrue();
        assertThat(drivingThreadRunsLoop.get()).as("an application thread inside a drive").isTrue();
        assertThat(group.runsLoop(Thread.currentThread())).as("the same thread after the drive").isFalse();
    }

    @Test
    void aThreadThatYieldsHandsTheLoopToTheIoThreadBeforeTheTakeoverTime() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        loop.yieldToIoThread();
        CountDownLatch ran = new CountDownLatch(1);
        loop.execute(ran::countDown); // queued by a thread that will not drive
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue(); // not 30 s
    }

    @Test
    void aDriveWhileTheIoThreadBlocksAsksForTheLoopBack() throws Exception {
        CountDownLatch blocking = new CountDownLatch(1);
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, observed(new AtomicInteger(), context -> {
            if (context.canBlock()) {
                blocking.countDown();
            }
        }));
        // the I/O thread serves the loop at start (nobody drove yet) and blocks in its selector (wait
        // for that: a thread started late takes the slot once for its start after a first drive);
        // the first drive fails but wakes it, and it hands the loop back
        assertThat(blocking.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        takeOver(loop);
        long turns = loop.ioThreadTurns();
        for (int i = 0; i < 1000; i++) {
            assertThat(loop.drive()).isTrue();
        }
        assertThat(loop.ioThreadTurns()).isEqualTo(turns);
        assertThat(loop.applicationDrives()).isGreaterThanOrEqualTo(1000);
    }

    @Test
    void aSpinningIoThreadRunsATaskWhileTheApplicationThreadThatDroveLastIsAway() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), DrivableEventLoop.SPIN_ALWAYS); // IoMode.BUSY_POLLING
        takeOver(loop); // with a blocking I/O thread this would keep it out for 30 s
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        loop.execute(() -> {
            ranOn.set(Thread.currentThread());
            ran.countDown();
        });
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(loop.isIoThread(ranOn.get())).isTrue();
    }

    @Test
    void anIoThreadThatFoundWorkKeepsServingWithoutBlockingForThePollingSpin() throws Exception {
        AtomicInteger wakeups = new AtomicInteger();
        // nobody drives: the I/O thread serves the loop and blocks in its selector until a task comes
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(30),
                countingWakeups(wakeups));
        for (int i = 0; i < 100; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
        // the first task woke the blocked thread; it found work and spins since, so the other 99 were
        // picked up by its passes: nobody had to wake it again
        assertThat(wakeups.get()).isLessThanOrEqualTo(1);
    }

    @Test
    void withoutThePollingSpinEveryTaskWakesTheBlockedIoThread() throws Exception {
        AtomicInteger wakeups = new AtomicInteger();
        AtomicInteger blockingTurns = new AtomicInteger();
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, observed(wakeups, context -> {
            if (context.canBlock()) {
                blockingTurns.incrementAndGet();
            }
        }));
        int turn = 0;
        for (int i = 0; i < 100; i++) {
            // each task is queued once the I/O thread went back to its selector after the last one (on a
            // loaded machine the test thread could otherwise queue it while the thread is still between
            // its selector and its tasks, when no wake-up is needed): no spin, so it blocks at once
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (blockingTurns.get() <= turn) {
                assertThat(System.nanoTime()).as("the I/O thread blocks again").isLessThan(deadline);
                Thread.onSpinWait();
            }
            turn = blockingTurns.get(); // the turn that serves this task; the next one comes after it
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
        // every task found the thread blocked and woke it (a selector returning early by itself, which
        // NIO allows, can spare one)
        assertThat(wakeups.get()).isGreaterThanOrEqualTo(90);
    }

    @Test
    void anApplicationDriveEndsTheSpinAndKeepsTheIoThreadOut() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(30));
        CountDownLatch ran = new CountDownLatch(1);
        loop.execute(ran::countDown); // the I/O thread finds work and starts to spin
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        takeOver(loop); // an application polls: the spin ends, the I/O thread stays out for 30 s
        long turns = loop.ioThreadTurns();
        for (int i = 0; i < 100; i++) {
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            loop.execute(() -> ranOn.set(Thread.currentThread()));
            assertThat(loop.drive()).isTrue();
            assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        }
        assertThat(loop.ioThreadTurns()).isEqualTo(turns);
    }

    @Test
    void aDriveRefusedWhileTheSpinningIoThreadHoldsTheLoopEndsTheSpin() throws Exception {
        AtomicBoolean hold = new AtomicBoolean();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        AtomicReference<Thread> ioThread = new AtomicReference<>();
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(30),
                observed(new AtomicInteger(), context -> {
                    // a pass of the spinning I/O thread, held while the application tries to drive
                    if (!context.canBlock() && isCurrent(ioThread) && hold.compareAndSet(true, false)) {
                        holding.countDown();
                        try {
                            release.await(WAIT_SECONDS, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        released.countDown();
                    }
                }));
        CountDownLatch ran = new CountDownLatch(1);
        loop.execute(() -> {
            ioThread.set(Thread.currentThread());
            ran.countDown();
        }); // nobody drove: the I/O thread runs it, found work, and spins for 30 s
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        hold.set(true);
        assertThat(holding.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(loop.drive()).as("the I/O thread holds the loop").isFalse();
        release.countDown();
        // out of the held pass (its wait there is TIMED_WAITING too: not the park looked for below)
        assertThat(released.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        // the spin ends: the I/O thread parks for the takeover period (a spin goes on for 30 s)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (ioThread.get().getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("the I/O thread stops spinning").isLessThan(deadline);
            Thread.onSpinWait();
        }
        // a task queued now does not wake it (it is out for 30 s): the application's drive runs it
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        loop.execute(() -> ranOn.set(Thread.currentThread()));
        assertThat(ranOn.get()).as("not run by the I/O thread").isNull();
        assertThat(ioThread.get().getState()).as("still parked").isEqualTo(Thread.State.TIMED_WAITING);
        takeOver(loop);
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
    }

    /** Whether the running thread is the one recorded (the loop's I/O thread, once known). */
    private static boolean isCurrent(AtomicReference<Thread> ioThread) {
        return Thread.currentThread() == ioThread.get();
    }

    @Test
    void aDriveReadsTheClockOnceAndOnlyItsOwnThreadSeesThatTime() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        long before = loop.getCurrentTimeNanos(); // netty's scheduling clock, outside a drive
        long[] inDrive = new long[2];
        AtomicLong seenByOther = new AtomicLong();
        loop.execute(() -> {
            inDrive[0] = loop.getCurrentTimeNanos();
            long t = System.nanoTime();
            while (System.nanoTime() - t < TimeUnit.MILLISECONDS.toNanos(2)) {
                Thread.onSpinWait(); // the clock moves on within the drive
            }
            inDrive[1] = loop.getCurrentTimeNanos();
            Thread other = Thread.ofPlatform().start(() -> seenByOther.set(loop.getCurrentTimeNanos()));
            try {
                other.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(loop.drive()).isTrue();
        // the drive's start, read once: the same value late in the drive, 2 ms on
        assertThat(inDrive[1]).isEqualTo(inDrive[0]).isGreaterThanOrEqualTo(before);
        // another thread, and this one after the drive, read the clock
        assertThat(seenByOther.get()).isGreaterThanOrEqualTo(inDrive[0] + TimeUnit.MILLISECONDS.toNanos(2));
        assertThat(loop.getCurrentTimeNanos()).isGreaterThanOrEqualTo(inDrive[0] + TimeUnit.MILLISECONDS.toNanos(2));
    }

    @Test
    void scheduledTasksRunInADrive() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        loop.schedule(() -> ranOn.set(Thread.currentThread()), 1, TimeUnit.MILLISECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (ranOn.get() == null && System.nanoTime() < deadline) {
            loop.drive();
        }
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
    }

    @Test
    void afterShutdownDrivesRunNothingAndTasksAreRefused() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        CountDownLatch ranBeforeTermination = new CountDownLatch(1);
        loop.execute(ranBeforeTermination::countDown); // queued, nobody drives: shutdown runs it
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(ranBeforeTermination.getCount()).isZero();
        assertThat(loop.drive()).isFalse();
        AtomicBoolean ran = new AtomicBoolean();
        assertThat(loop.tryRun(() -> ran.set(true))).isFalse(); // the poster's progress() then queues, and is refused
        assertThat(ran.get()).isFalse();
        assertThatThrownBy(() -> loop.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    // ---- netty plumbing: channels, registration, identity -------------------------------------------

    /** The handler factory and channel class of a socket kind ("nio" or "epoll"). */
    private static IoHandlerFactory factory(String kind) {
        if (kind.equals("epoll")) {
            assumeTrue(Epoll.isAvailable(), "netty's native epoll transport loads here");
            return EpollIoHandler.newFactory();
        }
        return NioIoHandler.newFactory();
    }

    private static Class<? extends Channel> channelClass(String kind) {
        return kind.equals("epoll") ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** A client channel on the group that counts the bytes it reads and its close. */
    private static class Reader extends ChannelInboundHandlerAdapter {
        final AtomicInteger bytes = new AtomicInteger();
        final AtomicReference<Thread> readOn = new AtomicReference<>();
        final AtomicBoolean unregistered = new AtomicBoolean();
        final CountDownLatch hundredBytes = new CountDownLatch(1);

        @Override
        public void channelUnregistered(ChannelHandlerContext ctx) {
            unregistered.set(true);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            readOn.set(Thread.currentThread());
            if (bytes.addAndGet(((ByteBuf) msg).readableBytes()) >= 100) {
                hundredBytes.countDown();
            }
            ((ByteBuf) msg).release();
        }
    }

    private ChannelFuture connect(String kind, ServerSocket server, Reader reader) {
        return new Bootstrap().group(group).channel(channelClass(kind)).handler(reader)
                .connect(server.getLocalSocketAddress());
    }

    private static ServerSocket loopbackServer() throws Exception {
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        server.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        return server;
    }

    /** Drives until the condition holds, failing after the bounded wait. */
    private static void driveUntil(DrivableEventLoop loop, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within %d s", WAIT_SECONDS).isLessThan(deadline);
            loop.drive();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "epoll"})
    void aChannelRegisteredFromAForeignThreadIsServedByTheNextDrives(String kind) throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, factory(kind));
        takeOver(loop); // the I/O thread stays out for 30 s: only this thread's drives serve the channel
        long turns = loop.ioThreadTurns();
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader();
            ChannelFuture connected = connect(kind, server, reader); // registration queued on the loop
            assertThat(connected.channel().isRegistered()).isFalse(); // nobody drove yet
            driveUntil(loop, connected::isDone); // registers, connects, finishes the connect
            assertThat(connected.isSuccess()).isTrue();
            try (Socket peer = server.accept()) {
                assertThat(connected.channel().eventLoop()).isSameAs(loop);
                peer.getOutputStream().write(new byte[100]);
                driveUntil(loop, () -> reader.bytes.get() == 100);
                assertThat(reader.readOn.get()).isSameAs(Thread.currentThread());
            }
        }
        assertThat(loop.ioThreadTurns()).isEqualTo(turns);
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "epoll"})
    void withNobodyDrivingTheIoThreadServesARegisteredChannel(String kind) throws Exception {
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1), 0, factory(kind));
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader();
            ChannelFuture connected = connect(kind, server, reader);
            try (Socket peer = server.accept()) {
                assertThat(connected.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                assertThat(connected.isSuccess()).isTrue();
                peer.getOutputStream().write(new byte[100]);
                assertThat(reader.hundredBytes.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                assertThat(loop.isIoThread(reader.readOn.get())).isTrue();
            }
        }
    }

    @Test
    void anApplicationsDrivesTakeAPolledSocketOutOfEpollAndTheIoThreadPutsItBackBeforeItWaits() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(300), 0, factory("epoll"));
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader();
            ChannelFuture connected = connect("epoll", server, reader);
            try (Socket peer = server.accept()) {
                assertThat(connected.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                driveUntil(loop, () -> loop.polledSockets() == 1);
                peer.getOutputStream().write(new byte[60]);
                driveUntil(loop, () -> reader.bytes.get() == 60);
                // out of the epoll set once this thread's drives have the loop (the I/O thread hands it back)
                driveUntil(loop, () -> loop.suspendedSockets() == 1);
                // this thread stops driving: the I/O thread takes over and waits in epoll, which
                // must see the socket again, or the next bytes are never read
                peer.getOutputStream().write(new byte[40]);
                assertThat(reader.hundredBytes.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                assertThat(loop.isIoThread(reader.readOn.get())).isTrue();
                assertThat(loop.submit(loop::suspendedSockets).get(WAIT_SECONDS, TimeUnit.SECONDS)).isZero();
            }
        }
    }

    @Test
    void aWriteThatFillsTheSocketOfASuspendedSocketFinishesWhenThePeerReads() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, factory("epoll"));
        takeOver(loop); // only this thread's drives serve the channel
        try (ServerSocket server = loopbackServer()) {
            Channel channel = connectDriven(loop, server, new Reader());
            try (Socket peer = server.accept()) {
                driveUntil(loop, () -> loop.suspendedSockets() == 1);
                int size = 32 << 20; // beyond what loopback's socket buffers hold: netty waits for EPOLLOUT
                ChannelFuture written = channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[size]));
                loop.drive();
                assertThat(written.isDone()).as("written at once").isFalse();
                AtomicLong drained = new AtomicLong();
                Thread sink = Thread.ofPlatform().start(() -> {
                    try {
                        drained.set(peer.getInputStream().readNBytes(size).length);
                    } catch (java.io.IOException e) {
                        drained.set(-1);
                    }
                });
                driveUntil(loop, written::isDone); // the pass sees it waiting to write: back into epoll
                assertThat(written.isSuccess()).isTrue();
                sink.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                assertThat(drained.get()).isEqualTo(size);
            }
        }
    }

    @Test
    void socketsTakenOutOfEpollRejoinItWhenAThirdSocketMakesTheDrivesAskEpoll() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, factory("epoll"));
        takeOver(loop); // only this thread's drives serve the channels
        try (ServerSocket server = new ServerSocket(0, PolledSockets.LIMIT + 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            List<Socket> peers = new ArrayList<>();
            List<Reader> readers = new ArrayList<>();
            try {
                for (int i = 0; i < PolledSockets.LIMIT; i++) {
                    readers.add(new Reader());
                    connectDriven(loop, server, readers.get(i));
                    peers.add(server.accept());
                }
                driveUntil(loop, () -> loop.suspendedSockets() == PolledSockets.LIMIT);
                readers.add(new Reader());
                connectDriven(loop, server, readers.get(PolledSockets.LIMIT));
                peers.add(server.accept());
                // above the limit the drives read through epoll only: the suspended sockets must be back in its set
                for (Socket peer : peers) {
                    peer.getOutputStream().write(new byte[100]);
                }
                for (Reader reader : readers) {
                    driveUntil(loop, () -> reader.bytes.get() == 100);
                }
                assertThat(loop.suspendedSockets()).isZero();
                // back in the set once: later passes do not visit every socket again (a thousand
                // QPs on a loop paid a cold object per socket per pass)
                long visits = loop.resumeVisits(); // this thread drives the loop: nobody else touches it
                assertThat(visits).as("the suspended sockets were visited to rejoin").isGreaterThanOrEqualTo(PolledSockets.LIMIT);
                for (int i = 0; i < 100; i++) {
                    loop.drive();
                }
                assertThat(loop.resumeVisits()).isEqualTo(visits);
            } finally {
                for (Socket peer : peers) {
                    peer.close();
                }
            }
        }
    }

    @Test
    void aPeerClosingASocketOutOfEpollClosesTheChannelAndItLeavesTheLoop() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, factory("epoll"));
        takeOver(loop);
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader();
            Channel channel = connectDriven(loop, server, reader);
            Socket peer = server.accept();
            driveUntil(loop, () -> loop.suspendedSockets() == 1);
            peer.close(); // end of stream, seen by a direct read; netty closes and cancels the registration
            driveUntil(loop, () -> !channel.isOpen());
            driveUntil(loop, () -> loop.polledSockets() == 0);
            assertThat(reader.unregistered).isTrue();
            assertThat(loop.drive()).as("the loop goes on").isTrue();
        }
    }

    @Test
    void aLoopShuttingDownClosesASocketItHadTakenOutOfEpoll() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, factory("epoll"));
        takeOver(loop);
        try (ServerSocket server = loopbackServer()) {
            Channel channel = connectDriven(loop, server, new Reader());
            try (Socket peer = server.accept()) {
                driveUntil(loop, () -> loop.suspendedSockets() == 1);
                loop.shutdownGracefully(0, 5, TimeUnit.SECONDS);
                assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                assertThat(channel.isOpen()).as("closed by the loop's shutdown").isFalse();
            }
        }
    }

    @Test
    void afterAYieldTheIoThreadServesAChannelWithoutATaskToWakeIt() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader();
            ChannelFuture connected = connect("nio", server, reader);
            try (Socket peer = server.accept()) {
                assertThat(connected.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue(); // the I/O thread served setup
                takeOver(loop); // the I/O thread now parks for the 30 s takeover period
                loop.yieldToIoThread(); // no task follows: only the yield itself can wake it
                peer.getOutputStream().write(new byte[100]);
                assertThat(reader.hundredBytes.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue(); // not 30 s
                assertThat(loop.isIoThread(reader.readOn.get())).isTrue();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "epoll"})
    void shutdownGracefullyRunsTheTasksQueuedBeforeItAndClosesTheRegisteredChannels(String kind) throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, factory(kind));
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader();
            ChannelFuture connected = connect(kind, server, reader);
            try (Socket peer = server.accept()) {
                assertThat(connected.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue(); // the I/O thread served setup
                Channel channel = connected.channel();
                takeOver(loop); // then nobody drives: the shutdown's own thread must do the rest
                AtomicBoolean closeListenerRan = new AtomicBoolean();
                channel.closeFuture().addListener(f -> closeListenerRan.set(true)); // runs on the loop
                AtomicBoolean queuedTaskRan = new AtomicBoolean();
                loop.execute(() -> queuedTaskRan.set(true));
                assertThat(loop.isShuttingDown()).isFalse();
                Future<?> termination = loop.shutdownGracefully(0, 5, TimeUnit.SECONDS);
                assertThat(termination).isSameAs(loop.terminationFuture());
                assertThat(loop.isShuttingDown()).isTrue();
                assertThat(termination.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                assertThat(queuedTaskRan.get()).isTrue();
                assertThat(channel.isOpen()).isFalse();
                assertThat(closeListenerRan.get()).as("close listener").isTrue();
                assertThat(reader.unregistered.get()).as("deregistration, a task the close queued").isTrue();
                assertThat(loop.isShutdown()).isTrue();
                assertThat(loop.isTerminated()).isTrue();
                InputStream in = peer.getInputStream();
                assertThat(in.read()).as("the peer sees the close").isEqualTo(-1);
            }
        }
    }

    @Test
    void aTaskQueuedInTheQuietPeriodRunsAndTheLoopTerminatesOnlyAfterIt() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1));
        long quietNanos = TimeUnit.MILLISECONDS.toNanos(300);
        AtomicLong ranAt = new AtomicLong();
        long start = System.nanoTime();
        loop.shutdownGracefully(quietNanos, TimeUnit.SECONDS.toNanos(WAIT_SECONDS), TimeUnit.NANOSECONDS);
        assertThat(loop.isShutdown()).isFalse(); // shutting down, still taking tasks
        CountDownLatch ran = new CountDownLatch(1);
        loop.execute(() -> {
            ranAt.set(System.nanoTime());
            ran.countDown();
        });
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        long end = System.nanoTime();
        assertThat(end - start).as("not before the quiet period").isGreaterThanOrEqualTo(quietNanos);
        assertThat(end - ranAt.get()).as("a quiet period after the last task").isGreaterThanOrEqualTo(quietNanos);
    }

    @Test
    void aTaskLateInTheQuietPeriodStartsTheQuietPeriodAgain() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1));
        long quietNanos = TimeUnit.MILLISECONDS.toNanos(400);
        AtomicLong ranAt = new AtomicLong();
        // a task well into the quiet period: the loop's own timer brings it there
        loop.schedule(() -> ranAt.set(System.nanoTime()), 250, TimeUnit.MILLISECONDS);
        loop.shutdownGracefully(quietNanos, TimeUnit.SECONDS.toNanos(WAIT_SECONDS), TimeUnit.NANOSECONDS);
        assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(ranAt.get()).as("the task ran").isNotZero();
        assertThat(System.nanoTime() - ranAt.get()).as("a whole quiet period after it").isGreaterThanOrEqualTo(quietNanos);
    }

    /** A loop whose I/O thread blocks in its selector until a task a minute out. */
    private DrivableEventLoop blockedUntilAFarDeadline() throws InterruptedException {
        CountDownLatch blocking = new CountDownLatch(1);
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1), 0, observed(new AtomicInteger(), context -> {
            if (context.canBlock()) {
                blocking.countDown();
            }
        }));
        loop.schedule(() -> { }, 60, TimeUnit.SECONDS); // the select blocks for a minute
        assertThat(blocking.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        return loop;
    }

    @Test
    void shutdownGracefullyWakesAnIoThreadBlockedUntilAFarDeadline() throws Exception {
        DrivableEventLoop loop = blockedUntilAFarDeadline();
        loop.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue(); // not a minute
    }

    @Test
    @SuppressWarnings("deprecation")
    void shutdownWakesAnIoThreadBlockedUntilAFarDeadline() throws Exception {
        DrivableEventLoop loop = blockedUntilAFarDeadline();
        loop.shutdown();
        assertThat(loop.isShutdown()).isTrue();
        assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue(); // not a minute
    }

    @Test
    void theShutdownTimeoutEndsAQuietPeriodThatWouldOutlastIt() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1));
        loop.shutdownGracefully(60, 1, TimeUnit.SECONDS); // quiet for a minute, but at most 1 s
        assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @SuppressWarnings("deprecation")
    void shutdownEndsTheQuietPeriodAtOnce() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1));
        loop.shutdownGracefully(60, 60, TimeUnit.SECONDS);
        assertThat(loop.isShutdown()).isFalse();
        loop.shutdown();
        assertThat(loop.isShutdown()).isTrue();
        assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(loop.isTerminated()).isTrue();
    }

    @Test
    void registeringAHandleFromAForeignThreadCompletesInTheNextDriveAndAWrongHandleFailsThePromise() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        IoHandle notNio = new IoHandle() {
            @Override
            public void handle(io.netty.channel.IoRegistration registration, IoEvent event) {
            }

            @Override
            public void close() {
            }
        };
        Future<io.netty.channel.IoRegistration> refused = loop.register(notNio);
        assertThat(refused.isDone()).isFalse(); // queued for the loop
        assertThat(loop.drive()).isTrue();
        assertThat(refused.isDone()).isTrue();
        assertThat(refused.cause()).isNotNull();
        // from inside the loop it registers at once
        AtomicReference<Future<io.netty.channel.IoRegistration>> inside = new AtomicReference<>();
        loop.execute(() -> inside.set(loop.register(notNio)));
        assertThat(loop.drive()).isTrue();
        assertThat(inside.get().isDone()).isTrue();
        assertThat(inside.get().cause()).isNotNull();
    }

    @Test
    void theLoopIsItsOwnNextItsGroupsChildAndHostsOnlyItsHandlersKind() {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        assertThat(loop.next()).isSameAs(loop);
        assertThat(loop.parent()).isSameAs(group);
        assertThat(loop.isCompatible(NioIoHandle.class)).isTrue();
        assertThat(loop.isCompatible(EpollIoHandle.class)).isFalse();
        assertThat(loop.isIoType(NioIoHandler.class)).isTrue();
        assertThat(loop.isIoType(EpollIoHandler.class)).isFalse();
        takeOver(loop);
        Thread me = Thread.currentThread();
        Thread other = new Thread(() -> { });
        AtomicBoolean meInLoop = new AtomicBoolean();
        AtomicBoolean otherInLoop = new AtomicBoolean(true);
        loop.execute(() -> {
            meInLoop.set(loop.inEventLoop(me));
            otherInLoop.set(loop.inEventLoop(other));
        });
        assertThat(loop.drive()).isTrue();
        assertThat(meInLoop.get()).isTrue();
        assertThat(otherInLoop.get()).isFalse();
        assertThat(loop.inEventLoop(me)).isFalse();
        assertThat(group.runsLoop(me)).isFalse();
    }

    // ---- polled reads: a drive reads a few epoll sockets without epoll_wait -------------------------

    /** An epoll loop driven by this thread only, counting the epoll handler's runs. */
    private DrivableEventLoop drivenEpollLoop(AtomicInteger epollRuns) {
        return drivenLoop("epoll", epollRuns);
    }

    /** A loop of the socket kind driven by this thread only, counting the handler's runs. */
    private DrivableEventLoop drivenLoop(String kind, AtomicInteger handlerRuns) {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0,
                observed(factory(kind), new AtomicInteger(), context -> handlerRuns.incrementAndGet(), new AtomicBoolean()));
        takeOver(loop);
        return loop;
    }

    /** Connects an epoll channel served by this thread's drives; the peer's end is accepted. */
    private Channel connectDriven(DrivableEventLoop loop, ServerSocket server, Reader reader) {
        return connectDriven("epoll", loop, server, reader);
    }

    /** Connects a channel of the socket kind served by this thread's drives. */
    private Channel connectDriven(String kind, DrivableEventLoop loop, ServerSocket server, Reader reader) {
        ChannelFuture connected = connect(kind, server, reader);
        driveUntil(loop, connected::isDone);
        assertThat(connected.isSuccess()).isTrue();
        return connected.channel();
    }

    @Test
    @SuppressWarnings("deprecation")
    void aSocketRegisteredThroughTheOlderRegisterJoinsThePolledSockets() throws Exception {
        DrivableEventLoop loop = drivenEpollLoop(new AtomicInteger());
        Channel channel = new io.netty.channel.epoll.EpollSocketChannel();
        ChannelFuture registered = loop.register(channel, channel.newPromise());
        driveUntil(loop, registered::isDone);
        assertThat(registered.isSuccess()).isTrue();
        assertThat(loop.polledSockets()).isEqualTo(1);
        assertThat(loop.socketsBeingRegistered()).isZero();
        ChannelFuture closed = channel.close();
        driveUntil(loop, () -> closed.isDone() && loop.polledSockets() == 0);
    }

    /**
     * Epoll and NIO alike: a drive reads the socket directly, and the handler (epoll_wait, the
     * selector's selectNow) looks once in {@link PolledSockets#EPOLL_EVERY} passes. On NIO the polled
     * reads took the RNIC's 8-byte round trips from 1.6-1.8x to 1.3-1.36x of the busy-polling floor
     * (docs/benchmarks.md, 2026-11-29 16:55).
     */
    @ParameterizedTest
    @ValueSource(strings = {"nio", "epoll"})
    void aDriveReadsTheLoopsOnlySocketWithoutAskingEpoll(String kind) throws Exception {
        AtomicInteger epollRuns = new AtomicInteger();
        DrivableEventLoop loop = drivenLoop(kind, epollRuns);
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader();
            connectDriven(kind, loop, server, reader);
            try (Socket peer = server.accept()) {
                assertThat(loop.polledSockets()).isEqualTo(1);
                int readWithoutEpoll = 0;
                for (int i = 1; i <= 32; i++) {
                    int expected = 100 * i;
                    peer.getOutputStream().write(new byte[100]);
                    int runs = epollRuns.get();
                    driveUntil(loop, () -> reader.bytes.get() == expected);
                    if (epollRuns.get() == runs) {
                        readWithoutEpoll++;
                    }
                }
                // epoll still looks once in PolledSockets.EPOLL_EVERY drives; a message can arrive
                // just after a read and be found by that look
                assertThat(readWithoutEpoll).as("messages a drive read without epoll_wait").isGreaterThanOrEqualTo(16);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "epoll"})
    void aBusyPollingIoThreadReadsTheLoopsOnlySocketWithoutAskingEpoll(String kind) throws Exception {
        AtomicBoolean inEpoll = new AtomicBoolean();
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1), DrivableEventLoop.SPIN_ALWAYS,
                observed(factory(kind), new AtomicInteger(), context -> { }, inEpoll));
        try (ServerSocket server = loopbackServer()) {
            AtomicInteger readsOutsideEpoll = new AtomicInteger();
            Reader reader = new Reader() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (!inEpoll.get()) {
                        readsOutsideEpoll.incrementAndGet();
                    }
                    super.channelRead(ctx, msg);
                }
            };
            ChannelFuture connected = connect(kind, server, reader);
            try (Socket peer = server.accept()) {
                assertThat(connected.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                for (int i = 1; i <= 32; i++) {
                    int expected = 100 * i;
                    peer.getOutputStream().write(new byte[100]);
                    awaitCondition(() -> reader.bytes.get() == expected);
                }
                // One pass in PolledSockets.EPOLL_EVERY is epoll's and finds the messages that arrive
                // during it; how many that is depends on how the two threads share the cores (11 to
                // 32 seen). Without polled reads it is every one.
                assertThat(readsOutsideEpoll.get()).as("reads by the spin's polled reads").isPositive();
            }
        }
    }

    @Test
    void anIoThreadKeepsSpinningWhileItsPolledReadsBringBytesAndBlocksAfter() throws Exception {
        AtomicInteger blockingRuns = new AtomicInteger();
        long spin = TimeUnit.MILLISECONDS.toNanos(200);
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1), spin, observed(factory("epoll"),
                new AtomicInteger(), context -> blockingRuns.addAndGet(context.canBlock() ? 1 : 0), new AtomicBoolean()));
        // a connection's allocator, which counts the bytes read: how a pass tells work from an empty read
        PlacementRecvAllocator allocator = new PlacementRecvAllocator();
        allocator.source(new PlacementRecvAllocator.ReadSource() {
            @Override
            public ByteBuf nextReadBuffer() {
                return io.netty.buffer.Unpooled.directBuffer(1024);
            }

            @Override
            public int nextReadSize() {
                return 1024;
            }
        });
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader();
            ChannelFuture connected = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                    .option(ChannelOption.RCVBUF_ALLOCATOR, allocator).handler(reader)
                    .connect(server.getLocalSocketAddress());
            try (Socket peer = server.accept()) {
                assertThat(connected.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                peer.getOutputStream().write(new byte[100]);
                awaitCondition(() -> reader.bytes.get() == 100); // a blocking turn found it: the spin begins
                int blocking = blockingRuns.get();
                // 300 ms of messages 10 ms apart: longer than the spin, which only reads that bring
                // bytes renew
                for (int i = 2; i <= 31; i++) {
                    // pacing, not waiting for an event: the time between messages is the stimulus
                    // (gaps shorter than the spin, their sum longer), so it has to pass
                    Thread.sleep(10);
                    int expected = 100 * i;
                    peer.getOutputStream().write(new byte[100]);
                    awaitCondition(() -> reader.bytes.get() == expected);
                }
                assertThat(blockingRuns.get()).as("blocking turns while the messages came").isEqualTo(blocking);
                assertThat(allocator.bytesRead).isEqualTo(3100);
                // and empty reads are no work: once the messages stop, the spin ends and the thread blocks
                awaitCondition(() -> blockingRuns.get() > blocking);
            }
        }
    }

    /** Waits (spinning) until the condition holds, failing after the bounded wait. */
    private static void awaitCondition(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within %d s", WAIT_SECONDS).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void withMoreSocketsThanTheLimitEveryDriveAsksEpoll() throws Exception {
        AtomicInteger epollRuns = new AtomicInteger();
        DrivableEventLoop loop = drivenEpollLoop(epollRuns);
        try (ServerSocket server = new ServerSocket(0, PolledSockets.LIMIT + 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            List<Socket> peers = new ArrayList<>();
            try {
                for (int i = 0; i < PolledSockets.LIMIT; i++) {
                    connectDriven(loop, server, new Reader());
                    peers.add(server.accept());
                }
                assertThat(drivesAskingEpoll(loop, epollRuns, 32)).as("at the limit").isLessThan(32);
                connectDriven(loop, server, new Reader());
                peers.add(server.accept());
                assertThat(loop.polledSockets()).isEqualTo(PolledSockets.LIMIT + 1);
                assertThat(drivesAskingEpoll(loop, epollRuns, 32)).as("above the limit").isEqualTo(32);
            } finally {
                for (Socket peer : peers) {
                    peer.close();
                }
            }
        }
    }

    @Test
    void aSocketWithFlushedBytesWaitingMakesEveryDriveAskEpollForItsDrain() throws Exception {
        AtomicInteger epollRuns = new AtomicInteger();
        DrivableEventLoop loop = drivenEpollLoop(epollRuns);
        try (ServerSocket server = loopbackServer()) {
            Channel channel = connectDriven(loop, server, new Reader());
            try (Socket peer = server.accept()) {
                // the peer reads nothing: 64 MiB fill both socket buffers, the rest waits in netty
                AtomicReference<ChannelFuture> write = new AtomicReference<>();
                loop.execute(() -> write.set(channel.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(new byte[64 << 20]))));
                driveUntil(loop, () -> write.get() != null); // written and flushed in that drive
                ChannelFuture written = write.get();
                assertThat(written.isDone()).as("the socket took it all").isFalse();
                assertThat(drivesAskingEpoll(loop, epollRuns, 32)).isEqualTo(32);
                InputStream in = peer.getInputStream();
                Thread drain = new Thread(() -> {
                    try {
                        in.readNBytes(64 << 20);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                drain.start();
                driveUntil(loop, written::isDone); // EPOLLOUT tells netty the socket drained
                assertThat(written.isSuccess()).isTrue();
                drain.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                assertThat(drivesAskingEpoll(loop, epollRuns, 32)).as("drained").isLessThan(32);
            }
        }
    }

    @Test
    void aSocketWhoseReadingIsOffIsNotReadByADrive() throws Exception {
        AtomicInteger epollRuns = new AtomicInteger();
        DrivableEventLoop loop = drivenEpollLoop(epollRuns);
        try (ServerSocket server = loopbackServer()) {
            Reader reader = new Reader() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    super.channelRead(ctx, msg);
                    ctx.channel().config().setAutoRead(false); // a paused receive, as the framing handler's
                }
            };
            Channel channel = connectDriven(loop, server, reader);
            try (Socket peer = server.accept()) {
                peer.getOutputStream().write(new byte[100]);
                driveUntil(loop, () -> reader.bytes.get() == 100); // then netty drops the EPOLLIN interest
                peer.getOutputStream().write(new byte[100]);
                assertThat(drivesAskingEpoll(loop, epollRuns, 32)).isEqualTo(32);
                assertThat(reader.bytes.get()).isEqualTo(100);
                channel.config().setAutoRead(true);
                driveUntil(loop, () -> reader.bytes.get() == 200);
            }
        }
    }

    @Test
    void aClosedSocketIsNoLongerPolled() throws Exception {
        DrivableEventLoop loop = drivenEpollLoop(new AtomicInteger());
        try (Connected c = connected(loop)) {
            assertThat(loop.polledSockets()).isEqualTo(1);
            c.peer().close(); // the peer's FIN: a drive's read sees the end of the stream and closes
            driveUntil(loop, () -> !c.channel().isOpen());
            driveUntil(loop, () -> loop.polledSockets() == 0);
        }
    }

    @Test
    void whileASocketConnectsEveryDriveAsksEpollForTheConnectToFinish() throws Exception {
        AtomicInteger epollRuns = new AtomicInteger();
        DrivableEventLoop loop = drivenEpollLoop(epollRuns);
        try (ServerSocket server = loopbackServer()) {
            ChannelFuture connected = connect("epoll", server, new Reader());
            int drives = 0;
            int asked = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!connected.isDone()) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                int runs = epollRuns.get();
                loop.drive();
                drives++;
                asked += epollRuns.get() != runs ? 1 : 0;
            }
            assertThat(connected.isSuccess()).isTrue();
            assertThat(asked).as("drives asking epoll, of %d", drives).isEqualTo(drives);
            server.accept().close();
        }
    }

    @Test
    void aListeningSocketOnTheLoopStillAcceptsWhileADriveReadsItsConnectedSocket() throws Exception {
        DrivableEventLoop loop = drivenEpollLoop(new AtomicInteger());
        List<Channel> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
        ChannelFuture bound = new io.netty.bootstrap.ServerBootstrap().group(group)
                .channel(io.netty.channel.epoll.EpollServerSocketChannel.class)
                .childHandler(new io.netty.channel.ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel child) {
                        accepted.add(child); // registered on the loop: accepted
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0);
        driveUntil(loop, bound::isDone);
        assertThat(bound.isSuccess()).isTrue();
        java.net.SocketAddress address = bound.channel().localAddress();
        try (Socket first = new Socket()) {
            first.connect(address);
            driveUntil(loop, () -> accepted.size() == 1);
            assertThat(loop.polledSockets()).isEqualTo(1); // the listening socket is not polled by reads
            try (Socket second = new Socket()) {
                second.connect(address);
                // the drives read the one connected socket; epoll's periodic look finds the accept
                driveUntil(loop, () -> accepted.size() == 2);
            }
        } finally {
            bound.channel().close();
            driveUntil(loop, () -> !bound.channel().isOpen());
        }
    }

    @Test
    void aReadThatClosesEverySocketOfTheLoopEndsTheDriveSoundly() throws Exception {
        DrivableEventLoop loop = drivenEpollLoop(new AtomicInteger());
        try (ServerSocket server = new ServerSocket(0, 2, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            Channel first = connectDriven(loop, server, new Reader());
            try (Socket firstPeer = server.accept()) {
                // the second socket, read first by the drive, closes both on its first bytes
                Channel second = connectDriven(loop, server, new Reader() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        super.channelRead(ctx, msg);
                        first.close();
                        ctx.close();
                    }
                });
                try (Socket secondPeer = server.accept()) {
                    assertThat(loop.polledSockets()).isEqualTo(2);
                    secondPeer.getOutputStream().write(new byte[100]);
                    driveUntil(loop, () -> !second.isOpen());
                    assertThat(first.isOpen()).isFalse();
                    assertThat(loop.polledSockets()).isZero();
                    assertThat(loop.drive()).isTrue();
                }
            }
        }
    }

    @Test
    void aSocketWhoseRegistrationFailsIsNotKeptAsBeingRegistered() throws Exception {
        DrivableEventLoop loop = drivenEpollLoop(new AtomicInteger());
        try (Connected c = connected(loop)) {
            assertThat(loop.socketsBeingRegistered()).isZero();
            ChannelFuture again = loop.register(c.channel()); // registered already: netty fails it at once
            assertThat(again.isDone() && !again.isSuccess()).isTrue();
            assertThat(loop.socketsBeingRegistered()).as("announced until the failure's listener runs").isEqualTo(1);
            assertThat(loop.drive()).isTrue(); // the promise's listeners run on the loop
            assertThat(loop.socketsBeingRegistered()).isZero();
            assertThat(loop.polledSockets()).isEqualTo(1);
        }
    }

    /** An epoll channel of the loop, connected by drives to a plain socket (the peer). */
    private record Connected(ServerSocket server, Channel channel, Socket peer) implements AutoCloseable {
        @Override
        public void close() throws java.io.IOException {
            peer.close();
            server.close();
        }
    }

    private Connected connected(DrivableEventLoop loop) throws Exception {
        ServerSocket server = loopbackServer();
        Channel channel = connectDriven(loop, server, new Reader());
        return new Connected(server, channel, server.accept());
    }

    /** How many of {@code drives} drives ran the epoll handler. */
    private static int drivesAskingEpoll(DrivableEventLoop loop, AtomicInteger epollRuns, int drives) {
        int asked = 0;
        for (int i = 0; i < drives; i++) {
            int runs = epollRuns.get();
            assertThat(loop.drive()).isTrue();
            if (epollRuns.get() != runs) {
                asked++;
            }
        }
        return asked;
    }

    // ---- the blocking I/O thread ----------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"nio", "epoll"})
    void aScheduledTaskWakesABlockedIoThreadAtItsDeadline(String kind) throws Exception {
        // nobody drives: the I/O thread serves the loop and blocks in its selector; without a scheduled
        // task it would wake once a second; with one, at the task's deadline
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1), 0, factory(kind));
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) { // the best of five: a loaded machine may delay any single one
            CountDownLatch ran = new CountDownLatch(1);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            long start = System.nanoTime();
            loop.schedule(() -> {
                ranOn.set(Thread.currentThread());
                ran.countDown();
            }, 50, TimeUnit.MILLISECONDS);
            assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            best = Math.min(best, System.nanoTime() - start);
            assertThat(loop.isIoThread(ranOn.get())).isTrue();
        }
        assertThat(best).as("best of five, ns").isLessThan(TimeUnit.MILLISECONDS.toNanos(700));
    }

    @Test
    void anIdleIoThreadWaitingForAScheduledTaskBlocksInsteadOfSpinning() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1));
        CountDownLatch ran = new CountDownLatch(1);
        loop.schedule(ran::countDown, 300, TimeUnit.MILLISECONDS);
        long turns = loop.ioThreadTurns();
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        // one turn for the scheduling (a task), one at the deadline, a few spurious wake-ups at most
        assertThat(loop.ioThreadTurns() - turns).isLessThan(50);
    }

    @Test
    void anIoThreadWithTasksStillQueuedDoesNotBlock() throws Exception {
        AtomicInteger queued = new AtomicInteger();
        AtomicInteger blockedWithTasks = new AtomicInteger();
        // more tasks than one turn runs, all queued by the loop's own work (no wake-up): the I/O
        // thread must not block in the selector while some remain
        DrivableEventLoop loop = open(TimeUnit.MILLISECONDS.toNanos(1), 0, observed(new AtomicInteger(), context -> {
            if (context.canBlock() && queued.get() > 0) {
                blockedWithTasks.incrementAndGet();
            }
        }));
        CountDownLatch done = new CountDownLatch(1);
        int n = 5000;
        loop.execute(() -> {
            for (int i = 0; i < n; i++) {
                queued.incrementAndGet();
                loop.execute(() -> {
                    if (queued.decrementAndGet() == 0) {
                        done.countDown();
                    }
                });
            }
        });
        assertThat(done.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(blockedWithTasks.get()).isZero();
    }
}
