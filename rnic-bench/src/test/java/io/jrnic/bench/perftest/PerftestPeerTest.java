package io.jrnic.bench.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrnic.api.IoMode;
import io.jrnic.api.RnicConfig;
import io.jrnic.bench.transport.RnicPair;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Our perftest client against our perftest server over real loopback TCP, for the six tests
 * Linux perftest has: the whole exchange of {@link PerftestPeer} (comm connection, version, sys
 * data, MTU, syncs, test connection on the same port, destinations, the test, reports, close)
 * must run in lock step for both to exit 0.
 */
class PerftestPeerTest {

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @ParameterizedTest
    @EnumSource(value = PerftestTest.class, names = {"WRITE_BW", "READ_BW", "SEND_BW", "WRITE_LAT", "READ_LAT", "SEND_LAT"})
    void clientAndServerCompleteThePerftestExchange(PerftestTest test) throws Exception {
        int port = freePort();
        String[] common = {"-R", "-p", Integer.toString(port), "-n", "50", "-s", test.latency() ? "8" : "4096",
                "--pause-ms", "0"};
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        ByteArrayOutputStream serverErr = new ByteArrayOutputStream();
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> Perftest.run(test, common,
                new PrintStream(serverOut, true, StandardCharsets.UTF_8), new PrintStream(serverErr, true, StandardCharsets.UTF_8)));
        // the server prints its banner once it listens (a probe connection would be its comm connection)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!serverOut.toString(StandardCharsets.UTF_8).contains("Waiting for client") && !server.isDone()) {
            assertThat(System.nanoTime() - deadline).as("server listening").isNegative();
            Thread.onSpinWait();
        }
        String[] clientArgs = new String[common.length + 2];
        System.arraycopy(common, 0, clientArgs, 0, common.length);
        clientArgs[common.length] = "127.0.0.1";
        clientArgs[common.length + 1] = "--json";
        PerftestCommandTest.Run client = PerftestCommandTest.run(test, clientArgs);
        assertThat(client.code()).as(client.err()).isZero();
        int served = server.get(60, TimeUnit.SECONDS);
        assertThat(served).as(serverErr.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(client.out()).contains("peer perftest 6.06").contains("remote address:");
        assertThat(client.lastLine()).startsWith("{\"test\": \"" + test.jsonName() + "\"");
        assertThat(client.lastLine()).doesNotContain("\"tcp\"");
    }

    /** A server of {@code test} on a free port, started on another thread; returns once it listens. */
    private record Server(CompletableFuture<Integer> exit, ByteArrayOutputStream out, ByteArrayOutputStream err) {
        static Server start(PerftestTest test, String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> Perftest.run(test, args,
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!out.toString(StandardCharsets.UTF_8).contains("Waiting for client") && !exit.isDone()) {
                assertThat(System.nanoTime() - deadline).as("server listening").isNegative();
                Thread.onSpinWait();
            }
            return new Server(exit, out, err);
        }

        String served() throws Exception {
            assertThat(exit.get(60, TimeUnit.SECONDS)).as(err.toString(StandardCharsets.UTF_8)).isZero();
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private static String[] with(String[] common, String... more) {
        String[] all = new String[common.length + more.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return all;
    }

    @ParameterizedTest
    @EnumSource(value = PerftestTest.class, names = {"WRITE_BW", "READ_BW", "SEND_BW"})
    void severalQueuePairsEachRunTheirIterations(PerftestTest test) throws Exception {
        // perftest -q 3: three test connections to the same port, the destinations exchanged per QP,
        // and each QP runs -n iterations (run_iter_bw's tot_iters = iters * num_of_qps)
        String[] common = {"-R", "-p", Integer.toString(freePort()), "-n", "40", "-s", "1024", "-q", "3", "--pause-ms", "0"};
        Server server = Server.start(test, common);
        PerftestCommandTest.Run client = PerftestCommandTest.run(test, with(common, "127.0.0.1", "--json"));
        assertThat(client.code()).as(client.err()).isZero();
        String served = server.served();
        assertThat(client.out().lines().filter(l -> l.startsWith(" remote address:"))).hasSize(3);
        assertThat(served.lines().filter(l -> l.startsWith(" remote address:"))).hasSize(3);
        assertThat(client.lastLine()).contains("\"iterations\": 120, \"qps\": 3");
        // the QPs' destinations differ: three STags, three buffers
        assertThat(client.out().lines().filter(l -> l.startsWith(" remote address:")).distinct()).hasSize(3);
    }

    @Test
    void inlineSizeMapsOntoTheInlineFlagUpToTheRnicsMaximum() throws Exception {
        assertThat(inlinePosts(PerftestTest.WRITE_BW, "64", "64")).isEqualTo(30);
        assertThat(inlinePosts(PerftestTest.WRITE_BW, "65", "64")).isZero(); // larger than -I: not inline
        assertThat(inlinePosts(PerftestTest.SEND_BW, "256", "900")).isEqualTo(30); // -I capped at the RNIC's 256
        assertThat(inlinePosts(PerftestTest.SEND_BW, "512", "900")).isZero();
        assertThat(inlinePosts(PerftestTest.SEND_LAT, "8", "8")).isEqualTo(30);
        assertThat(inlinePosts(PerftestTest.WRITE_LAT, "8", "0")).isZero();
    }

    /** Runs our client against our server with {@code -I}; returns the client's inline posts. */
    private static long inlinePosts(PerftestTest test, String size, String inline) throws Exception {
        String[] common = {"-R", "-p", Integer.toString(freePort()), "-n", "30", "-s", size, "-I", inline, "--pause-ms", "0"};
        return clientAgainstServer(test, common).inlinePosts();
    }

    /** Runs our client (in this thread, to inspect it after) against our server, both with {@code common}. */
    private static PerftestPeer clientAgainstServer(PerftestTest test, String[] common) throws Exception {
        Server server = Server.start(test, common);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PerftestPeer peer = new PerftestPeer(test, Perftest.parse(test, with(common, "127.0.0.1")),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(peer.run()).as(err.toString(StandardCharsets.UTF_8)).isZero();
        server.served();
        return peer;
    }

    @ParameterizedTest
    @EnumSource(value = PerftestTest.class, names = {"WRITE_BW", "SEND_BW"})
    void postListHandsTheWorkRequestsToEachQpInListsOfN(PerftestTest test) throws Exception {
        // -l 8: perftest's post_list; 45 iterations per QP fit the window of 128 in one turn, so each QP
        // gets five lists of 8 and one of 5 (Send may be held back by receive credits: more, shorter lists)
        String[] common = {"-R", "-p", Integer.toString(freePort()), "-n", "45", "-s", "64", "-q", "2", "-l", "8",
                "--pause-ms", "0"};
        PerftestPeer peer = clientAgainstServer(test, common);
        if (test == PerftestTest.WRITE_BW) {
            assertThat(peer.postCalls()).isEqualTo(2 * 6);
        } else {
            assertThat(peer.postCalls()).isBetween(2L * 6, 2L * 45 - 1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = PerftestTest.class, names = {"WRITE_LAT", "SEND_LAT", "READ_LAT", "WRITE_BW", "SEND_BW"})
    void pollingModeRunsTheExchangeOnTheTestThreads(PerftestTest test) throws Exception {
        // --mode polling on both ends: the test threads' posts and CQ polls move the bytes (the Write
        // ping-pong polls its CQ while it watches memory, else only the I/O thread's takeover would)
        String[] common = {"-R", "-p", Integer.toString(freePort()), "-n", "200", "-s", test.latency() ? "8" : "1024",
                "--mode", "polling", "--pause-ms", "0"};
        Server server = Server.start(test, common);
        PerftestCommandTest.Run client = PerftestCommandTest.run(test, with(common, "127.0.0.1", "--json"));
        assertThat(client.code()).as(client.err()).isZero();
        server.served();
        assertThat(client.lastLine()).contains("\"mode\": \"polling\"");
    }

    @Test
    void pollingSpinReachesTheRnicsOfClientServerAndLoopbackRuns() {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        PerftestOptions spin0 = Perftest.parse(PerftestTest.READ_LAT, "--mode", "polling", "--polling-spin-us", "0", "host");
        assertThat(new PerftestPeer(PerftestTest.READ_LAT, spin0, quiet, quiet).rnicConfig().pollingSpin())
                .isEqualTo(Duration.ZERO);
        PerftestOptions byDefault = Perftest.parse(PerftestTest.READ_LAT, "--mode", "polling", "host");
        assertThat(new PerftestPeer(PerftestTest.READ_LAT, byDefault, quiet, quiet).rnicConfig().pollingSpin())
                .isEqualTo(new RnicConfig().pollingSpin());

        // --loopback: the pairs opened during the run get it; the JVM's setting comes back after
        Duration before = RnicPair.pollingSpin();
        PerftestOptions loop = Perftest.parse(PerftestTest.READ_LAT, "--loopback", "--mode", "polling",
                "--polling-spin-us", "7");
        LoopbackRun.PairSettings previous = new LoopbackRun(PerftestTest.READ_LAT, loop, quiet).enterMode();
        try {
            assertThat(RnicPair.pollingSpin()).isEqualTo(Duration.ofNanos(7_000));
            assertThat(RnicPair.ioMode()).isEqualTo(IoMode.POLLING);
        } finally {
            LoopbackRun.leaveMode(previous);
        }
        assertThat(RnicPair.pollingSpin()).isEqualTo(before);
    }

    @Test
    void allSizesRunBackToBackAndTheServerGetsTheLastReport() throws Exception {
        // write_bw.c RUN_ALL without duplex: sizes 2..2^23 with no sync between them, one report at the end
        String[] common = {"-R", "-p", Integer.toString(freePort()), "-n", "5", "-a", "--pause-ms", "0"};
        // the server also warms up first (--warm-up, for slow hosts): it must still serve the client
        Server server = Server.start(PerftestTest.WRITE_BW, with(common, "--warm-up", "20"));
        PerftestCommandTest.Run client = PerftestCommandTest.run(PerftestTest.WRITE_BW, with(common, "127.0.0.1"));
        assertThat(client.code()).as(client.err()).isZero();
        String served = server.served();
        for (int s = 2; s <= 1 << 23; s <<= 1) {
            assertThat(client.out()).containsPattern("(?m)^ +" + s + " +5 ");
        }
        assertThat(served).containsPattern("(?m)^ +8388608 +5 ");
    }
}
