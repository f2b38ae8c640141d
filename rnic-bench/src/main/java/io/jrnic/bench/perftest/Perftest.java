package io.jrnic.bench.perftest;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * The perftest commands of {@code rnic-bench.jar} ({@code ib_write_bw}, ..., {@code flush_lat},
 * {@code verify_lat}): options parsed by picocli into {@link PerftestOptions}, then
 * {@code --loopback} ({@link LoopbackRun}), a server (no address) or a client (an address), the
 * last two speaking Linux perftest's rdma_cm protocol ({@link PerftestPeer}).
 *
 * <p>Exit codes: 0 success, 1 a failed run (message on stderr), 2 bad arguments (with the usage).
 *
 * <p>Thread safety: stateless.
 */
public final class Perftest {

    /** Exit code of a failed run. */
    public static final int EXIT_FAILED = 1;
    /** Exit code of bad arguments. */
    public static final int EXIT_USAGE = 2;

    /** Tries of {@code --warm-up}. */
    static final int WARM_UP_ATTEMPTS = 3;

    private Perftest() {
    }

    /**
     * Parses the options of one of the commands.
     *
     * @param test the command's test
     * @param args the arguments after the command name
     * @return the options
     * @throws IllegalArgumentException for bad arguments (picocli's message or a combination check)
     */
    public static PerftestOptions parse(PerftestTest test, String... args) {
        PerftestOptions options = new PerftestOptions();
        CommandLine cl = commandLine(test, options);
        try {
            cl.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (!options.help) {
            options.validate(test);
        }
        return options;
    }

    private static CommandLine commandLine(PerftestTest test, PerftestOptions options) {
        CommandLine cl = new CommandLine(CommandLine.Model.CommandSpec.forAnnotatedObject(options)
                .name(test.command()));
        cl.getCommandSpec().usageMessage().description("perftest's " + test.command() + " on the jrnic soft RNIC: "
                + "server without an address, client with one, --loopback for both ends in this JVM beside raw TCP");
        cl.setPosixClusteredShortOptionsAllowed(true);
        return cl;
    }

    /**
     * The usage text of a command, as {@code -h} prints it (no ANSI colours).
     *
     * @param test the command's test: its name heads the usage
     * @return the usage text: synopsis, description and the options with their descriptions
     */
    public static String usage(PerftestTest test) {
        return commandLine(test, new PerftestOptions()).getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /**
     * Runs a command.
     *
     * @param test the command's test
     * @param args the arguments after the command name
     * @param out  the tables and the JSON line
     * @param err  progress, failures and usage errors
     * @return the exit code
     */
    public static int run(PerftestTest test, String[] args, PrintStream out, PrintStream err) {
        PerftestOptions options;
        try {
            options = parse(test, args);
        } catch (IllegalArgumentException e) {
            err.println(test.command() + ": " + e.getMessage());
            err.print(usage(test));
            return EXIT_USAGE;
        }
        if (options.help) {
            out.print(usage(test));
            return 0;
        }
        try {
            if (options.loopback()) {
                return loopback(test, options, out, err);
            }
            if (options.warmUp() > 0) {
                warmUp(test, options, err);
            }
            return new PerftestPeer(test, options, out, err).run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(test.command() + " failed: interrupted");
            return EXIT_FAILED;
        } catch (Exception e) {
            err.println(test.command() + " failed: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    /** The sizes of a run: {@code -a}'s powers of two, or the one size. */
    static List<Integer> sizes(PerftestTest test, PerftestOptions options) {
        List<Integer> sizes = new ArrayList<>();
        if (options.allSizes() && !(options.loopback() && LoopbackRun.fixedSize(test)) && test.verb() != PerftestTest.Verb.ATOMIC) {
            int from = options.loopback() ? 8 : 2;
            for (int s = from; s <= LoopbackRun.MAX_ALL_SIZE; s <<= 1) {
                sizes.add(s);
            }
        } else {
            sizes.add(options.loopback() && LoopbackRun.fixedSize(test) ? LoopbackRun.operandSize(test) : options.size(test));
        }
        return sizes;
    }

    /**
     * {@code --warm-up N}: the test in loopback, output discarded, so that class loading and the
     * JIT of the connection setup and data path happen before a peer is waiting on our MPA Reply.
     */
    private static void warmUp(PerftestTest test, PerftestOptions options, PrintStream err) throws InterruptedException {
        int size = Math.max(8, Math.min(options.allSizes() ? 65536 : options.size(test), 65536));
        PerftestOptions w = parse(test, "--loopback", "-n", Integer.toString(Math.max(5, options.warmUp())),
                "-s", Integer.toString(size));
        LoopbackRun run = new LoopbackRun(test, w, new PrintStream(OutputStream.nullOutputStream()));
        // a cold JVM on an emulated CPU may miss the harness's own 10 s setup bound: a failed
        // attempt has still loaded and compiled much of the path, so try again, and never fail the run
        for (int attempt = 1; attempt <= WARM_UP_ATTEMPTS; attempt++) {
            try {
                if (test.latency()) {
                    run.latency(size);
                } else {
                    run.bandwidth(size);
                }
                return;
            } catch (IOException | RuntimeException e) {
                err.println(test.command() + ": warm-up attempt " + attempt + " failed (" + e.getMessage() + ")");
            }
        }
    }

    private static void printIfAny(PrintStream out, String line) {
        if (line != null) {
            out.println(line);
        }
    }

    private static int loopback(PerftestTest test, PerftestOptions options, PrintStream out, PrintStream err)
            throws Exception {
        if (options.inlineSize() >= 0) {
            // the harness's QPs post as the JMH benchmarks do; -I maps onto the WRs of a client or server
            err.println(test.command() + ": -I applies to a client or server; --loopback posts without inline data");
        }
        LoopbackRun run = new LoopbackRun(test, options, err);
        String how = "jrnic loopback over 127.0.0.1 beside raw TCP" + (options.baseline() ? " and its floor" : "")
                + (options.sliceMillis() > 0 ? ", in turns of " + options.sliceMillis() + " ms" : ", one after the other") + ", "
                + options.mode().label() + " mode, MPA CRC " + (options.crc() ? "on" : "off");
        List<String> rows = new ArrayList<>();
        String json = null;
        out.println(Report.RULE);
        out.println(Report.title(test, how));
        out.println(Report.RULE);
        out.println(test.latency() ? Report.LAT_HEADER : Report.bwHeader(options.reportGbits()));
        for (int size : sizes(test, options)) {
            if (test.latency()) {
                LoopbackRun.Rows<LatencyResult> r = run.latency(size);
                if (r.floor() != null) {
                    // --baseline: the raw-TCP rows first, the RNIC's after them, then its ratio to each
                    out.println(Report.latRow(r.floor(), Report.TCP_BUSY_POLL));
                    out.println(Report.latRow(r.tcp(), Report.TCP));
                    out.println(Report.latRow(r.rnic(), Report.RNIC));
                    out.println(Report.latRatio(r.rnic(), r.tcp()));
                    out.println(Report.latRatio(r.rnic(), r.floor(), Report.TCP_BUSY_POLL));
                } else {
                    out.println(Report.latRow(r.rnic(), Report.RNIC));
                    out.println(Report.latRow(r.tcp(), Report.TCP));
                    out.println(Report.latRatio(r.rnic(), r.tcp()));
                }
                printIfAny(out, Report.roundRatios(r.ratios(), Report.TCP, "t_typical", options.sliceMillis()));
                printIfAny(out, Report.roundRatios(r.floorRatios(), Report.TCP_BUSY_POLL, "t_typical", options.sliceMillis()));
                json = Report.latJson(test, options.mode().label(), options.crc(), r.rnic(), r.tcp(), r.floor());
                json = Report.withRounds(Report.withRounds(json, "rounds_p50", r.ratios()), "rounds_p50_busy_poll",
                        r.floorRatios());
            } else {
                LoopbackRun.Rows<BandwidthResult> r = run.bandwidth(size);
                boolean gbits = options.reportGbits();
                if (r.floor() != null) {
                    out.println(Report.bwRow(r.floor(), gbits, Report.TCP_PACKED));
                    out.println(Report.bwRow(r.tcp(), gbits, Report.TCP));
                    out.println(Report.bwRow(r.rnic(), gbits, Report.RNIC));
                    out.println(Report.bwRatio(r.rnic(), r.tcp()));
                    out.println(Report.bwRatio(r.rnic(), r.floor(), Report.TCP_PACKED));
                } else {
                    out.println(Report.bwRow(r.rnic(), gbits, Report.RNIC));
                    out.println(Report.bwRow(r.tcp(), gbits, Report.TCP));
                    out.println(Report.bwRatio(r.rnic(), r.tcp()));
                }
                printIfAny(out, Report.roundRatios(r.ratios(), Report.TCP, "BW", options.sliceMillis()));
                printIfAny(out, Report.roundRatios(r.floorRatios(), Report.TCP_PACKED, "BW", options.sliceMillis()));
                json = Report.bwJson(test, options.qps(), options.mode().label(), options.crc(), r.rnic(), r.tcp(),
                        r.floor());
                json = Report.withRounds(Report.withRounds(json, "rounds", r.ratios()), "rounds_packed", r.floorRatios());
            }
            out.flush();
        }
        out.println(Report.RULE);
        if (options.json() && json != null) {
            out.println(json);
        }
        rows.clear();
        return 0;
    }
}
