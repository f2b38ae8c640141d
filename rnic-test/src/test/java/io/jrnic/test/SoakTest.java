package io.jrnic.test;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.Counters;
import io.jrnic.api.CrcMode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak judge (issue 13, docs/reliability.md "Soak"): two RNICs, several queue pairs with CRC
 * required, every operation of the API (Send, Send with Invalidate, Immediate Data, RDMA Write,
 * RDMA Read, Atomic FetchAdd and CmpSwap, Atomic Write, RDMA Flush, RDMA Verify) with sizes from
 * 0 B to 1 MiB, for {@code -Djrnic.soak.seconds} (30 in CI, 600 for the long run). Every byte is
 * checked end to end: each Read against the source, each receive against the Send, every Write
 * through a shadow of the target after a Flush (the ordering point after which the Writes are
 * placed, draft-talpey-rdma-commit-01 §3.1.1), the atomics against their simulation, and each
 * Verify's SHA-256 by the peer. Heap after GC and native memory (NMT) are measured after a warm-up
 * and at the end: they must stay flat.
 */
class SoakTest {
    private static final int SECONDS = Integer.getInteger("jrnic.soak.seconds", 30);
    private static final int PAIRS = Integer.getInteger("jrnic.soak.qps", 4);
    private static final long SEED = Long.getLong("jrnic.soak.seed", 0x50A4L);
    private static final Traffic.Sizes SIZES = new Traffic.Sizes(1 << 20, 256 << 10, 1 << 20, 1 << 20, 16, 1 << 20, 4);
    private static final long MIB = 1 << 20;

    @Test
    void mixedTrafficForMinutesCorruptsNothingAndKeepsMemoryFlat() throws Exception {
        ConnectionSettings settings = new ConnectionSettings().crc(CrcMode.REQUIRED);
        RnicConfig config = new RnicConfig().readLimits(16, 16);
        try (Rnic a = Rnic.open(config); Rnic b = Rnic.open(config)) {
            BlockingQueue<QueuePair> accepting = new LinkedBlockingQueue<>();
            BlockingQueue<CompletableFuture<Connection>> accepted = new LinkedBlockingQueue<>();
            List<Traffic> pairs = new ArrayList<>();
            List<Connection> connections = new ArrayList<>();
            try (ConnectionManager.Listener listener = b.connectionManager().listen(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), settings,
                    request -> accepted.add(request.accept(accepting.remove(), null).toCompletableFuture()))) {
                for (int i = 0; i < PAIRS; i++) {
                    Traffic.Side active = side("active", a, SEED + i);
                    Traffic.Side passive = side("passive", b, ~(SEED + i));
                    // even pairs: the active end is the requester; odd pairs: the passive end
                    Traffic t = i % 2 == 0 ? new Traffic(active, passive, SIZES, new Random(SEED + i), true)
                            : new Traffic(passive, active, SIZES, new Random(SEED + i), true);
                    t.postReceives(SIZES.receiveSlots());
                    accepting.add(passive.qp);
                    Connection ca = a.connectionManager().connect(active.qp, listener.localAddress(), settings, null)
                            .toCompletableFuture().get(10, TimeUnit.SECONDS);
                    Connection cb = accepted.poll(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
                    assertThat(ca.parameters().crc()).as("CRC on (RFC 5044 §4.4)").isTrue();
                    connections.add(ca);
                    connections.add(cb);
                    pairs.add(t);
                }
            }

            long start = System.nanoTime();
            long warmUp = start + TimeUnit.SECONDS.toNanos(Math.max(3, SECONDS / 10));
            long end = start + TimeUnit.SECONDS.toNanos(SECONDS);
            AtomicLong bursts = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(PAIRS);
            List<Future<?>> runs = new ArrayList<>();
            for (Traffic t : pairs) {
                runs.add(pool.submit(() -> {
                    Random r = new Random(SEED ^ t.requester().qp.id());
                    while (System.nanoTime() < end && t.failures().isEmpty()) {
                        t.postReceives(SIZES.receiveSlots());
                        t.post(1 + r.nextInt(12), r.nextInt(3));
                        t.postFlush(); // the Writes above are placed when it completes
                        if (!t.reap(false, 30_000)) {
                            t.failures().add("work outstanding 30 s after the last completion: " + t.describe());
                            break;
                        }
                        t.checkPlaced(true);
                        bursts.incrementAndGet();
                    }
                    return null;
                }));
            }
            Footprint first = null;
            for (Future<?> f : runs) {
                while (!f.isDone()) {
                    if (first == null && System.nanoTime() > warmUp) {
                        first = Footprint.now();
                    }
                    try {
                        f.get(100, TimeUnit.MILLISECONDS);
                    } catch (java.util.concurrent.TimeoutException e) {
                        // keep waiting; the loop measures the footprint once the warm-up is over
                    }
                }
                f.get();
            }
            pool.shutdown();
            Footprint last = Footprint.now();
            if (first == null) {
                first = last;
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            Counters ca = a.counters();
            Counters cb = b.counters();
            long bytes = ca.bytesSent() + cb.bytesSent();
            System.out.printf("soak: %d s, %d QP pairs, CRC required, %d bursts, %d messages, %.1f GiB of payload,"
                            + " %d CRC errors; footprint after warm-up: %s; at the end: %s; growth: %s%n",
                    seconds, PAIRS, bursts.get(), ca.messagesSent() + cb.messagesSent(), bytes / (1024.0 * MIB),
                    ca.crcErrors() + cb.crcErrors(), first, last, last.minus(first));

            for (Traffic t : pairs) {
                assertThat(t.failures()).as("corruption or a lost completion").isEmpty();
            }
            assertThat(ca.crcErrors() + cb.crcErrors()).isZero();
            // flat: what a leak per burst would add over thousands of bursts shows above these bounds
            Footprint growth = last.minus(first);
            assertThat(growth.heapBytes()).as("live heap growth").isLessThan(32 * MIB);
            if (growth.otherBytes() != -1 && first.otherBytes() >= 0) {
                assertThat(growth.otherBytes()).as("native (NMT Other) growth").isLessThan(32 * MIB);
            }
            assertThat(growth.directBytes()).as("direct buffer growth").isLessThan(16 * MIB);

            // the end: graceful close of every connection, every receive flushed once, all destroyed
            for (Connection c : connections) {
                c.close();
            }
            for (Traffic t : pairs) {
                assertThat(t.reap(true, 10_000)).as("receives flushed by the close").isTrue();
                t.drain();
                assertThat(t.failures()).isEmpty();
                for (Traffic.Side s : List.of(t.requester(), t.responder())) {
                    assertThat(s.qp.state()).isEqualTo(QpState.IDLE);
                    s.destroy();
                }
            }
        }
    }

    private static Traffic.Side side(String name, Rnic rnic, long seed) {
        ProtectionDomain pd = rnic.allocatePd();
        CompletionQueue cq = rnic.createCq(256);
        QueuePair qp = pd.createQueuePair(new QueuePairConfig().depths(64, 64).sges(4, 4, 4, 0)
                .readDepths(8, 8).cqs(cq, cq));
        return new Traffic.Side(name, rnic, pd, cq, qp, SIZES, seed);
    }
}
