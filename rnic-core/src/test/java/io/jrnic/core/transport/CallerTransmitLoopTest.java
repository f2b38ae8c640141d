package io.jrnic.core.transport;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.EpollIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The event loop of {@code IoMode.EVENT_LOOP} with posts on the caller ({@code RnicConfig.callerTransmit},
 * issue 11), on epoll (NIO: {@link CallerTransmitNioLoopTest}): its I/O thread waits on the sockets
 * without the loop's slot, so another thread's
 * {@link DrivableEventLoop#tryRun} runs at once; it takes the slot back before it handles what woke
 * it, waiting for a holder to leave; a holder that schedules a task due before the I/O thread's
 * wait ends wakes it. docs/transport.md "Event-loop mode: posts on the caller".
 */
class CallerTransmitLoopTest {
    static final long WAIT_SECONDS = 10;
    private DrivableEventLoopGroup group;
    DrivableEventLoop loop;

    /** The socket implementation's handler under test (NIO: {@link CallerTransmitNioLoopTest}). */
    IoHandlerFactory handlerFactory() {
        assumeTrue(Epoll.isAvailable(), "needs netty's native epoll transport");
        return EpollIoHandler.newFactory();
    }

    @BeforeEach
    void open() {
        group = new DrivableEventLoopGroup(1, r -> new Thread(r, "caller-transmit-io"), handlerFactory(),
                0, 0, true);
        loop = (DrivableEventLoop) group.next();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (loop.ioThreadTurns() == 0) {
            assertThat(System.nanoTime()).as("the I/O thread's first turn").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @AfterEach
    void close() throws InterruptedException {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /**
     * Waits, bounded, until the idle I/O thread waits in epoll: then the loop is free and another
     * thread's run takes it.
     */
    void awaitIoThreadWaiting() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!loop.tryRun(() -> { })) {
            assertThat(System.nanoTime()).as("the I/O thread gives the loop up while it waits").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void whileTheIoThreadWaitsAPostersRunTakesTheLoopAtOnce() throws Exception {
        awaitIoThreadWaiting();
        long drivesBefore = loop.applicationDrives();
        int runs = 200;
        AtomicLong onThisThread = new AtomicLong();
        Thread me = Thread.currentThread();
        for (int i = 0; i < runs; i++) {
            boolean ran = loop.tryRun(() -> {
                if (Thread.currentThread() == me && loop.inEventLoop()) {
                    onThisThread.incrementAndGet();
                }
            });
            assertThat(ran).as("run %d: the loop was free", i).isTrue();
        }
        assertThat(onThisThread).hasValue(runs);
        assertThat(loop.applicationDrives() - drivesBefore).isEqualTo(runs);
        assertThat(loop.drivesOnPoll()).as("CQ polls leave this loop to its I/O thread").isFalse();
    }

    @Test
    void theIoThreadWaitsForAHolderBeforeItRunsWhatWokeIt() throws Exception {
        awaitIoThreadWaiting();
        AtomicBoolean holding = new AtomicBoolean();
        AtomicReference<String> ranOn = new AtomicReference<>();
        AtomicBoolean overlapped = new AtomicBoolean();
        CountDownLatch ran = new CountDownLatch(1);
        boolean held = loop.tryRun(() -> {
            holding.set(true);
            // another thread's task wakes the I/O thread while this thread holds the loop
            Thread other = Thread.ofPlatform().start(() -> loop.execute(() -> {
                overlapped.set(holding.get());
                ranOn.set(Thread.currentThread().getName());
                ran.countDown();
            }));
            try {
                other.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            holding.set(false);
        });
        assertThat(held).isTrue();
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the task ran").isTrue();
        assertThat(overlapped).as("it ran only after the holder left").isFalse();
        assertThat(ranOn.get()).isEqualTo("caller-transmit-io");
    }

    @Test
    void theSwitchPicksTheLoopsOfEventLoopMode() {
        for (boolean on : new boolean[] {true, false}) {
            for (SocketKind kind : new SocketKind[] {SocketKind.EPOLL, SocketKind.NIO}) {
                IwarpTransport t = new IwarpTransport(TransportConfig.builder().eventLoopThreads(1)
                        .ioMode(io.jrnic.api.IoMode.EVENT_LOOP).callerTransmit(on).build(), null, kind);
                try {
                    assertThat(t.drivableLoops()).as("callerTransmit %s on %s", on, kind)
                            .isEqualTo(on);
                } finally {
                    t.close();
                }
            }
        }
    }

    @Test
    void aTaskTheHolderQueuesWakesTheIoThreadWhenTheHolderLeaves() throws Exception {
        awaitIoThreadWaiting(); // it waits with nothing scheduled: up to a second
        CountDownLatch ran = new CountDownLatch(1);
        AtomicLong queuedAt = new AtomicLong();
        AtomicLong ranAt = new AtomicLong();
        AtomicReference<String> ranOn = new AtomicReference<>();
        assertThat(loop.tryRun(() -> {
            queuedAt.set(System.nanoTime());
            loop.execute(() -> { // the holder's execute() wakes nobody: the loop is its own now
                ranAt.set(System.nanoTime());
                ranOn.set(Thread.currentThread().getName());
                ran.countDown();
            });
        })).isTrue();
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(ranOn.get()).isEqualTo("caller-transmit-io");
        // without the wake-up it runs when the I/O thread's idle wait of a second ends
        assertThat(TimeUnit.NANOSECONDS.toMillis(ranAt.get() - queuedAt.get()))
                .as("ms from queuing to running").isLessThan(700);
    }

    @Test
    void aTaskTheHolderSchedulesBeforeTheWaitEndsWakesTheIoThread() throws Exception {
        awaitIoThreadWaiting(); // it waits with nothing scheduled: up to a second
        CountDownLatch fired = new CountDownLatch(1);
        AtomicLong scheduledAt = new AtomicLong();
        AtomicLong firedAt = new AtomicLong();
        assertThat(loop.tryRun(() -> {
            scheduledAt.set(System.nanoTime());
            loop.schedule(() -> {
                firedAt.set(System.nanoTime());
                fired.countDown();
            }, 20, TimeUnit.MILLISECONDS);
        })).isTrue();
        assertThat(fired.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        // without the wake-up it fires when the I/O thread's idle wait of a second ends
        assertThat(TimeUnit.NANOSECONDS.toMillis(firedAt.get() - scheduledAt.get()))
                .as("ms from scheduling to firing").isLessThan(700);
    }
}
