package io.jrnic.core;

import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.FpduHandler;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;

/**
 * A deterministic, allocation-free link for engine tests: every endpoint runs on one shared manual
 * event loop (the test thread drives it with {@link Loop#runAll()}), and each FPDU's ULPDU is copied
 * into a reused buffer and handed straight to the peer's handler. No MPA framing: what is measured
 * is the engine, not the pipe.
 *
 * <p>Thread safety: single-threaded; everything runs on the thread calling {@link Loop#runAll()}.
 */
final class LoopLinkPair {
    /** A manual event loop: tasks run in FIFO order when the test calls {@link #runAll()}. */
    static final class Loop implements Executor {
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>(1024);
        private boolean terminated;

        @Override
        public void execute(Runnable task) {
            if (terminated) {
                throw new java.util.concurrent.RejectedExecutionException("loop terminated");
            }
            tasks.add(task);
        }

        /** From now on the loop refuses tasks, as a terminated netty event loop does. */
        void terminate() {
            terminated = true;
        }

        /** Periodic tasks (the engine's progress check): run by {@link #tick()} only, no clock. */
        private final java.util.List<Runnable> periodic = new java.util.ArrayList<>();

        /** Queues one run of every periodic task that was not cancelled, as if their period passed. */
        void tick() {
            periodic.forEach(this::execute);
        }

        Future<?> schedulePeriodic(Runnable task) {
            periodic.add(task);
            return new java.util.concurrent.FutureTask<Void>(() -> { }, null) {
                @Override
                public boolean cancel(boolean interrupt) {
                    periodic.remove(task);
                    return super.cancel(interrupt);
                }
            };
        }

        /** Runs tasks until none is left; returns how many ran. */
        int runAll() {
            int n = 0;
            Runnable r;
            while ((r = tasks.poll()) != null) {
                r.run();
                n++;
            }
            return n;
        }
    }

    final End a;
    final End b;

    LoopLinkPair(Loop loop, int mulpdu, List<String> wireLog) {
        a = new End("A", loop, mulpdu, wireLog);
        b = new End("B", loop, mulpdu, wireLog);
        a.peer = b;
        b.peer = a;
    }

    /** One side; appends "name:opcode" for each FPDU to the shared log when logging. */
    static final class End implements FpduLink {
        final String name;
        final Loop loop;
        final int mulpdu;
        final List<String> wireLog;
        End peer;
        private FpduHandler handler;
        private Listener listener;
        private final MemorySegment ulpdu = MemorySegment.ofArray(new byte[65536]);
        private long pendingToken = -1;
        private long sentToken = -1;
        private final Runnable sentTask = () -> listener.onSent(sentToken);
        boolean logging;

        End(String name, Loop loop, int mulpdu, List<String> wireLog) {
            this.name = name;
            this.loop = loop;
            this.mulpdu = mulpdu;
            this.wireLog = wireLog;
        }

        @Override
        public Executor executor() {
            return loop;
        }

        /** Manual time: the task runs at each {@link Loop#tick()}; the period is not measured. */
        @Override
        public Future<?> schedulePeriodic(Runnable task, long periodNanos) {
            return loop.schedulePeriodic(task);
        }

        @Override
        public int mulpdu() {
            return mulpdu;
        }

        @Override
        public void start(FpduHandler handler, Listener listener) {
            this.handler = handler;
            this.listener = listener;
        }

        @Override
        public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength) {
            return send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, -1);
        }

        @Override
        public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength, long token) {
            MemorySegment.copy(header, headerOffset, ulpdu, 0, headerLength);
            if (payloadLength > 0) {
                MemorySegment.copy(payload, payloadOffset, ulpdu, headerLength, payloadLength);
            }
            if (logging) {
                wireLog.add(name + ":" + (ulpdu.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1) & 0x0F));
            }
            if (token >= 0) {
                pendingToken = token;
            }
            peer.handler.onUlpdu(ulpdu, 0, headerLength + payloadLength);
            return true;
        }

        @Override
        public void flush() {
            if (pendingToken >= 0) {
                sentToken = pendingToken;
                pendingToken = -1;
                loop.execute(sentTask);
            }
        }

        @Override
        public void close() {
            loop.execute(() -> listener.onClosed(Closure.LOCAL_CLOSE));
        }

        @Override
        public void abort() {
            loop.execute(() -> listener.onClosed(Closure.LOCAL_ABORT));
        }
    }

    static List<String> newLog() {
        return new ArrayList<>();
    }
}
