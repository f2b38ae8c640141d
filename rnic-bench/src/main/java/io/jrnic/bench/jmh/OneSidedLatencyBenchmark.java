package io.jrnic.bench.jmh;

import io.jrnic.bench.transport.OneSidedOperation;
import io.jrnic.bench.transport.PingPong;
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
 * Round-trip latency of the RNIC's one-sided operations with a response: one operation posts one
 * request (RDMA Read of 8 bytes, FetchAdd, CmpSwap, Atomic Write, Flush of 8 bytes with global
 * visibility, Verify of 64 bytes without an expected hash) and busy-polls the CQ until its completion,
 * i.e. until the responder's RNIC answered, with no application thread on the responder
 * ({@link io.jrnic.bench.transport.RnicRoundTrip}). The {@link OneSidedOperation#TCP_PING_PONG}
 * and {@link OneSidedOperation#TCP_BUSY_POLL_PING_PONG} constants run the raw-TCP 8-byte ping-pongs
 * of {@link LatencyBenchmark} (blocking, and the busy-polling floor) in the same invocation, so that
 * the ratio RNIC / TCP is taken within one run (docs/benchmarks.md, "One-sided round trips").
 * Average time and the sampled distribution (percentiles), in microseconds.
 *
 * <p>Each trial connects a fresh pair; its teardown fails the trial if any result was wrong or the
 * responder's target does not hold what the operations left there (the FetchAdd counter equals the
 * number of operations, and so on).
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
public class OneSidedLatencyBenchmark {

    /** The operation under test; no values given, so JMH runs every constant, the TCP baselines included. */
    @Param
    public OneSidedOperation operation;

    /** TCP: a CRC32c trailer on each message; RNIC: MPA with CRC (REQUIRED on both sides) or without. */
    @Param({"false", "true"})
    public boolean crc;

    private PingPong roundTrip;

    /** JMH creates one instance per trial; {@link #open} sets it up. */
    public OneSidedLatencyBenchmark() {
    }

    /**
     * Connects the pair (and, for the TCP baseline, starts the echoing peer).
     *
     * @throws IOException if the pair could not be connected
     */
    @Setup(Level.Trial)
    public void open() throws IOException {
        roundTrip = operation.open(crc);
    }

    /**
     * Closes the pair and fails the trial if any result was wrong or lost.
     *
     * @throws IOException          if the transport failed
     * @throws InterruptedException if interrupted while waiting for the TCP peer
     */
    @TearDown(Level.Trial)
    public void close() throws IOException, InterruptedException {
        roundTrip.finish().verified();
    }

    /**
     * One request and its response.
     *
     * @return the operation's sequence number (returned so that JMH consumes it)
     * @throws IOException if the transport failed
     */
    @Benchmark
    public long roundTrip() throws IOException {
        return roundTrip.roundTrip();
    }
}
