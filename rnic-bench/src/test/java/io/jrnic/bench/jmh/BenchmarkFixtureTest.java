package io.jrnic.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrnic.bench.transport.Transport;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;
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
    @CsvSource({"TCP, 65536, false", "TCP, 65536, true", "TCP, 4096, true", "TCP, 64, false",
            "TCP_BUSY_POLL, 64, true", "TCP_PACKED, 64, false", "TCP_PACKED, 64, true", "TCP_PACKED, 4096, true"})
    void throughputTrialSendsAndVerifies(Transport transport, int messageSize, boolean crc) throws Exception {
        ThroughputBenchmark benchmark = new ThroughputBenchmark();
        benchmark.transport = transport;
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

    /** A post list of 16 (the {@code postList} parameter) moves and verifies every message. */
    @ParameterizedTest
    @CsvSource({"RNIC_WRITE, 64, 1", "RNIC_WRITE, 64, 16", "RNIC_SEND, 4096, 16"})
    void rnicThroughputTrialPostsListsAndVerifies(Transport transport, int messageSize, int postList) throws Exception {
        ThroughputBenchmark benchmark = new ThroughputBenchmark();
        benchmark.transport = transport;
        benchmark.messageSize = messageSize;
        benchmark.crc = true;
        benchmark.postList = postList;
        ThroughputBenchmark.PayloadBytes bytes = new ThroughputBenchmark.PayloadBytes();

        benchmark.open();
        bytes.reset();
        for (int i = 0; i < 200; i++) {
            benchmark.message(bytes);
        }
        benchmark.close();

        assertThat(bytes.payloadBytes).isEqualTo(200L * messageSize);
    }

    @ParameterizedTest
    @CsvSource({"TCP, false", "TCP, true", "TCP_BUSY_POLL, false", "TCP_BUSY_POLL, true"})
    void latencyTrialEchoesEachPing(Transport transport, boolean crc) throws Exception {
        LatencyBenchmark benchmark = new LatencyBenchmark();
        benchmark.transport = transport;
        benchmark.crc = crc;

        benchmark.open();
        for (long i = 0; i < 100; i++) {
            assertThat(benchmark.pingPong()).isEqualTo(i);
        }
        benchmark.close();
    }

    @ParameterizedTest
    @CsvSource({"TCP, 1", "TCP, 3", "RNIC, 3"})
    void scaleTrialWritesToEveryConnectionInTurn(String transport, int qps) throws Exception {
        ScaleThroughputBenchmark benchmark = new ScaleThroughputBenchmark();
        benchmark.transport = transport;
        benchmark.qps = qps;
        benchmark.messageSize = 4096;
        int writes = 200;
        benchmark.connect();
        try {
            for (int i = 0; i < writes; i++) {
                assertThat(benchmark.write()).isEqualTo(i % qps);
            }
            benchmark.settle(); // every Write completed, or every byte read (bounded: 10 s)
            if (transport.equals("TCP")) {
                // one reader drains every connection: polled (1) or through the selector (3)
                assertThat(benchmark.tcpBytesRead()).isEqualTo((long) writes * 4096);
            }
        } finally {
            benchmark.close();
        }
    }

    @Test
    void latencyBenchmarkRunsEveryTransportThatHasAPingPong() throws Exception {
        String[] listed = LatencyBenchmark.class.getField("transport").getAnnotation(Param.class).value();

        List<String> withPingPong = Arrays.stream(Transport.values()).filter(Transport::hasPingPong).map(Enum::name).toList();
        assertThat(listed).containsExactlyElementsOf(withPingPong).contains("TCP", "TCP_BUSY_POLL");
    }

    @Test
    void throughputBenchmarkRunsEveryTransportAndTheSmallMessages() throws Exception {
        // no values (JMH's blank default): JMH runs every constant, the packed baseline included
        assertThat(ThroughputBenchmark.class.getField("transport").getAnnotation(Param.class).value())
                .containsExactly(Param.BLANK_ARGS);
        assertThat(ThroughputBenchmark.class.getField("messageSize").getAnnotation(Param.class).value())
                .containsExactly("65536", "4096", "64");
    }
}
