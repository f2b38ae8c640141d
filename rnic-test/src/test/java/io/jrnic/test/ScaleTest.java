package io.jrnic.test;

import io.jrnic.api.Access;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scale judge (issue 13, docs/reliability.md "Scale"): {@code -Djrnic.scale.qps} queue pairs
 * (100 in CI, 1,000 for the recorded run) connected between two RNICs over loopback TCP, the
 * connection setup rate, the memory an idle connected queue pair costs (heap and native, the
 * difference between N/2 and N connected pairs divided by N/2), then verified mixed traffic on
 * every one at once (Write, Send, Read, FetchAdd one way, a Send back) and a graceful close of all.
 */
class ScaleTest {
    private static final int QPS = Integer.getInteger("jrnic.scale.qps", 100);
    private static final int IN_FLIGHT = 16; // connection setups at a time
    private static final int K = 1024;

    private record Pair(int index, QueuePair active, QueuePair passive, Connection ca, Connection cb) {
    }

    @Test
    void manyQueuePairsConnectCarryVerifiedTrafficAndCostLittleWhenIdle() throws Exception {
        RnicConfig config = new RnicConfig().qpLimits(QPS + 16, 16384).readLimits(4, 4);
        ConnectionSettings settings = new ConnectionSettings();
        QueuePairConfig qpConfig = new QueuePairConfig().depths(32, 32).readDepths(4, 4);
        try (Rnic a = Rnic.open(config); Rnic b = Rnic.open(config)) {
            ProtectionDomain pdA = a.allocatePd();
            ProtectionDomain pdB = b.allocatePd();
            CompletionQueue cqA = a.createCq(QPS * 8);
            CompletionQueue cqB = b.createCq(QPS * 8);
            BlockingQueue<QueuePair> accepting = new LinkedBlockingQueue<>();
            List<CompletableFuture<Connection>> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<Pair> pairs = new ArrayList<>();
            try (ConnectionManager.Listener listener = b.connectionManager().listen(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), settings,
                    // any idle passive QP serves any request; the ends are matched by address later
                    request -> accepted.add(request.accept(accepting.remove(), null).toCompletableFuture()))) {
                Footprint none = Footprint.now();
                long t0 = System.nanoTime();
                connect(a, pdA, pdB, cqA, cqB, qpConfig, listener, settings, accepting, accepted, pairs, QPS / 2);
                long t1 = System.nanoTime();
                Footprint half = Footprint.now();
                long t2 = System.nanoTime();
                connect(a, pdA, pdB, cqA, cqB, qpConfig, listener, settings, accepting, accepted, pairs, QPS - QPS / 2);
                long t3 = System.nanoTime();
                Footprint all = Footprint.now();

                double rate = QPS / ((t1 - t0 + t3 - t2) / 1e9);
                int second = QPS - QPS / 2;
                Footprint perPair = all.minus(half);
                System.out.printf("scale: %d QP pairs connected at %.0f connections/s (%d setups in flight);"
                                + " idle cost per connected pair (both ends), from %d to %d pairs: heap %.1f KiB, native %.1f KiB"
                                + " (Other %.1f KiB), direct %.1f KiB; first %d pairs: heap %.1f KiB, native %.1f KiB per pair%n",
                        QPS, rate, IN_FLIGHT, QPS / 2, QPS, perPair.heapBytes() / (double) K / second,
                        perPair.nativeBytes() / (double) K / second, perPair.otherBytes() / (double) K / second,
                        perPair.directBytes() / (double) K / second, QPS / 2,
                        half.minus(none).heapBytes() / (double) K / (QPS / 2),
                        half.minus(none).nativeBytes() / (double) K / (QPS / 2));
                assertThat(pairs).hasSize(QPS);
                // an idle connected QP pair must stay small: a leak or an allocation per connection
                // of the order of the receive window would show far above this
                assertThat(perPair.heapBytes() / second).as("heap bytes per idle pair").isLessThan(1024 * K);
            }
            traffic(a, b, pdA, pdB, cqA, cqB, pairs);

            // graceful close of all at once (Verbs §6.6.2.1): each end Idle with LLP_CLOSE_COMPLETE
            List<CompletableFuture<?>> closing = new ArrayList<>();
            for (Pair p : pairs) {
                closing.add(p.ca().disconnect().toCompletableFuture());
                closing.add(p.cb().closed().toCompletableFuture());
            }
            CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            for (Pair p : pairs) {
                assertThat(p.active().state()).isEqualTo(QpState.IDLE);
                assertThat(p.passive().state()).isEqualTo(QpState.IDLE);
                p.active().close();
                p.passive().close();
            }
            assertThat(drain(cqA)).as("nothing left on the active CQ").isEmpty();
            assertThat(drain(cqB)).as("nothing left on the passive CQ").isEmpty();
        }
    }

    private static void connect(Rnic a, ProtectionDomain pdA, ProtectionDomain pdB, CompletionQueue cqA,
                                CompletionQueue cqB, QueuePairConfig qpConfig, ConnectionManager.Listener listener,
                                ConnectionSettings settings, BlockingQueue<QueuePair> accepting,
                                List<CompletableFuture<Connection>> accepted, List<Pair> pairs, int n)
            throws Exception {
        Semaphore slots = new Semaphore(IN_FLIGHT);
        List<CompletableFuture<Pair>> setups = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            QueuePair qa = pdA.createQueuePair(qpConfig.cqs(cqA, cqA));
            QueuePair qb = pdB.createQueuePair(qpConfig.cqs(cqB, cqB));
            slots.acquire();
            int index = pairs.size() + i;
            accepting.add(qb);
            CompletableFuture<Pair> setup = a.connectionManager().connect(qa, listener.localAddress(), settings, null)
                    .toCompletableFuture().thenApply(ca -> new Pair(index, qa, null, ca, null));
            setup.whenComplete((p, e) -> slots.release());
            setups.add(setup);
        }
        for (CompletableFuture<Pair> s : setups) {
            pairs.add(s.get(30, TimeUnit.SECONDS));
        }
        // the listener hands passive QPs out in the order the requests arrive, which may differ
        // from the order of the connects: match the ends by their TCP addresses
        Map<java.net.SocketAddress, Connection> byRemote = new HashMap<>();
        for (CompletableFuture<Connection> stage : accepted) {
            Connection cb = stage.get(30, TimeUnit.SECONDS);
            byRemote.put(cb.remoteAddress(), cb);
        }
        for (int i = pairs.size() - n; i < pairs.size(); i++) {
            Pair p = pairs.get(i);
            Connection cb = byRemote.get(p.ca().localAddress());
            assertThat(cb).as("passive end of pair " + i).isNotNull();
            pairs.set(i, new Pair(p.index(), p.active(), cb.queuePair(), p.ca(), cb));
        }
    }

    /**
     * Every pair at once: the active end Writes 4 KiB, Sends 1 KiB, Reads 4 KiB back and FetchAdds;
     * the passive end Sends 1 KiB back. Then every byte and value is checked.
     */
    private static void traffic(Rnic a, Rnic b, ProtectionDomain pdA, ProtectionDomain pdB, CompletionQueue cqA,
                                CompletionQueue cqB, List<Pair> pairs) throws Exception {
        int n = pairs.size();
        Map<Integer, Integer> indexA = new HashMap<>();
        Map<Integer, Integer> indexB = new HashMap<>();
        MemoryRegion[] ma = new MemoryRegion[n];
        MemoryRegion[] mb = new MemoryRegion[n];
        for (int i = 0; i < n; i++) {
            Pair p = pairs.get(i);
            indexA.put(p.active().id(), i);
            indexB.put(p.passive().id(), i);
            ma[i] = pdA.registration(a.allocateMemory(16 * K, 4096)).access(Access.LOCAL_READ, Access.LOCAL_WRITE,
                    Access.REMOTE_WRITE).register();
            mb[i] = pdB.registration(b.allocateMemory(16 * K, 4096)).access(Access.LOCAL_READ, Access.LOCAL_WRITE,
                    Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC).register();
            Traffic.fill(ma[i].memory().asSlice(0, 4 * K), i);
            Traffic.fill(mb[i].memory().asSlice(4 * K, 4 * K), ~i);
            Traffic.fill(mb[i].memory().asSlice(13 * K, K), 7L * i);
            MemorySegment x = ma[i].memory();
            MemorySegment y = mb[i].memory();
            p.active().postReceive(new ReceiveWorkRequest().wrId(100).sge(ma[i].stag(), x.address() + 8 * K, K));
            p.passive().postReceive(new ReceiveWorkRequest().wrId(200).sge(mb[i].stag(), y.address() + 8 * K, K));
        }
        SendWorkRequest wr = new SendWorkRequest();
        for (int i = 0; i < n; i++) {
            Pair p = pairs.get(i);
            MemorySegment x = ma[i].memory();
            MemorySegment y = mb[i].memory();
            p.active().postSend(wr.reset().wrId(1).opcode(Opcode.RDMA_WRITE).sge(ma[i].stag(), x.address(), 4 * K)
                    .remote(mb[i].stag(), y.address()));
            p.active().postSend(wr.reset().wrId(2).opcode(Opcode.SEND).sge(ma[i].stag(), x.address(), K));
            p.active().postSend(wr.reset().wrId(3).opcode(Opcode.RDMA_READ).sge(ma[i].stag(), x.address() + 4 * K, 4 * K)
                    .remote(mb[i].stag(), y.address() + 4 * K));
            p.active().postSend(wr.reset().wrId(4).fetchAdd(i + 1).sge(ma[i].stag(), x.address() + 12 * K, 8)
                    .remote(mb[i].stag(), y.address() + 12 * K));
            p.passive().postSend(wr.reset().wrId(5).opcode(Opcode.SEND).sge(mb[i].stag(), y.address() + 13 * K, K));
        }
        // 5 completions per pair on the active CQ (4 SQ + 1 receive), 2 on the passive CQ
        int[] seenA = reap(cqA, indexA, n * 5, n);
        int[] seenB = reap(cqB, indexB, n * 2, n);
        for (int i = 0; i < n; i++) {
            assertThat(seenA[i]).as("completions of active QP " + i).isEqualTo(5);
            assertThat(seenB[i]).as("completions of passive QP " + i).isEqualTo(2);
            MemorySegment x = ma[i].memory();
            MemorySegment y = mb[i].memory();
            assertThat(y.asSlice(0, 4 * K).mismatch(x.asSlice(0, 4 * K))).as("Write of pair " + i).isEqualTo(-1);
            assertThat(y.asSlice(8 * K, K).mismatch(x.asSlice(0, K))).as("Send of pair " + i).isEqualTo(-1);
            assertThat(x.asSlice(4 * K, 4 * K).mismatch(y.asSlice(4 * K, 4 * K))).as("Read of pair " + i).isEqualTo(-1);
            assertThat(x.get(ValueLayout.JAVA_LONG, 12 * K)).as("FetchAdd original of pair " + i).isZero();
            assertThat(y.get(ValueLayout.JAVA_LONG, 12 * K)).as("FetchAdd result of pair " + i).isEqualTo(i + 1);
            assertThat(x.asSlice(8 * K, K).mismatch(y.asSlice(13 * K, K))).as("Send back of pair " + i).isEqualTo(-1);
        }
    }

    private static int[] reap(CompletionQueue cq, Map<Integer, Integer> index, int expected, int n) throws Exception {
        int[] seen = new int[n];
        WorkCompletion wc = new WorkCompletion();
        for (int got = 0; got < expected; got++) {
            assertThat(cq.poll(wc, 30, TimeUnit.SECONDS)).as("completion " + got + " of " + expected).isTrue();
            assertThat(wc.status()).as(wc.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            seen[index.get(wc.qpId())]++;
        }
        return seen;
    }

    private static List<WorkCompletion> drain(CompletionQueue cq) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (cq.poll(wc)) {
            out.add(new WorkCompletion().copyFrom(wc));
        }
        return out;
    }
}
