package io.jrnic.api;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletionStage;

/**
 * Connection management at the Verbs level (Verbs 1.0 §6.6): sets up the LLP stream of a queue pair
 * with MPA (RFC 5044 §7.1, RFC 6581) and moves the queue pair from Idle to RTS on it; one per RNIC
 * ({@link Rnic#connectionManager()}).
 *
 * <pre>{@code
 * // passive side (Verbs §6.6.1.2)
 * ConnectionManager.Listener listener = rnic.connectionManager().listen(address, settings, request -> {
 *     QueuePair qp = pd.createQueuePair(config);          // Idle; post receives now
 *     request.accept(qp, replyData).thenAccept(connection -> serve(connection));
 * });
 * // active side (Verbs §6.6.1.1)
 * QueuePair qp = pd.createQueuePair(config);              // Idle; post receives now
 * Connection c = rnic.connectionManager().connect(qp, address, settings, requestData)
 *         .toCompletableFuture().get(10, TimeUnit.SECONDS);
 * // ... work requests ...
 * c.disconnect();                                          // Modify QP -> Closing, then Idle
 * }</pre>
 *
 * The queue pair must be Idle when it is handed over, and should have its receives posted: the
 * peer's first message may arrive as soon as it is in RTS (Verbs §6.6.1.1). Its IRD and ORD are
 * proposed to the peer, and the negotiated values are applied by the Modify to RTS (RFC 6581 §9.1).
 * Teardown is the Verbs' own: Modify QP to Closing (graceful) or Error (abortive), see
 * {@link Connection#disconnect()} and {@link Connection#abort()}.
 *
 * <p>Thread safety: thread safe. Results and requests are delivered on the connection's event loop:
 * callbacks must not block it (use the {@code *Async} stage methods for blocking work).
 */
public interface ConnectionManager {
    /**
     * Listens for connections (the passive side): binds a TCP socket and offers every valid MPA
     * Request to the handler.
     *
     * @param address  where to bind (port 0 for an ephemeral port)
     * @param settings the local settings of the accepted connections (read now)
     * @param handler  receives the requests and, for information, setup failures
     * @return the bound listener
     * @throws IOException              if binding fails
     * @throws IllegalArgumentException if an argument is null
     * @throws VerbsException           INVALID_RNIC_HANDLE when the RNIC is closed
     */
    Listener listen(SocketAddress address, ConnectionSettings settings, ConnectionRequestHandler handler)
            throws IOException;

    /**
     * Connects a queue pair to a listener (the active side, MPA Initiator). On success the queue
     * pair is in RTS with the negotiated IRD/ORD when the stage completes.
     *
     * @param qp          an Idle queue pair of this RNIC
     * @param address     the listener's address
     * @param settings    the local settings (read now)
     * @param privateData ULP private data for the MPA Request ({@code null} for none), at most
     *                    {@link ConnectionSettings#maxUlpPrivateData()} bytes
     * @return completes with the connection, or exceptionally with a {@link ConnectionException}
     * @throws IllegalArgumentException if an argument is null or the private data exceeds the limit
     *                                  (nothing is sent)
     * @throws VerbsException           INVALID_QP_HANDLE for a queue pair of another RNIC or a
     *                                  destroyed one, INVALID_QP_STATE when it is not Idle or is already
     *                                  being connected, INVALID_RNIC_HANDLE when the RNIC is closed
     */
    CompletionStage<Connection> connect(QueuePair qp, SocketAddress address, ConnectionSettings settings,
                                        byte[] privateData);

    /**
     * Turns a TCP connection the ULP established itself, and may have used in streaming mode, into
     * the RDMA stream of a queue pair, as the active side (MPA Initiator; Verbs §6.6.1.1, V-CM-2).
     * The manager takes the socket over, writes the last streaming-mode message as it is (the Verbs
     * Stream Message Buffer, §6.2.1.2), then the MPA Request, and continues as
     * {@link #connect(QueuePair, SocketAddress, ConnectionSettings, byte[])}. TCP keeps the order,
     * so the peer's Reply proves the message arrived before the queue pair enters RTS (V-QPS-16).
     * The passive ULP reads the message from its socket and then calls
     * {@link #awaitRequest(SocketChannel, ConnectionSettings, byte[])} on it.
     *
     * @param qp            an Idle queue pair of this RNIC
     * @param connected     a connected socket (blocking or not) from which the ULP will read no
     *                      more: the manager owns and closes it from now on
     * @param settings      the local settings (read now)
     * @param privateData   ULP private data for the MPA Request ({@code null} for none)
     * @param streamMessage the last streaming-mode message ({@code null} or empty for none)
     * @return completes with the connection, or exceptionally with a {@link ConnectionException}
     * @throws IllegalArgumentException if an argument is null, the socket is not connected or the
     *                                  private data exceeds the limit (nothing is sent)
     * @throws VerbsException           as for {@link #connect(QueuePair, SocketAddress, ConnectionSettings, byte[])}
     */
    CompletionStage<Connection> connect(QueuePair qp, SocketChannel connected, ConnectionSettings settings,
                                        byte[] privateData, byte[] streamMessage);

    /**
     * Turns a TCP connection the ULP established itself, and may have used in streaming mode, into
     * an RDMA stream as the passive side (MPA Responder; Verbs §6.6.1.2, V-CM-2): the manager takes
     * the socket over and waits on it for the peer's MPA Request. The stage completes with the
     * request, which the ULP accepts with a queue pair or rejects as any other.
     *
     * @param connected   a connected socket (blocking or not): the manager owns and closes it from
     *                    now on
     * @param settings    the local settings (read now)
     * @param alreadyRead bytes the ULP read from the socket beyond its own streaming-mode data (the
     *                    start of the MPA Request), or {@code null}
     * @return completes with the request, or exceptionally with a {@link ConnectionException}
     * @throws IllegalArgumentException if an argument is null or the socket is not connected
     * @throws VerbsException           INVALID_RNIC_HANDLE when the RNIC is closed
     */
    CompletionStage<ConnectionRequest> awaitRequest(SocketChannel connected, ConnectionSettings settings,
                                                    byte[] alreadyRead);

    /**
     * A listening socket. Closing it stops accepting; established connections are not affected.
     *
     * <p>Thread safety: thread safe; {@link #close()} waits and must not run on an event loop.
     */
    interface Listener extends AutoCloseable {
        /**
         * The bound address (with the actual port when port 0 was asked for).
         *
         * @return the address
         */
        SocketAddress localAddress();

        /**
         * Whether the listener still accepts connections.
         *
         * @return false after {@link #close()}
         */
        boolean isOpen();

        /** Stops listening and waits until the socket is closed. Idempotent. */
        @Override
        void close();
    }
}
