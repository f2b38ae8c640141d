package io.jrnic.core.transport;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The event loop of polling mode on its own: who runs its work, when its I/O thread takes over and
 * hands back, shutdown. Waits are bounded and sleep-free.
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
        return (DrivableEventLoop) group.next();
    }

    /** NIO's handler, counting the wake-ups of a thread blocked in its selector. */
    private static IoHandlerFactory countingWakeups(AtomicInteger wakeups) {
        IoHandlerFactory nio = NioIoHandler.newFactory();
        return executor -> {
            IoHandler handler = nio.newHandler(executor);
            return new IoHandler() {
                @Override
                public void initialize() {
                    handler.initialize();
                }

                @Override
                public int run(IoHandlerContext context) {
                    return handler.run(context);
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
    void aDriveInsideADriveRunsNothingAndTheOuterDriveRunsWhatItQueued() {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        AtomicBoolean nested = new AtomicBoolean(true);
        AtomicBoolean innerTaskRan = new AtomicBoolean();
        loop.execute(() -> {
            loop.execute(() -> innerTaskRan.set(true));
            nested.set(loop.drive());
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
    void aThreadThatYieldsHandsTheLoopToTheIoThreadBeforeTheTakeoverTime() throws Exception {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        takeOver(loop);
        loop.yieldToIoThread();
        CountDownLatch ran = new CountDownLatch(1);
        loop.execute(ran::countDown); // queued by a thread that will not drive
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue(); // not 30 s
    }

    @Test
    void aDriveWhileTheIoThreadBlocksAsksForTheLoopBack() {
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30));
        // the I/O thread serves the loop at start (nobody drove yet) and blocks in its selector;
        // the first drive fails but wakes it, and it hands the loop back
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
        DrivableEventLoop loop = open(TimeUnit.SECONDS.toNanos(30), 0, countingWakeups(wakeups));
        for (int i = 0; i < 100; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
        // a task can land while the thread is between its selector and the tasks (no wake-up needed),
        // but most find it blocked
        assertThat(wakeups.get()).isGreaterThan(1);
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
        assertThatThrownBy(() -> loop.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }
}
