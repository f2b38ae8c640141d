package io.jrnic.bench.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TcpWriteSizes}: every pattern moves bytes over loopback and gets its line. */
class TcpWriteSizesTest {

    @Test
    void eachPatternGetsAPositiveRateAndALine() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        List<TcpWriteSizes.Pattern> patterns = List.of(new TcpWriteSizes.Pattern(65536, 32768),
                new TcpWriteSizes.Pattern(100, 7));

        double[] rates = TcpWriteSizes.run(patterns, 2, 20, new PrintStream(text, true, StandardCharsets.UTF_8));

        assertThat(rates).hasSize(2);
        // MB/s: more than a byte per microsecond, less than a terabyte per second
        assertThat(rates[0]).isBetween(1.0, 1e6);
        assertThat(rates[1]).isBetween(1.0, 1e6);
        String printed = text.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("message    65536 B in writes of at most  32768 B:")
                .contains("message      100 B in writes of at most      7 B:")
                .contains("tcp-write-probe: 2 patterns, 2 rounds of 20 ms each");
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new TcpWriteSizes.Pattern(0, 1))
                .withMessageContaining("message bytes");
        assertThatIllegalArgumentException().isThrownBy(() -> new TcpWriteSizes.Pattern((1 << 20) + 1, 1));
        assertThatIllegalArgumentException().isThrownBy(() -> new TcpWriteSizes.Pattern(1, 0));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TcpWriteSizes.run(TcpWriteSizes.DEFAULT_PATTERNS, 0, 10, System.out))
                .withMessageContaining("rounds");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TcpWriteSizes.run(TcpWriteSizes.DEFAULT_PATTERNS, 1, 0, System.out));
        assertThatIllegalArgumentException().isThrownBy(() -> TcpWriteSizes.run(List.of(), 1, 10, System.out));
    }
}
