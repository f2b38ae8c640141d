package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** Several threads post, a transport thread completes, a poller reaps: every WR completes exactly once. */
class ConcurrencyTest extends VerbsFixture {
    private static final int THREADS = 3;
    private static final int PER_THREAD = 2_000;

    @Test
    void concurrentPostersEveryWorkRequestCompletedExactlyOnce_V_WRP_48_V_WRP_2() throws Exception {
        CompletionQueue c = rnic.createCq(64);
        MemoryRegion mr = pd.registerMemory(rnic.allocateMemory(4096, 4096), AccessRights.LOCAL, 0,
                AddressType.ZERO_BASED, 0, false);
        QueuePair qp = pd.createQueuePair(qpConfig().cqs(c, c).depths(32, 1));
        FakeTransport t = toRts(qp);
        int total = THREADS * PER_THREAD;
        BitSet seen = new BitSet(total);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS + 2);
        CountDownLatch start = new CountDownLatch(1);
        try {
            Future<?>[] posters = new Future<?>[THREADS];
            for (int p = 0; p < THREADS; p++) {
                final int base = p * PER_THREAD;
                posters[p] = pool.submit(() -> {
                    SendWorkRequest wr = new SendWorkRequest(1);
                    start.await();
                    for (int i = 0; i < PER_THREAD; i++) {
                        // every other WR is a local memory operation completing inline
                        wr.reset().wrId(base + i);
                        if (i % 2 == 0) {
                            wr.opcode(Opcode.SEND).sge(mr.stag(), 0, 8);
                        } else {
                            wr.opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(pd.allocateRegionStag(1, false)
                                    .stag());
                        }
                        while (true) {
                            try {
                                qp.postSend(wr);
                                break;
                            } catch (VerbsException e) {
                                assertThat(e.status()).isEqualTo(VerbsStatus.TOO_MANY_WRS_POSTED);
                                Thread.yield(); // 2 shared cores: never busy-spin
                            }
                        }
                    }
                    return null;
                });
            }
            Future<?> wire = pool.submit(() -> {
                while (!done.get()) {
                    t.completeAll();
                    Thread.yield(); // 2 shared cores: never busy-spin
                }
                return null;
            });
            Future<Integer> poller = pool.submit(() -> {
                WorkCompletion[] batch = new WorkCompletion[16];
                for (int i = 0; i < batch.length; i++) {
                    batch[i] = new WorkCompletion();
                }
                int got = 0;
                while (got < total) {
                    int n = c.poll(batch);
                    for (int i = 0; i < n; i++) {
                        assertThat(batch[i].status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                        int id = (int) batch[i].wrId();
                        synchronized (seen) {
                            assertThat(seen.get(id)).as("completed twice: " + id).isFalse();
                            seen.set(id);
                        }
                    }
                    got += n;
                    if (n == 0) {
                        Thread.yield(); // 2 shared cores: never busy-spin
                    }
                }
                return got;
            });
            start.countDown();
            try {
                assertThat(poller.get(60, TimeUnit.SECONDS)).isEqualTo(total);
            } catch (java.util.concurrent.TimeoutException e) {
                for (Future<?> f : posters) {
                    if (f.isDone()) {
                        f.get(); // surfaces a poster's failure as the cause
                    }
                }
                throw e;
            }
            for (Future<?> f : posters) {
                f.get(5, TimeUnit.SECONDS);
            }
            done.set(true);
            wire.get(5, TimeUnit.SECONDS);
        } finally {
            done.set(true);
            pool.shutdownNow();
        }
        assertThat(seen.cardinality()).isEqualTo(total);
        assertThat(qp.state()).isEqualTo(QpState.RTS);
        assertThat(c.poll(new WorkCompletion())).isFalse();
    }

    @Test
    void concurrentPostersThenErrorFlushesEachOutstandingWrOnce_V_QPS_61_V_WRP_48() throws Exception {
        CompletionQueue c = rnic.createCq(4096);
        MemoryRegion mr = pd.registerMemory(rnic.allocateMemory(64, 8), AccessRights.LOCAL, 0,
                AddressType.ZERO_BASED, 0, false);
        QueuePair qp = pd.createQueuePair(qpConfig().cqs(c, c).depths(4096, 1));
        FakeTransport t = toRts(qp);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            Future<?>[] fs = new Future<?>[THREADS];
            for (int p = 0; p < THREADS; p++) {
                final int base = p * 1000;
                fs[p] = pool.submit(() -> {
                    SendWorkRequest wr = new SendWorkRequest(1);
                    for (int i = 0; i < 1000; i++) {
                        qp.postSend(wr.reset().wrId(base + i).opcode(Opcode.SEND).sge(mr.stag(), 0, 8));
                    }
                    return null;
                });
            }
            for (Future<?> f : fs) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int i = 0; i < 100; i++) {
            t.completeNext(WorkCompletionStatus.SUCCESS);
        }
        qp.modify(new QueuePairModification().nextState(QpState.ERROR));
        BitSet seen = new BitSet();
        int success = 0;
        for (WorkCompletion wc : drain(c)) {
            assertThat(seen.get((int) wc.wrId())).isFalse();
            seen.set((int) wc.wrId());
            success += wc.status() == WorkCompletionStatus.SUCCESS ? 1 : 0;
        }
        assertThat(seen.cardinality()).isEqualTo(THREADS * 1000);
        assertThat(success).isEqualTo(100);
    }
}
