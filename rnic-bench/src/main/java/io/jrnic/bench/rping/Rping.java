package io.jrnic.bench.rping;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * The {@code rping} command: {@code -s} runs {@link RpingServer}, {@code -c} runs
 * {@link RpingClient}, neither runs both over loopback in this process (the newcomer's demo) and
 * ends with a summary line. Options: {@link RpingOptions}.
 *
 * <p>Exit codes: 0 success, 1 failure (the reason on err), usage errors are
 * {@link IllegalArgumentException}s the caller reports.
 *
 * <p>Thread safety: stateless.
 */
public final class Rping {

    private Rping() {
    }

    /**
     * Runs rping.
     *
     * @param args the arguments after "rping"
     * @param out  normal output (ping data, debug)
     * @param err  failures
     * @return the exit code
     * @throws IllegalArgumentException for bad arguments
     * @throws InterruptedException     if interrupted while serving
     */
    public static int run(String[] args, PrintStream out, PrintStream err) throws InterruptedException {
        RpingOptions options = RpingOptions.parse(args);
        try {
            return switch (options.mode()) {
                case CLIENT -> new RpingClient(options, out, err)
                        .run(new InetSocketAddress(InetAddress.getByName(options.address()), options.port()));
                case SERVER -> serve(options, out, err);
                case LOOPBACK -> loopback(options, out, err);
            };
        } catch (UnknownHostException e) {
            err.println("getaddrinfo failed - invalid hostname or IP address: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("rdma_bind_addr: " + e);
            return 1;
        }
    }

    private static int serve(RpingOptions options, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        InetAddress bind = InetAddress.getByName(options.address() == null ? "0.0.0.0" : options.address());
        try (RpingServer server = new RpingServer(options, out, err, true)) {
            server.start(new InetSocketAddress(bind, options.port()));
            return server.awaitFinished();
        }
    }

    private static int loopback(RpingOptions options, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        InetAddress host = InetAddress.getByName(options.address() == null ? "127.0.0.1" : options.address());
        int port = options.portGiven() ? options.port() : 0;
        try (RpingServer server = new RpingServer(options, out, err, false)) {
            InetSocketAddress bound = server.start(new InetSocketAddress(host, port));
            int client = new RpingClient(options, out, err).run(bound);
            int serverCode = server.awaitFinished();
            int code = client != 0 ? client : serverCode;
            out.printf("rping loopback: %s, %d ping%s of %d bytes over %s, MPA CRC %s%s%n",
                    code == 0 ? "ok" : "FAILED", options.count(), options.count() == 1 ? "" : "s", options.size(), bound,
                    options.crc() ? "on" : "off", options.validate() ? ", every echo verified" : "");
            return code;
        }
    }
}
