package io.jrnic.bench.jmh;

import io.jrnic.api.IoMode;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@code scale-turns}: the 1,000-QP target of issue 11 measured in one run. Four variants of
 * {@link ScaleThroughputBenchmark}, all open at once, take turns of {@code sliceMillis}: the RNIC
 * over 1 QP and over N QPs of one RNIC pair, raw TCP over 1 and over N connections. Each turn
 * posts Writes (writes messages) to the variant's connections in turn as fast as it can, then
 * settles (everything written has arrived) before the next variant's turn starts, so that the
 * machine's changing speed falls on all four alike and no variant's leftovers run in another's
 * turn. JMH, which runs its parameters one after the other, gave 1,000-QP ratios from 0.5x to 0.8x
 * on the same build (docs/benchmarks.md).
 *
 * <p>Printed: each variant's median rate over the rounds and its median CPU time per Write (the whole
 * process: where both vCPUs are busy, the rate is what the CPU per Write allows), and per round
 * the ratio of N to 1, whose median is the figure (the target: the RNIC's at least 0.8x).
 *
 * <p>Thread safety: {@link #run} from one thread.
 */
public final class ScaleTurns {

    /** The variants, in turn order. */
    private static final String[] NAMES = {"rnic 1", "rnic N", "tcp 1", "tcp N"};

    /**
     * The medians of one run.
     *
     * @param rates       each variant's median Writes/s ({@code NAMES} order: RNIC 1, RNIC N, TCP 1, TCP N)
     * @param rnicRatio   the median per-round ratio RNIC(N) / RNIC(1)
     * @param tcpRatio    the median per-round ratio TCP(N) / TCP(1)
     * @param cpuMicrosPerWrite each variant's median CPU time of the whole process per Write, µs (all
     *                    threads: the application's, the RNICs' or the TCP reader's; -1 where the
     *                    JVM cannot tell)
     */
    public record Result(double[] rates, double rnicRatio, double tcpRatio, double[] cpuMicrosPerWrite) {
    }

    private ScaleTurns() {
    }

    /**
     * Opens the four variants, runs one warm-up round and {@code rounds} measured rounds, prints the
     * medians and closes everything.
     *
     * @param qps         N, the connections of the scaled variants, at least 2
     * @param messageSize bytes per Write or message, at least 1
     * @param mode        the RNICs' I/O mode
     * @param rounds      measured rounds, at least 1
     * @param sliceMillis milliseconds of one variant's turn, at least 1
     * @param out         where the figures go
     * @return the medians
     * @throws Exception if a connection or a Write fails
     */
    public static Result run(int qps, int messageSize, IoMode mode, int rounds, int sliceMillis, PrintStream out)
            throws Exception {
        if (qps < 2 || messageSize < 1 || rounds < 1 || sliceMillis < 1 || mode == null) {
            throw new IllegalArgumentException("scale-turns needs N >= 2, a message size, a mode, rounds and a slice"
                    + " of at least 1: " + qps + ", " + messageSize + ", " + mode + ", " + rounds + ", " + sliceMillis);
        }
        ScaleThroughputBenchmark[] variants = {
            variant("RNIC", 1, messageSize, mode), variant("RNIC", qps, messageSize, mode),
            variant("TCP", 1, messageSize, mode), variant("TCP", qps, messageSize, mode)};
        int opened = 0;
        try {
            for (ScaleThroughputBenchmark v : variants) {
                v.connect();
                opened++;
            }
            long slice = sliceMillis * 1_000_000L;
            for (ScaleThroughputBenchmark v : variants) {
                turn(v, slice); // warm-up: JIT, socket buffers, the QPs' first messages
            }
            double[][] rates = new double[variants.length][rounds];
            double[][] cpu = new double[variants.length][rounds];
            double[] rnic = new double[rounds];
            double[] tcp = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                for (int v = 0; v < variants.length; v++) {
                    long cpuBefore = processCpuNanos();
                    Turn t = turn(variants[v], slice);
                    long cpuAfter = processCpuNanos();
                    rates[v][r] = t.writes() * 1e9 / t.nanos();
                    cpu[v][r] = cpuBefore < 0 || cpuAfter < 0 ? -1 : (cpuAfter - cpuBefore) / 1e3 / t.writes();
                }
                rnic[r] = rates[1][r] / rates[0][r];
                tcp[r] = rates[3][r] / rates[2][r];
            }
            double[] medians = new double[variants.length];
            double[] cpuMedians = new double[variants.length];
            for (int v = 0; v < variants.length; v++) {
                medians[v] = median(rates[v]);
                cpuMedians[v] = median(cpu[v]);
                out.printf(Locale.ROOT, "%-7s %8.0f Writes/s, %5.1f us of CPU per Write (medians of %d turns of %d ms)%n",
                        NAMES[v].replace("N", Integer.toString(qps)), medians[v], cpuMedians[v], rounds, sliceMillis);
            }
            Result result = new Result(medians, median(rnic), median(tcp), cpuMedians);
            out.printf(Locale.ROOT, "rounds rnic %d/1: median %.2fx, %.2f-%.2fx; tcp %d/1: median %.2fx, %.2f-%.2fx"
                            + " (%d B, %s mode)%n",
                    qps, result.rnicRatio(), min(rnic), max(rnic), qps, result.tcpRatio(), min(tcp), max(tcp),
                    messageSize, mode);
            return result;
        } finally {
            for (int v = 0; v < opened; v++) {
                variants[v].close();
            }
        }
    }

    private static ScaleThroughputBenchmark variant(String transport, int qps, int messageSize, IoMode mode) {
        ScaleThroughputBenchmark v = new ScaleThroughputBenchmark();
        v.transport = transport;
        v.qps = qps;
        v.messageSize = messageSize;
        v.ioMode = mode;
        return v;
    }

    /** What one turn did: Writes delivered, and the time they took, the settling included. */
    private record Turn(long writes, long nanos) {
    }

    /** The process's CPU time so far, ns, or -1 where the JVM does not tell. */
    private static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    /**
     * One turn: Writes for a slice, then settle; the time includes the settling (the scaled RNIC has
     * up to 4 N Writes in flight when its slice ends, which a rate of posts alone would count as done).
     */
    private static Turn turn(ScaleThroughputBenchmark v, long sliceNanos) throws IOException {
        long n = 0;
        long start = System.nanoTime();
        do {
            for (int i = 0; i < 16; i++) {
                v.write();
            }
            n += 16;
        } while (System.nanoTime() - start < sliceNanos);
        v.settle();
        return new Turn(n, System.nanoTime() - start);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElseThrow();
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElseThrow();
    }
}
