package io.jrnic.core.engine;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where an RNIC runs the {@link MemorySegment#force()} of an RDMA Flush to persistence
 * (draft-talpey-rdma-commit-01 §3.1.1, AMB-62): off the QPs' event loops, so that an msync of one
 * QP's range does not stall every other QP sharing its loop.
 *
 * <pre>
 *  event loop (QP engine)                     persistence thread (this pool)
 *  IRD head = Flush P: fullFence, slice ──submit──► force(slice)  (msync, blocking)
 *  TX waits at the IRD head; SQ, RX and       │
 *  other QPs go on                            │
 *  Flush Response / Terminate 0/2/0x07 ◄──loop.execute(completion)─┘
 * </pre>
 *
 * <p><b>Pool.</b> A bounded pool of {@link #THREADS} daemon platform threads ({@code jrnic-persist-<rnic>-n}),
 * created on the first Flush to persistence, whose idle threads end after {@link #KEEP_ALIVE_SECONDS}
 * seconds, with an unbounded FIFO queue (each QP has at most one force in flight: the one at its IRD
 * head, so the queue is bounded by the number of QPs). Platform threads rather than virtual ones:
 * {@code force()} is a native call that pins a virtual thread's carrier for the whole msync, and the
 * machine's few carriers are better left to the application. {@link #close()} (with the RNIC) stops
 * accepting work; a force already running finishes on its thread and its completion is ignored by
 * the engine, which has been torn down by then.
 *
 * <p><b>Seams</b> (tests): {@link #forcer(Forcer)} replaces the force call (a test blocks it on a
 * latch to make a "slow msync"), {@link #executor(Executor)} replaces the pool (a manual executor on
 * the test thread keeps a single-threaded loop test deterministic).
 *
 * <p>Thread safety: thread-safe; {@link #submit} is called from event loops, {@link #close()} from
 * the RNIC's closing thread.
 */
public final class PersistenceExecutor implements AutoCloseable {
    /** Threads of the pool: concurrent msyncs of different QPs. */
    static final int THREADS = 2;
    /** Seconds an idle pool thread lives. */
    static final long KEEP_ALIVE_SECONDS = 30;

    /** The call that makes a range persistent; {@link MemorySegment#force()} outside tests. */
    @FunctionalInterface
    public interface Forcer {
        /**
         * Writes the range back to its file and returns once it reached the storage device.
         *
         * @param range a slice of file-mapped memory
         * @throws RuntimeException when the range could not be made persistent (an
         *                          {@code UncheckedIOException}, or an unmapped or closed segment)
         */
        void force(MemorySegment range);
    }

    private final String name;
    private final Object lock = new Object();
    private final AtomicInteger threadNumber = new AtomicInteger();
    private ThreadPoolExecutor pool; // guarded by lock, created on first use
    private boolean closed; // guarded by lock
    private volatile Forcer forcer = MemorySegment::force;
    private volatile Executor override;

    /**
     * Creates the executor of an RNIC; no thread is started until the first {@link #submit}.
     *
     * @param name the RNIC's name (for the thread names)
     */
    public PersistenceExecutor(String name) {
        this.name = name;
    }

    /** The force call (test seam: {@link #forcer(Forcer)}). */
    public Forcer forcer() {
        return forcer;
    }

    /**
     * Replaces the force call (tests).
     *
     * @param f the call, not null
     */
    public void forcer(Forcer f) {
        if (f == null) {
            throw new IllegalArgumentException("forcer must not be null");
        }
        this.forcer = f;
    }

    /**
     * Runs the tasks on this executor instead of the pool (tests), or on the pool again for null.
     *
     * @param e the executor, or null
     */
    public void executor(Executor e) {
        this.override = e;
    }

    /**
     * Runs a force task off the event loop.
     *
     * @param task the task (it reports its own outcome)
     * @throws RejectedExecutionException once the RNIC was closed
     */
    public void submit(Runnable task) {
        Executor e = override;
        if (e != null) {
            e.execute(task);
            return;
        }
        ThreadPoolExecutor p;
        synchronized (lock) {
            if (closed) {
                throw new RejectedExecutionException("RNIC " + name + " is closed");
            }
            if (pool == null) {
                pool = newPool();
            }
            p = pool;
        }
        p.execute(task);
    }

    private ThreadPoolExecutor newPool() {
        ThreadFactory threads = r -> {
            Thread t = new Thread(r, "jrnic-persist-" + name + "-" + threadNumber.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        ThreadPoolExecutor p = new ThreadPoolExecutor(THREADS, THREADS, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), threads);
        p.allowCoreThreadTimeOut(true);
        return p;
    }

    /** Whether the pool's threads exist (tests: nothing is started before a Flush to persistence). */
    public boolean started() {
        synchronized (lock) {
            return pool != null;
        }
    }

    /**
     * Stops accepting work (idempotent). Running forces finish on their threads, which then end; their
     * completions find the engines torn down and are dropped. Does not wait: an msync may be slow.
     */
    @Override
    public void close() {
        ThreadPoolExecutor p;
        synchronized (lock) {
            closed = true;
            p = pool;
        }
        if (p != null) {
            p.shutdown();
        }
    }
}
