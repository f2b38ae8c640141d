package io.jrnic.bench.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PerftestOptionsTest {

    @Test
    void perftestsOptionsParseWithTheirDefaults() {
        PerftestOptions o = Perftest.parse(PerftestTest.WRITE_BW, "-R", "-d", "siw0", "-F", "--report_gbits", "-s", "8",
                "-D", "3", "-p", "7201", "-t", "64", "-I", "0", "-q", "1", "10.0.2.15");
        assertThat(o.server()).isEqualTo("10.0.2.15");
        assertThat(o.size(PerftestTest.WRITE_BW)).isEqualTo(8);
        assertThat(o.duration()).isEqualTo(3);
        assertThat(o.port()).isEqualTo(7201);
        assertThat(o.txDepth(PerftestTest.WRITE_BW)).isEqualTo(64);
        assertThat(o.reportGbits()).isTrue();
        assertThat(o.mode()).isEqualTo(PerftestOptions.Mode.EVENT_LOOP);

        PerftestOptions d = Perftest.parse(PerftestTest.WRITE_BW);
        assertThat(d.server()).isNull();
        assertThat(d.port()).isEqualTo(PerftestOptions.DEFAULT_PORT);
        assertThat(d.size(PerftestTest.WRITE_BW)).isEqualTo(65536);
        assertThat(d.iterations(PerftestTest.WRITE_BW)).isEqualTo(5000);
        assertThat(d.iterations(PerftestTest.SEND_LAT)).isEqualTo(1000);
        assertThat(d.txDepth(PerftestTest.WRITE_LAT)).isEqualTo(1);
        assertThat(Perftest.parse(PerftestTest.WRITE_LAT, "--loopback").size(PerftestTest.WRITE_LAT)).isEqualTo(8);
    }

    @Test
    void multipleQpsInlineAndAllSizesParse() {
        PerftestOptions o = Perftest.parse(PerftestTest.SEND_BW, "-q", "4", "-I", "64", "10.0.2.15");
        assertThat(o.qps()).isEqualTo(4);
        assertThat(o.inlineSize()).isEqualTo(64);
        assertThat(Perftest.parse(PerftestTest.WRITE_BW, "-a", "10.0.2.15").allSizes()).isTrue();
        assertThat(Perftest.parse(PerftestTest.READ_BW, "-a").allSizes()).isTrue();
        assertThat(Perftest.parse(PerftestTest.SEND_LAT, "-a", "--loopback").allSizes()).isTrue();
        assertThat(Perftest.parse(PerftestTest.READ_LAT, "--warm-up", "200").warmUp()).isEqualTo(200);
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.READ_LAT, "--warm-up", "200", "--loopback"))
                .hasMessageContaining("--warm-up");
    }

    @Test
    void clusteredShortOptionsAndOursParse() {
        PerftestOptions o = Perftest.parse(PerftestTest.SEND_LAT, "-Rn", "100", "--crc", "--markers", "--setup-timeout-s",
                "300", "--pause-ms", "0", "--mode", "event-loop", "--json", "--loopback");
        assertThat(o.iterations(PerftestTest.SEND_LAT)).isEqualTo(100);
        assertThat(o.crc()).isTrue();
        assertThat(o.markers()).isTrue();
        assertThat(o.setupTimeoutSeconds()).isEqualTo(300);
        assertThat(o.pauseMillis()).isZero();
        assertThat(o.json()).isTrue();
        assertThat(o.loopback()).isTrue();
    }

    @Test
    void badCombinationsAreRefusedWithAReason() {
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "--loopback", "-l", "65"))
                .hasMessageContaining("-l 65");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "-t", "8", "-l", "9", "host"))
                .hasMessageContaining("-l 9");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "-l", "0", "host")).hasMessageContaining("-l 0");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_LAT, "--mode", "spin"))
                .hasMessageContaining("not a mode");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "-n", "10", "-D", "2")).hasMessageContaining("-D");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "--loopback", "host")).hasMessageContaining("loopback");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.FLUSH_LAT, "host")).hasMessageContaining("--loopback");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_LAT, "-q", "2")).hasMessageContaining("one queue pair");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "-q", "0")).hasMessageContaining("queue pairs");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "-I", "913")).hasMessageContaining("inline");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.SEND_BW, "-a", "host")).hasMessageContaining("-a");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "--loopback", "-s", "2")).hasMessageContaining("-s 8");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "--bogus")).hasMessageContaining("--bogus");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_LAT, "--baseline")).hasMessageContaining("--baseline")
                .hasMessageContaining("--loopback");
    }

    @Test
    void pollingSpinIsMicrosecondsInPollingModeOnly() {
        assertThat(Perftest.parse(PerftestTest.READ_LAT, "--mode", "polling", "host").pollingSpin()).isNull();
        assertThat(Perftest.parse(PerftestTest.READ_LAT, "--mode", "polling", "--polling-spin-us", "0", "host")
                .pollingSpin()).isEqualTo(java.time.Duration.ZERO);
        assertThat(Perftest.parse(PerftestTest.READ_LAT, "--mode", "polling", "--polling-spin-us", "1000000", "host")
                .pollingSpin()).isEqualTo(java.time.Duration.ofSeconds(1));
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.READ_LAT, "--mode", "polling", "--polling-spin-us", "-1", "host"))
                .hasMessageContaining("--polling-spin-us -1");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.READ_LAT, "--mode", "polling", "--polling-spin-us", "1000001",
                "host")).hasMessageContaining("--polling-spin-us 1000001");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.READ_LAT, "--polling-spin-us", "10", "host"))
                .hasMessageContaining("only with --mode polling");
    }

    @Test
    void sliceIsHalfASecondByDefaultZeroForOneAfterTheOtherAndNeedsLoopback() {
        assertThat(Perftest.parse(PerftestTest.WRITE_BW, "--loopback").sliceMillis()).isEqualTo(Turns.DEFAULT_SLICE_MILLIS);
        assertThat(Perftest.parse(PerftestTest.WRITE_BW, "--loopback", "--slice-ms", "0").sliceMillis()).isZero();
        assertThat(Perftest.parse(PerftestTest.WRITE_BW, "--loopback", "--slice-ms", "60000").sliceMillis()).isEqualTo(60_000);
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "--loopback", "--slice-ms", "-1"))
                .hasMessageContaining("--slice-ms -1");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "--loopback", "--slice-ms", "60001"))
                .hasMessageContaining("--slice-ms 60001");
        assertThatThrownBy(() -> Perftest.parse(PerftestTest.WRITE_BW, "--slice-ms", "100", "host"))
                .hasMessageContaining("--slice-ms").hasMessageContaining("--loopback");
    }

    @Test
    void baselineIsOffUnlessAskedFor() {
        assertThat(Perftest.parse(PerftestTest.WRITE_LAT, "--loopback").baseline()).isFalse();
        assertThat(Perftest.parse(PerftestTest.WRITE_BW, "--loopback", "--baseline").baseline()).isTrue();
    }

    @Test
    void usageErrorsExitTwoAndHelpExitsZero() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Perftest.run(PerftestTest.READ_LAT, new String[] {"--mode", "spin"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(Perftest.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("ib_read_lat: ").contains("--report_gbits");
        out.reset();
        assertThat(Perftest.run(PerftestTest.READ_LAT, new String[] {"-h"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: ib_read_lat").contains("--loopback");
    }
}
