package io.jrnic.bench.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
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
        CompletableFuture<PerftestCommandTest.Run> server = CompletableFuture.supplyAsync(
                () -> PerftestCommandTest.run(test, common));
        // the server listens within a moment; the client retries its connect as perftest does
        String[] clientArgs = new String[common.length + 2];
        System.arraycopy(common, 0, clientArgs, 0, common.length);
        clientArgs[common.length] = "127.0.0.1";
        clientArgs[common.length + 1] = "--json";
        PerftestCommandTest.Run client = PerftestCommandTest.run(test, clientArgs);
        PerftestCommandTest.Run served = server.get(60, TimeUnit.SECONDS);
        assertThat(client.code()).as(client.err()).isZero();
        assertThat(served.code()).as(served.err()).isZero();
        assertThat(client.out()).contains("peer perftest 6.06").contains("remote address:");
        assertThat(client.lastLine()).startsWith("{\"test\": \"" + test.jsonName() + "\"");
        assertThat(client.lastLine()).doesNotContain("\"tcp\"");
    }
}
