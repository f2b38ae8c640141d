package io.jrnic.core.transport;

import io.jrnic.core.link.DrivableExecutor;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import io.netty.util.internal.PlatformDependent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The event loop of {@code IoMode.POLLING} (and of {@code IoMode.EVENT_LOOP} with posts on the
 * caller, below): a netty {@link IoEventLoop} that is not tied to one
 * thread. Whoever holds its <em>driver</em> slot is, for that time, the loop's thread
 * ({@link #inEventLoop(Thread)}): an application thread inside {@link #drive()} (a CQ poll),
 * {@link #tryRun} or {@link #runQueued()} (after a post), or the loop's own I/O thread. One holder
 * at a time keeps netty's and the engine's single-thread rule; the slot is a compare-and-set, so
 * nobody ever waits for it.
 *
 * <pre>
 *  application thread                     I/O thread
 *  drive(): CAS slot ─► sockets (a read   while an application thread drove in the last
 *           of each, or selectNow) ─►     takeover period: park (stay out of the way)
 *           tasks ─► release, stamp       otherwise: CAS slot ─► blocking select ─► tasks
 *           lastDriven                    after a turn with work: non-blocking passes until
 *                                         pollingSpin goes by idle or an application drives
 *  drive() while the I/O thread blocks:   ◄── handBack + wakeup: it releases the slot and
 *           ask for the loop back              parks for a takeover period
 * </pre>
 *
 * <p><b>Event-loop mode with posts on the caller</b> ({@code IoMode.EVENT_LOOP},
 * {@code RnicConfig.callerTransmit}): the I/O thread is an ordinary event loop, never parked
 * for a takeover period and never spinning, except that it waits on the sockets <em>without</em> the
 * slot. netty's handlers ask their context right before they wait -- epoll for the deadline
 * ({@code deadlineNanos()}), the NIO selector for the delay ({@code delayNanos()}) -- and whether to
 * report I/O time right after, before they handle the ready events
 * ({@code shouldReportActiveIoTime()}); the loop gives the slot up in the first and takes it back in
 * the second (waiting, parked, for a poster that holds it). On NIO a holder's change to the
 * selector's keys also wakes the I/O thread as the holder leaves ({@link KeyWatch}). While the I/O
 * thread waits, a post's {@link #tryRun} finds the slot free and frames and writes on the posting thread, as a
 * polling-mode post does; while it works, the post's run is queued and the I/O thread runs it
 * after the events. Nothing of netty's handler runs off the I/O thread meanwhile: CQ polls do not
 * drive this loop ({@link #drivesOnPoll()}), and a {@link #drive()} runs the queued tasks only. The
 * wait's delay is taken before the slot goes (the scheduled tasks belong to its holder then); a
 * holder that schedules an earlier task wakes the I/O thread when it leaves.
 *
 * <p>Latency: an application that busy-polls its CQ runs every read, placement, completion and write
 * of its connections itself, with no wake-up in the path. Progress without the application: when
 * nobody drove for {@code takeoverNanos}, the I/O thread serves the sockets as an ordinary event
 * loop (a passive RDMA target, a socket that would block, an application waiting on a monitor);
 * a task queued by a thread that does not drive is run by the next drive, or by the I/O thread
 * within the takeover period, at once when it is blocking.
 *
 * <p>Thread safety: thread-safe; the handler and the tasks run only in the slot holder.
 */
public final class DrivableEventLoop extends AbstractScheduledEventExecutor implements IoEventLoop, DrivableExecutor {
    private static final Logger LOG = LoggerFactory.getLogger(DrivableEventLoop.class);
    private static final int STARTED = 0;
    private static final int SHUTTING_DOWN = 1;
    private static final int SHUTDOWN = 2;
    private static final int TERMINATED = 3;
    /**
     * The I/O thread's spin of {@code IoMode.BUSY_POLLING}: it never blocks nor parks and drives
     * whenever the slot is free.
     */
    static final long SPIN_ALWAYS = Long.MAX_VALUE;
    /** Empty passes of a spinning I/O thread between two yields of its core. */
    private static final int SPIN_YIELD_EVERY = 64;
    /** Tasks one drive runs at most: the rest wait for the next drive, so the sockets are looked at. */
    private static final int TASKS_PER_DRIVE = 1024;
    /** How long the event-loop I/O thread spins for a poster to leave the slot before it parks (callerTransmit). */
    private static final long SLOT_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /** How often the I/O thread re-checks a slot it could not take (an application thread drives). */
    private static final long SHUTDOWN_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final IoEventLoopGroup parent;
    private final IoHandler handler;
    private final Queue<Runnable> tasks = PlatformDependent.newMpscQueue();
    /** The loop's stream sockets, which a non-blocking pass reads without epoll_wait or selectNow while few. */
    private final PolledSockets polledSockets;
    /** The thread running the loop's work now, or null. */
    private final AtomicReference<Thread> driver = new AtomicReference<>();
    private final AtomicInteger state = new AtomicInteger(STARTED);
    private final Promise<Void> terminationFuture = new DefaultPromise<>(GlobalEventExecutor.INSTANCE);
    /** An application thread that drove within this time keeps the I/O thread out. */
    private final long takeoverNanos;
    /**
     * How long the I/O thread, after a turn that found work, keeps passing over the sockets without
     * blocking after the last work ({@code RnicConfig.pollingSpin}); {@link #SPIN_ALWAYS}: forever.
     */
    private final long spinNanos;
    /** When an application thread last drove the loop (System.nanoTime() at the drive's start). */
    private volatile long lastDriven;
    /** The start of the application drive in progress, else 0; written and read by the slot holder. */
    private long driveNanos;
    /** System.nanoTime() minus netty's scheduling clock (its ticker counts from its own start). */
    private final long tickerOffset;
    /** The I/O thread holds the slot and may be blocked in the selector: wake it for tasks. */
    private volatile boolean ioBlocking;
    /** An application thread found the I/O thread holding the slot and asked for it back. */
    private final AtomicBoolean handBack = new AtomicBoolean();
    private volatile Thread ioThread;
    /** Turns the I/O thread took (each one a blocking select and the tasks after it). */
    private volatile long ioThreadTurns;
    /** Drives by application threads that ran the loop's work. */
    private volatile long applicationDrives;
    private volatile long quietPeriodNanos;
    private volatile long shutdownTimeoutNanos;

    /**
     * Event-loop mode with posts on the caller: the I/O thread is the loop's receiver and
     * never parks for a takeover period, but it waits on the sockets without the slot, so that a post
     * finds the loop free and frames and writes on the posting thread (see the class comment).
     */
    private final boolean callerTransmit;
    /** The I/O thread wants the slot back (a poster holds it): releasers unpark it. */
    private volatile boolean ioWantsSlot;
    /**
     * The I/O thread gave the slot up for its wait on the sockets (callerTransmit): from the handler's
     * {@code deadlineNanos()} (NIO: {@code delayNanos()}) until its {@code shouldReportActiveIoTime()}
     * after the wait. Written and read by the I/O thread; read by a slot holder meanwhile (after its
     * CAS).
     */
    private boolean releasedForWait;
    /**
     * NIO with posts on the caller: a change to a selector's keys made while it waits -- a new
     * interest set, a cancelled key -- takes effect only at its next selection
     * ({@link java.nio.channels.SelectionKey}, {@link java.nio.channels.Selector}; epoll's
     * {@code epoll_ctl} reaches a waiting {@code epoll_wait} at once). A holder that makes one (a
     * write the socket did not take whole asks for OP_WRITE; a reset's socket is only closed once its
     * key is deregistered) wakes the I/O thread as it leaves, or that change would wait for the wait's
     * end. The loop watches its registrations ({@link KeyWatch}); a new one needs no wake-up, as netty
     * registers a key with no interest and submits the interest after.
     */
    private final boolean keysNeedWakeup;
    /** A holder changed the selector's keys while the I/O thread waited (NIO): written and read by holders. */
    private boolean keysChanged;
    /** The scheduled-task deadline the I/O thread's wait was computed for (netty's ticker; -1: none). */
    private long waitDeadline;
    /** The wait's delay and when it was computed (System.nanoTime()): netty asks for it after the release. */
    private long waitDelayNanos;
    private long waitComputedAt;

    private final IoHandlerContext nonBlocking = new IoHandlerContext() {
        @Override
        public boolean canBlock() {
            return false;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return 0;
        }

        @Override
        public long deadlineNanos() {
            return -1;
        }
    };

    private final IoHandlerContext blocking = new IoHandlerContext() {
        @Override
        public boolean canBlock() {
            if (releasedForWait) {
                // the slot is out: the scheduled tasks are the holder's now; the delay was taken before
                return tasks.isEmpty() && waitDelayNanos - (System.nanoTime() - waitComputedAt) > 0
                        && !handBack.get() && state.get() == STARTED;
            }
            // ioBlocking was set before this check: a task queued after it wakes the selector
            return tasks.isEmpty() && !hasScheduledTasks() && !handBack.get() && state.get() == STARTED;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            if (callerTransmit && !releasedForWait) {
                releaseForWait(); // NIO: the selector asks for the delay right before it waits
            }
            if (releasedForWait) {
                return Math.max(0, waitDelayNanos - (System.nanoTime() - waitComputedAt));
            }
            return DrivableEventLoop.this.delayNanos(currentTimeNanos, TimeUnit.SECONDS.toNanos(1));
        }

        @Override
        public long deadlineNanos() {
            if (callerTransmit && !releasedForWait) {
                releaseForWait(); // epoll: the handler asks for the deadline right before it waits
            }
            if (releasedForWait) {
                return waitDeadline == -1 ? getCurrentTimeNanos() + TimeUnit.SECONDS.toNanos(1) : waitDeadline;
            }
            long next = nextScheduledTaskDeadlineNanos();
            return next == -1 ? getCurrentTimeNanos() + TimeUnit.SECONDS.toNanos(1) : next;
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            // netty calls this after its wait, before it handles the ready events
            reacquireAfterWait();
            return false;
        }
    };

    /**
     * Creates the loop and starts its I/O thread.
     *
     * @param parent        the group
     * @param threads       starts the I/O thread (the group's thread-per-task executor)
     * @param factory       the socket implementation's handler (NIO or epoll)
     * @param takeoverNanos how long after the last application drive the I/O thread takes over
     * @param spinNanos     how long the I/O thread keeps passing over the sockets after the last work
     *                      it found before it blocks again; {@link #SPIN_ALWAYS}: it never blocks
     */
    DrivableEventLoop(IoEventLoopGroup parent, Executor threads, IoHandlerFactory factory, long takeoverNanos,
                      long spinNanos) {
        this(parent, threads, factory, takeoverNanos, spinNanos, false);
    }

    DrivableEventLoop(IoEventLoopGroup parent, Executor threads, IoHandlerFactory factory, long takeoverNanos,
                      long spinNanos, boolean callerTransmit) {
        super(parent);
        this.callerTransmit = callerTransmit;
        this.parent = parent;
        this.takeoverNanos = takeoverNanos;
        this.spinNanos = spinNanos;
        long before = System.nanoTime();
        long ticker = super.getCurrentTimeNanos();
        this.tickerOffset = before + (System.nanoTime() - before) / 2 - ticker;
        this.lastDriven = System.nanoTime() - takeoverNanos; // nobody drove yet: the I/O thread serves setup
        this.handler = factory.newHandler(this);
        this.keysNeedWakeup = callerTransmit && handler instanceof NioIoHandler;
        this.polledSockets = new PolledSockets(this.handler);
        threads.execute(this::ioThreadMain); // last: the thread sees every field above
    }

    // ---- driving --------------------------------------------------------------------------------

    @Override
    public boolean drive() {
        return drive(true);
    }

    @Override
    public boolean runQueued() {
        return drive(false);
    }

    private boolean drive(boolean io) {
        Thread me = Thread.currentThread();
        if (!driver.compareAndSet(null, me)) {
            askBack(me);
            return false; // somebody else runs the loop now, or we do further up this stack
        }
        // One clock read per drive (about 25 ns on a VM): its start stands for "now" both for the
        // scheduled tasks this drive fetches (getCurrentTimeNanos) and as the drive's time for the
        // I/O thread's takeover, which counts in milliseconds.
        long now = System.nanoTime();
        driveNanos = now;
        try {
            if (state.get() != STARTED) {
                return false; // the I/O thread shuts the loop down
            }
            if (io && !callerTransmit) {
                pollSockets(me != ioThread);
            }
            runTasks();
            applicationDrives++; // single writer: the slot holder
            return true;
        } finally {
            driveNanos = 0;
            lastDriven = now;
            release();
        }
    }

    /**
     * Gives the slot up after a drive or a run: with the event-loop I/O thread waiting on the sockets
     * meanwhile, wakes it if this holder scheduled a task due before its wait ends, and unparks it if
     * it waits for the slot.
     */
    private void release() {
        boolean wake = false;
        if (callerTransmit && releasedForWait) {
            // The I/O thread waits on the sockets for what it saw before it gave the slot up: tasks this
            // holder queued (execute() does not wake the loop for its holder), a scheduled task due
            // earlier, or (NIO) a change the holder made to the selector's keys need it now.
            long next = nextScheduledTaskDeadlineNanos();
            wake = keysChanged || !tasks.isEmpty() || next != -1 && (waitDeadline == -1 || next < waitDeadline);
            keysChanged = false;
            if (wake) {
                handBack.set(true); // canBlock() says no if the I/O thread has not started its wait yet
            }
        }
        driver.set(null);
        if (wake) {
            handler.wakeup(); // after the release: netty writes its eventfd only for a thread not running the loop
        }
        if (ioWantsSlot) {
            LockSupport.unpark(ioThread);
        }
    }

    /** The I/O thread takes the slot, waiting for a poster to leave it (callerTransmit). */
    private void takeSlot(Thread me) {
        if (driver.compareAndSet(null, me)) {
            return;
        }
        // A poster's hold is short (a post's framing and writev): spin a little before parking, whose
        // wake-up costs more than the hold on a VM
        long spinUntil = System.nanoTime() + SLOT_SPIN_NANOS;
        do {
            Thread.onSpinWait();
            if (driver.get() == null && driver.compareAndSet(null, me)) {
                return;
            }
        } while (System.nanoTime() - spinUntil < 0);
        ioWantsSlot = true;
        try {
            while (!driver.compareAndSet(null, me)) {
                LockSupport.parkNanos(this, 50_000);
            }
        } finally {
            ioWantsSlot = false;
        }
    }

    /**
     * Right before netty's wait (epoll's {@code deadlineNanos()}, the NIO selector's
     * {@code delayNanos()}): the I/O thread notes what the wait is for -- the scheduled tasks belong to
     * the next holder from now on -- and gives the slot up, so that posts run on their threads.
     */
    private void releaseForWait() {
        waitDeadline = nextScheduledTaskDeadlineNanos();
        waitComputedAt = System.nanoTime();
        waitDelayNanos = delayNanos(waitComputedAt, TimeUnit.SECONDS.toNanos(1));
        releasedForWait = true;
        driver.set(null);
    }

    /** After netty's wait: the I/O thread takes the slot back before it handles the events. */
    private void reacquireAfterWait() {
        if (releasedForWait) {
            takeSlot(ioThread);
            releasedForWait = false;
            handBack.set(false); // a holder's wake-up request is served by this turn
        }
    }

    /**
     * {@inheritDoc} The task runs without a clock read before it (it is no drive: it fetches no
     * scheduled task); the one after it stamps the loop as driven, as a drive does.
     */
    @Override
    public boolean tryRun(Runnable task) {
        Thread me = Thread.currentThread();
        if (!driver.compareAndSet(null, me)) {
            askBack(me);
            return false;
        }
        try {
            if (state.get() != STARTED) {
                return false; // the I/O thread shuts the loop down: the caller's execute() says so
            }
            safeExecute(task);
            applicationDrives++; // single writer: the slot holder
            return true;
        } finally {
            if (!callerTransmit) {
                lastDriven = System.nanoTime();
            }
            release();
        }
    }

    /**
     * An application thread wants the loop while another thread holds it, most often the I/O
     * thread: that one gets out of the way -- its spin after work ends at its next pass, and it
     * stays out for a takeover period, counted from now (a later yieldToIoThread() must win over
     * it). On few cores a third busy thread would take a core from the application's (issue 11:
     * 64 KiB Write streams ran at half speed in stretches while the sender's I/O thread spun beside
     * its application thread).
     */
    private void askBack(Thread me) {
        if (!callerTransmit && me != ioThread && driver.get() != me) {
            lastDriven = System.nanoTime();
            if (ioBlocking && handBack.compareAndSet(false, true)) {
                handler.wakeup(); // it blocks in the selector: have it hand the loop back now
            }
        }
    }

    @Override
    public void yieldToIoThread() {
        if (callerTransmit) {
            return; // the I/O thread serves the sockets all the time
        }
        lastDriven = System.nanoTime() - takeoverNanos;
        LockSupport.unpark(ioThread);
    }

    @Override
    public boolean drivesOnPoll() {
        return !callerTransmit;
    }

    @Override
    public boolean inExecutor() {
        return driver.get() == Thread.currentThread();
    }

    @Override
    public boolean inEventLoop(Thread thread) {
        return driver.get() == thread;
    }

    /**
     * Turns the loop's I/O thread has taken so far (a blocking select and the tasks after it): in
     * steady state with an application that busy-polls, it stays put (docs/transport.md).
     *
     * @return the count
     */
    public long ioThreadTurns() {
        return ioThreadTurns;
    }

    /**
     * Drives by application threads ({@link #drive()}, {@link #runQueued()}, {@link #tryRun}) that
     * ran the loop's work.
     *
     * @return the count
     */
    public long applicationDrives() {
        return applicationDrives;
    }

    /** Stream sockets (epoll and NIO) registered on this loop now. */
    int polledSockets() {
        return polledSockets.count();
    }

    /** Polled sockets out of the epoll set now (an application drives; read on the slot holder). */
    int suspendedSockets() {
        return polledSockets.suspended();
    }

    /** Socket registrations the loop's passes have visited to put them back into epoll (read on the slot holder). */
    long resumeVisits() {
        return polledSockets.resumeVisits;
    }

    /** Stream sockets (epoll and NIO) announced for registration whose handle has not registered. */
    int socketsBeingRegistered() {
        return polledSockets.announced();
    }

    /** Whether this thread is the loop's own I/O thread (blocking calls must not run on it). */
    boolean isIoThread(Thread thread) {
        return ioThread == thread;
    }

    /**
     * A non-blocking look at the sockets: a read of each while they are few (polled reads, on
     * epoll), else epoll's or the selector's ready set.
     *
     * @return the work found: sockets that brought bytes, or the handler's events
     */
    private int pollSockets(boolean application) {
        int read = polledSockets.readEach(application);
        if (read == PolledSockets.ASK_EPOLL) {
            return handler.run(nonBlocking);
        }
        return polledSockets.epollDue() ? read + handler.run(nonBlocking) : read;
    }

    private int runTasks() {
        fetchFromScheduledTaskQueue(tasks);
        int n = 0;
        Runnable task;
        while (n < TASKS_PER_DRIVE && (task = tasks.poll()) != null) {
            safeExecute(task);
            n++;
        }
        return n;
    }

    // ---- the I/O thread ---------------------------------------------------------------------------

    private void ioThreadMain() {
        Thread me = Thread.currentThread();
        ioThread = me;
        acquire(me);
        try {
            handler.initialize();
        } finally {
            driver.set(null);
        }
        if (spinNanos == SPIN_ALWAYS) {
            spinUntilShutdown(me);
        }
        if (callerTransmit) {
            serveUntilShutdown(me);
        }
        while (state.get() == STARTED) {
            long quiet = System.nanoTime() - lastDriven;
            if (quiet < takeoverNanos) {
                LockSupport.parkNanos(this, takeoverNanos - quiet); // an application thread drives the loop
                continue;
            }
            if (!driver.compareAndSet(null, me)) {
                LockSupport.parkNanos(this, takeoverNanos);
                continue;
            }
            if (System.nanoTime() - lastDriven < takeoverNanos) {
                // an application drive ended between the check above and the grab: it polls, so stay
                // out rather than take a blocking turn it would have to ask back
                driver.set(null);
                continue;
            }
            int work = 0;
            try {
                ioThreadTurns++; // single writer: the slot holder
                polledSockets.resumeAll(); // it waits on epoll: the sockets must be in the set
                ioBlocking = true;
                work = handler.run(blocking);
                ioBlocking = false;
                work += runTasks();
            } catch (Throwable t) {
                LOG.warn("unexpected exception in the event loop", t);
            } finally {
                ioBlocking = false;
                driver.set(null);
            }
            handBack.set(false); // served: the asking thread stamped lastDriven, which keeps us out
            if (work > 0 && spinNanos > 0) {
                spinAfterWork(me);
            }
        }
        shutDown(me);
    }

    /**
     * Event-loop mode with posts on the caller: the I/O thread serves the sockets as an ordinary
     * event loop, turn after turn, and waits on the sockets without the slot (the handler's context gives
     * it up and takes it back around the wait).
     */
    private void serveUntilShutdown(Thread me) {
        while (state.get() == STARTED) {
            takeSlot(me);
            try {
                ioThreadTurns++; // single writer: the slot holder
                ioBlocking = true;
                handler.run(blocking);
                ioBlocking = false;
                reacquireAfterWait(); // netty skipped its hook (an exception in its loop)
                runTasks();
            } catch (Throwable t) {
                LOG.warn("unexpected exception in the event loop", t);
            } finally {
                ioBlocking = false;
                reacquireAfterWait();
                driver.set(null);
            }
        }
    }

    /**
     * IoMode.BUSY_POLLING: non-blocking passes over the sockets and the tasks whenever no application
     * thread holds the slot; never parks, so nothing that arrives waits for a wake-up.
     */
    private void spinUntilShutdown(Thread me) {
        int idle = 0;
        while (state.get() == STARTED) {
            if (driver.get() != null || !driver.compareAndSet(null, me)) {
                Thread.onSpinWait();
                continue;
            }
            int work = 0;
            try {
                ioThreadTurns++; // single writer: the slot holder
                work = pollSockets(false) + runTasks();
            } catch (Throwable t) {
                LOG.warn("unexpected exception in the event loop", t);
            } finally {
                driver.set(null);
            }
            // Between empty passes, now and then hand the core to a thread that wants it (the
            // application's pollers on a machine with few cores) instead of spinning out a time slice.
            idle = work == 0 ? idle + 1 : 0;
            if (idle % SPIN_YIELD_EVERY == SPIN_YIELD_EVERY - 1) {
                Thread.yield();
            }
        }
    }

    /**
     * IoMode.POLLING, after a turn that found work with nobody else driving: non-blocking passes over
     * the sockets and the tasks until {@link #spinNanos} go by without work, or an application thread
     * drives the loop again (it polls now: the I/O thread gets out of its way). A request that follows
     * within that time (a Read ping-pong's next request at a responder nobody polls, the next Write of a
     * stream) meets a running thread instead of the wake-up of a sleeping one.
     */
    private void spinAfterWork(Thread me) {
        long start = System.nanoTime();
        long lastWork = start;
        while (state.get() == STARTED && lastDriven - start < 0) {
            if (!driver.compareAndSet(null, me)) {
                Thread.onSpinWait(); // an application thread drives right now; lastDriven ends the spin
                continue;
            }
            int work = 0;
            try {
                work = pollSockets(false) + runTasks();
                if (work > 0) {
                    ioThreadTurns++; // single writer: the slot holder
                }
            } catch (Throwable t) {
                LOG.warn("unexpected exception in the event loop", t);
            } finally {
                driver.set(null);
            }
            long now = System.nanoTime();
            if (work > 0) {
                lastWork = now;
            } else if (now - lastWork >= spinNanos) {
                return;
            } else {
                Thread.yield(); // few cores: let the application's threads in between empty passes
            }
        }
    }

    /** Takes the slot, waiting for an application thread to leave it (only at start and shutdown). */
    private void acquire(Thread me) {
        while (!driver.compareAndSet(null, me)) {
            Thread.onSpinWait();
        }
    }

    /** Runs on the I/O thread, which keeps the slot from now on: application drives return false. */
    private void shutDown(Thread me) {
        acquire(me);
        try {
            long start = System.nanoTime();
            runAllTasks();
            polledSockets.resumeAll();
            handler.prepareToDestroy(); // closes the channels still registered
            long lastWork = System.nanoTime();
            while (true) {
                handler.run(nonBlocking);
                if (runAllTasks() > 0) {
                    lastWork = System.nanoTime();
                }
                long now = System.nanoTime();
                if (state.get() >= SHUTDOWN || now - lastWork >= quietPeriodNanos || now - start >= shutdownTimeoutNanos) {
                    break;
                }
                LockSupport.parkNanos(this, Math.min(SHUTDOWN_POLL_NANOS, quietPeriodNanos));
            }
            handler.destroy();
            while (runAllTasks() > 0) {
                // tasks the destruction queued (channel close listeners)
            }
        } catch (Throwable t) {
            LOG.warn("unexpected exception while shutting the event loop down", t);
        } finally {
            state.set(TERMINATED);
            terminationFuture.setSuccess(null);
        }
    }

    private int runAllTasks() {
        int n = 0;
        int ran;
        do {
            ran = runTasks();
            n += ran;
        } while (ran > 0);
        return n;
    }

    /**
     * netty's clock for scheduled tasks: inside an application drive the drive's start, read once
     * per drive, so that fetching due tasks costs no second clock read; elsewhere the clock.
     */
    @Override
    protected long getCurrentTimeNanos() {
        long now = driveNanos;
        return now != 0 && driver.get() == Thread.currentThread() ? now - tickerOffset : super.getCurrentTimeNanos();
    }

    // ---- executor -----------------------------------------------------------------------------------

    @Override
    public void execute(Runnable task) {
        if (task == null) {
            throw new NullPointerException("task");
        }
        if (state.get() >= TERMINATED) {
            throw new RejectedExecutionException("event loop terminated");
        }
        tasks.offer(task);
        if (driver.get() == Thread.currentThread()) {
            return; // queued by the loop's own work: this drive or the next runs it
        }
        if (ioBlocking) {
            handler.wakeup();
        } else if (!callerTransmit && driver.get() == null && System.nanoTime() - lastDriven >= takeoverNanos) {
            LockSupport.unpark(ioThread); // nobody drives the loop: the I/O thread runs the task now
        }
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        quietPeriodNanos = unit.toNanos(quietPeriod);
        shutdownTimeoutNanos = unit.toNanos(timeout);
        if (state.compareAndSet(STARTED, SHUTTING_DOWN)) {
            wakeIoThread();
        }
        return terminationFuture;
    }

    @Override
    @Deprecated
    public void shutdown() {
        int s = state.get();
        while (s < SHUTDOWN && !state.compareAndSet(s, SHUTDOWN)) {
            s = state.get();
        }
        wakeIoThread();
    }

    private void wakeIoThread() {
        handler.wakeup();
        LockSupport.unpark(ioThread);
    }

    @Override
    public boolean isShuttingDown() {
        return state.get() >= SHUTTING_DOWN;
    }

    @Override
    public boolean isShutdown() {
        return state.get() >= SHUTDOWN;
    }

    @Override
    public boolean isTerminated() {
        return state.get() == TERMINATED;
    }

    @Override
    public Future<?> terminationFuture() {
        return terminationFuture;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminationFuture.await(timeout, unit);
    }

    // ---- IoEventLoop ------------------------------------------------------------------------------

    @Override
    public DrivableEventLoop next() {
        return this;
    }

    @Override
    public IoEventLoopGroup parent() {
        return parent;
    }

    @Override
    @Deprecated
    public ChannelFuture register(Channel channel) {
        return register(new DefaultChannelPromise(channel, this));
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        polledSockets.announce(promise.channel(), promise);
        promise.channel().unsafe().register(this, promise);
        return promise;
    }

    @Override
    @Deprecated
    public ChannelFuture register(Channel channel, ChannelPromise promise) {
        polledSockets.announce(channel, promise);
        channel.unsafe().register(this, promise);
        return promise;
    }

    @Override
    public Future<IoRegistration> register(IoHandle handle) {
        Promise<IoRegistration> promise = newPromise();
        if (inEventLoop()) {
            registerNow(handle, promise);
        } else {
            execute(() -> registerNow(handle, promise));
        }
        return promise;
    }

    private void registerNow(IoHandle handle, Promise<IoRegistration> promise) {
        try {
            IoRegistration registration = handler.register(handle);
            if (keysNeedWakeup) {
                // netty registers with no interest: the submit that follows is what the selector must see
                registration = new KeyWatch(registration);
            }
            promise.setSuccess(polledSockets.registered(handle, registration));
        } catch (Exception e) {
            polledSockets.registered(handle, null);
            promise.setFailure(e);
        }
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return handler.isCompatible(handleType);
    }

    @Override
    public boolean isIoType(Class<? extends IoHandler> handlerType) {
        return handler.getClass().equals(handlerType);
    }
    /**
     * A NIO registration whose interest changes and cancellation by a holder, made while the I/O
     * thread waits in the selector, wake the I/O thread when that holder leaves ({@link #keysNeedWakeup}).
     */
    private final class KeyWatch implements IoRegistration {
        private final IoRegistration registration;

        KeyWatch(IoRegistration registration) {
            this.registration = registration;
        }

        @Override
        public <T> T attachment() {
            return registration.attachment();
        }

        @Override
        public long submit(IoOps ops) {
            keysChanged |= releasedForWait; // the slot holder, while the I/O thread waits
            return registration.submit(ops);
        }

        @Override
        public boolean isValid() {
            return registration.isValid();
        }

        @Override
        public boolean cancel() {
            keysChanged |= releasedForWait;
            return registration.cancel();
        }
    }
}
