package io.jrnic.bench;

import io.jrnic.api.IoMode;
import io.jrnic.bench.demo.CodecDemo;
import io.jrnic.bench.jmh.ScaleTurns;
import io.jrnic.bench.perftest.DevInfo;
import io.jrnic.bench.perftest.Perftest;
import io.jrnic.bench.perftest.PerftestTest;
import io.jrnic.bench.probe.CrossCoreCopy;
import io.jrnic.bench.probe.TcpWriteSizes;
import io.jrnic.bench.rping.Rping;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of {@code rnic-bench.jar}: {@code java -jar rnic-bench.jar <command> [args...]}.
 *
 * <p>Commands are rows of {@link #COMMANDS}. Exit codes:
 * {@value #EXIT_OK} success, {@value #EXIT_USAGE} unknown or missing command or bad arguments; a
 * command may return others ({@code demo} returns 1 when a check failed, JMH exits with 1 on its
 * own errors).
 *
 * <p>Thread safety: stateless.
 */
public final class Main {

    /** Exit code of a successful command. */
    public static final int EXIT_OK = 0;

    /** Exit code of a usage error: no command, one this build does not have, or bad arguments. */
    public static final int EXIT_USAGE = 2;

    /** A subcommand: what {@code args[0]} selects. */
    @FunctionalInterface
    interface Action {
        /**
         * Runs the command.
         *
         * @param args the arguments after the command name
         * @param out  where normal output goes
         * @return the exit code
         * @throws Exception whatever the command throws; {@link #main} lets it end the JVM
         */
        int run(String[] args, PrintStream out) throws Exception;
    }

    /**
     * One row of the command table.
     *
     * @param name     what the user types
     * @param synopsis the arguments, for the usage message
     * @param summary  one line on what it does
     * @param action   the implementation
     */
    record Command(String name, String synopsis, String summary, Action action) {
    }

    private static final List<Command> COMMANDS = commands();

    private static List<Command> commands() {
        List<Command> list = new ArrayList<>(List.of(
            new Command("jmh", "[JMH options] [benchmark regex...]",
                    "run the JMH benchmarks ('jmh -l' lists them, 'jmh -h' shows the JMH options)",
                    Main::runJmh),
            new Command("demo", "[seed]",
                    "walk the codecs without a socket: MPA setup, an RDMA Write in CRC-checked FPDUs, the error path",
                    Main::runDemo),
            new Command("rping", "[-s|-c] [-a addr] [-p port] [-C count] [-S size] [-vVdP]"
                    + " [--crc] [--markers] [--pause-ms ms] [--setup-timeout-s s]",
                    "librdmacm's rping, wire-compatible with Linux siw; neither -s nor -c: both ends over loopback",
                    Main::runRping),
            new Command("devinfo", "[-v]", "the RNIC's attributes in ibv_devinfo's layout (-v: all of them)",
                    (args, out) -> DevInfo.run(args, out, System.err)),
            new Command("copy-probe", "[seconds]",
                    "the machine, not jrnic: core-to-core copy rate every 0.5 s (is it in its fast or slow state?)",
                    Main::runCopyProbe),
            new Command("scale-turns", "[N] [rounds] [polling|event-loop] [slice-ms]",
                    "1 and N (default 1,000) QPs of one RNIC pair, 1 and N raw TCP connections: 64 KiB Writes in turns,"
                            + " the N/1 ratios (issue 11's 1,000-QP target)",
                    Main::runScaleTurns),
            new Command("tcp-write-probe", "[rounds]",
                    "the machine, not jrnic: loopback TCP's rate by write size, in turns of 300 ms (what a baseline must write)",
                    Main::runTcpWriteProbe)));
        for (PerftestTest test : PerftestTest.values()) {
            list.add(new Command(test.command(), "[SERVER] [-s size] [-n iters|-D secs] [-a] [--loopback] [--json] ...",
                    "perftest's " + test.command() + (test.perftestInterop() ? " (interoperates with Linux perftest -R)"
                            : " (jrnic only: --loopback)") + "; '" + test.command() + " -h' for the options",
                    (args, out) -> Perftest.run(test, args, out, System.err)));
        }
        list.add(new Command("help", "", "print this message", (args, out) -> {
            printUsage(out);
            return EXIT_OK;
        }));
        return List.copyOf(list);
    }

    /** The seed {@code demo} uses when none is given (the one {@link CodecDemo#main} uses). */
    static final long DEMO_SEED = 5040L;

    /** Thrown by a command whose arguments are wrong; {@link #run} prints it with the usage. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    private Main() {
    }

    /**
     * Runs the command named by {@code args[0]} and exits with its code when that is not
     * {@value #EXIT_OK} (a successful run just returns, so that JMH's own threads end the JVM normally).
     *
     * @param args the command and its arguments
     * @throws Exception whatever the command throws
     */
    public static void main(String[] args) throws Exception {
        // The jar's manifest opens sun.nio.ch (Add-Opens); netty uses that only when also told to
        // (its selected-key array: no allocation per read event, docs/transport.md).
        if (System.getProperty("io.netty.tryReflectionSetAccessible") == null) {
            System.setProperty("io.netty.tryReflectionSetAccessible", "true");
        }
        // Polling mode writes from the application's threads: netty recycles their outbound entries
        // through an allocating queue unless plain threads get its recycling batch too
        // (docs/transport.md, "Allocation").
        if (System.getProperty("io.netty.recycler.batchFastThreadLocalOnly") == null) {
            System.setProperty("io.netty.recycler.batchFastThreadLocalOnly", "false");
        }
        int code = run(args, System.out, System.err);
        if (code != EXIT_OK) {
            System.exit(code);
        }
    }

    /**
     * Dispatches to a command.
     *
     * @param args the command and its arguments
     * @param out  normal output
     * @param err  usage errors
     * @return the exit code
     * @throws Exception whatever the command throws
     */
    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length == 0) {
            err.println("missing command");
            printUsage(err);
            return EXIT_USAGE;
        }
        String name = args[0];
        if (name.equals("-h") || name.equals("--help")) {
            printUsage(out);
            return EXIT_OK;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        for (Command command : COMMANDS) {
            if (command.name().equals(name)) {
                try {
                    return command.action().run(rest, out);
                } catch (UsageException e) {
                    err.println(e.getMessage());
                    printUsage(err);
                    return EXIT_USAGE;
                }
            }
        }
        err.println("unknown command: " + name);
        printUsage(err);
        return EXIT_USAGE;
    }

    /**
     * Prints the usage message: the commands of this build.
     *
     * @param out where to print
     */
    static void printUsage(PrintStream out) {
        out.println("usage: java -jar rnic-bench.jar <command> [args...]");
        out.println();
        out.println("commands:");
        for (Command command : COMMANDS) {
            String head = command.synopsis().isEmpty() ? command.name() : command.name() + " " + command.synopsis();
            out.printf("  %-45s %s%n", head, command.summary());
        }
    }

    /** Runs {@link CodecDemo} with the seed given, or its default seed. */
    private static int runDemo(String[] args, PrintStream out) {
        return new CodecDemo(out).run(optionalNumber(args, "demo", "seed", DEMO_SEED));
    }

    /** Runs {@link CrossCoreCopy} for the seconds given (default {@value #COPY_PROBE_SECONDS}). */
    private static int runCopyProbe(String[] args, PrintStream out) throws InterruptedException {
        long seconds = optionalNumber(args, "copy-probe", "seconds", COPY_PROBE_SECONDS);
        if (seconds < 1 || seconds > 3600) {
            throw new UsageException("copy-probe seconds must be in [1, 3600], was " + seconds);
        }
        CrossCoreCopy.run((int) seconds, out);
        return EXIT_OK;
    }

    /** Runs {@link TcpWriteSizes} on its default patterns for the rounds given (default {@value #TCP_WRITE_PROBE_ROUNDS}). */
    private static int runTcpWriteProbe(String[] args, PrintStream out) throws Exception {
        long rounds = optionalNumber(args, "tcp-write-probe", "rounds", TCP_WRITE_PROBE_ROUNDS);
        if (rounds < 1 || rounds > 1000) {
            throw new UsageException("tcp-write-probe rounds must be in [1, 1000], was " + rounds);
        }
        TcpWriteSizes.run(TcpWriteSizes.DEFAULT_PATTERNS, (int) rounds, TCP_WRITE_PROBE_SLICE_MILLIS, out);
        return EXIT_OK;
    }

    private static int runScaleTurns(String[] args, PrintStream out) throws Exception {
        if (args.length > 4) {
            throw new UsageException("scale-turns takes at most N, rounds, a mode and a slice");
        }
        long qps = args.length > 0 ? number("scale-turns", "N", args[0]) : SCALE_TURNS_QPS;
        long rounds = args.length > 1 ? number("scale-turns", "rounds", args[1]) : SCALE_TURNS_ROUNDS;
        if (qps < 2 || qps > 10_000 || rounds < 1 || rounds > 1000) {
            throw new UsageException("scale-turns needs N in [2, 10000] and rounds in [1, 1000], was " + qps + ", " + rounds);
        }
        IoMode mode = IoMode.POLLING;
        if (args.length > 2) {
            mode = switch (args[2]) {
                case "polling" -> IoMode.POLLING;
                case "event-loop" -> IoMode.EVENT_LOOP;
                default -> throw new UsageException("scale-turns mode must be polling or event-loop, was " + args[2]);
            };
        }
        long slice = args.length > 3 ? number("scale-turns", "slice-ms", args[3]) : SCALE_TURNS_SLICE_MILLIS;
        if (slice < 1 || slice > 60_000) {
            throw new UsageException("scale-turns slice-ms must be in [1, 60000], was " + slice);
        }
        ScaleTurns.run((int) qps, 65536, mode, (int) rounds, (int) slice, out);
        return EXIT_OK;
    }

    /** N of {@code scale-turns} when none is given: issue 11's thousand. */
    static final int SCALE_TURNS_QPS = 1000;
    /** Rounds {@code scale-turns} runs when none are given. */
    static final int SCALE_TURNS_ROUNDS = 10;
    /** Milliseconds of one variant's turn in {@code scale-turns}. */
    static final int SCALE_TURNS_SLICE_MILLIS = 500;

    /** Rounds {@code tcp-write-probe} runs when none are given. */
    static final int TCP_WRITE_PROBE_ROUNDS = 10;
    /** Milliseconds of one pattern's turn in {@code tcp-write-probe}. */
    static final int TCP_WRITE_PROBE_SLICE_MILLIS = 300;

    /**
     * The one optional integer argument of a command.
     *
     * @param args     the command's arguments
     * @param command  its name, for the messages
     * @param what     what the number is, for the messages
     * @param fallback the value without an argument
     * @return the number
     * @throws UsageException for more than one argument or one that is not an integer
     */
    private static long optionalNumber(String[] args, String command, String what, long fallback) {
        if (args.length > 1) {
            throw new UsageException(command + " takes at most one argument, the " + what + "; got " + args.length);
        }
        return args.length == 1 ? number(command, what, args[0]) : fallback;
    }

    /** One integer argument of a command. */
    private static long number(String command, String what, String arg) {
        try {
            return Long.parseLong(arg);
        } catch (NumberFormatException e) {
            throw new UsageException(command + " " + what + " must be an integer, was '" + arg + "'");
        }
    }

    /** Seconds {@code copy-probe} runs when none are given. */
    static final int COPY_PROBE_SECONDS = 20;

    /**
     * Runs {@link Rping}; its usage errors become this tool's usage errors. Its failures go to
     * {@code System.err}, as rping's do.
     */
    private static int runRping(String[] args, PrintStream out) throws Exception {
        try {
            return Rping.run(args, out, System.err);
        } catch (IllegalArgumentException e) {
            throw new UsageException("rping: " + e.getMessage());
        }
    }

    /** Hands the arguments to the JMH runner, which reads META-INF/BenchmarkList from this jar. */
    private static int runJmh(String[] args, PrintStream out) throws Exception {
        // org.openjdk.jmh.Main prints to System.out and calls System.exit(1) itself on its errors.
        org.openjdk.jmh.Main.main(args);
        return EXIT_OK;
    }
}
