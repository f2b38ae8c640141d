package io.jrnic.core.engine;

import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.FpduHandler;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;

/**
 * An {@link FpduLink} around another (for the engine's own tests): its periodic timer is captured
 * for the test to run ({@link #timerTask}), its count of FPDUs the LLP took is settable, the
 * link's onSent reports can be withheld, and its aborts are counted.
 *
 * <p>Thread safety: as the link it wraps (the engine's loop), the counters read by the test after it.
 */
final class SteppedLink implements FpduLink {
    final FpduLink link;
    Runnable timerTask;
    long timerPeriod;
    int timers;
    final CompletableFuture<Void> timer = new CompletableFuture<>();
    long fpdusWritten;
    boolean withholdOnSent;
    Listener listener;
    /** Calls of {@link #flush()} and of {@link #flushMoreFollows()}. */
    int flushes;
    int flushesMoreFollow;
    /** Calls of {@link #abort()}: an RST instead of the graceful close. */
    int aborts;
    /** The link takes each FPDU but then asks the engine to wait for writability (a full socket). */
    boolean windowClosed;
    /** When positive: the socket fills with the FPDU that brings {@link #sends} to it (as windowClosed). */
    int fullAt;
    /** FPDUs sent through this link. */
    int sends;
    /** The executor the link reports instead of the wrapped link's (set before the engine is built). */
    Executor executor;

    SteppedLink(FpduLink link) {
        this.link = link;
    }

    @Override
    public Executor executor() {
        return executor != null ? executor : link.executor();
    }

    @Override
    public Future<?> schedulePeriodic(Runnable task, long periodNanos) {
        timers++;
        timerTask = task;
        timerPeriod = periodNanos;
        return timer;
    }

    @Override
    public long fpdusWritten() {
        return fpdusWritten;
    }

    @Override
    public int mulpdu() {
        return link.mulpdu();
    }

    @Override
    public void start(FpduHandler handler, Listener l) {
        listener = l;
        link.start(handler, new Listener() {
            @Override
            public void onWritable() {
                l.onWritable();
            }

            @Override
            public void onSent(long token) {
                if (!withholdOnSent) {
                    l.onSent(token);
                }
            }

            @Override
            public void onClosed(Closure closure) {
                l.onClosed(closure);
            }
        });
    }

    @Override
    public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                        long payloadOffset, int payloadLength) {
        return link.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength) && writable();
    }

    @Override
    public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                        long payloadOffset, int payloadLength, long token) {
        return link.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token)
                && writable();
    }

    private boolean writable() {
        sends++;
        return !windowClosed && sends != fullAt;
    }

    @Override
    public void flush() {
        flushes++;
        link.flush();
    }

    @Override
    public void flushMoreFollows() {
        flushesMoreFollow++;
        link.flushMoreFollows();
    }

    @Override
    public void close() {
        link.close();
    }

    @Override
    public void abort() {
        aborts++;
        link.abort();
    }
}
