package io.jrnic.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrnic.api.IoMode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** {@code scale-turns}: four variants in turns, every one moving Writes, the N/1 ratios printed. */
class ScaleTurnsTest {

    @ParameterizedTest
    @EnumSource(IoMode.class)
    void everyVariantMovesWritesAndTheRatiosArePrinted(IoMode mode) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ScaleTurns.Result r = ScaleTurns.run(3, 4096, mode, 2, 20, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(r.rates()).hasSize(4);
        assertThat(java.util.Arrays.stream(r.rates()).min().orElseThrow()).as("the slowest variant").isPositive();
        assertThat(r.rnicRatio()).isPositive();
        assertThat(r.tcpRatio()).isPositive();
        assertThat(r.cpuMicrosPerWrite()).hasSize(4);
        assertThat(java.util.Arrays.stream(r.cpuMicrosPerWrite()).min().orElseThrow()).as("CPU per Write").isPositive();
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(out).contains("rnic 1 ", "rnic 3 ", "tcp 1 ", "tcp 3 ", "us of CPU per Write", "rounds rnic 3/1: median",
                "tcp 3/1: median");
    }

    @Test
    void oneConnectionIsNoScale() {
        assertThatThrownBy(() -> ScaleTurns.run(1, 4096, IoMode.POLLING, 1, 1, System.out))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("N >= 2");
    }
}
