package io.jrnic.core;

import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.RnicConfig;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import static io.jrnic.core.LoopbackFixture.LOOPBACK;
import static io.jrnic.core.LoopbackFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RnicConfig#ioThreads}: the RNIC's connections share that many I/O threads. The passive
 * RNIC's connection request handler runs on the I/O thread of the accepted connection, so the
 * threads it ran on are the threads serving the connections.
 */
class IoThreadsTest {
    private static final int CONNECTIONS = 4;

    @Test
    void oneIoThreadServesEveryConnection() throws Exception {
        assertThat(threadsServing(1)).hasSize(1);
    }

    @Test
    void connectionsAreSpreadOverTheIoThreads() throws Exception {
        assertThat(threadsServing(3)).hasSize(3); // assigned in turn: four connections, three threads
    }

    @Test
    void theDefaultIsTheAvailableProcessorsAtMostFour() {
        assertThat(new RnicConfig().ioThreads()).isEqualTo(Math.min(4, Runtime.getRuntime().availableProcessors()));
    }

    /** Connects {@link #CONNECTIONS} QPs to an RNIC of {@code ioThreads} threads; the names of the threads that accepted them. */
    private static Set<String> threadsServing(int ioThreads) throws Exception {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        try (SoftRnic active = SoftRnic.open(TestIoMode.config("io-threads-a-" + ioThreads));
             SoftRnic passive = SoftRnic.open(TestIoMode.config("io-threads-b-" + ioThreads).ioThreads(ioThreads))) {
            ProtectionDomain pdA = active.allocatePd();
            ProtectionDomain pdB = passive.allocatePd();
            var cqA = active.createCq(16);
            var cqB = passive.createCq(16);
            ConnectionSettings settings = new ConnectionSettings();
            ConnectionManager.Listener listener = passive.connectionManager().listen(LOOPBACK, settings, request -> {
                threads.add(Thread.currentThread().getName());
                request.accept(pdB.createQueuePair(new QueuePairConfig().cqs(cqB, cqB)), null);
            });
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    CompletionStage<?> c = active.connectionManager().connect(
                            pdA.createQueuePair(new QueuePairConfig().cqs(cqA, cqA)), listener.localAddress(),
                            settings, null);
                    await(c);
                }
            } finally {
                listener.close();
            }
        }
        return threads;
    }
}
