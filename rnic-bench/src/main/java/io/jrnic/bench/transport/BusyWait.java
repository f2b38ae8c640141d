package io.jrnic.bench.transport;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The idle step of a busy-polling loop: spin, and now and then yield and check a deadline. No
 * sleeping and no allocation (until the timeout, which throws).
 *
 * <p>Why yield at all: on the 2-core VM the RNICs' netty event loops, which move the bytes, compete
 * with the polling threads for the cores. A pure spin would take a core from them for a whole
 * scheduler slice; {@link Thread#yield()} every {@value #YIELD_EVERY} empty polls hands it back
 * while costing nothing when the loop finds work quickly.
 *
 * <p>A fixture's own spinning thread (an echo peer, a consumer: the {@link #pause()} callers) can be
 * held by another thread: between the turns of an interleaved loopback run (perftest's
 * {@code --slice-ms}) it parks instead of spinning, so that it takes no core from the transport
 * measured meanwhile and keeps no vCPU awake for it (a busy vCPU wakes a blocked thread several
 * times faster than an idle one).
 *
 * <p>Thread safety: one polling thread; {@link #hold()} and {@link #release()} from any thread.
 */
public final class BusyWait {

    /** Empty polls between two yields. */
    public static final int YIELD_EVERY = 64;

    /** How long a loop may find nothing before the transport is declared stuck. */
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final int CLOCK_EVERY = 1 << 12;

    /**
     * Empty polls between two yields of a loop whose poll is a system call (a non-blocking
     * {@code read}, about a microsecond): yield after every one. With 64 such polls between two
     * yields, two spinning threads that share one core (the other busy with other work) would hand
     * it over only every 64 µs or so; a {@code sched_yield} costs no more than the poll itself, and
     * returns at once when nothing else wants the core.
     */
    public static final int YIELD_EVERY_SYSCALL = 1;

    private final int yieldEvery;
    private int idle;
    private long deadline;
    private volatile boolean held;
    private volatile Thread parked;

    /** A wait for loops whose poll is a memory read: yields every {@value #YIELD_EVERY} empty polls. */
    BusyWait() {
        this(YIELD_EVERY);
    }

    /**
     * The wait of an RNIC benchmark loop: a memory read per empty poll in event-loop mode (yield
     * every {@value #YIELD_EVERY}); in the polling modes an empty CQ poll drives the connection, a
     * non-blocking socket pass like a raw-TCP poll, so it yields after each one as the TCP loops do.
     *
     * @return a new wait for the RNICs' I/O mode ({@code -Djrnic.bench.ioMode})
     */
    static BusyWait forRnic() {
        return new BusyWait(RnicPair.ioMode() == io.jrnic.api.IoMode.EVENT_LOOP ? YIELD_EVERY : YIELD_EVERY_SYSCALL);
    }

    /**
     * A wait with its own yield interval.
     *
     * @param yieldEvery empty polls between two yields, at least 1
     */
    BusyWait(int yieldEvery) {
        if (yieldEvery < 1) {
            throw new IllegalArgumentException("yieldEvery must be at least 1, was " + yieldEvery);
        }
        this.yieldEvery = yieldEvery;
    }

    /** Starts a new wait: the deadline counts from the first clock check of this wait. */
    void reset() {
        idle = 0;
        deadline = 0;
    }

    /**
     * One empty poll of a loop that may legitimately wait for ever (a consumer between two
     * messages): spins and yields like {@link #idle}, without a deadline.
     */
    void pause() {
        idle++;
        if (idle % yieldEvery != 0) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
            if (held) {
                awaitRelease();
            }
        }
    }

    /**
     * From any thread: the next {@link #pause()} parks the polling thread until {@link #release()}
     * (a thread that finds work does not pause, so it finishes what is in flight first).
     */
    public void hold() {
        held = true;
    }

    /** From any thread: ends a {@link #hold()}, unparking the polling thread if it parked. */
    public void release() {
        held = false;
        Thread t = parked;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Whether the polling thread is parked by a hold (for tests). */
    boolean parked() {
        return parked != null;
    }

    private void awaitRelease() {
        // publish the thread before the second look at held: release() reads it after clearing held
        parked = Thread.currentThread();
        while (held) {
            LockSupport.park(this);
        }
        parked = null;
    }

    /**
     * One empty poll: spins, yields every {@value #YIELD_EVERY} calls, and checks the deadline every
     * few thousand.
     *
     * @param what what the loop waits for (a constant, for the exception message)
     * @param side the endpoint, for the exception message
     * @throws IOException if this wait has lasted longer than {@link #TIMEOUT_NANOS}
     */
    void idle(String what, Object side) throws IOException {
        idle++;
        if (idle % yieldEvery != 0) {
            Thread.onSpinWait();
            return;
        }
        Thread.yield();
        if (idle % CLOCK_EVERY == 0) {
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + TIMEOUT_NANOS;
            } else if (now - deadline > 0) {
                throw new IOException("no progress for " + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NANOS)
                        + " s waiting for " + what + " on " + side);
            }
        }
    }
}
