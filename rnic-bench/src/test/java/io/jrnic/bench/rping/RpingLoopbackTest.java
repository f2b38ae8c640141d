package io.jrnic.bench.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * rping's client and server against each other in one JVM over loopback TCP: the loopback mode of
 * the command and the two roles run separately, with verification, CRC off and on.
 */
class RpingLoopbackTest {

    private static final int COUNT = 20;
    private static final InetSocketAddress EPHEMERAL = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.ISO_8859_1);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.ISO_8859_1);

    @ParameterizedTest(name = "{0} bytes, CRC {1}")
    @CsvSource({"64, false", "64, true", "65535, false", "65535, true", "1000, true"})
    void loopbackModePingsVerifiesAndPrintsWhatRpingPrints(int size, boolean crc) throws Exception {
        String[] args = crc ? new String[] {"-v", "-V", "-d", "-C", "" + COUNT, "-S", "" + size, "--crc"}
                : new String[] {"-v", "-V", "-d", "-C", "" + COUNT, "-S", "" + size};

        int code = Rping.run(args, out, err);

        assertThat(err()).isEmpty();
        assertThat(code).isZero();
        List<String> lines = out().lines().toList();
        List<String> expected = IntStream.range(0, COUNT).mapToObj(i -> PingPattern.text(size, i)).toList();
        assertThat(lines.stream().filter(l -> l.startsWith("ping data: ")).map(l -> l.substring(11)))
                .containsExactlyElementsOf(expected);
        assertThat(lines.stream().filter(l -> l.startsWith("server ping data: ")).map(l -> l.substring(18)))
                .containsExactlyElementsOf(expected);
        String negotiated = "MPA revision 2 (RFC 6581), CRC " + (crc ? "on" : "off") + ", markers off/off, IRD 1 ORD 1";
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("connected: " + negotiated))
                .anySatisfy(l -> assertThat(l).startsWith("accepted: " + negotiated));
        // -d: every advertisement is size bytes; the server echoes strlen + 1 = size bytes
        assertThat(lines.stream().filter(l -> l.startsWith("RDMA addr "))).hasSize(2 * COUNT)
                .allSatisfy(l -> assertThat(l).endsWith(" len " + size));
        assertThat(lines.stream().filter(l -> l.startsWith("rdma write from lkey "))).hasSize(COUNT)
                .allSatisfy(l -> assertThat(l).endsWith(" len " + size));
        assertThat(lines.getLast()).startsWith("rping loopback: ok, " + COUNT + " pings of " + size + " bytes over /127.0.0.1:")
                .endsWith("MPA CRC " + (crc ? "on" : "off") + ", every echo verified");
    }

    @Test
    void quietLoopbackPrintsOnlyTheSummary() throws Exception {
        assertThat(Rping.run(new String[] {"-C", "3"}, out, err)).isZero();

        assertThat(out().lines().toList()).singleElement().asString()
                .startsWith("rping loopback: ok, 3 pings of 64 bytes over /127.0.0.1:").endsWith("MPA CRC off");
        assertThat(err()).isEmpty();
    }

    @ParameterizedTest(name = "CRC asked by the {0}")
    @CsvSource({"client", "server"})
    void serverAndClientRolesInteroperateAndCrcIsOnWhenEitherSideAsks(String asking) throws Exception {
        String crcServer = asking.equals("server") ? "--crc" : "-V";
        String crcClient = asking.equals("client") ? "--crc" : "-V";
        try (RpingServer server = new RpingServer(RpingOptions.parse("-s", "-d", "-S", "4096", crcServer), out, err, true)) {
            InetSocketAddress bound = server.start(EPHEMERAL);
            RpingOptions client = RpingOptions.parse("-c", "-a", "127.0.0.1", "-p", "" + bound.getPort(), "-C", "5",
                    "-S", "4096", "-V", "-d", crcClient);

            assertThat(new RpingClient(client, out, err).run(bound)).isZero();
            assertThat(server.awaitFinished()).isZero();
        }
        assertThat(out()).contains("connected: MPA revision 2 (RFC 6581), CRC on")
                .contains("accepted: MPA revision 2 (RFC 6581), CRC on");
        // the client's graceful disconnect ends the server's wait for the next ping, as in rping
        assertThat(err()).isEqualTo("server DISCONNECT EVENT...\nwait for RDMA_READ_ADV state 10\n"
                .replace("\n", System.lineSeparator()));
    }

    @Test
    void persistentServerServesOneClientAfterAnother() throws Exception {
        try (RpingServer server = new RpingServer(RpingOptions.parse("-s", "-P", "-v"), out, err, false)) {
            InetSocketAddress bound = server.start(EPHEMERAL);
            for (int run = 0; run < 3; run++) {
                RpingOptions client = RpingOptions.parse("-c", "-a", "127.0.0.1", "-p", "" + bound.getPort(), "-C",
                        "2", "-V");
                assertThat(new RpingClient(client, out, err).run(bound)).as("client %d", run).isZero();
            }
        }
        assertThat(out().lines().filter(l -> l.startsWith("server ping data: rdma-ping-1: "))).hasSize(3);
        assertThat(err()).isEmpty();
    }

    @Test
    void nonPersistentServerRejectsASecondClient() throws Exception {
        try (RpingServer server = new RpingServer(RpingOptions.parse("-s"), out, err, false)) {
            InetSocketAddress bound = server.start(EPHEMERAL);
            String port = "" + bound.getPort();
            assertThat(new RpingClient(RpingOptions.parse("-c", "-a", "x", "-p", port, "-C", "1"), out, err).run(bound))
                    .isZero();
            assertThat(server.awaitFinished()).isZero();

            assertThat(new RpingClient(RpingOptions.parse("-c", "-a", "x", "-p", port, "-C", "1"), out, err).run(bound))
                    .isEqualTo(1);
        }
        assertThat(err()).contains("rping client failed: connect error REJECTED_BY_PEER");
    }

    @Test
    void markersAreRefusedUnlessBothSidesWantThem() throws Exception {
        try (RpingServer server = new RpingServer(RpingOptions.parse("-s"), out, err, false)) {
            InetSocketAddress bound = server.start(EPHEMERAL);
            RpingOptions client = RpingOptions.parse("-c", "-a", "x", "-C", "1", "--markers");

            assertThat(new RpingClient(client, out, err).run(bound)).isEqualTo(1);
        }
        assertThat(err()).contains("rping client failed: connect error REJECTED_BY_PEER");

        outBytes.reset();
        errBytes.reset();
        assertThat(Rping.run(new String[] {"-C", "2", "-V", "-d", "--markers"}, out, err)).isZero();
        assertThat(out()).contains("connected: MPA revision 2 (RFC 6581), CRC off, markers on/on");
    }

    @Test
    void verificationCatchesACorruptedEcho() throws Exception {
        // a server that follows rping's protocol but flips one byte of the echo before writing it back
        try (RpingNode node = new RpingNode("bad-server")) {
            java.util.concurrent.CompletableFuture<RpingSession> accepted = new java.util.concurrent.CompletableFuture<>();
            try (var listener = node.rnic().connectionManager().listen(EPHEMERAL, RpingOptions.parse().settings(),
                    request -> {
                        RpingSession s = new RpingSession(node, 64);
                        request.accept(s.queuePair(), null).thenAccept(c -> {
                            s.connected(c);
                            accepted.complete(s);
                        });
                    })) {
                InetSocketAddress bound = (InetSocketAddress) listener.localAddress();
                Thread client = Thread.ofPlatform().start(() -> {
                    RpingOptions options = RpingOptions.parse("-c", "-a", "x", "-C", "1", "-V", "-v");
                    out.println("exit " + new RpingClient(options, out, err).run(bound));
                });
                try (RpingSession s = accepted.get(10, java.util.concurrent.TimeUnit.SECONDS)) {
                    s.await(io.jrnic.api.Opcode.RECEIVE, "RDMA_READ_ADV");
                    s.postRead(s.received().rkey(), s.received().buf(), (int) s.received().size());
                    s.await(io.jrnic.api.Opcode.RDMA_READ, "RDMA_READ_COMPLETE");
                    s.rdmaBuf().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 20, (byte) '#');
                    s.sendGoAhead();
                    s.await(io.jrnic.api.Opcode.RECEIVE, "RDMA_WRITE_ADV");
                    s.postWrite(s.received().rkey(), s.received().buf(), 64);
                    s.await(io.jrnic.api.Opcode.RDMA_WRITE, "RDMA_WRITE_COMPLETE");
                    s.sendGoAhead();
                    client.join(10_000);
                }
            }
        }
        assertThat(out()).isEqualTo("exit 1" + System.lineSeparator()); // no "ping data" for a bad echo
        assertThat(err()).contains("rping client failed: data mismatch! (ping 0, first difference at byte 20)");
    }

    @Test
    void clientWithoutAServerFailsWithConnectError() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        RpingOptions client = RpingOptions.parse("-c", "-a", "127.0.0.1", "-p", "" + port, "-C", "1");

        int code = new RpingClient(client, out, err).run(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));

        assertThat(code).isEqualTo(1);
        assertThat(err()).contains("rping client failed: connect error CONNECT_FAILED");
    }

    private String out() {
        return outBytes.toString(StandardCharsets.ISO_8859_1);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.ISO_8859_1);
    }
}
