package io.jrnic.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @Test
    void unknownCommandPrintsUsageAndExitsWithTwo() throws Exception {
        int code = Main.run(new String[] {"frobnicate"}, out, err);

        assertThat(code).isEqualTo(Main.EXIT_USAGE).isEqualTo(2);
        assertThat(err()).contains("unknown command: frobnicate").contains("usage:");
        assertThat(out()).isEmpty();
    }

    @Test
    void missingCommandPrintsUsageAndExitsWithTwo() throws Exception {
        int code = Main.run(new String[0], out, err);

        assertThat(code).isEqualTo(2);
        assertThat(err()).contains("missing command").contains("usage:");
    }

    @Test
    void rpingRunsClientAndServerOverLoopback() throws Exception {
        int code = Main.run(new String[] {"rping", "-C", "3", "-V"}, out, err);

        assertThat(code).isEqualTo(Main.EXIT_OK);
        assertThat(out()).startsWith("rping loopback: ok, 3 pings of 64 bytes");
    }

    @Test
    void rpingArgumentErrorsAreUsageErrors() throws Exception {
        int code = Main.run(new String[] {"rping", "-S", "10"}, out, err);

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("rping: Invalid size 10 (valid range is 26 to 65535)").contains("usage:");
    }

    @Test
    void demoRunsTheCodecWalkThrough() throws Exception {
        int code = Main.run(new String[] {"demo"}, out, err);

        assertThat(code).isEqualTo(Main.EXIT_OK);
        assertThat(out()).contains("demo: all checks passed");
    }

    @Test
    void demoRejectsANonNumericSeed() throws Exception {
        int code = Main.run(new String[] {"demo", "abc"}, out, err);

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("demo seed must be an integer, was 'abc'").contains("usage:");
    }

    @Test
    void copyProbePrintsARatePerHalfSecondAndItsSummary() throws Exception {
        int code = Main.run(new String[] {"copy-probe", "1"}, out, err);

        assertThat(code).isEqualTo(Main.EXIT_OK);
        assertThat(out()).containsPattern("(?m)^ +0\\.[0-9] s +[0-9]+\\.[0-9]{2} GB/s$")
                .containsPattern("copy-probe: [0-9]+ rates, lowest [0-9.]+, median [0-9.]+, highest [0-9.]+ GB/s");
    }

    @Test
    void copyProbeRejectsSecondsOutOfRange() throws Exception {
        assertThat(Main.run(new String[] {"copy-probe", "0"}, out, err)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("copy-probe seconds must be in [1, 3600], was 0");
        assertThat(Main.run(new String[] {"copy-probe", "x"}, out, err)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("copy-probe seconds must be an integer, was 'x'");
    }

    @Test
    void tcpWriteProbePrintsARatePerPatternAndItsSummary() throws Exception {
        int code = Main.run(new String[] {"tcp-write-probe", "1"}, out, err);

        assertThat(code).isEqualTo(Main.EXIT_OK);
        assertThat(out()).containsPattern("(?m)^message +65536 B in writes of at most +32768 B: +[0-9]+ MB/s$")
                .contains("tcp-write-probe: 6 patterns, 1 rounds of 300 ms each");
    }

    @Test
    void tcpWriteProbeRejectsRoundsOutOfRange() throws Exception {
        assertThat(Main.run(new String[] {"tcp-write-probe", "0"}, out, err)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("tcp-write-probe rounds must be in [1, 1000], was 0");
    }

    @Test
    void scaleTurnsRejectsBadArguments() throws Exception {
        assertThat(Main.run(new String[] {"scale-turns", "1"}, out, err)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("scale-turns needs N in [2, 10000] and rounds in [1, 1000], was 1, 10");
        assertThat(Main.run(new String[] {"scale-turns", "4", "2", "busy"}, out, err)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("scale-turns mode must be polling or event-loop, was busy");
        assertThat(Main.run(new String[] {"scale-turns", "x"}, out, err)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("scale-turns N must be an integer, was 'x'");
        assertThat(Main.run(new String[] {"scale-turns", "4", "2", "polling", "0"}, out, err)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("scale-turns slice-ms must be in [1, 60000], was 0");
        assertThat(Main.run(new String[] {"scale-turns", "4", "2", "polling", "10", "x"}, out, err))
                .isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("scale-turns takes at most N, rounds, a mode and a slice");
    }

    @Test
    void helpListsCommandsOnStdout() throws Exception {
        for (String help : new String[] {"help", "-h", "--help"}) {
            outBytes.reset();

            assertThat(Main.run(new String[] {help}, out, err)).isEqualTo(Main.EXIT_OK);

            assertThat(out()).contains("usage: java -jar rnic-bench.jar <command>")
                    .contains("  jmh ").contains("  demo ").contains("  help ").contains("rping");
        }
        assertThat(err()).isEmpty();
    }

    @Test
    void jmhListShowsTheBaselinesFromTheBenchmarkList() throws Exception {
        // JMH's list prints to System.out; the generated META-INF/BenchmarkList is on the class path.
        PrintStream original = System.out;
        System.setOut(out);
        int code;
        try {
            code = Main.run(new String[] {"jmh", "-l"}, out, err);
        } finally {
            System.setOut(original);
        }

        assertThat(code).isEqualTo(Main.EXIT_OK);
        assertThat(out()).contains("io.jrnic.bench.jmh.ThroughputBenchmark.message")
                .contains("io.jrnic.bench.jmh.LatencyBenchmark.pingPong")
                .contains("io.jrnic.bench.jmh.OneSidedLatencyBenchmark.roundTrip");
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }
}
