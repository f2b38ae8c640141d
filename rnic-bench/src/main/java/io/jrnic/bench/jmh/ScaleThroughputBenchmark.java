package io.jrnic.bench.jmh;

import io.jrnic.api.AccessRights;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.IoMode;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.bench.transport.ChannelIo;
import io.jrnic.bench.transport.LoopbackTcp;
import io.jrnic.bench.transport.TcpPackedStream;
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

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Aggregate RDMA Write throughput over many connected queue pairs of one RNIC pair (issue 11: 1,000
 * QPs must reach at least 0.8x a single QP's 64 KiB Write throughput). Each operation posts one
 * Write of {@link #messageSize} bytes on the next queue pair in turn, keeping at most
 * {@value #WINDOW} Writes outstanding per queue pair; all queue pairs share one CQ per side. The
 * setup reports the connection rate.
 *
 * <p>JMH reports Writes/s; bytes/s = Writes/s x messageSize. JMH runs {@code qps=1} and
 * {@code qps=1000} one after the other, while the machine's speed changes: {@link ScaleTurns}
 * ({@code scale-turns}) runs the variants in turns and gives the ratio the target asks for. The
 * RNICs' I/O mode comes from {@code -Djrnic.bench.ioMode} (default EVENT_LOOP), as for the other
 * RNIC benchmarks.
 *
 * <p>Each RNIC runs {@link RnicConfig#ioThreads()} I/O threads, the default unless
 * {@code -Djrnic.bench.ioThreads=N} sets them.
 *
 * <p>{@code transport=TCP} is the kernel's share of the same drop: {@link #qps} loopback TCP
 * connections, one thread writing each message to the next connection in turn (blocking, in writes
 * of {@value TcpPackedStream#WRITE_BYTES} bytes as the packed baseline writes), one thread reading
 * them all: with up to {@value #POLLED_SOCKETS} sockets it reads each in turn without a selector,
 * as a polling RNIC loop reads its sockets, and sleeps in the selector after
 * {@value #POLL_SPIN_NANOS} ns without data; with more it waits in an epoll selector and drains the
 * ready ones, as the RNIC's loops do with a thousand. Whatever TCP(1,000)/TCP(1) loses, the RNIC
 * cannot win back (docs/benchmarks.md).
 *
 * <p>Thread safety: one instance per benchmark thread ({@code Scope.Thread}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dio.netty.tryReflectionSetAccessible=true",
        "-Dio.netty.recycler.batchFastThreadLocalOnly=false"})
@State(Scope.Thread)
public class ScaleThroughputBenchmark {
    /** Writes outstanding per queue pair at most. */
    static final int WINDOW = 4;
    private static final long SETUP_SECONDS = 60;
    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE;

    /** Connected queue pairs. */
    @Param({"1", "1000"})
    public int qps;

    /** Payload bytes per Write. */
    @Param({"65536"})
    public int messageSize;

    /** RNIC: RDMA Writes over queue pairs; TCP: the raw-TCP counterpart over as many connections. */
    @Param({"RNIC", "TCP"})
    public String transport;

    /** Connections up to which the TCP reader polls each socket instead of asking a selector. */
    static final int POLLED_SOCKETS = 2;
    /** How long the polling TCP reader spins without data before it sleeps in the selector (the RNIC's pollingSpin). */
    static final long POLL_SPIN_NANOS = 50_000;

    /** The RNICs' I/O mode; null: {@code -Djrnic.bench.ioMode} (JMH runs), set by {@link ScaleTurns}. */
    IoMode ioMode;

    private SocketChannel[] tcpSenders;
    private long tcpWritten;
    private TcpReader tcpReader;
    private ByteBuffer tcpSource;

    private Rnic active;
    private Rnic passive;
    private ConnectionManager.Listener listener;
    private QueuePair[] queuePairs;
    private int[] outstanding;
    private CompletionQueue cq;
    private MemoryRegion source;
    private MemoryRegion sink;
    private long sinkTo;
    private long sourceTo;
    private int next;
    private final SendWorkRequest wr = new SendWorkRequest();
    private final WorkCompletion[] batch = new WorkCompletion[64];

    /** Created by JMH, one per benchmark thread. */
    public ScaleThroughputBenchmark() {
    }

    /**
     * Opens the two RNICs, registers the source and the sink, and connects {@link #qps} queue pairs
     * (printing the connection rate).
     *
     * @throws Exception if a connection fails or setup takes longer than a minute
     */
    @Setup(Level.Trial)
    public void connect() throws Exception {
        if (transport.equals("TCP")) {
            connectTcp();
            return;
        }
        IoMode mode = ioMode != null ? ioMode : IoMode.valueOf(System.getProperty("jrnic.bench.ioMode", "EVENT_LOOP"));
        int ioThreads = Integer.getInteger("jrnic.bench.ioThreads", new RnicConfig().ioThreads());
        // -Djrnic.bench.ioTransport, as for the RnicPair benchmarks (default AUTO: epoll where it loads)
        active = Rnic.open(new RnicConfig().name("scale-a-" + qps).ioMode(mode).ioThreads(ioThreads).qpLimits(qps + 8, 64)
                .cqLimits(4, 1 << 20, 4).ioTransport(io.jrnic.bench.transport.RnicPair.ioTransport()));
        passive = Rnic.open(new RnicConfig().name("scale-b-" + qps).ioMode(mode).ioThreads(ioThreads).qpLimits(qps + 8, 64)
                .cqLimits(4, 1 << 20, 4).ioTransport(io.jrnic.bench.transport.RnicPair.ioTransport()));
        ProtectionDomain pdA = active.allocatePd();
        ProtectionDomain pdB = passive.allocatePd();
        cq = active.createCq(qps * WINDOW + 64);
        CompletionQueue cqB = passive.createCq(qps * WINDOW + 64);
        MemorySegment from = active.allocateMemory(messageSize, 4096);
        MemorySegment to = passive.allocateMemory(messageSize, 4096);
        source = pdA.registerMemory(from, RIGHTS);
        sink = pdB.registerMemory(to, RIGHTS);
        sourceTo = from.address();
        sinkTo = to.address();
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        ConnectionSettings settings = new ConnectionSettings().crc(CrcMode.OFF).markers(false, false)
                .emss(ConnectionSettings.MAX_EMSS);
        QueuePairConfig config = new QueuePairConfig().depths(WINDOW, 1).sges(1, 1, 1, 0);
        queuePairs = new QueuePair[qps];
        outstanding = new int[qps];
        QueuePair[] passiveQps = new QueuePair[qps];
        for (int i = 0; i < qps; i++) {
            passiveQps[i] = pdB.createQueuePair(new QueuePairConfig().cqs(cqB, cqB).depths(1, 1).sges(1, 1, 1, 0));
        }
        int[] accepted = {0};
        listener = passive.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                settings, request -> {
                    synchronized (accepted) {
                        request.accept(passiveQps[accepted[0]++], null);
                    }
                });
        long start = System.nanoTime();
        CompletableFuture<?>[] connections = new CompletableFuture<?>[qps];
        for (int i = 0; i < qps; i++) {
            queuePairs[i] = pdA.createQueuePair(config.cqs(cq, cq));
            connections[i] = active.connectionManager().connect(queuePairs[i], listener.localAddress(), settings, null)
                    .toCompletableFuture();
        }
        CompletableFuture.allOf(connections).get(SETUP_SECONDS, TimeUnit.SECONDS);
        long nanos = System.nanoTime() - start;
        for (CompletableFuture<?> c : connections) {
            if (!(c.get() instanceof Connection)) {
                throw new IOException("connection failed: " + c);
            }
        }
        System.out.printf("%n%d connections in %.1f ms: %.0f connections/s%n", qps, nanos / 1e6, qps / (nanos / 1e9));
    }

    /**
     * Posts one Write on the next queue pair in turn, first reaping completions until that queue
     * pair has room in its window.
     *
     * @return the queue pair's index (consumed by JMH)
     * @throws IOException if a Write completed in error
     */
    @Benchmark
    public long write() throws IOException {
        int q = next;
        if (tcpSenders != null) {
            tcpSource.clear();
            ChannelIo.writeFully(tcpSenders[q], tcpSource, TcpPackedStream.WRITE_BYTES);
            tcpWritten += messageSize;
            next = q + 1 == qps ? 0 : q + 1;
            return q;
        }
        while (outstanding[q] >= WINDOW) {
            reap();
        }
        queuePairs[q].postSend(wr.reset().wrId(q).opcode(Opcode.RDMA_WRITE).sge(source.stag(), sourceTo, messageSize)
                .remote(sink.stag(), sinkTo));
        outstanding[q]++;
        next = q + 1 == qps ? 0 : q + 1;
        return q;
    }

    /**
     * Waits until everything written so far has arrived: the RNIC's Writes have completed, or the TCP
     * reader has read every byte ({@link ScaleTurns}: one variant's leftovers must not run in the
     * next one's turn).
     *
     * @throws IOException if a Write completed in error, or the TCP reader fell 10 s behind
     */
    void settle() throws IOException {
        if (tcpReader != null) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (tcpReader.bytes < tcpWritten) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("the TCP reader is " + (tcpWritten - tcpReader.bytes) + " bytes behind");
                }
                Thread.onSpinWait();
            }
            return;
        }
        for (int q = 0; q < qps; q++) {
            while (outstanding[q] > 0) {
                reap();
            }
        }
    }

    private void reap() throws IOException {
        int n = cq.poll(batch, 0, batch.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = batch[i];
            if (wc.status() != WorkCompletionStatus.SUCCESS) {
                throw new IOException("Write " + wc.wrId() + " completed " + wc.status());
            }
            outstanding[(int) wc.wrId()]--;
        }
        if (n == 0) {
            Thread.onSpinWait();
        }
    }

    /** Connects {@link #qps} loopback TCP pairs and starts the thread that reads them all. */
    private void connectTcp() throws IOException {
        long start = System.nanoTime();
        tcpSenders = new SocketChannel[qps];
        SocketChannel[] receivers = new SocketChannel[qps];
        for (int i = 0; i < qps; i++) {
            LoopbackTcp.Pair pair = LoopbackTcp.connect();
            tcpSenders[i] = pair.initiator();
            receivers[i] = pair.acceptor();
            receivers[i].configureBlocking(false);
        }
        long nanos = System.nanoTime() - start;
        System.out.printf("%n%d TCP connections in %.1f ms%n", qps, nanos / 1e6);
        tcpSource = ByteBuffer.allocateDirect(messageSize);
        tcpReader = new TcpReader(receivers);
        tcpReader.thread.start();
    }

    /**
     * Reads every connection of the TCP variant into one buffer (discarded) until closed: polls
     * each socket in turn (yielding after a pass that read nothing, sleeping in the selector after
     * {@value #POLL_SPIN_NANOS} ns without data) for up to {@value #POLLED_SOCKETS} sockets,
     * otherwise waits in the selector and drains each ready socket.
     */
    private static final class TcpReader implements Runnable {
        private final SocketChannel[] channels;
        private final Selector selector;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(256 * 1024);
        private final Thread thread = new Thread(this, "scale-tcp-reader");
        private volatile boolean running = true;
        /** Bytes read so far (written by the reader thread only). */
        private volatile long bytes;
        /** Drains a ready key's socket: one object for every select, not one per call. */
        private final java.util.function.Consumer<SelectionKey> drainKey =
                key -> drain((SocketChannel) key.attachment());

        TcpReader(SocketChannel[] channels) throws IOException {
            this.channels = channels;
            this.selector = Selector.open();
            for (SocketChannel c : channels) {
                c.register(selector, SelectionKey.OP_READ, c);
            }
            thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                long lastData = System.nanoTime();
                while (running) {
                    if (channels.length > POLLED_SOCKETS) {
                        selector.select(drainKey, 100);
                        continue;
                    }
                    long read = 0;
                    for (SocketChannel c : channels) {
                        read += drain(c);
                    }
                    long now = System.nanoTime();
                    if (read > 0) {
                        lastData = now;
                    } else if (now - lastData > POLL_SPIN_NANOS) {
                        // idle (another variant's turn in ScaleTurns): sleep in the selector, as a
                        // polling RNIC's I/O thread does after its spin, instead of taking a core
                        selector.select(drainKey, 100);
                        lastData = System.nanoTime();
                    } else {
                        Thread.yield();
                    }
                }
            } catch (IOException | java.io.UncheckedIOException e) {
                if (running) {
                    throw new IllegalStateException("TCP reader failed", e);
                }
            }
        }

        private long drain(SocketChannel c) {
            long total = 0;
            try {
                int n;
                do {
                    buffer.clear();
                    n = c.read(buffer);
                    total += Math.max(n, 0);
                } while (n > 0);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            if (total > 0) {
                bytes += total; // single writer
            }
            return total;
        }

        void close() throws IOException, InterruptedException {
            running = false;
            selector.wakeup();
            thread.join(TimeUnit.SECONDS.toMillis(10));
            selector.close();
            for (SocketChannel c : channels) {
                c.close();
            }
        }
    }

    /** Bytes the TCP variant's reader has read so far (tests), or -1 for the RNIC variant. */
    long tcpBytesRead() {
        return tcpReader == null ? -1 : tcpReader.bytes;
    }

    /**
     * Closes the listener and both RNICs (their connections, queue pairs and memory), or the TCP
     * connections and their reader.
     *
     * @throws IOException if closing a TCP connection failed
     * @throws InterruptedException if interrupted while the TCP reader ends
     */
    @TearDown(Level.Trial)
    public void close() throws IOException, InterruptedException {
        if (tcpReader != null) {
            for (SocketChannel c : tcpSenders) {
                c.close();
            }
            tcpReader.close();
            return;
        }
        try {
            if (listener != null) {
                listener.close();
            }
        } finally {
            try {
                active.close();
            } finally {
                passive.close();
            }
        }
    }
}
