package io.jrnic.bench.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every command in loopback at small counts, and the JSON line's shape. */
class PerftestCommandTest {

    private static final String NUM = "-?[0-9]+(\\.[0-9]+)?";
    private static final Pattern LAT_MEMBER = Pattern.compile("\\{\"min_us\": " + NUM + ", \"p50_us\": " + NUM
            + ", \"p99_us\": " + NUM + ", \"p999_us\": " + NUM + ", \"avg_us\": " + NUM + "}");
    private static final Pattern BW_MEMBER = Pattern.compile("\\{\"gbps\": " + NUM + ", \"mpps\": " + NUM + "}");

    record Run(int code, String out, String err) {
        String lastLine() {
            List<String> lines = out.lines().toList();
            return lines.get(lines.size() - 1);
        }
    }

    static Run run(PerftestTest test, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Perftest.run(test, args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(PerftestTest.class)
    void everyCommandRunsInLoopbackAndEndsWithItsJson(PerftestTest test) {
        Run r = run(test, "--loopback", "-n", "40", "-s", "64", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        String json = r.lastLine();
        assertThat(json).startsWith("{\"test\": \"" + test.jsonName() + "\", \"bytes\": ");
        if (test.latency()) {
            assertThat(r.out()).contains("t_typical[usec]").contains("99.9% percentile[usec]").contains(" rnic").contains(" tcp");
            assertThat(json).matches(Pattern.quote("{\"test\": \"" + test.jsonName() + "\", \"bytes\": ") + "[0-9]+"
                    + Pattern.quote(", \"iterations\": 40, \"mode\": \"event-loop\", \"crc\": false, \"rnic\": ")
                    + LAT_MEMBER + Pattern.quote(", \"tcp\": ") + LAT_MEMBER + ", \"ratio_p50\": " + NUM + "}");
        } else {
            assertThat(r.out()).contains("BW peak[MB/sec]").contains("MsgRate[Mpps]");
            assertThat(json).matches(Pattern.quote("{\"test\": \"" + test.jsonName() + "\", \"bytes\": ") + "[0-9]+"
                    + Pattern.quote(", \"iterations\": 40, \"qps\": 1, \"mode\": \"event-loop\", \"crc\": false, \"rnic\": ")
                    + BW_MEMBER + Pattern.quote(", \"tcp\": ") + BW_MEMBER + ", \"ratio\": " + NUM + "}");
        }
    }

    @Test
    void crcAndGbitsShowInTheRun() {
        Run r = run(PerftestTest.SEND_BW, "--loopback", "-n", "20", "-s", "4096", "--crc", "--report_gbits", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("MPA CRC on").contains("BW peak[Gb/sec]");
        assertThat(r.lastLine()).contains("\"bytes\": 4096").contains("\"crc\": true");
    }

    @Test
    void loopbackSpreadsTheRunOverQueuePairs() {
        // -q 3 -n 30: three RNIC pairs beside three TCP streams, 30 messages each (perftest's per-QP -n)
        Run r = run(PerftestTest.WRITE_BW, "--loopback", "-q", "3", "-n", "30", "-s", "256", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.lastLine()).contains("\"iterations\": 90, \"qps\": 3");
        Run read = run(PerftestTest.READ_BW, "--loopback", "-q", "2", "-n", "30", "-s", "256", "--json");
        assertThat(read.code()).as(read.err()).isZero();
        assertThat(read.lastLine()).contains("\"iterations\": 60, \"qps\": 2");
    }

    @Test
    void baselinePrintsTheBusyPollFloorBeforeTheRnicWithBothRatios() {
        Run r = run(PerftestTest.SEND_LAT, "--loopback", "--baseline", "-n", "40", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> rows = r.out().lines().filter(l -> l.startsWith(" 8 ")).toList();
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0)).endsWith(" tcp-busy-poll");
        assertThat(rows.get(1)).endsWith(" tcp");
        assertThat(rows.get(2)).endsWith(" rnic");
        assertThat(r.out()).contains(" ratio rnic/tcp: t_typical ").contains(" ratio rnic/tcp-busy-poll: t_typical ")
                .contains("beside raw TCP and its floor");
        assertThat(r.lastLine()).matches(".*" + Pattern.quote(", \"tcp\": ") + LAT_MEMBER + ", \"ratio_p50\": " + NUM
                + Pattern.quote(", \"tcp_busy_poll\": ") + LAT_MEMBER + ", \"ratio_p50_busy_poll\": " + NUM + "}");
    }

    @Test
    void baselinePrintsThePackedStreamBeforeTheRnicWithBothRatios() {
        Run r = run(PerftestTest.WRITE_BW, "--loopback", "--baseline", "-n", "300", "-s", "64", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> rows = r.out().lines().filter(l -> l.startsWith(" 64 ")).toList();
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0)).endsWith(" tcp-packed");
        assertThat(rows.get(1)).endsWith(" tcp");
        assertThat(rows.get(2)).endsWith(" rnic");
        assertThat(r.out()).contains(" ratio rnic/tcp: BW average ").contains(" ratio rnic/tcp-packed: BW average ");
        assertThat(r.lastLine()).matches(".*" + Pattern.quote(", \"tcp\": ") + BW_MEMBER + ", \"ratio\": " + NUM
                + Pattern.quote(", \"tcp_packed\": ") + BW_MEMBER + ", \"ratio_packed\": " + NUM + "}");
    }

    @Test
    void shortSlicesMakeTheRnicAndTcpTakeTurnsAndPrintTheRoundRatios() {
        Pattern rounds = Pattern.compile("\\{\"median\": " + NUM + ", \"min\": " + NUM + ", \"max\": " + NUM
                + ", \"rounds\": [0-9]+}");
        Run lat = run(PerftestTest.WRITE_LAT, "--loopback", "-n", "3000", "--slice-ms", "1", "--json");
        assertThat(lat.code()).as(lat.err()).isZero();
        assertThat(lat.out()).contains("in turns of 1 ms").containsPattern(
                " rounds rnic/tcp: t_typical median " + NUM + "x, " + NUM + "-" + NUM + "x over [0-9]+ rounds of 1 ms");
        assertThat(lat.lastLine()).matches(".*, \"rounds_p50\": " + rounds + "}");

        Run bw = run(PerftestTest.WRITE_BW, "--loopback", "-n", "20000", "-s", "256", "--slice-ms", "1", "--json");
        assertThat(bw.code()).as(bw.err()).isZero();
        assertThat(bw.out()).containsPattern(" rounds rnic/tcp: BW median " + NUM + "x, " + NUM + "-" + NUM + "x over");
        assertThat(bw.lastLine()).contains("\"iterations\": 20000,").matches(".*, \"rounds\": " + rounds + "}");
    }

    @Test
    void sliceZeroRunsOneAfterTheOtherWithoutRounds() {
        Run r = run(PerftestTest.WRITE_BW, "--loopback", "-n", "20000", "-s", "256", "--slice-ms", "0", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("one after the other").doesNotContain(" rounds ");
        assertThat(r.lastLine()).doesNotContain("rounds");
    }

    @Test
    void withoutBaselineTheOutputHasNoFloor() {
        Run r = run(PerftestTest.WRITE_LAT, "--loopback", "-n", "20", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).doesNotContain("busy-poll").doesNotContain("packed");
    }
}
