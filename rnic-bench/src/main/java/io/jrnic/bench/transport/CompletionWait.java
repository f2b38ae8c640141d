package io.jrnic.bench.transport;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.IoMode;
import io.jrnic.api.VerbsException;
import io.jrnic.api.WorkCompletion;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;

/**
 * How a stream's thread takes completions from its CQ: the sender waiting for a free slot of its
 * window, the Send consumer waiting for messages.
 *
 * <ul>
 *   <li>Polling modes: every call polls once. An empty poll drives the connection (it runs the
 *       receive work of the CQ's queue pairs), so the thread must keep polling; the caller's
 *       {@link BusyWait} yields between polls.</li>
 *   <li>Event-loop mode: after {@value #SPIN_POLLS} empty polls in a row the call blocks in
 *       {@link CompletionQueue#poll(WorkCompletion, long, TimeUnit)} for up to
 *       {@value #BLOCK_MICROS} µs, which returns as soon as a completion is added. The RNIC's event
 *       loops move the bytes in this mode; a thread spinning beside them on two cores took their
 *       CPU (64 KiB Write streams at 0.71-0.99x raw TCP, 1.20-1.33x once the sender blocked;
 *       docs/benchmarks.md). The raw-TCP stream's threads block in {@code write} and {@code read}
 *       alike.</li>
 * </ul>
 *
 * The latency ping-pongs keep busy-polling in every mode: their figure is the round trip of a
 * polling application (docs/benchmarks.md, methodology).
 *
 * <p>No allocation. Thread safety: one polling thread.
 */
public final class CompletionWait {

    /** Empty polls before the call blocks (event-loop mode). */
    public static final int SPIN_POLLS = 64;

    /** Longest block of one call: it bounds how often the caller's idle step (and deadline) runs. */
    public static final long BLOCK_MICROS = 1000;

    private final CompletionQueue cq;
    private final boolean blocking;
    private final Object side;
    private int empty;

    /**
     * A wait for the RNICs' I/O mode of this JVM ({@link RnicPair#ioMode()}).
     *
     * @param cq   the CQ
     * @param side the endpoint, named by exceptions
     * @return the wait
     */
    public static CompletionWait forRnic(CompletionQueue cq, Object side) {
        return new CompletionWait(cq, RnicPair.ioMode() == IoMode.EVENT_LOOP, side);
    }

    /**
     * @param cq       the CQ
     * @param blocking whether empty polls end in a block (event-loop mode)
     * @param side     the endpoint, named by exceptions
     */
    CompletionWait(CompletionQueue cq, boolean blocking, Object side) {
        this.cq = cq;
        this.blocking = blocking;
        this.side = side;
    }

    /**
     * Takes up to {@code batch.length} completions: one poll, and in event-loop mode, after
     * {@value #SPIN_POLLS} empty calls in a row, a block of up to {@value #BLOCK_MICROS} µs.
     *
     * @param batch where the completions go
     * @return how many were taken; 0 means the caller runs its idle step and calls again
     * @throws IOException if a queue pair of the CQ failed while blocked (the CQ is empty and will
     *                     stay so), or the thread was interrupted
     */
    public int poll(WorkCompletion[] batch) throws IOException {
        int n = cq.poll(batch, 0, batch.length);
        if (n > 0) {
            empty = 0;
            return n;
        }
        if (!blocking || ++empty < SPIN_POLLS) {
            return 0;
        }
        empty = 0;
        try {
            if (!cq.poll(batch[0], BLOCK_MICROS, TimeUnit.MICROSECONDS)) {
                return 0;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for completions on " + side);
        } catch (VerbsException e) {
            throw new IOException("no completion can come on " + side + ": " + e.getMessage(), e);
        }
        return 1 + cq.poll(batch, 1, batch.length - 1);
    }
}
