package io.jrnic.bench.jmh;

import io.jrnic.bench.transport.MessageOptions;
import io.jrnic.bench.transport.PingPong;
import io.jrnic.bench.transport.Transport;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round-trip latency of an 8-byte ping-pong between two endpoints in this JVM: each operation sends
 * one {@value #PING_SIZE}-byte message and waits until a background peer has echoed it back.
 * Average time and the sampled distribution (percentiles), in microseconds.
 *
 * <p>Each trial opens a fresh connected pair; its teardown verifies that every ping came back
 * intact in both directions (sequence number, CRC when on).
 *
 * <p>Thread safety: JMH gives each benchmark thread its own instance ({@code Scope.Thread}), hence
 * its own connection.
 */
@BenchmarkMode({Mode.AverageTime, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// The JVM options for an allocation-free data path (docs/transport.md; see ThroughputBenchmark).
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dio.netty.tryReflectionSetAccessible=true",
        "-Dio.netty.recycler.batchFastThreadLocalOnly=false"})
@State(Scope.Thread)
public class LatencyBenchmark {

    /** Bytes of one ping (and of its echo), without the CRC trailer. */
    public static final int PING_SIZE = 8;

    /**
     * The transport under test: every {@link Transport} constant that {@linkplain
     * Transport#hasPingPong() has a ping-pong}, i.e. all but the stream-only {@code TCP_PACKED} (a
     * test checks this list against the enum, so a new transport cannot be left out silently).
     * {@code TCP} parks in {@code read}, {@code TCP_BUSY_POLL} spins on it: the blocking baseline
     * and the floor.
     */
    @Param({"TCP", "TCP_BUSY_POLL", "RNIC_WRITE", "RNIC_SEND"})
    public Transport transport;

    /** Whether each direction carries a CRC32c trailer computed by its sender and checked by its receiver. */
    @Param({"false", "true"})
    public boolean crc;

    private PingPong pingPong;

    /** JMH creates one instance per trial; {@link #open} sets it up. */
    public LatencyBenchmark() {
    }

    /**
     * Connects the pair and starts the echoing peer.
     *
     * @throws IOException if the pair could not be connected
     */
    @Setup(Level.Trial)
    public void open() throws IOException {
        pingPong = transport.openPingPong(new MessageOptions(PING_SIZE, crc, false));
    }

    /**
     * Ends and closes the pair, and fails the trial if any ping or echo was lost or corrupted.
     *
     * @throws IOException          if the transport failed
     * @throws InterruptedException if interrupted while waiting for the peer
     */
    @TearDown(Level.Trial)
    public void close() throws IOException, InterruptedException {
        pingPong.finish().verified();
    }

    /**
     * One round trip.
     *
     * @return the sequence number of the echo (returned so that JMH consumes it)
     * @throws IOException if the transport failed
     */
    @Benchmark
    public long pingPong() throws IOException {
        return pingPong.roundTrip();
    }
}
