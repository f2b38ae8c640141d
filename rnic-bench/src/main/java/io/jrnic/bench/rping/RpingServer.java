package io.jrnic.bench.rping;

import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionRequestHandler;
import io.jrnic.api.Opcode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * rping's server ({@code rping -s}, rping.c {@code rping_run_server} and {@code rping_test_server}):
 * per connection a fresh {@link RpingSession} with its receive posted before the accept, then per
 * ping: receive the start advertisement, RDMA Read it ({@code -v}: "server ping data: ..."), Send the
 * go-ahead, receive the RDMA buffer's advertisement, RDMA Write strlen+1 bytes into it, Send the
 * go-ahead. When the client disconnects, the wait in progress ends as rping's does ("wait for
 * RDMA_READ_ADV state 10" on err, a success).
 *
 * <p>Without {@code -P} it serves one connection (later requests are rejected) and
 * {@link #awaitFinished()} returns that connection's exit code. With {@code -P} it serves one
 * connection after another, each on its own thread (rping's persistent server does the same), until
 * {@link #close()}.
 *
 * <p>Thread safety: {@link #start}, {@link #awaitFinished} and {@link #close} are called by the
 * owner; connections are served on threads of their own.
 */
public final class RpingServer implements AutoCloseable {

    private final RpingOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean reportDisconnect;
    private final AtomicBoolean accepted = new AtomicBoolean();
    private final CompletableFuture<Integer> finished = new CompletableFuture<>();
    private RpingNode node;
    private ConnectionManager.Listener listener;

    /**
     * Creates a server.
     *
     * @param options          the parsed command line
     * @param out              where "server ping data" and debug lines go
     * @param err              where failures go
     * @param reportDisconnect print rping's "wait for ... state 10" when the client leaves (the
     *                         loopback demo does not)
     */
    public RpingServer(RpingOptions options, PrintStream out, PrintStream err, boolean reportDisconnect) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.reportDisconnect = reportDisconnect;
    }

    /**
     * Opens the RNIC and listens.
     *
     * @param bind where to listen (port 0: ephemeral)
     * @return the bound address
     * @throws IOException if the socket cannot be bound
     */
    public InetSocketAddress start(InetSocketAddress bind) throws IOException {
        node = new RpingNode("server");
        try {
            listener = node.rnic().connectionManager().listen(bind, options.settings(), new ConnectionRequestHandler() {
                @Override
                public void onRequest(ConnectionRequest request) {
                    offer(request);
                }

                @Override
                public void onSetupFailed(SocketAddress remote, ConnectionException failure) {
                    err.println("connect error from " + remote + ": " + failure.reason() + ": " + failure.getMessage());
                }
            });
        } catch (IOException | RuntimeException e) {
            node.close();
            throw e;
        }
        InetSocketAddress bound = (InetSocketAddress) listener.localAddress();
        if (options.debug()) {
            out.println("listening on " + bound + (options.persistent() ? " (persistent)" : ""));
        }
        return bound;
    }

    /** On the event loop: a new session, accepted; the protocol runs on a thread of its own. */
    private void offer(ConnectionRequest request) {
        if (!options.persistent() && accepted.getAndSet(true)) {
            request.reject(null); // rping without -P serves exactly one connection
            return;
        }
        RpingSession session;
        try {
            session = new RpingSession(node, options.size());
        } catch (RuntimeException e) {
            request.reject(null);
            err.println("setup_qp failed: " + e.getMessage());
            connectionEnded(1);
            return;
        }
        request.accept(session.queuePair(), null).whenComplete((connection, failure) ->
                Thread.ofPlatform().name("rping-server-" + session.queuePair().id()).daemon(options.persistent())
                        .start(() -> serve(session, connection, failure)));
    }

    private void serve(RpingSession session, Connection connection, Throwable failure) {
        int code;
        try (session) {
            if (failure != null) {
                err.println("connect error " + failure.getMessage());
                code = 1;
            } else {
                session.connected(connection);
                if (options.debug()) {
                    out.println("accepted: " + session.describeConnection());
                }
                code = test(session);
            }
        } catch (RuntimeException e) {
            err.println("rping server failed: " + e);
            code = 1;
        }
        connectionEnded(code);
    }

    private void connectionEnded(int code) {
        if (!options.persistent()) {
            finished.complete(code);
        }
    }

    /** rping_test_server: returns 0 when the client disconnected, 1 on a failure. */
    private int test(RpingSession session) {
        try {
            while (true) {
                session.await(Opcode.RECEIVE, "RDMA_READ_ADV", false); // the next ping: as long as it takes
                RdmaInfoFlyweight adv = session.received();
                int rkey = adv.rkey();
                long addr = adv.buf();
                int len = (int) Math.min(adv.size(), Integer.MAX_VALUE);
                if (options.debug()) {
                    out.printf("Received rkey %x addr %x len %d from peer%n", rkey, addr, len);
                }
                debug("server received sink adv");
                session.postRead(rkey, addr, len);
                debug("server posted rdma read req ");
                session.await(Opcode.RDMA_READ, "RDMA_READ_COMPLETE");
                debug("server received read complete");
                if (options.verbose()) {
                    out.println("server ping data: " + PingPattern.cString(session.rdmaBuf(), session.size()));
                }
                session.sendGoAhead();
                debug("server posted go ahead");
                session.await(Opcode.RECEIVE, "RDMA_WRITE_ADV");
                adv = session.received();
                rkey = adv.rkey();
                addr = adv.buf();
                // rping echoes strlen + 1 bytes of what it read
                int echo = (int) Math.min(PingPattern.cString(session.rdmaBuf(), session.size()).length() + 1L,
                        session.size());
                if (options.debug()) {
                    out.printf("Received rkey %x addr %x len %d from peer%n", rkey, addr, adv.size());
                    out.println("server received sink adv");
                    out.printf("rdma write from lkey %x laddr %x len %d%n", session.rdmaStag(),
                            session.rdmaBuf().address(), echo);
                }
                session.postWrite(rkey, addr, echo);
                session.await(Opcode.RDMA_WRITE, "RDMA_WRITE_COMPLETE");
                debug("server rdma write complete ");
                session.sendGoAhead();
                debug("server posted go ahead");
            }
        } catch (RpingSession.Disconnected e) {
            if (reportDisconnect) {
                err.println("server DISCONNECT EVENT...");
                err.println(e.getMessage());
            }
            return 0;
        } catch (RpingFailure e) {
            err.println("rping server failed: " + e.getMessage());
            return 1;
        }
    }

    /** rping's DEBUG_LOG: the line with {@code -d}. */
    private void debug(String line) {
        if (options.debug()) {
            out.println(line);
        }
    }

    /**
     * Waits until the (non-persistent) server's connection ended, or until {@link #close()}.
     *
     * @return the exit code: 0 when the client disconnected after its pings, 1 on a failure, 0 after close
     * @throws InterruptedException if interrupted while waiting
     */
    public int awaitFinished() throws InterruptedException {
        try {
            return finished.get();
        } catch (ExecutionException e) {
            return 1;
        }
    }

    /** Stops listening and closes the RNIC (every connection with it); ends {@link #awaitFinished()}. */
    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        if (node != null) {
            node.close();
        }
        finished.complete(0);
    }
}
