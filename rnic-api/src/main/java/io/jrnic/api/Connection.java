package io.jrnic.api;

import java.net.SocketAddress;
import java.util.concurrent.CompletionStage;

/**
 * An established connection: a queue pair in RTS on an MPA stream, with what setup negotiated and
 * exchanged (Verbs 1.0 §6.6.1). Teardown follows Verbs §6.6.2 and is a Modify QP on the queue pair;
 * {@link #disconnect()} and {@link #abort()} are shorthands whose stages complete when the LLP
 * stream has closed, and {@link #close()} disconnects and waits for it. The connection manager
 * creates connections; closing one leaves the queue pair (Idle or Error) to the application.
 *
 * <pre>{@code
 * try (Connection c = cm.connect(qp, address, settings, null).toCompletableFuture().get()) {
 *     ... work requests, their completions reaped ...
 * }                                                   // graceful close, waits for the stream to end
 * }</pre>
 *
 * <p>Threads: the stages complete on the connection's event loop (or on the thread whose verb
 * closed the stream); dependent actions must not block there (use the {@code *Async} stage methods).
 *
 * <p>Thread safety: thread safe.
 */
public interface Connection extends AutoCloseable {
    /** The MPA role of an endpoint (RFC 5044 §7.1: the active side is the Initiator). */
    enum Role {
        /** Sent the MPA Request (the active side). */
        INITIATOR,
        /** Answered with the MPA Reply (the passive side). */
        RESPONDER
    }

    /**
     * The queue pair running on the connection.
     *
     * @return the queue pair
     */
    QueuePair queuePair();

    /**
     * This endpoint's MPA role.
     *
     * @return the role
     */
    Role role();

    /**
     * What setup negotiated (the IRD/ORD here are those applied to the queue pair).
     *
     * @return the parameters
     */
    ConnectionParameters parameters();

    /**
     * The largest ULPDU (DDP header plus payload) one FPDU of this endpoint carries (RFC 5044 §4.5).
     *
     * @return bytes
     */
    int mulpdu();

    /**
     * The ULP private data this endpoint sent in its Request or Reply.
     *
     * @return a copy
     */
    byte[] localPrivateData();

    /**
     * The ULP private data of the peer's Request or Reply (after the RFC 6581 IRD/ORD word).
     *
     * @return a copy
     */
    byte[] peerPrivateData();

    /**
     * This endpoint's socket address.
     *
     * @return the address
     */
    SocketAddress localAddress();

    /**
     * The peer's socket address.
     *
     * @return the address
     */
    SocketAddress remoteAddress();

    /**
     * Completes when the LLP stream of this connection has closed, however it closed: this side's
     * or the peer's graceful close, an abort, a Terminate, a lost connection, Destroy QP or Close
     * RNIC. The queue pair has then left the stream (Verbs §6.2.4, §6.6.2).
     *
     * @return completes with the queue pair's state at that moment: {@link QpState#IDLE} after a
     *         graceful close (with {@link AsyncEventType#LLP_CLOSE_COMPLETE}), otherwise
     *         {@link QpState#ERROR}; never exceptionally
     */
    CompletionStage<QpState> closed();

    /**
     * Normal close (Verbs §6.6.2.1): Modify QP to Closing. Call it once this side's SQ work has
     * completed; the receive queue is flushed, FIN follows the FPDUs already queued, and when the
     * close finishes the queue pair reaches Idle with the affiliated event
     * {@link AsyncEventType#LLP_CLOSE_COMPLETE}. With SQ work or inbound Reads still outstanding the
     * Verbs make this a Bad Close: the queue pair goes to Error and the stream is reset. When the
     * queue pair has already left RTS (the peer closed first, a Terminate, an abort), nothing is
     * modified and the stage is that of {@link #closed()}.
     *
     * @return {@link #closed()}: completes at LLP close
     */
    CompletionStage<QpState> disconnect();

    /**
     * Abortive teardown (Verbs §6.6.2.3): Modify QP to Error. The stream is reset (no Terminate) and
     * every outstanding work request completes once with {@link WorkCompletionStatus#FLUSHED}.
     * Nothing is modified when the queue pair is Closing, Terminate, Error or Idle already.
     *
     * @return {@link #closed()}: completes at LLP close
     */
    CompletionStage<QpState> abort();

    /**
     * {@link #disconnect()} and wait until the stream has closed, at most the connection's close
     * timeout ({@link ConnectionSettings#closeTimeout(java.time.Duration)}) and a margin, after
     * which the connection is aborted. Does not wait when called on an event loop (from a
     * callback). Idempotent; the queue pair stays (Idle or Error) for the application to destroy or
     * reuse.
     */
    @Override
    void close();
}
