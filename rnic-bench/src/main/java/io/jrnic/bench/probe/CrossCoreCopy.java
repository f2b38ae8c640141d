package io.jrnic.bench.probe;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code copy-probe}: the rate at which one thread copies 64 KiB blocks into a ring and another
 * copies them out, printed every {@value #REPORT_MILLIS} ms: the path of every byte of a loopback
 * TCP stream (the sender's core copies into the socket, the receiver's core copies out of it),
 * without TCP.
 *
 * <p>On the shared 2-vCPU VMs of docs/benchmarks.md this rate is not one number: it holds near one
 * value for seconds, drops to about a quarter of it for seconds, and comes back (the host moves the
 * vCPUs between cores that do and do not share a cache). A benchmark that measures the RNIC and then
 * TCP can land its two phases in different states; the loopback perftest commands therefore
 * interleave them ({@code --slice-ms}). Run this beside or before a benchmark to see which state
 * the machine is in.
 *
 * <p>The ring holds {@value #SLOTS} blocks (4 MiB, the order of a loopback socket's buffers); the
 * producer waits while it is full, the consumer while it is empty, each spinning on the other's
 * counter. No allocation in the loop.
 *
 * <p>Thread safety: {@link #run} from one thread; it starts and joins the producer.
 */
public final class CrossCoreCopy {

    /** Bytes per block: a 64 KiB message. */
    static final int BLOCK = 64 * 1024;
    /** Blocks in the ring. */
    static final int SLOTS = 64;
    /** Milliseconds between two printed rates. */
    static final int REPORT_MILLIS = 500;

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(CrossCoreCopy.class, "head", long.class);
            TAIL = lookup.findVarHandle(CrossCoreCopy.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Blocks the producer has put into the ring; -1 once it stopped. Written by the producer. */
    @SuppressWarnings("unused") // through HEAD
    private volatile long head;
    /** Blocks the consumer has taken out. Written by the consumer. */
    @SuppressWarnings("unused") // through TAIL
    private volatile long tail;

    private CrossCoreCopy() {
    }

    /**
     * Copies for {@code seconds}, printing {@code "<t> s  <rate> GB/s"} every {@value #REPORT_MILLIS}
     * ms, then the lowest, median and highest rate.
     *
     * @param seconds how long, at least 1
     * @param out     where the rates go
     * @return the rates printed, GB/s (10^9 bytes per second), in order
     * @throws InterruptedException if interrupted while joining the producer
     */
    public static double[] run(int seconds, PrintStream out) throws InterruptedException {
        if (seconds < 1) {
            throw new IllegalArgumentException("copy-probe: seconds must be at least 1, was " + seconds);
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment source = arena.allocate((long) SLOTS * BLOCK, 4096);
            MemorySegment ring = arena.allocate((long) SLOTS * BLOCK, 4096);
            MemorySegment sink = arena.allocate((long) SLOTS * BLOCK, 4096);
            source.fill((byte) 1);
            CrossCoreCopy probe = new CrossCoreCopy();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            Thread producer = Thread.ofPlatform().name("copy-probe-producer").start(() -> probe.produce(source, ring, end));
            double[] rates = probe.consume(ring, sink, seconds, out);
            producer.join();
            return rates;
        }
    }

    private void produce(MemorySegment source, MemorySegment ring, long end) {
        long h = 0;
        while (System.nanoTime() - end < 0) {
            for (int i = 0; i < 16; i++) {
                while (h - (long) TAIL.getAcquire(this) >= SLOTS) {
                    Thread.onSpinWait();
                }
                long slot = (h % SLOTS) * BLOCK;
                MemorySegment.copy(source, slot, ring, slot, BLOCK);
                HEAD.setRelease(this, ++h);
            }
        }
        HEAD.setRelease(this, -1L);
    }

    private double[] consume(MemorySegment ring, MemorySegment sink, int seconds, PrintStream out) {
        double[] rates = new double[seconds * (1000 / REPORT_MILLIS) + 2];
        int reports = 0;
        long start = System.nanoTime();
        long last = start;
        long lastTail = 0;
        long t = 0;
        while (true) {
            long h = (long) HEAD.getAcquire(this);
            if (h < 0) {
                break;
            }
            if (t < h) {
                long slot = (t % SLOTS) * BLOCK;
                MemorySegment.copy(ring, slot, sink, slot, BLOCK);
                TAIL.setRelease(this, ++t);
            } else {
                Thread.onSpinWait();
            }
            long now = System.nanoTime();
            if (now - last >= TimeUnit.MILLISECONDS.toNanos(REPORT_MILLIS) && reports < rates.length) {
                double rate = (t - lastTail) * (double) BLOCK / (now - last);
                rates[reports++] = rate;
                out.printf(Locale.ROOT, "%6.1f s %7.2f GB/s%n", (now - start) / 1e9, rate);
                last = now;
                lastTail = t;
            }
        }
        double[] measured = java.util.Arrays.copyOf(rates, reports);
        double[] sorted = measured.clone();
        java.util.Arrays.sort(sorted);
        if (sorted.length > 0) {
            out.printf(Locale.ROOT, "copy-probe: %d rates, lowest %.2f, median %.2f, highest %.2f GB/s%n", sorted.length,
                    sorted[0], sorted[sorted.length / 2], sorted[sorted.length - 1]);
        }
        return measured;
    }
}
