package io.jrnic.bench.perftest;

import io.jrnic.api.AccessRights;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.bench.transport.CompletionWait;
import io.jrnic.bench.transport.RnicMessageStream;
import io.jrnic.bench.transport.RnicPair;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * The loopback fixture of {@code ib_read_bw} and {@code ib_atomic_bw}, which the transport harness
 * does not have: two RNICs over 127.0.0.1 ({@link RnicPair}), the active side keeping a window of
 * RDMA Reads (RFC 5040 §4.4) or FetchAdds (RFC 7306 §5.1.1) toward the passive side's region,
 * whose RNIC answers with no application thread. Each {@link #next()} waits for a free slot of the
 * window and posts one more; {@link #drain()} waits for the rest. Waits go through
 * {@link CompletionWait}: polling, and in event-loop mode blocking after a short spin.
 *
 * <p>As perftest's run_iter_bw: the window is the send queue depth ({@code -t}, 128), not the ORD;
 * the RNIC keeps {@value #READS} of them on the wire and holds the rest in its send queue (Verbs
 * V-IRD-9), and one work request in {@value #SIGNAL_EVERY} is signaled (perftest's cq_mod), its
 * completion retiring the unsignaled ones before it (completions of a send queue come in its
 * order). Until 2026-11-29 the window was the ORD and every operation signaled: in event-loop mode
 * that woke the application for about every completion, and the requester's I/O thread spent a
 * fifth of its time waking it (docs/benchmarks.md).
 *
 * <p>Every completion must be SUCCESS with the posted opcode; {@link #finish()} checks that the
 * FetchAdd counter counts every operation, so a lost or doubled atomic fails the run.
 *
 * <p>Thread safety: one calling thread.
 */
final class OneSidedStream implements AutoCloseable {

    /** Outstanding Reads or atomics (IRD = ORD of both QPs, perftest's {@code -o} default on most HCAs). */
    static final int READS = 16;

    /** One work request in this many is signaled (the window's, when smaller): as the Write and Send streams. */
    static final int SIGNAL_EVERY = RnicMessageStream.SIGNAL_EVERY;

    private static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final RnicPair pair;
    private final boolean atomic;
    private final int size;
    private final int window;
    private final int signalEvery;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final CompletionWait completions;
    private final RnicPair.Region sink;
    private final RnicPair.Region target;
    private final SendWorkRequest wr = new SendWorkRequest(1);
    private final WorkCompletion[] batch = new WorkCompletion[32];
    private long posted;
    private long completed;
    /** Completions taken from the CQ (tests: one per signaled operation). */
    private long completionsTaken;

    private OneSidedStream(RnicPair pair, boolean atomic, int size, int window, RnicPair.Region sink,
                           RnicPair.Region target) {
        this.pair = pair;
        this.atomic = atomic;
        this.size = size;
        this.window = window;
        this.signalEvery = Math.min(SIGNAL_EVERY, window);
        this.qp = pair.active().qp();
        this.cq = pair.active().cq();
        this.completions = CompletionWait.forRnic(cq, pair.active());
        this.sink = sink;
        this.target = target;
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
    }

    /**
     * Connects two RNICs.
     *
     * @param atomic FetchAdd (8 bytes) instead of RDMA Read
     * @param size   Read length (ignored for atomics)
     * @param depth  window: the send queue depth
     * @param crc    MPA CRC on the connection
     */
    static OneSidedStream open(boolean atomic, int size, int depth, boolean crc) throws IOException {
        // one send queue slot beyond the window: the signaled operation drain() may add
        RnicPair pair = RnicPair.open(crc, new RnicPair.Depths(depth + 1, 1, READS), new RnicPair.Depths(4, 1, READS));
        try {
            int length = atomic ? 8 : size;
            RnicPair.Region sink = pair.active().register(length);
            RnicPair.Region target = pair.passive().register(Math.max(length, 4096),
                    AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
                            | AccessRights.REMOTE_WRITE | AccessRights.REMOTE_ATOMIC);
            pair.connect(null, target);
            return new OneSidedStream(pair, atomic, length, depth, sink, target);
        } catch (IOException | RuntimeException | Error e) {
            pair.close();
            throw e;
        }
    }

    /** Posts one more operation once the window has room. */
    void next() throws IOException {
        long start = 0;
        while (posted - completed >= window) {
            if (poll() == 0) {
                Thread.onSpinWait();
                if (start == 0) {
                    start = System.nanoTime();
                } else if (System.nanoTime() - start > STUCK_NANOS) {
                    throw new IOException("no completion for 30 s on " + pair.active());
                }
            } else {
                start = 0;
            }
        }
        post((posted + 1) % signalEvery == 0);
    }

    /** Posts operation number {@link #posted}, signaled or not. */
    private void post(boolean signaled) throws IOException {
        wr.reset().wrId(posted).signaled(signaled);
        if (atomic) {
            wr.fetchAdd(1).remote(pair.active().peer().stag(), pair.active().peer().to()).sge(sink.stag(), sink.to(), 8);
        } else {
            wr.opcode(Opcode.RDMA_READ).remote(pair.active().peer().stag(), pair.active().peer().to())
                    .sge(sink.stag(), sink.to(), size);
        }
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            throw new IOException("post refused on " + pair.active() + ": " + e.getMessage(), e);
        }
        posted++;
    }

    /**
     * Waits until every posted operation completed: when the last one posted is unsignaled, first
     * posts one more, signaled, whose completion retires it (the send queue has a slot for it).
     */
    void drain() throws IOException {
        if (completed < posted && posted % signalEvery != 0) {
            post(true);
        }
        long start = System.nanoTime();
        while (completed < posted) {
            if (poll() == 0) {
                Thread.onSpinWait();
                if (System.nanoTime() - start > STUCK_NANOS) {
                    throw new IOException("no completion for 30 s on " + pair.active());
                }
            }
        }
    }

    private int poll() throws IOException {
        int n = completions.poll(batch);
        Opcode expected = atomic ? Opcode.ATOMIC_FETCH_ADD : Opcode.RDMA_READ;
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = batch[i];
            if (wc.status() != WorkCompletionStatus.SUCCESS || wc.opcode() != expected) {
                throw new IOException("work request failed: " + wc + " on " + pair.active());
            }
        }
        if (n > 0) {
            completed = batch[n - 1].wrId() + 1; // a signaled completion retires the unsignaled ones before it
            completionsTaken += n;
        }
        return n;
    }

    /** {@return the operations posted so far, the ones {@link #drain()} added included} */
    long posted() {
        return posted;
    }

    /** {@return the completions taken from the CQ so far} */
    long completionsTaken() {
        return completionsTaken;
    }

    /**
     * Drains, checks the FetchAdd counter (it must equal the operations), closes both RNICs.
     *
     * @throws IOException if the counter is wrong
     */
    void finish() throws IOException {
        try {
            drain();
            if (atomic) {
                long counter = target.memory().get(ValueLayout.JAVA_LONG, 0);
                if (counter != posted) {
                    throw new IOException("FetchAdd counter " + counter + " after " + posted + " operations");
                }
            }
        } finally {
            pair.close();
        }
    }

    @Override
    public void close() {
        pair.close();
    }
}
