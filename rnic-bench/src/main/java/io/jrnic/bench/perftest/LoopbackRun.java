package io.jrnic.bench.perftest;

import io.jrnic.api.IoMode;
import io.jrnic.bench.transport.RnicPair;

import io.jrnic.bench.transport.MessageOptions;
import io.jrnic.bench.transport.MessageStream;
import io.jrnic.bench.transport.OneSidedOperation;
import io.jrnic.bench.transport.PingPong;
import io.jrnic.bench.transport.RnicPair;
import io.jrnic.bench.transport.TcpPingPong;
import io.jrnic.bench.transport.Transport;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * {@code --loopback}: the test between two RNICs in this JVM over 127.0.0.1, then the same test
 * over raw TCP in this process, both through the benchmark harness of
 * {@link io.jrnic.bench.transport} (docs/benchmarks.md), so that the ratio is the one the JMH
 * benchmarks measure:
 *
 * <ul>
 *   <li>latency: Write and Send ping-pongs ({@link Transport#RNIC_WRITE}, {@link Transport#RNIC_SEND})
 *       and the one-sided round trips ({@link OneSidedOperation}) against {@link TcpPingPong}, an
 *       echoing peer that blocks in {@code read} (event-loop mode); with {@code --baseline} also
 *       against the floor, the same ping-pong with both ends busy-polling non-blocking sockets
 *       ({@link Transport#TCP_BUSY_POLL});</li>
 *   <li>bandwidth: the Write and Send streams, and {@link OneSidedStream} for Read and FetchAdd,
 *       against {@link Transport#TCP}'s stream, one {@code write} per message; with
 *       {@code --baseline} also against {@link Transport#TCP_PACKED}, which packs messages of the
 *       same size into 64 KiB writes (the message-rate floor of small messages).</li>
 * </ul>
 *
 * Every fixture checks what arrived (sequence numbers, CRC trailers, atomic results); a run whose
 * transfer was not intact fails instead of reporting.
 *
 * <p>Thread safety: one calling thread.
 */
final class LoopbackRun {

    /** Largest size of {@code -a}: 2^23, as perftest. */
    static final int MAX_ALL_SIZE = 1 << 23;

    private final PerftestTest test;
    private final PerftestOptions options;
    private final PrintStream err;

    LoopbackRun(PerftestTest test, PerftestOptions options, PrintStream err) {
        this.test = test;
        this.options = options;
        this.err = err;
    }

    /**
     * The measured rows of one size.
     *
     * @param rnic  the RNIC's row
     * @param tcp   the raw-TCP row (blocking ping-pong, per-write stream)
     * @param floor the raw-TCP floor with {@code --baseline} (busy-polling ping-pong, packed
     *              stream), else null
     */
    record Rows<T>(T rnic, T tcp, T floor) {
    }

    /**
     * Opens the RNIC pairs of {@code --mode} (and {@code --polling-spin-us}) from now on; returns what
     * to restore with {@link #leaveMode}.
     */
    PairSettings enterMode() {
        PairSettings previous = new PairSettings(RnicPair.ioMode(), RnicPair.pollingSpin());
        RnicPair.ioMode(options.mode() == PerftestOptions.Mode.POLLING ? IoMode.POLLING : IoMode.EVENT_LOOP);
        if (options.pollingSpin() != null) {
            RnicPair.pollingSpin(options.pollingSpin());
        }
        return previous;
    }

    static void leaveMode(PairSettings previous) {
        RnicPair.ioMode(previous.mode());
        RnicPair.pollingSpin(previous.spin());
    }

    /** The JVM-wide settings of {@link RnicPair} a run changes and restores. */
    record PairSettings(IoMode mode, java.time.Duration spin) {
    }

    /** The bytes of a one-sided latency operation: 8 (Verify hashes 64). */
    static int operandSize(PerftestTest test) {
        return test == PerftestTest.VERIFY_LAT ? 64 : 8;
    }

    /** Whether the test's operand size is fixed (one-sided latency round trips of the harness). */
    static boolean fixedSize(PerftestTest test) {
        return test.latency() && !test.halfRoundTrip();
    }

    /** Latency of one size, RNIC then TCP (then, with {@code --baseline}, the busy-polling TCP floor). */
    Rows<LatencyResult> latency(int size) throws IOException, InterruptedException {
        boolean crc = options.crc();
        int bytes = fixedSize(test) ? operandSize(test) : size;
        LatencyResult rnic;
        PairSettings previous = enterMode();
        try (Progress p = Progress.start(err, test.command() + " rnic " + bytes + " B")) {
            rnic = measureLatency(openRnicPingPong(bytes, crc), bytes, p);
        } finally {
            leaveMode(previous);
        }
        LatencyResult tcp;
        try (Progress p = Progress.start(err, test.command() + " tcp " + bytes + " B")) {
            tcp = measureLatency(TcpPingPong.open(new MessageOptions(Math.max(8, bytes), crc, false)), bytes, p);
        }
        LatencyResult floor = null;
        if (options.baseline()) {
            try (Progress p = Progress.start(err, test.command() + " tcp-busy-poll " + bytes + " B")) {
                floor = measureLatency(TcpPingPong.openBusyPoll(new MessageOptions(Math.max(8, bytes), crc, false)), bytes, p);
            }
        }
        return new Rows<>(rnic, tcp, floor);
    }

    private PingPong openRnicPingPong(int bytes, boolean crc) throws IOException {
        MessageOptions messages = new MessageOptions(Math.max(8, bytes), crc, false);
        return switch (test) {
            case WRITE_LAT -> Transport.RNIC_WRITE.openPingPong(messages);
            case SEND_LAT -> Transport.RNIC_SEND.openPingPong(messages);
            case READ_LAT -> OneSidedOperation.READ.open(crc);
            case ATOMIC_LAT -> OneSidedOperation.FETCH_ADD.open(crc);
            case FLUSH_LAT -> OneSidedOperation.FLUSH.open(crc);
            case VERIFY_LAT -> OneSidedOperation.VERIFY.open(crc);
            default -> throw new IllegalStateException("not a latency test: " + test);
        };
    }

    private LatencyResult measureLatency(PingPong pingPong, int bytes, Progress progress)
            throws IOException, InterruptedException {
        Histogram h = LatencyResult.newHistogram();
        try {
            int n = options.iterations(test);
            int duration = options.duration();
            // a warm-up the JIT needs on both transports alike; not recorded
            int warmUp = duration > 0 ? 1000 : Math.min(2000, Math.max(n / 10, 5));
            for (int i = 0; i < warmUp; i++) {
                pingPong.roundTrip();
            }
            long end = duration > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(duration) : 0;
            long done = 0;
            while (duration > 0 ? System.nanoTime() - end < 0 : done < n) {
                long t0 = System.nanoTime();
                pingPong.roundTrip();
                h.recordValue(Math.max(1, System.nanoTime() - t0));
                done++;
                progress.tick();
            }
        } finally {
            pingPong.finish().verified();
        }
        return LatencyResult.of(bytes, h, test.halfRoundTrip());
    }

    /**
     * Bandwidth of one size, RNIC then TCP (then, with {@code --baseline}, the packed TCP stream). With {@code -q N} the test runs N connections of each
     * (N RNIC pairs, N TCP streams) and posts to them in turn, as perftest's run_iter_bw serves its
     * QPs; with {@code -n} each connection carries n messages, as each of perftest's QPs does.
     */
    Rows<BandwidthResult> bandwidth(int size) throws IOException, InterruptedException {
        boolean crc = options.crc();
        int bytes = test == PerftestTest.ATOMIC_BW ? 8 : size;
        MessageOptions messages = new MessageOptions(Math.max(8, bytes), crc, false, options.postList());
        int q = options.qps();
        BandwidthResult rnic;
        PairSettings previous = enterMode();
        try (Progress p = Progress.start(err, test.command() + " rnic " + bytes + " B")) {
            rnic = switch (test) {
                case WRITE_BW -> measureStreams(openStreams(Transport.RNIC_WRITE, messages, q), bytes, p);
                case SEND_BW -> measureStreams(openStreams(Transport.RNIC_SEND, messages, q), bytes, p);
                case READ_BW, ATOMIC_BW -> measureOneSided(openOneSided(bytes, crc, q), bytes, p);
                default -> throw new IllegalStateException("not a bandwidth test: " + test);
            };
        } finally {
            leaveMode(previous);
        }
        BandwidthResult tcp;
        try (Progress p = Progress.start(err, test.command() + " tcp " + bytes + " B")) {
            tcp = measureStreams(openStreams(Transport.TCP, messages, q), bytes, p);
        }
        BandwidthResult floor = null;
        if (options.baseline()) {
            try (Progress p = Progress.start(err, test.command() + " tcp-packed " + bytes + " B")) {
                floor = measureStreams(openStreams(Transport.TCP_PACKED, messages, q), bytes, p);
            }
        }
        return new Rows<>(rnic, tcp, floor);
    }

    private static MessageStream[] openStreams(Transport transport, MessageOptions messages, int q) throws IOException {
        MessageStream[] streams = new MessageStream[q];
        try {
            for (int i = 0; i < q; i++) {
                streams[i] = transport.openStream(messages);
            }
        } catch (IOException | RuntimeException e) {
            finishAll(streams, e);
            throw e;
        }
        return streams;
    }

    private OneSidedStream[] openOneSided(int bytes, boolean crc, int q) throws IOException {
        OneSidedStream[] streams = new OneSidedStream[q];
        try {
            for (int i = 0; i < q; i++) {
                streams[i] = OneSidedStream.open(test == PerftestTest.ATOMIC_BW, bytes, options.txDepth(test), crc);
            }
        } catch (IOException | RuntimeException e) {
            for (OneSidedStream s : streams) {
                if (s != null) {
                    s.close();
                }
            }
            throw e;
        }
        return streams;
    }

    /** Finishes the streams opened so far after a failure, keeping the first failure. */
    private static void finishAll(MessageStream[] streams, Exception first) {
        for (MessageStream s : streams) {
            if (s != null) {
                try {
                    s.finish();
                } catch (IOException | RuntimeException e) {
                    first.addSuppressed(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    first.addSuppressed(e);
                }
            }
        }
    }

    /** A sending step: the stream's send or the one-sided window's next. */
    @FunctionalInterface
    private interface Step {
        void run() throws IOException;
    }

    /** Round robin over the connections: the next one takes the next message. */
    private static final class RoundRobin {
        private final int count;
        private int next;

        RoundRobin(int count) {
            this.count = count;
        }

        int next() {
            int i = next;
            next = i + 1 == count ? 0 : i + 1;
            return i;
        }
    }

    private BandwidthResult measureStreams(MessageStream[] streams, int bytes, Progress progress)
            throws IOException, InterruptedException {
        RoundRobin turn = new RoundRobin(streams.length);
        boolean measured = false;
        try {
            // the drain hands over what a packing stream still holds, so the clock stops after it
            BandwidthResult r = measure(() -> streams[turn.next()].send(), () -> {
                for (MessageStream s : streams) {
                    s.flush();
                }
            }, bytes, streams.length, progress);
            measured = true;
            for (MessageStream s : streams) {
                s.finish().verified();
            }
            return r;
        } finally {
            if (!measured) {
                finishAll(streams, new IOException("bandwidth run failed"));
            }
        }
    }

    private BandwidthResult measureOneSided(OneSidedStream[] streams, int bytes, Progress progress) throws IOException {
        RoundRobin turn = new RoundRobin(streams.length);
        boolean finished = false;
        try {
            BandwidthResult r = measure(() -> streams[turn.next()].next(), () -> {
                for (OneSidedStream s : streams) {
                    s.drain();
                }
            }, bytes, streams.length, progress);
            finished = true;
            for (OneSidedStream s : streams) {
                s.finish();
            }
            return r;
        } finally {
            if (!finished) {
                for (OneSidedStream s : streams) {
                    s.close();
                }
            }
        }
    }

    private BandwidthResult measure(Step step, Step drain, int bytes, int connections, Progress progress)
            throws IOException {
        // -n per connection, as each of perftest's QPs runs n iterations
        int n = options.iterations(test) * connections;
        int duration = options.duration();
        int warmUp = duration > 0 ? 1000 : Math.max(n / 10, 1);
        for (int i = 0; i < warmUp; i++) {
            step.run();
        }
        drain.run();
        long stride = duration > 0 ? 256 : Math.max(1, Math.min(1024, n / 20));
        long start = System.nanoTime();
        long end = duration > 0 ? start + TimeUnit.SECONDS.toNanos(duration) : 0;
        long strideStart = start;
        long best = 0;
        long done = 0;
        while (duration > 0 ? System.nanoTime() - end < 0 : done < n) {
            step.run();
            done++;
            progress.tick();
            if (done % stride == 0) {
                long now = System.nanoTime();
                if (best == 0 || now - strideStart < best) {
                    best = now - strideStart;
                }
                strideStart = now;
            }
        }
        drain.run();
        long elapsed = System.nanoTime() - start;
        return BandwidthResult.of(bytes, done, elapsed, best, stride);
    }
}
