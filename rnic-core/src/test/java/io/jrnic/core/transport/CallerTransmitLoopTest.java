package io.jrnic.core.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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

    /** The stream channel class of that handler. */
    Class<? extends Channel> channelClass() {
        return EpollSocketChannel.class;
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

    /**
     * While the idle I/O thread waits (nothing scheduled: up to a second), a holder hands it work
     * through {@code handOver} and leaves: the milliseconds until the work ran, on the I/O thread.
     */
    private long msUntilTheIoThreadRunsWhatAHolderLeft(java.util.function.Consumer<Runnable> handOver)
            throws InterruptedException {
        awaitIoThreadWaiting();
        CountDownLatch ran = new CountDownLatch(1);
        AtomicLong leftAt = new AtomicLong();
        AtomicLong ranAt = new AtomicLong();
        AtomicReference<String> ranOn = new AtomicReference<>();
        assertThat(loop.tryRun(() -> {
            leftAt.set(System.nanoTime());
            handOver.accept(() -> {
                ranAt.set(System.nanoTime());
                ranOn.set(Thread.currentThread().getName());
                ran.countDown();
            });
        })).isTrue();
        assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(ranOn.get()).isEqualTo("caller-transmit-io");
        return TimeUnit.NANOSECONDS.toMillis(ranAt.get() - leftAt.get());
    }

    @Test
    void aTaskTheHolderQueuesWakesTheIoThreadWhenTheHolderLeaves() throws Exception {
        // the holder's execute() wakes nobody: the loop is its own now; without the wake-up at its
        // release the task runs when the I/O thread's idle wait of a second ends
        assertThat(msUntilTheIoThreadRunsWhatAHolderLeft(task -> loop.execute(task)))
                .as("ms from queuing to running").isLessThan(700);
    }

    @Test
    void aTaskTheHolderSchedulesBeforeTheWaitEndsWakesTheIoThread() throws Exception {
        // without the wake-up it fires when the I/O thread's idle wait of a second ends
        assertThat(msUntilTheIoThreadRunsWhatAHolderLeft(task -> loop.schedule(task, 20, TimeUnit.MILLISECONDS)))
                .as("ms from scheduling to firing").isLessThan(700);
    }
    /**
     * Three posting threads run work on the loop (a run when they find it free, else a task, and
     * timers) while a peer keeps the I/O thread busy with reads: nothing that runs on the loop --
     * the posters' runs, the tasks, the timers, the channel's reads on the I/O thread -- ever
     * overlaps another, and every piece of work runs exactly once: the loop's invariants under
     * contention, on both socket kinds. Checked by hand: on NIO it is red when the I/O thread handles
     * its events without taking the slot back (the connect never completes); epoll's netty queues
     * such events as tasks instead, and the tests above catch that and a lost wake-up, which the
     * many wake-ups here hide.
     */
    @Test
    void postersTasksTimersAndTheIoThreadNeverOverlapAndEachRunsOnce() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong ran = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        Runnable work = () -> {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            spin(1_000); // a post's framing and write take about this long: room for an overlap to show
            inside.decrementAndGet();
            ran.incrementAndGet();
        };
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Channel channel = new Bootstrap().group(group).channel(channelClass())
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            reads.incrementAndGet();
                            ((ByteBuf) msg).release();
                            spin(5_000); // placement and completions of a received message
                            inside.decrementAndGet();
                        }
                    }).connect(server.getLocalSocketAddress()).sync().channel();
            try (java.net.Socket peer = server.accept()) {
                AtomicBoolean posting = new AtomicBoolean(true);
                Thread writer = Thread.ofPlatform().start(() -> {
                    byte[] bytes = new byte[64];
                    try {
                        while (posting.get()) {
                            peer.getOutputStream().write(bytes);
                            spin(20_000);
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                int posters = 3;
                int operations = 20_000;
                AtomicLong submitted = new AtomicLong();
                Thread[] threads = new Thread[posters];
                for (int t = 0; t < posters; t++) {
                    threads[t] = Thread.ofPlatform().start(() -> {
                        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
                        for (int i = 0; i < operations; i++) {
                            submitted.incrementAndGet();
                            switch (random.nextInt(4)) {
                                case 0 -> loop.execute(work);
                                case 1 -> loop.schedule(work, random.nextInt(50), TimeUnit.MICROSECONDS);
                                default -> {
                                    if (!loop.tryRun(work)) {
                                        loop.execute(work); // as a post does when the loop is busy
                                    }
                                }
                            }
                        }
                    });
                }
                for (Thread thread : threads) {
                    thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                    assertThat(thread.isAlive()).isFalse();
                }
                posting.set(false);
                writer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                while (ran.get() < submitted.get()) {
                    assertThat(System.nanoTime()).as("every piece of work runs: %d of %d", ran.get(), submitted.get())
                            .isLessThan(deadline);
                    Thread.onSpinWait();
                }
                loop.submit(() -> { }).get(WAIT_SECONDS, TimeUnit.SECONDS); // anything still queued has run
                assertThat(ran.get()).as("each exactly once").isEqualTo(submitted.get());
                assertThat(overlaps).as("runs on the loop that overlapped").hasValue(0);
                assertThat(reads.get()).as("the I/O thread read meanwhile").isPositive();
            } finally {
                channel.close().sync();
            }
        }
    }
    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
