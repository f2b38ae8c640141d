package io.jrnic.bench.perftest;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/**
 * The options of the perftest commands, parsed by picocli: perftest's own where they apply
 * (same letters and long names) and jrnic's (as {@code rping} has them). Roles as in perftest:
 * without an address a server, with one a client; {@code --loopback} runs both ends in this JVM
 * and the same test over raw TCP beside them.
 *
 * <p>Thread safety: a mutable holder filled by the parser; confined to the command's thread.
 */
public final class PerftestOptions {

    /** perftest's default port. */
    public static final int DEFAULT_PORT = 18515;

    /** Most queue pairs of {@code -q}. */
    public static final int MAX_QPS = 64;

    /** Largest {@code -I} accepted (perftest's MAX_INLINE); the RNIC's maximum then caps it. */
    public static final int MAX_INLINE_OPTION = 912;
    /** Largest {@code --polling-spin-us}: one second (a longer spin is a busy-polling I/O thread). */
    public static final long MAX_POLLING_SPIN_MICROS = 1_000_000;
    /** Largest {@code --slice-ms}: one minute (longer turns are runs one after the other). */
    public static final int MAX_SLICE_MILLIS = 60_000;

    /** How the data path waits for completions: {@code --mode}. */
    public enum Mode {
        /** The RNIC's event loops move the bytes; the test thread polls the CQ ({@code IoMode.EVENT_LOOP}). */
        EVENT_LOOP("event-loop"),
        /**
         * The test thread's posts and CQ polls move the bytes ({@code IoMode.POLLING}, docs/transport.md
         * "Polling mode"); a passive side nobody polls is served by the RNIC's I/O thread.
         */
        POLLING("polling");

        private final String label;

        Mode(String label) {
            this.label = label;
        }

        /** {@return the mode's name on the command line ({@code --mode}) and in the JSON's {@code mode} member} */
        public String label() {
            return label;
        }
    }

    /** Converts {@code event-loop} / {@code polling}. */
    static final class ModeConverter implements ITypeConverter<Mode> {
        @Override
        public Mode convert(String value) {
            for (Mode m : Mode.values()) {
                if (m.label.equals(value)) {
                    return m;
                }
            }
            throw new TypeConversionException("'" + value + "' is not a mode: polling or event-loop");
        }
    }

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "server address: makes this a client")
    String server;

    @Option(names = {"-s", "--size"}, paramLabel = "BYTES", description = "message size (default: 65536 for bw, 2 for lat, 8 for atomics; loopback at least 8)")
    Integer size;

    @Option(names = {"-n", "--iters"}, paramLabel = "N", description = "iterations (default: 5000 for write_bw, else 1000)")
    Integer iterations;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", description = "run for this long instead of -n")
    Integer duration;

    @Option(names = {"-a", "--all"}, description = "all sizes, powers of two from 2 (loopback: 8) to 2^23 (toward perftest: write_bw, read_bw)")
    boolean allSizes;

    @Option(names = {"-q", "--qp"}, paramLabel = "N", description = "queue pairs of a bandwidth test (default 1); with -n each runs n iterations")
    int qps = 1;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "N", description = "send queue depth (default 128 for bw, 1 for lat)")
    Integer txDepth;

    @Option(names = {"-l", "--post_list"}, paramLabel = "N", description = "bandwidth tests: post N work requests per post call, as one list (a doorbell for N; default 1)")
    int postList = 1;

    @Option(names = {"-I", "--inline_size"}, paramLabel = "BYTES", description = "Sends and Writes of at most this size are posted inline (capped by the RNIC's max inline data)")
    Integer inlineSize;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", description = "TCP port (default " + DEFAULT_PORT + ")")
    int port = DEFAULT_PORT;

    @Option(names = {"-R", "--rdma_cm"}, description = "connect with rdma_cm (always so on iWARP; accepted for compatibility)")
    boolean rdmaCm;

    @Option(names = {"-F", "--CPU-freq"}, description = "accepted for compatibility (no cycle counter calibration here)")
    boolean cpuFreq;

    @Option(names = "--report_gbits", description = "bandwidth in Gb/s instead of MB/s")
    boolean reportGbits;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "accepted and ignored (one soft RNIC)")
    String device;

    @Option(names = "--crc", description = "ask for MPA CRCs (C=1); without it CRC is on only if the peer asks (loopback: off)")
    boolean crc;

    @Option(names = "--markers", description = "ask for and accept MPA markers (siw refuses them)")
    boolean markers;

    @Option(names = "--setup-timeout-s", paramLabel = "SECONDS", description = "bound of each MPA setup wait (default 10; 300 behind the lab's guestfwd rules)")
    int setupTimeoutSeconds = 10;

    @Option(names = "--pause-ms", paramLabel = "MS", description = "client: pause between the MPA Reply and the first FPDU (default 100, siw's race)")
    int pauseMillis = 100;

    @Option(names = "--mode", paramLabel = "MODE", converter = ModeConverter.class, description = "event-loop (default) or polling")
    Mode mode = Mode.EVENT_LOOP;

    @Option(names = "--polling-spin-us", paramLabel = "US", description = "with --mode polling: how long an RNIC I/O thread"
            + " keeps polling its sockets after work before it blocks (RnicConfig.pollingSpin; default 50, 0: never)")
    Long pollingSpinMicros;

    @Option(names = "--warm-up", paramLabel = "N", description = "client or server: first run N iterations of the test in loopback in this JVM, quietly"
            + " (a cold JVM on an emulated host can miss the peer's MPA timeout)")
    int warmUp;

    @Option(names = "--loopback", description = "both ends in this JVM over 127.0.0.1, then raw TCP beside, with the ratio")
    boolean loopback;

    @Option(names = "--baseline", description = "with --loopback: also the raw-TCP floor, printed before the RNIC row with the"
            + " RNIC's ratio to it (latency: TCP ping-pong busy-polling non-blocking sockets; bandwidth: TCP stream packing"
            + " the messages into 64 KiB batches, from and into as much memory as the RNIC's)")
    boolean baseline;

    @Option(names = "--slice-ms", paramLabel = "MS", description = "with --loopback: the RNIC and raw TCP take turns of MS"
            + " milliseconds, so that both see the machine's changing speed alike (default " + Turns.DEFAULT_SLICE_MILLIS
            + "; 0: one after the other)")
    Integer sliceMillis;

    @Option(names = "--json", description = "one JSON object on the last line of stdout")
    boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
    boolean help;

    /**
     * Creates options holding the defaults (server role, one queue pair, port {@value #DEFAULT_PORT},
     * event-loop mode); picocli then sets the fields of the options given.
     */
    public PerftestOptions() {
    }

    /** {@return the server address as given (host name or IP literal): the client role; null for the server role} */
    public String server() {
        return server;
    }

    /**
     * The message size of a single-size run: {@code -s}, else the test's
     * {@linkplain PerftestTest#defaultSize() perftest default}, raised to 8 in loopback (the
     * messages then carry an 8-byte sequence number).
     *
     * @param test the command's test
     * @return the message size in bytes
     */
    public int size(PerftestTest test) {
        if (size != null) {
            return size;
        }
        return loopback ? Math.max(8, test.defaultSize()) : test.defaultSize();
    }

    /**
     * Iterations of an iteration-bounded run: {@code -n}, else perftest's defaults (5000 for
     * {@code ib_write_bw}, 1000 for every other test).
     *
     * @param test the command's test
     * @return messages (bandwidth, per queue pair) or samples (latency) per message size
     */
    public int iterations(PerftestTest test) {
        if (iterations != null) {
            return iterations;
        }
        return test == PerftestTest.WRITE_BW ? 5000 : 1000;
    }

    /**
     * {@return the duration of a time-bounded run ({@code -D}) in seconds, or 0 when the run is
     * bounded by iterations}
     */
    public int duration() {
        return duration == null ? 0 : duration;
    }

    /**
     * Send queue depth: {@code -t}, else perftest's 128 for bandwidth and 1 for latency.
     *
     * @param test the command's test
     * @return the send queue depth in work requests (for a bandwidth test, the window of
     *         outstanding operations)
     */
    public int txDepth(PerftestTest test) {
        if (txDepth != null) {
            return txDepth;
        }
        return test.latency() ? 1 : 128;
    }

    /** {@return work requests per post call of a bandwidth test ({@code -l}), 1 unless given} */
    public int postList() {
        return postList;
    }

    /** {@return the largest message posted inline ({@code -I}) in bytes, or -1 when not given (the default)} */
    public int inlineSize() {
        return inlineSize == null ? -1 : inlineSize;
    }

    /** {@return the TCP port a server listens on and a client connects to ({@code -p})} */
    public int port() {
        return port;
    }

    /** {@return whether {@code -a} was given: every power-of-two size from 2 (loopback: 8) to 2^23 bytes} */
    public boolean allSizes() {
        return allSizes;
    }

    /** {@return the number of queue pairs of a bandwidth test ({@code -q}), 1 by default} */
    public int qps() {
        return qps;
    }

    /** {@return whether bandwidth is reported in Gb/s ({@code --report_gbits}) instead of perftest's MB/s} */
    public boolean reportGbits() {
        return reportGbits;
    }

    /** {@return whether MPA CRCs are asked for (C=1 in the MPA Request or Reply, {@code --crc})} */
    public boolean crc() {
        return crc;
    }

    /** {@return whether MPA markers are asked for and accepted ({@code --markers})} */
    public boolean markers() {
        return markers;
    }

    /** {@return the bound of each MPA setup wait in seconds ({@code --setup-timeout-s})} */
    public int setupTimeoutSeconds() {
        return setupTimeoutSeconds;
    }

    /** {@return the client's pause between the MPA Reply and its first FPDU in milliseconds ({@code --pause-ms})} */
    public int pauseMillis() {
        return pauseMillis;
    }

    /**
     * {@return the polling-mode spin of the RNIC's I/O threads ({@code --polling-spin-us}), or null for
     * {@code RnicConfig}'s default}
     */
    public java.time.Duration pollingSpin() {
        return pollingSpinMicros == null ? null : java.time.Duration.ofNanos(1000 * pollingSpinMicros);
    }

    /** {@return how the data path waits for completions ({@code --mode})} */
    public Mode mode() {
        return mode;
    }

    /**
     * {@return the iterations of the quiet loopback warm-up run before serving or connecting
     * ({@code --warm-up}), 0 for none}
     */
    public int warmUp() {
        return warmUp;
    }

    /**
     * {@return whether this is a loopback run ({@code --loopback}): both ends in this JVM, then raw
     * TCP beside them}
     */
    public boolean loopback() {
        return loopback;
    }

    /**
     * {@return whether a loopback run also measures the raw-TCP floor ({@code --baseline}): the
     * busy-polling TCP ping-pong for latency, the packed TCP stream for bandwidth}
     */
    public boolean baseline() {
        return baseline;
    }

    /**
     * {@return the length of a loopback run's turns ({@code --slice-ms}) in milliseconds; 0 runs the
     * RNIC, then TCP, each to its end}
     */
    public int sliceMillis() {
        return sliceMillis == null ? Turns.DEFAULT_SLICE_MILLIS : sliceMillis;
    }

    /** {@return whether the last line of stdout is a JSON object ({@code --json})} */
    public boolean json() {
        return json;
    }

    /**
     * Checks the combinations picocli cannot.
     *
     * @param test the command's test
     * @throws IllegalArgumentException naming what is wrong
     */
    void validate(PerftestTest test) {
        if (loopback && postList > io.jrnic.bench.transport.MessageOptions.MAX_POST_LIST) {
            throw new IllegalArgumentException("-l " + postList + ": at most "
                    + io.jrnic.bench.transport.MessageOptions.MAX_POST_LIST + " with --loopback");
        }
        if (qps < 1 || qps > MAX_QPS) {
            throw new IllegalArgumentException("-q " + qps + ": queue pairs must be in [1, " + MAX_QPS + "]");
        }
        if (qps > 1 && test.latency()) {
            // perftest's latency tests run one QP (ping-pongs); only the bandwidth tests take -q
            throw new IllegalArgumentException("-q " + qps + ": the latency tests run one queue pair");
        }
        if (inlineSize != null && (inlineSize < 0 || inlineSize > MAX_INLINE_OPTION)) {
            throw new IllegalArgumentException("-I " + inlineSize + ": inline size must be in [0, " + MAX_INLINE_OPTION + "]");
        }
        if (allSizes && !loopback && test != PerftestTest.WRITE_BW && test != PerftestTest.READ_BW) {
            // write_bw.c and read_bw.c run the sizes with no sync between them; the other tests sync
            // per size, which PerftestPeer does not speak
            throw new IllegalArgumentException("-a toward Linux perftest: ib_write_bw and ib_read_bw only"
                    + " (--loopback runs it for every test)");
        }
        if (size != null && (size < 1 || size > (1 << 30))) {
            throw new IllegalArgumentException("-s " + size + ": size must be in [1, 2^30]");
        }
        if (iterations != null && iterations < 5) {
            throw new IllegalArgumentException("-n " + iterations + ": at least 5 iterations");
        }
        if (duration != null && duration < 1) {
            throw new IllegalArgumentException("-D " + duration + ": at least 1 second");
        }
        if (duration != null && iterations != null) {
            throw new IllegalArgumentException("-D and -n exclude each other");
        }
        if (txDepth != null && txDepth < 1) {
            throw new IllegalArgumentException("-t " + txDepth + ": at least 1");
        }
        if (postList < 1 || (txDepth != null && postList > txDepth)) {
            throw new IllegalArgumentException("-l " + postList + ": at least 1 and at most the send queue depth (-t)");
        }
        if (pollingSpinMicros != null && (pollingSpinMicros < 0 || pollingSpinMicros > MAX_POLLING_SPIN_MICROS)) {
            throw new IllegalArgumentException("--polling-spin-us " + pollingSpinMicros + ": must be in [0, "
                    + MAX_POLLING_SPIN_MICROS + "]");
        }
        if (pollingSpinMicros != null && mode != Mode.POLLING) {
            throw new IllegalArgumentException("--polling-spin-us: only with --mode polling (event-loop mode never spins)");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("-p " + port + ": not a port");
        }
        if (warmUp < 0 || (warmUp > 0 && loopback)) {
            throw new IllegalArgumentException("--warm-up " + warmUp + ": a count >= 0, for a client or server");
        }
        if (baseline && !loopback) {
            throw new IllegalArgumentException("--baseline measures raw TCP beside the RNIC in this JVM: it needs --loopback");
        }
        if (sliceMillis != null && (sliceMillis < 0 || sliceMillis > MAX_SLICE_MILLIS)) {
            throw new IllegalArgumentException("--slice-ms " + sliceMillis + ": must be in [0, " + MAX_SLICE_MILLIS + "]");
        }
        if (sliceMillis != null && !loopback) {
            throw new IllegalArgumentException("--slice-ms sets the turns of the RNIC and raw TCP in this JVM: it needs --loopback");
        }
        if (loopback && server != null) {
            throw new IllegalArgumentException("--loopback takes no server address");
        }
        if (loopback && size != null && size < 8) {
            throw new IllegalArgumentException("-s " + size + ": loopback messages carry an 8-byte sequence number,"
                    + " use -s 8 or more");
        }
        if (!loopback && !test.perftestInterop()) {
            throw new IllegalArgumentException(test.command() + " runs with --loopback only (Linux perftest has no"
                    + " such test to talk to)");
        }
        if (!loopback && json) {
            // allowed: the JSON then has no tcp member
            return;
        }
    }
}
