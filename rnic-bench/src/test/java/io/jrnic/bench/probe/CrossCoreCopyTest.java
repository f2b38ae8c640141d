package io.jrnic.bench.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link CrossCoreCopy}: it moves blocks through the ring and reports one rate per half second. */
class CrossCoreCopyTest {

    @Test
    void aSecondGivesTwoPositiveRatesAndTheirSummary() throws InterruptedException {
        ByteArrayOutputStream text = new ByteArrayOutputStream();

        double[] rates = CrossCoreCopy.run(1, new PrintStream(text, true, StandardCharsets.UTF_8));

        // 500 ms each: one second holds one or two reports, each of blocks really copied
        assertThat(rates).hasSizeBetween(1, 2);
        assertThat(java.util.Arrays.stream(rates).min().orElseThrow()).isPositive();
        assertThat(text.toString(StandardCharsets.UTF_8)).contains("copy-probe: " + rates.length + " rates");
    }

    @Test
    void lessThanASecondIsRefused() {
        assertThatThrownBy(() -> CrossCoreCopy.run(0, System.out)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seconds must be at least 1, was 0");
    }
}
