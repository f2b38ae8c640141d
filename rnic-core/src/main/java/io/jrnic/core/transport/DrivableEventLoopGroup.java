package io.jrnic.core.transport;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * The event-loop group of {@code IoMode.POLLING}: netty's group of {@link DrivableEventLoop}s, one
 * I/O thread each, which channels are spread over as usual.
 *
 * <p>Thread safety: thread-safe.
 */
final class DrivableEventLoopGroup extends MultiThreadIoEventLoopGroup {
    private final DrivableEventLoop[] loops;

    /**
     * Creates the loops and starts their I/O threads.
     *
     * @param threads       number of loops
     * @param threadFactory makes the I/O threads
     * @param factory       the socket implementation's handler factory
     * @param takeoverNanos how long after an application thread's last drive a loop's I/O thread takes over
     * @param spinNanos     how long an I/O thread that served the sockets keeps passing over them after
     *                      the last work it found; {@link DrivableEventLoop#SPIN_ALWAYS}: it never
     *                      blocks ({@code IoMode.BUSY_POLLING})
     */
    DrivableEventLoopGroup(int threads, ThreadFactory threadFactory, IoHandlerFactory factory, long takeoverNanos,
                           long spinNanos) {
        this(threads, threadFactory, factory, takeoverNanos, spinNanos, false);
    }

    DrivableEventLoopGroup(int threads, ThreadFactory threadFactory, IoHandlerFactory factory, long takeoverNanos,
                           long spinNanos, boolean callerTransmit) {
        super(threads, threadFactory, factory, takeoverNanos, spinNanos, callerTransmit);
        loops = new DrivableEventLoop[executorCount()];
        int i = 0;
        for (EventExecutor loop : this) {
            loops[i++] = (DrivableEventLoop) loop;
        }
    }

    @Override
    protected IoEventLoop newChild(Executor executor, IoHandlerFactory factory, Object... args) {
        return new DrivableEventLoop(this, executor, factory, (Long) args[0], (Long) args[1], (Boolean) args[2]);
    }

    /**
     * Whether the thread runs one of the loops' work now (inside a drive) or is one of their I/O
     * threads: blocking calls that wait for the loops must not run there.
     *
     * @param thread the thread
     * @return true if it runs or owns a loop
     */
    boolean runsLoop(Thread thread) {
        for (DrivableEventLoop loop : loops) {
            if (loop.inEventLoop(thread) || loop.isIoThread(thread)) {
                return true;
            }
        }
        return false;
    }
}
