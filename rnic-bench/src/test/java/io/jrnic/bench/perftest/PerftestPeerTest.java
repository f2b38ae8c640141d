package io.jrnic.bench.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
}
