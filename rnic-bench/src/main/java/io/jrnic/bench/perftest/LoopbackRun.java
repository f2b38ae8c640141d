package io.jrnic.bench.perftest;

import io.jrnic.api.IoMode;
import io.jrnic.bench.transport.MessageOptions;
import io.jrnic.bench.transport.MessageStream;
import io.jrnic.bench.transport.OneSidedOperation;
import io.jrnic.bench.transport.PingPong;
import io.jrnic.bench.transport.RnicPair;
import io.jrnic.bench.transport.TcpPingPong;
import io.jrnic.bench.transport.Transport;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * {@code --loopback}: the test between two RNICs in this JVM over 127.0.0.1 and the same test
 * over raw TCP in this process, taking turns in slices of {@code --slice-ms} ({@link Turns}: the
 * machine's speed changes between seconds, and turns give both the same mix), both through the
 * benchmark harness of
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
 *       same size into 64 KiB batches, cycling through as much memory as the RNIC stream's source
 *       and sink (the message-rate floor of small messages).</li>
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
     * @param ratios      the RNIC's figure over TCP's in each round of turns, sorted (rate for
     *                    bandwidth, median for latency)
     * @param floorRatios the same against the floor, or null without {@code --baseline}
     */
    record Rows<T>(T rnic, T tcp, T floor, double[] ratios, double[] floorRatios) {
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

    /**
     * Latency of one size: the RNIC, TCP (and with {@code --baseline} the busy-polling TCP floor)
     * taking turns ({@link Turns}).
     */
    Rows<LatencyResult> latency(int size) throws IOException, InterruptedException {
        boolean crc = options.crc();
        int bytes = fixedSize(test) ? operandSize(test) : size;
        MessageOptions messages = new MessageOptions(Math.max(8, bytes), crc, false);
        List<PingPong> opened = new ArrayList<>(3);
        boolean measured = false;
        try {
            PairSettings previous = enterMode();
            try {
                opened.add(openRnicPingPong(bytes, crc));
            } finally {
                leaveMode(previous);
            }
            opened.add(TcpPingPong.open(messages));
            if (options.baseline()) {
                opened.add(TcpPingPong.openBusyPoll(messages));
            }
            List<RoundTrips> parts = new ArrayList<>(opened.size());
            for (PingPong p : opened) {
                parts.add(new RoundTrips(p));
            }
            int n = options.iterations(test);
            int duration = options.duration();
            // a warm-up the JIT needs on both transports alike; not recorded
            int warmUp = duration > 0 ? 1000 : Math.min(2000, Math.max(n / 10, 5));
            for (PingPong p : opened) {
                for (int i = 0; i < warmUp; i++) {
                    p.roundTrip();
                }
            }
            try (Progress p = Progress.start(err, test.command() + " " + bytes + " B, " + turnsLabel())) {
                new Turns(n, duration, options.sliceMillis(), 1).run(parts, p);
            }
            for (PingPong p : opened) {
                p.finish().verified();
            }
            // only now: a failed finish leaves the later fixtures to the finally (a finished one
            // refuses a second finish, which finishQuietly ignores)
            measured = true;
            LatencyResult rnic = parts.get(0).result(bytes);
            LatencyResult tcp = parts.get(1).result(bytes);
            LatencyResult floor = parts.size() > 2 ? parts.get(2).result(bytes) : null;
            // a round's figure is its median: the RNIC's over the baseline's, as t_typical
            return new Rows<>(rnic, tcp, floor,
                    Turns.roundRatios(parts.get(0).sliceValues(), parts.get(1).sliceValues()),
                    floor == null ? null : Turns.roundRatios(parts.get(0).sliceValues(), parts.get(2).sliceValues()));
        } finally {
            if (!measured) {
                for (PingPong p : opened) {
                    finishQuietly(p);
                }
            }
        }
    }

    private static void finishQuietly(PingPong p) {
        try {
            p.finish();
        } catch (IOException | RuntimeException e) {
            // the measurement's failure is the one reported
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What takes turns, for the progress line. */
    private String turnsLabel() {
        String who = "rnic, tcp" + (options.baseline() ? " and its floor" : "");
        return options.sliceMillis() > 0 ? who + " in turns of " + options.sliceMillis() + " ms" : who + " one after the other";
    }

    /** A ping-pong taking part in turns: every round trip into the run's histogram and the slice's. */
    private final class RoundTrips extends Turns.Part {
        private final PingPong pingPong;
        private final Histogram all;
        private final Histogram slice;

        RoundTrips(PingPong pingPong) {
            this(pingPong, LatencyResult.newHistogram(), LatencyResult.newHistogram());
        }

        private RoundTrips(PingPong pingPong, Histogram all, Histogram slice) {
            super(() -> {
                long t0 = System.nanoTime();
                pingPong.roundTrip();
                long t = Math.max(1, System.nanoTime() - t0);
                all.recordValue(t);
                slice.recordValue(t);
            }, () -> {
            });
            this.pingPong = pingPong;
            this.all = all;
            this.slice = slice;
        }

        @Override
        void sliceStarts() {
            slice.reset();
        }

        @Override
        void hold() {
            pingPong.hold();
        }

        @Override
        void release() {
            pingPong.release();
        }

        @Override
        double sliceValue(long iterations, long nanos) {
            return slice.getTotalCount() == 0 ? 0 : slice.getValueAtPercentile(50);
        }

        LatencyResult result(int bytes) {
            return LatencyResult.of(bytes, all, test.halfRoundTrip());
        }
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

    /**
     * Bandwidth of one size: the RNIC, TCP (and with {@code --baseline} the packed TCP stream)
     * taking turns ({@link Turns}). With {@code -q N} each runs N connections (N RNIC pairs, N TCP
     * streams) and posts to them in turn, as perftest's run_iter_bw serves its QPs; with {@code -n}
     * each connection carries n messages, as each of perftest's QPs does.
     */
    Rows<BandwidthResult> bandwidth(int size) throws IOException, InterruptedException {
        boolean crc = options.crc();
        int bytes = test == PerftestTest.ATOMIC_BW ? 8 : size;
        MessageOptions messages = new MessageOptions(Math.max(8, bytes), crc, false, options.postList());
        int q = options.qps();
        List<Connections> parts = new ArrayList<>(3);
        boolean measured = false;
        try {
            PairSettings previous = enterMode();
            try {
                parts.add(switch (test) {
                    case WRITE_BW -> new Streams(openStreams(Transport.RNIC_WRITE, messages, q));
                    case SEND_BW -> new Streams(openStreams(Transport.RNIC_SEND, messages, q));
                    case READ_BW, ATOMIC_BW -> new OneSided(openOneSided(bytes, crc, q));
                    default -> throw new IllegalStateException("not a bandwidth test: " + test);
                });
            } finally {
                leaveMode(previous);
            }
            parts.add(new Streams(openStreams(Transport.TCP, messages, q)));
            if (options.baseline()) {
                parts.add(new Streams(openStreams(Transport.TCP_PACKED, messages, q)));
            }
            // -n per connection, as each of perftest's QPs runs n iterations
            int n = options.iterations(test) * q;
            int duration = options.duration();
            int warmUp = duration > 0 ? 1000 : Math.max(n / 10, 1);
            for (Connections part : parts) {
                for (int i = 0; i < warmUp; i++) {
                    part.step();
                }
                part.settle();
            }
            long stride = duration > 0 ? 256 : Math.max(1, Math.min(1024, n / 20));
            try (Progress p = Progress.start(err, test.command() + " " + bytes + " B, " + turnsLabel())) {
                new Turns(n, duration, options.sliceMillis(), stride).run(parts, p);
            }
            for (Connections part : parts) {
                part.finish();
            }
            measured = true; // only now, as in latency()
            BandwidthResult rnic = parts.get(0).result(bytes, stride);
            BandwidthResult tcp = parts.get(1).result(bytes, stride);
            BandwidthResult floor = parts.size() > 2 ? parts.get(2).result(bytes, stride) : null;
            return new Rows<>(rnic, tcp, floor,
                    Turns.roundRatios(parts.get(0).sliceValues(), parts.get(1).sliceValues()),
                    floor == null ? null : Turns.roundRatios(parts.get(0).sliceValues(), parts.get(2).sliceValues()));
        } finally {
            if (!measured) {
                for (Connections part : parts) {
                    part.abandon();
                }
            }
        }
    }

    /**
     * The connections of one transport taking part in turns: each step sends on the next one (round
     * robin); a slice settles by handing over what they hold and waiting for their completions.
     * A slice's figure is its message rate.
     */
    private abstract static class Connections extends Turns.Part {
        Connections(Turns.Step step, Turns.Step settle) {
            super(step, settle);
        }

        @Override
        double sliceValue(long iterations, long nanos) {
            return nanos > 0 ? iterations * 1e9 / nanos : 0;
        }

        BandwidthResult result(int bytes, long stride) {
            return BandwidthResult.of(bytes, done, elapsedNanos, bestStrideNanos, stride);
        }

        /** Ends every connection and checks what arrived. */
        abstract void finish() throws IOException, InterruptedException;

        /** Releases every connection after a failure, which stays the one reported. */
        abstract void abandon();
    }

    /** {@link MessageStream}s: the RNIC's Write or Send streams, TCP's streams. */
    private static final class Streams extends Connections {
        private final MessageStream[] streams;

        Streams(MessageStream[] streams) {
            this(streams, new RoundRobin(streams.length));
        }

        private Streams(MessageStream[] streams, RoundRobin turn) {
            // the settle hands over what a packing stream still holds and waits for the RNIC's
            // completions, so the slice's clock stops after it
            super(() -> streams[turn.next()].send(), () -> {
                for (MessageStream s : streams) {
                    s.flush();
                }
            });
            this.streams = streams;
        }

        @Override
        void hold() {
            for (MessageStream s : streams) {
                s.hold();
            }
        }

        @Override
        void release() {
            for (MessageStream s : streams) {
                s.release();
            }
        }

        @Override
        void finish() throws IOException, InterruptedException {
            for (MessageStream s : streams) {
                s.finish().verified();
            }
        }

        @Override
        void abandon() {
            finishAll(streams, new IOException("bandwidth run failed"));
        }
    }

    /** {@link OneSidedStream}s: the RNIC's Reads or FetchAdds. */
    private static final class OneSided extends Connections {
        private final OneSidedStream[] streams;

        OneSided(OneSidedStream[] streams) {
            this(streams, new RoundRobin(streams.length));
        }

        private OneSided(OneSidedStream[] streams, RoundRobin turn) {
            super(() -> streams[turn.next()].next(), () -> {
                for (OneSidedStream s : streams) {
                    s.drain();
                }
            });
            this.streams = streams;
        }

        @Override
        void finish() throws IOException {
            boolean finished = false;
            try {
                for (OneSidedStream s : streams) {
                    s.finish();
                }
                finished = true;
            } finally {
                if (!finished) {
                    abandon();
                }
            }
        }

        @Override
        void abandon() {
            for (OneSidedStream s : streams) {
                s.close();
            }
        }
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
}
