package io.jrnic.core;

import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.FpduDeframer;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.FpduWriter;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Two {@link FpduLink}s joined by an in-memory byte pipe that runs the real MPA code: every FPDU is
 * framed by an {@link FpduWriter} (CRC and markers as configured) into bytes, and the bytes are fed
 * to the peer's {@link FpduDeframer} in pseudo-random chunks (seeded), with direct placement
 * through {@code directWindow()} / {@code placed(n)} where the deframer allows it, as a socket read
 * into the target would. Each side has its own single-threaded executor, its event loop.
 *
 * <p>Public for the engine's own tests (io.jrnic.core.engine.QpEngineTest), which run two
 * {@code QpEngine}s over it without an RNIC.
 *
 * <p>Thread safety: each endpoint is used on its own executor, as {@link FpduLink} requires.
 */
public final class MemoryLinkPair implements AutoCloseable {
    /** Timers of every endpoint (daemon): they only post tasks to the endpoints' loops. */
    private static final java.util.concurrent.ScheduledExecutorService TIMER =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "link-timer");
                t.setDaemon(true);
                return t;
            });

    /** Link options. */
    public record Options(boolean crc, boolean markers, int mulpdu, int maxChunk, long seed, int highWaterMark) {
        public static Options defaults() {
            return new Options(true, false, 1448, 3000, 42, 1 << 20);
        }

        public Options withCrc(boolean c) {
            return new Options(c, markers, mulpdu, maxChunk, seed, highWaterMark);
        }

        public Options withMarkers(boolean m) {
            return new Options(crc, m, mulpdu, maxChunk, seed, highWaterMark);
        }

        public Options withMaxChunk(int n) {
            return new Options(crc, markers, mulpdu, n, seed, highWaterMark);
        }

        public Options withMulpdu(int n) {
            return new Options(crc, markers, n, maxChunk, seed, highWaterMark);
        }

        public Options withHighWaterMark(int n) {
            return new Options(crc, markers, mulpdu, maxChunk, seed, n);
        }
    }

    public final Endpoint a;
    public final Endpoint b;
    /** The one loop both sides share when the pair runs on the caller's thread, else null. */
    private final CallerLoop loop;

    public MemoryLinkPair(Options options) {
        this(options, null);
    }

    private MemoryLinkPair(Options options, CallerLoop loop) {
        this.loop = loop;
        a = new Endpoint("A", options, loop);
        b = new Endpoint("B", options, loop);
        a.peer = b;
        b.peer = a;
    }

    /**
     * A pair with no threads of its own: both sides' tasks go to one queue that runs on the thread
     * that calls {@link #settle()} or an endpoint's {@link Endpoint#barrier()}, in the order they were
     * posted (one of the interleavings two event loops allow). For tests that run many short
     * connections, e.g. a fuzz target: no thread start or hand-off per input. A task's exception
     * propagates out of the call that runs it. Timers ({@link Endpoint#schedulePeriodic}) still post
     * from the shared timer thread and run at the next settle.
     *
     * @param options the link options
     * @return the pair; use it from one thread only
     */
    public static MemoryLinkPair onCallerThread(Options options) {
        return new MemoryLinkPair(options, new CallerLoop());
    }

    /** The TCP connection is lost under both sides (timeout): both report CONNECTION_LOST. */
    public void lose() {
        a.executor.execute(() -> a.closed(FpduLink.Closure.CONNECTION_LOST));
        b.executor.execute(() -> b.closed(FpduLink.Closure.CONNECTION_LOST));
    }

    /**
     * Waits until both event loops have run everything queued so far (one round).
     */
    public void settle() {
        if (loop != null) {
            loop.drain();
            return;
        }
        for (int i = 0; i < 4; i++) {
            a.barrier();
            b.barrier();
        }
    }

    @Override
    public void close() {
        a.executor.shutdownNow();
        b.executor.shutdownNow();
    }

    /**
     * The event loop of {@link #onCallerThread}: a queue of tasks run by whoever drains it. Posting is
     * thread-safe (the timer posts from its thread); draining is for one thread.
     */
    private static final class CallerLoop extends java.util.concurrent.AbstractExecutorService {
        private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> tasks =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        private volatile boolean shutdown;

        @Override
        public void execute(Runnable task) {
            if (!shutdown) {   // as the threaded loops' DiscardPolicy: tasks after close are dropped
                tasks.add(task);
            }
        }

        /** Runs tasks, including those they post, until none is left. */
        void drain() {
            Runnable t;
            while (!shutdown && (t = tasks.poll()) != null) {
                t.run();
            }
        }

        @Override
        public void shutdown() {
            shutdown = true;
            tasks.clear();
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown();
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return shutdown;
        }
    }

    /** One side of the pipe. */
    public static final class Endpoint implements FpduLink {
        final String name;
        final Options options;
        final ExecutorService executor;
        /** The shared loop of {@link #onCallerThread}, or null: the side has its own thread. */
        private final CallerLoop loop;
        final FpduWriter writer;
        private final Random random;
        Endpoint peer;
        private FpduDeframer deframer;
        private FpduHandler handler;
        Listener listener;
        private final ArrayDeque<byte[]> unflushed = new ArrayDeque<>();
        private final List<Long> unflushedTokens = new ArrayList<>();
        private final MemorySegment frame = MemorySegment.ofArray(new byte[70_000]);
        private boolean closed;
        private boolean closing;
        private boolean wantWritable;
        private long inFlight;
        /** Bytes of all FPDUs this side sent (for tests that read the wire). */
        public final List<byte[]> sentUlpdus = new ArrayList<>();
        volatile long directBytes;
        public volatile long fpdusSent;
        /** Flushes that handed bytes to the "socket": one gathering write each over TCP. */
        public volatile long flushesWithData;
        public volatile Closure closure;
        /** MSNs as an RTR left them (RFC 6581 §9.3); set before the engine starts. */
        public int outboundSendMsn = 1;
        public int inboundSendMsn = 1;
        public int outboundReadMsn = 1;
        public int inboundReadMsn = 1;
        private final ArrayDeque<byte[]> early = new ArrayDeque<>();
        /** Opt-in graceful receive overflow (V-WRP-65); set before the engine starts. */
        volatile boolean gracefulOverflow;
        /** Reading is paused: arriving bytes wait in {@link #unread}, as in a closed TCP window. */
        private boolean receivePaused;
        private final ArrayDeque<byte[]> unread = new ArrayDeque<>();
        /** Bytes not consumed yet because reading is paused (tests). */
        volatile long unreadBytes;
        /** Times reading was paused (tests). */
        volatile int pauses;

        Endpoint(String name, Options options, CallerLoop loop) {
            this.name = name;
            this.options = options;
            this.loop = loop;
            this.executor = loop != null ? loop : threadedLoop(name);
            this.writer = new FpduWriter(options.markers(), options.crc());
            this.random = new Random(options.seed() ^ name.hashCode());
        }

        private static ExecutorService threadedLoop(String name) {
            // tasks posted after the test shut the loop down (engine resets on RNIC close) are dropped
            return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "link-" + name);
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy());
        }

        @Override
        public java.util.concurrent.Executor executor() {
            return executor;
        }

        /** A shared timer thread posts each run to this endpoint's loop (the engine's progress check). */
        @Override
        public java.util.concurrent.Future<?> schedulePeriodic(Runnable task, long periodNanos) {
            return TIMER.scheduleAtFixedRate(() -> executor.execute(task), periodNanos, periodNanos,
                    TimeUnit.NANOSECONDS);
        }

        @Override
        public int mulpdu() {
            return options.mulpdu();
        }

        @Override
        public int firstOutboundSendMsn() {
            return outboundSendMsn;
        }

        @Override
        public int firstInboundSendMsn() {
            return inboundSendMsn;
        }

        @Override
        public int firstOutboundReadRequestMsn() {
            return outboundReadMsn;
        }

        @Override
        public int firstInboundReadRequestMsn() {
            return inboundReadMsn;
        }

        @Override
        public void start(FpduHandler handler, Listener listener) {
            this.handler = handler;
            this.listener = listener;
            this.deframer = new FpduDeframer(options.markers(), options.crc(), 14, 65535, 0, handler);
            while (!early.isEmpty()) {
                feed(early.poll());
            }
        }

        @Override
        public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength) {
            return send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, -1);
        }

        @Override
        public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength, long token) {
            if (headerLength + payloadLength > options.mulpdu()) {
                throw new IllegalArgumentException("ULPDU of " + (headerLength + payloadLength) + " above MULPDU");
            }
            if (closed || closing) {
                return false;
            }
            byte[] ulpdu = new byte[headerLength + payloadLength];
            MemorySegment u = MemorySegment.ofArray(ulpdu);
            MemorySegment.copy(header, headerOffset, u, 0, headerLength);
            if (payloadLength > 0) {
                MemorySegment.copy(payload, payloadOffset, u, headerLength, payloadLength);
            }
            sentUlpdus.add(ulpdu);
            int n = writer.write(u, 0, ulpdu.length, frame, 0);
            byte[] wire = new byte[n];
            MemorySegment.copy(frame, 0, MemorySegment.ofArray(wire), 0, n);
            unflushed.add(wire);
            fpdusSent++;
            if (token >= 0) {
                unflushedTokens.add(token);
            }
            inFlight += n;
            if (inFlight >= options.highWaterMark()) {
                wantWritable = true;
                return false;
            }
            return true;
        }

        @Override
        public void flush() {
            if (closed) {
                return;
            }
            // TCP takes the bytes (reported first), then the peer reads them
            if (!unflushedTokens.isEmpty()) {
                long last = unflushedTokens.getLast();
                unflushedTokens.clear();
                Listener l = listener;
                executor.execute(() -> {
                    if (!closed) {
                        l.onSent(last);
                    }
                });
            }
            int total = 0;
            for (byte[] f : unflushed) {
                total += f.length;
            }
            if (total > 0) {
                flushesWithData++;
                byte[] data = new byte[total];
                int at = 0;
                while (!unflushed.isEmpty()) {
                    byte[] f = unflushed.poll();
                    System.arraycopy(f, 0, data, at, f.length);
                    at += f.length;
                }
                Endpoint p = peer;
                p.executor.execute(() -> p.receive(data, this));
            }
        }

        /** Peer side: bytes arrive; feeds them to the deframer in random chunks. */
        private void receive(byte[] data, Endpoint from) {
            if (closed) {
                return;
            }
            if (deframer == null) {
                early.add(data);
            } else if (receivePaused || !unread.isEmpty()) {
                unread.addLast(data); // not read: stays in the socket
                unreadBytes += data.length;
            } else {
                feed(data);
            }
            int n = data.length;
            from.executor.execute(() -> from.consumed(n));
        }

        @Override
        public boolean gracefulReceiveOverflow() {
            return gracefulOverflow;
        }

        @Override
        public void pauseReceive() {
            if (!receivePaused) {
                receivePaused = true;
                pauses++;
            }
        }

        @Override
        public void resumeReceive() {
            receivePaused = false;
            executor.execute(this::readUnread);
        }

        /** Reads what waited while paused, in order, until paused again. */
        private void readUnread() {
            while (!receivePaused && !unread.isEmpty() && !closed) {
                byte[] data = unread.pollFirst();
                unreadBytes -= data.length;
                feed(data);
            }
        }

        private void feed(byte[] data) {
            MemorySegment src = MemorySegment.ofArray(data);
            int pos = 0;
            while (pos < data.length && deframer.fault() == null && !closed) {
                if (receivePaused) {
                    // the rest of the data stays unread, ahead of anything that arrives later
                    byte[] rest = java.util.Arrays.copyOfRange(data, pos, data.length);
                    unread.addFirst(rest);
                    unreadBytes += rest.length;
                    return;
                }
                int chunk = 1 + random.nextInt(options.maxChunk());
                int window = deframer.directWindow();
                if (window > 0 && deframer.beginDirect()) { // as FpduFramingHandler: the guard per read
                    int n = Math.min(Math.min(window, chunk), data.length - pos);
                    MemorySegment.copy(src, pos, deframer.directTarget(), deframer.directTargetOffset(), n);
                    deframer.placed(n);
                    directBytes += n;
                    pos += n;
                } else {
                    int n = Math.min(chunk, data.length - pos);
                    int taken = deframer.consume(src, pos, n);
                    if (taken < n) {
                        return;
                    }
                    pos += n;
                }
            }
        }

        private void consumed(int n) {
            inFlight -= n;
            if (wantWritable && inFlight < options.highWaterMark() / 2 && !closed) {
                wantWritable = false;
                listener.onWritable();
            }
        }

        @Override
        public void close() {
            executor.execute(() -> {
                if (closed || closing) {
                    return;
                }
                flush();
                closing = true;
                Endpoint p = peer;
                p.executor.execute(() -> {
                    p.closed(Closure.REMOTE_CLOSE);
                    executor.execute(() -> closed(Closure.LOCAL_CLOSE));
                });
            });
        }

        @Override
        public void abort() {
            executor.execute(() -> {
                if (closed) {
                    return;
                }
                unflushed.clear();
                closed(Closure.LOCAL_ABORT);
                Endpoint p = peer;
                p.executor.execute(() -> p.closed(Closure.REMOTE_RESET));
            });
        }

        void closed(Closure c) {
            if (closed) {
                return;
            }
            closed = true;
            closure = c;
            if (listener != null) {
                listener.onClosed(c);
            }
        }

        /** Sends raw ULPDUs as this side's next FPDUs, in one flush (tests acting as the peer). */
        public void inject(byte[]... ulpdus) {
            executor.execute(() -> {
                for (byte[] ulpdu : ulpdus) {
                    MemorySegment u = MemorySegment.ofArray(ulpdu);
                    send(u, 0, ulpdu.length, null, 0, 0);
                }
                flush();
            });
        }

        /** Frames a raw ULPDU into its FPDU's bytes on this endpoint's loop (which owns the writer). */
        byte[] frame(byte[] ulpdu) {
            try {
                java.util.concurrent.Future<byte[]> wire = executor.submit(() -> {
                    int n = writer.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, frame, 0);
                    byte[] w = new byte[n];
                    MemorySegment.copy(frame, 0, MemorySegment.ofArray(w), 0, n);
                    return w;
                });
                if (loop != null) {
                    loop.drain();
                }
                return wire.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("framing on " + name + " failed", e);
            }
        }

        /** Sends stream bytes as they are, e.g. a part of an FPDU from {@link #frame}. */
        void injectWire(byte[] wire) {
            executor.execute(() -> {
                unflushed.add(wire);
                flush();
            });
        }

        /** Sends a raw ULPDU whose FPDU has its last CRC byte flipped (a corrupted stream). */
        void injectCorrupted(byte[] ulpdu) {
            executor.execute(() -> {
                MemorySegment u = MemorySegment.ofArray(ulpdu);
                int n = writer.write(u, 0, ulpdu.length, frame, 0);
                byte[] wire = new byte[n];
                MemorySegment.copy(frame, 0, MemorySegment.ofArray(wire), 0, n);
                wire[n - 1] ^= 0x5A;
                unflushed.add(wire);
                flush();
            });
        }

        public void barrier() {
            if (loop != null) {
                loop.drain();
                return;
            }
            try {
                executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("event loop " + name + " did not settle", e);
            }
        }
    }
}
