package io.jrnic.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrnic.bench.transport.Transport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Drives the JMH benchmark classes through their lifecycle by hand (setup, operations, teardown),
 * as the JMH runner does, so that a fixture that moved nothing or failed its teardown check would
 * fail here rather than in a benchmark run.
 */
class BenchmarkFixtureTest {

    @ParameterizedTest
    @CsvSource({"65536, false", "65536, true", "4096, true"})
    void throughputTrialSendsAndVerifies(int messageSize, boolean crc) throws Exception {
        ThroughputBenchmark benchmark = new ThroughputBenchmark();
        benchmark.transport = Transport.TCP;
        benchmark.messageSize = messageSize;
        benchmark.crc = crc;
        ThroughputBenchmark.PayloadBytes bytes = new ThroughputBenchmark.PayloadBytes();

        benchmark.open();
        bytes.reset();
        for (int i = 0; i < 100; i++) {
            benchmark.message(bytes);
        }
        benchmark.close();

        assertThat(bytes.payloadBytes).isEqualTo(100L * messageSize);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void latencyTrialEchoesEachPing(boolean crc) throws Exception {
        LatencyBenchmark benchmark = new LatencyBenchmark();
        benchmark.transport = Transport.TCP;
        benchmark.crc = crc;

        benchmark.open();
        for (long i = 0; i < 100; i++) {
            assertThat(benchmark.pingPong()).isEqualTo(i);
        }
        benchmark.close();
    }
}
