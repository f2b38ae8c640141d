package io.jrnic.bench.perftest;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The measuring loop of {@code --loopback}: the RNIC and its raw-TCP baselines take turns in time
 * slices of {@code --slice-ms}, so that each sees the machine in the same states.
 *
 * <p>Why: on the shared 2-vCPU VMs this project measures on, how fast one core reads what the other
 * just wrote changes by about 4x for seconds at a time (a producer/consumer copy between the two
 * vCPUs runs at 17.7 GB/s, then at 4.4 GB/s for seconds, then fast again; docs/benchmarks.md,
 * "Interleaved loopback runs"). Loopback TCP moves every byte that way, on the sender's core into
 * the socket and on the receiver's core out of it. A run of the RNIC followed by a run of TCP
 * therefore compared two different machines whenever the state changed between them; with turns of
 * half a second, both see the same mix of states, and the ratio of each round's pair of slices
 * shows the spread.
 *
 * <p>Each {@link Part} runs one slice per round until it has done its quota (iterations with
 * {@code -n}, its own accumulated time with {@code -D}); the order reverses every round (ABBA), so
 * neither always follows the other. A slice ends on the measuring thread's clock, checked every
 * {@code stride} iterations, then the part {@linkplain Part#settle() settles}: it hands over what it
 * still holds and waits for its own completions, so the next part starts on a quiet machine (what a
 * stream's socket buffers still hold drains in the next slice: at most a few MB against the GB of
 * a slice at 64 KiB), and its own busy-polling threads (an echo peer, a consumer) are held parked
 * until its next slice: a spinner left running would take a core from the part being measured and
 * keep a vCPU awake for it, which makes blocking TCP's wake-ups several times faster. A slice length
 * of 0 runs each part to its quota at once, in order: the
 * one-after-the-other runs of earlier rounds.
 *
 * <p>Thread safety: one calling thread.
 */
final class Turns {

    /** Default slice length of {@code --slice-ms}. */
    static final int DEFAULT_SLICE_MILLIS = 500;

    /** One sending or round-trip step of a part. */
    @FunctionalInterface
    interface Step {
        void run() throws IOException;
    }

    /**
     * One measured transport of a turn-taking run: its step, how it settles at the end of a slice,
     * and what it measured so far.
     */
    abstract static class Part {
        private final Step step;
        private final Step settle;
        long done;
        long elapsedNanos;
        /** The fastest stride, nanoseconds (0: none yet). */
        long bestStrideNanos;
        private double[] sliceValues = new double[16];
        private int slices;

        Part(Step step, Step settle) {
            this.step = step;
            this.settle = settle;
        }

        /** Called before the slice's first step. */
        void sliceStarts() {
        }

        /**
         * Parks the part's own background spinners (echo peers, consumers) while other parts run:
         * called after each of its slices has settled, and before the first round. Default: none.
         */
        void hold() {
        }

        /** Lets its background spinners run again: before each of its slices and after the run. */
        void release() {
        }

        /**
         * {@return the slice's figure for the per-round ratio: a rate for bandwidth, a median for
         * latency}
         *
         * @param iterations steps of the slice
         * @param nanos      the slice's time, settling included
         */
        abstract double sliceValue(long iterations, long nanos);

        void step() throws IOException {
            step.run();
        }

        void settle() throws IOException {
            settle.run();
        }

        /** {@return the figures of its slices so far, in order} */
        double[] sliceValues() {
            return Arrays.copyOf(sliceValues, slices);
        }

        private void addSlice(double value) {
            if (slices == sliceValues.length) {
                sliceValues = Arrays.copyOf(sliceValues, slices * 2);
            }
            sliceValues[slices++] = value;
        }
    }

    private final long quota;
    private final long durationNanos;
    private final long sliceNanos;
    private final long stride;
    private final LongSupplier clock;

    /**
     * Turns on {@link System#nanoTime()}.
     *
     * @param iterations  steps per part with {@code -n} (ignored when {@code durationSeconds > 0})
     * @param durationSeconds each part's own time with {@code -D}, or 0
     * @param sliceMillis slice length, 0 for one part after the other
     * @param stride      steps between two looks at the clock (and the peak's sampling stride)
     */
    Turns(long iterations, int durationSeconds, int sliceMillis, long stride) {
        this(iterations, TimeUnit.SECONDS.toNanos(durationSeconds), TimeUnit.MILLISECONDS.toNanos(sliceMillis), stride,
                System::nanoTime);
    }

    /**
     * Turns on any clock (the tests' is stepped by the parts).
     *
     * @param iterations    steps per part when {@code durationNanos} is 0
     * @param durationNanos each part's own time, or 0 for the iteration quota
     * @param sliceNanos    slice length, 0 for one part after the other
     * @param stride        steps between two looks at the clock
     * @param clock         nanoseconds
     */
    Turns(long iterations, long durationNanos, long sliceNanos, long stride, LongSupplier clock) {
        this.quota = iterations;
        this.durationNanos = durationNanos;
        this.sliceNanos = sliceNanos;
        this.stride = Math.max(1, stride);
        this.clock = clock;
    }

    /**
     * Runs the parts in turns until each has done its quota.
     *
     * @param parts    the RNIC first, then its baselines
     * @param progress ticked once per step of any part
     * @throws IOException if a step or a settle failed
     */
    void run(List<? extends Part> parts, Progress progress) throws IOException {
        for (Part p : parts) {
            p.hold();
        }
        try {
            for (int round = 0; unfinished(parts); round++) {
                for (int i = 0; i < parts.size(); i++) {
                    Part part = parts.get(round % 2 == 0 ? i : parts.size() - 1 - i);
                    if (!finished(part, 0)) {
                        part.release();
                        slice(part, progress);
                        part.hold();
                    }
                }
            }
        } finally {
            for (Part p : parts) {
                p.release();
            }
        }
    }

    private boolean unfinished(List<? extends Part> parts) {
        for (Part p : parts) {
            if (!finished(p, 0)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the part has done its quota, counting {@code runningNanos} of a slice in progress. */
    private boolean finished(Part part, long runningNanos) {
        return durationNanos > 0 ? part.elapsedNanos + runningNanos >= durationNanos : part.done >= quota;
    }

    private void slice(Part part, Progress progress) throws IOException {
        part.sliceStarts();
        long start = clock.getAsLong();
        long strideStart = start;
        long steps = 0;
        while (true) {
            part.step();
            part.done++;
            steps++;
            progress.tick();
            if (durationNanos == 0 && part.done >= quota) {
                break;
            }
            if (steps % stride == 0) {
                long now = clock.getAsLong();
                if (part.bestStrideNanos == 0 || now - strideStart < part.bestStrideNanos) {
                    part.bestStrideNanos = now - strideStart;
                }
                strideStart = now;
                if (finished(part, now - start) || (sliceNanos > 0 && now - start >= sliceNanos)) {
                    break;
                }
            }
        }
        part.settle();
        long nanos = clock.getAsLong() - start;
        part.elapsedNanos += nanos;
        part.addSlice(part.sliceValue(steps, nanos));
    }

    /**
     * The ratio of each round: the first series' figure over the second's, slice by slice (the
     * rounds both took part in).
     *
     * @param a the RNIC's slice figures
     * @param b a baseline's
     * @return the ratios, sorted ascending; empty when a round has a zero figure on either side
     */
    static double[] roundRatios(double[] a, double[] b) {
        int n = Math.min(a.length, b.length);
        double[] r = new double[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (a[i] > 0 && b[i] > 0) {
                r[k++] = a[i] / b[i];
            }
        }
        r = Arrays.copyOf(r, k);
        Arrays.sort(r);
        return r;
    }

    /** {@return the median of sorted values (0 for none)} */
    static double median(double[] sorted) {
        if (sorted.length == 0) {
            return 0;
        }
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }
}
