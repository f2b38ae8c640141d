package io.jrnic.core.transport;

import java.net.SocketAddress;

/**
 * Receives the connection requests of an {@link MpaListener} (Verbs §6.6.1.2, the passive side).
 * Methods are called on the connection's event loop and must not block; exceptions they throw are
 * logged and the connection is closed.
 *
 * <p>Thread safety: called from the event loops of the listener's connections, possibly several at
 * once.
 */
public interface ConnectionRequestHandler {

    /**
     * A valid MPA Request arrived and the local MPA policy accepts it. Answer with
     * {@link ConnectionRequest#accept} or {@link ConnectionRequest#reject}, now or later from any
     * thread, before {@link TransportConfig#setupTimeout()} runs out.
     *
     * @param request the request
     */
    void onRequest(ConnectionRequest request);

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
