package io.jrnic.core.link;

import java.util.concurrent.Executor;

/**
 * An executor whose work any thread may run itself: the event loop of a link in polling mode
 * ({@code IoMode.POLLING}). A thread that calls {@link #drive()} becomes, for the duration of the
 * call, the executor's thread: the link's I/O and queued tasks run on it, with the same
 * single-thread guarantee as on an event loop, because at most one thread drives at a time. When no
 * application thread has driven the executor for a while, its own I/O thread takes over and blocks
 * on the sockets, so progress never depends on the application driving.
 *
 * <p>Callers drive with no lock of theirs held (a QP's lock, a CQ's monitor): the work they run
 * takes those locks itself, for other QPs and CQs too.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public interface DrivableExecutor extends Executor {
    /**
     * Runs the ready I/O (without waiting for any) and the queued tasks on the calling thread,
     * unless another thread is running them now or the calling thread already is (a callback of a
     * drive); never blocks.
     *
     * @return true if this call ran the executor's work
     */
    boolean drive();

    /**
     * Like {@link #drive()} without looking at the sockets: runs the queued tasks only (a post's
     * transmit work that {@link #tryRun} could not run, or that a run left behind). Never blocks.
     *
     * @return true if this call ran the executor's work
     */
    boolean runQueued();

    /**
     * Runs one task on the calling thread as the executor's work, ahead of the queued tasks, if no
     * other thread is running the executor now: a post's transmit with no task queued and fetched
     * in between (the latency path of polling mode). A task that throws is logged, as on the
     * executor's own thread. Never blocks; not for a thread that is running the executor already.
     *
     * @param task the work, usually a preallocated one
     * @return true if the task ran; false if it did not (the caller queues it with
     *         {@link #execute})
     */
    boolean tryRun(Runnable task);

    /**
     * The calling thread will not drive the executor for a while (it is about to block, e.g. a
     * blocking CQ poll that stopped spinning): the executor's I/O thread takes over now instead of
     * after the takeover period. Never blocks.
     */
    void yieldToIoThread();

    /**
     * Whether polls of a CQ should drive this executor: true in polling mode; false where its I/O
     * thread serves the sockets all the time and only posts run on their threads (event-loop mode
     * with posts on the caller).
     *
     * @return true if CQ polls drive it
     */
    default boolean drivesOnPoll() {
        return true;
    }

    /**
     * Whether the calling thread is running this executor's work right now (its I/O thread, or a
     * thread inside {@link #drive()} or {@link #runQueued()}).
     *
     * @return true on the executor's current thread
     */
    boolean inExecutor();
}
