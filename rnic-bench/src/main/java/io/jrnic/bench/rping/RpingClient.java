package io.jrnic.bench.rping;

import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.Opcode;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * rping's client ({@code rping -c}, rping.c {@code rping_run_client} and {@code rping_test_client}).
 * Per ping:
 *
 * <pre>
 *   client                                        server
 *   fill start buffer "rdma-ping-N: ABC...\0"
 *   Send info(start buffer) ───────────────────►  RDMA Read it into its RDMA buffer
 *                            ◄─────────────────── Send go-ahead (16 zero bytes)
 *   Send info(RDMA buffer)  ───────────────────►  RDMA Write strlen+1 bytes into it
 *                            ◄─────────────────── Send go-ahead
 *   -V: compare size bytes; -v: "ping data: ..."
 * </pre>
 *
 * After the last ping (never with {@code -C 0}) it disconnects gracefully.
 *
 * <p>Thread safety: not thread safe; {@link #run} runs on the calling thread.
 */
public final class RpingClient {

    private final RpingOptions options;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * Creates a client.
     *
     * @param options the parsed command line
     * @param out     where "ping data" and debug lines go
     * @param err     where failures go
     */
    public RpingClient(RpingOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    /**
     * Connects to the server, pings {@code -C} times (forever with 0) and disconnects.
     *
     * @param server the server's address
     * @return 0 on success, 1 on failure ("rping client failed: ..." printed on err)
     */
    public int run(InetSocketAddress server) {
        try (RpingNode node = new RpingNode("client")) {
            try (RpingSession session = new RpingSession(node, options.size())) {
                try {
                    connect(node, session, server);
                    ping(session);
                    session.disconnect();
                    return 0;
                } catch (RpingFailure e) {
                    err.println("rping client failed: " + e.getMessage());
                    return 1;
                }
            }
        }
    }

    private void connect(RpingNode node, RpingSession session, InetSocketAddress server) throws RpingFailure {
        try {
            Connection c = node.rnic().connectionManager()
                    .connect(session.queuePair(), server, options.settings(), null)
                    // the manager bounds every setup wait by the setup timeout; this is only a backstop
                    .toCompletableFuture().get(options.setupTimeoutSeconds() + RpingSession.STEP_TIMEOUT_SECONDS,
                            TimeUnit.SECONDS);
            session.connected(c);
            if (options.debug()) {
                out.println("connected: " + session.describeConnection());
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String what = cause instanceof ConnectionException ce ? ce.reason() + ": " + ce.getMessage()
                    : String.valueOf(cause);
            throw new RpingFailure("connect error " + what, cause);
        } catch (TimeoutException e) {
            throw new RpingFailure("connect error: no connection within "
                    + (options.setupTimeoutSeconds() + RpingSession.STEP_TIMEOUT_SECONDS) + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RpingFailure("connect error: interrupted", e);
        }
    }

    private void ping(RpingSession session) throws RpingFailure {
        int size = session.size();
        MemorySegment start = session.startBuf();
        MemorySegment rdma = session.rdmaBuf();
        for (int ping = 0; options.count() == 0 || ping < options.count(); ping++) {
            PingPattern.fill(start, size, ping);
            if (options.validate()) {
                rdma.fill((byte) 0); // a stale echo of an earlier ping can never pass for this one
            }
            debug(session.sendInfo(true));
            session.await(Opcode.RECEIVE, "RDMA_WRITE_ADV"); // the go-ahead: the server has read the text
            debug(session.sendInfo(false));
            session.await(Opcode.RECEIVE, "RDMA_WRITE_COMPLETE"); // the echo is in the RDMA buffer
            if (options.validate()) {
                long at = start.asSlice(0, size).mismatch(rdma.asSlice(0, size));
                if (at >= 0) {
                    throw new RpingFailure("data mismatch! (ping " + ping + ", first difference at byte " + at + ")");
                }
            }
            if (options.verbose()) {
                out.println("ping data: " + PingPattern.cString(rdma, size));
            }
        }
    }

    /** rping's DEBUG_LOG in {@code rping_format_send}. */
    private void debug(RdmaInfoFlyweight sent) {
        if (options.debug()) {
            out.printf("RDMA addr %x rkey %x len %d%n", sent.buf(), sent.rkey(), sent.size());
        }
    }
}
