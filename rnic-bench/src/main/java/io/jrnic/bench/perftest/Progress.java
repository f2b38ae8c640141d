package io.jrnic.bench.perftest;

import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The progress line on stderr of a run that lasts: after {@value #QUIET_SECONDS} s, every
 * {@value #EVERY_SECONDS} s, {@code "<phase>: N iterations, S s"}, rewritten in place with a
 * carriage return and ended with a newline when the phase ends. The measuring loop only writes a
 * counter with an opaque store (no allocation, no lock, no fence: a volatile store's fence per step
 * was 6% of a 64-byte Write stream's Java samples, and held the packed TCP baseline of 64-byte
 * messages back by about a fifth); a daemon thread reads it.
 *
 * <p>Thread safety: {@link #tick()} from the measuring thread, the printer on its own thread.
 */
final class Progress implements AutoCloseable {

    /** Seconds of silence before the first line: short runs print nothing. */
    static final int QUIET_SECONDS = 3;
    /** Seconds between two lines. */
    static final int EVERY_SECONDS = 2;
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(Progress.class, "count", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PrintStream err;
    private final String phase;
    private final long start = System.nanoTime();
    private final Thread printer;
    /** Written only through {@link #COUNT}'s opaque access: atomic, eventually seen, no fence. */
    private long count;
    private volatile boolean done;
    private volatile boolean printed;

    private Progress(PrintStream err, String phase) {
        this.err = err;
        this.phase = phase;
        this.printer = Thread.ofPlatform().daemon().name("perftest-progress").unstarted(this::print);
    }

    /** Starts the printer of one phase. */
    static Progress start(PrintStream err, String phase) {
        Progress p = new Progress(err, phase);
        p.printer.start();
        return p;
    }

    /** One more iteration. */
    void tick() {
        COUNT.setOpaque(this, count + 1); // single writer: its own plain read is current
    }

    private void print() {
        try {
            Thread.sleep(TimeUnit.SECONDS.toMillis(QUIET_SECONDS)); // a pacing thread, not a test wait
            while (!done) {
                long s = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                synchronized (err) {
                    if (!done) {
                        err.print("\r" + phase + ": " + (long) COUNT.getOpaque(this) + " iterations, " + s + " s");
                        err.flush();
                        printed = true;
                    }
                }
                Thread.sleep(TimeUnit.SECONDS.toMillis(EVERY_SECONDS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends the phase: the line (if any) gets its newline. */
    @Override
    public void close() {
        done = true;
        printer.interrupt();
        synchronized (err) {
            if (printed) {
                err.println();
            }
        }
    }
}
