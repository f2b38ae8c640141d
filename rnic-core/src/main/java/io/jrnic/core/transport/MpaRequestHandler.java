package io.jrnic.core.transport;

import java.net.SocketAddress;

/**
 * Receives the MPA Requests of an {@link MpaListener} (RFC 5044 §7.1, Verbs §6.6.1.2: the passive
 * side). The connection manager offers each to the Verbs consumer as a connection request.
 * Methods are called on the connection's event loop and must not block; exceptions they throw are
 * logged and the connection is closed.
 *
 * <p>Thread safety: called from the event loops of the listener's connections, possibly several at
 * once.
 */
public interface MpaRequestHandler {

    /**
     * A valid MPA Request arrived and the local MPA policy accepts it. Answer with
     * {@link MpaRequest#accept} or {@link MpaRequest#reject}, now or later from any
     * thread, before {@link TransportConfig#setupTimeout()} runs out.
     *
     * @param request the request
     */
    void onRequest(MpaRequest request);

    /**
     * A connection attempt failed before it could be offered to {@link #onRequest} (invalid frame,
     * timeout, local policy refusal, lost connection). Purely informative.
     *
     * @param remote  the peer's address
     * @param failure why
     */
    default void onSetupFailed(SocketAddress remote, SetupFailure failure) {
    }
}
