package io.jrnic.bench.jmh;

import io.jrnic.bench.transport.MessageOptions;
import io.jrnic.bench.transport.MessageStream;
import io.jrnic.bench.transport.Transport;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * One-way message throughput between two endpoints in this JVM: each operation hands one message
 * of {@link #messageSize} bytes to the transport while a background consumer reads every message
 * completely into native memory and checks it.
 *
 * <p>JMH reports {@code message} in messages/s and the secondary result {@code message:payloadBytes}
 * in payload bytes/s (printed as "ops/s"; the CRC trailer is not counted). bytes/s = messages/s ×
 * messageSize; docs/benchmarks.md has the conversion and the results.
 *
 * <p>Each trial opens a fresh connected pair and its teardown {@linkplain
 * io.jrnic.bench.transport.TransferReport#verified() verifies} that every message sent arrived
 * intact, so a broken transport fails the run instead of producing a number.
 *
 * <p>Thread safety: JMH gives each benchmark thread its own instance ({@code Scope.Thread}), hence
 * its own connection.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// The JVM options docs/transport.md recommends for an allocation-free data path: sun.nio.ch lets
// netty replace the JDK selector's HashSet of ready keys with its array (else 64 B per read event);
// java.nio lets the transport write RNIC memory through plain direct buffers (else the JDK's
// gathering write allocates 40 B per payload piece).
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dio.netty.tryReflectionSetAccessible=true",
        "-Dio.netty.recycler.batchFastThreadLocalOnly=false"})
@State(Scope.Thread)
public class ThroughputBenchmark {

    /**
     * The transport under test; no values given, so JMH runs every {@link Transport} constant: the
     * RNICs beside the per-write ({@code TCP}, {@code TCP_BUSY_POLL}) and the packed
     * ({@code TCP_PACKED}) raw-TCP streams.
     */
    @Param
    public Transport transport;

    /**
     * Payload bytes per message: 64 KiB is the size of the RNIC's bandwidth comparison, 64 bytes
     * its message rate (against {@code TCP_PACKED}, which puts 1024 of them in one write).
     */
    @Param({"65536", "4096", "64"})
    public int messageSize;

    /** Whether each message carries a CRC32c trailer computed by the sender and checked by the receiver. */
    @Param({"false", "true"})
    public boolean crc;

    /**
     * RNIC transports: messages per post ({@code postSend(wrs, 0, postList)}, a doorbell for many
     * work requests, perftest's {@code --post_list}); 1 posts each message on its own. The raw-TCP
     * streams ignore it. Up to {@value io.jrnic.bench.transport.MessageOptions#MAX_POST_LIST}.
     */
    @Param({"1"})
    public int postList = 1;

    private MessageStream stream;

    /**
     * Counts payload bytes; JMH divides by the iteration time and reports bytes/s.
     *
     * <p>Thread safety: one instance per benchmark thread ({@code Scope.Thread}), as JMH requires.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class PayloadBytes {

        /** Payload bytes sent in the current iteration. */
        public long payloadBytes;

        /** JMH creates one per benchmark thread. */
        public PayloadBytes() {
        }

        /** JMH does not reset auxiliary counters itself: start every iteration from zero. */
        @Setup(Level.Iteration)
        public void reset() {
            payloadBytes = 0;
        }
    }

    /** JMH creates one instance per trial; {@link #open} sets it up. */
    public ThroughputBenchmark() {
    }

    /**
     * Connects the pair and starts its consumer.
     *
     * @throws IOException if the pair could not be connected
     */
    @Setup(Level.Trial)
    public void open() throws IOException {
        stream = transport.openStream(new MessageOptions(messageSize, crc, false, postList));
    }

    /**
     * Drains and closes the pair, and fails the trial if any message was lost or corrupted.
     *
     * @throws IOException          if the transport failed
     * @throws InterruptedException if interrupted while draining
     */
    @TearDown(Level.Trial)
    public void close() throws IOException, InterruptedException {
        stream.finish().verified();
    }

    /**
     * Sends one message.
     *
     * @param bytes the payload byte counter
     * @throws IOException if the transport failed
     */
    @Benchmark
    public void message(PayloadBytes bytes) throws IOException {
        stream.send();
        bytes.payloadBytes += messageSize;
    }
}
