package io.jrnic.api;

import java.net.SocketAddress;

/**
 * Receives the connection requests of a {@link ConnectionManager.Listener} (Verbs 1.0 §6.6.1.2).
 * Called on the connection's event loop: do not block. An exception thrown by
 * {@link #onRequest} closes that connection attempt.
 *
 * <p>Thread safety: may be called from several event loops at once.
 */
@FunctionalInterface
public interface ConnectionRequestHandler {
    /**
     * A valid MPA Request arrived. Answer it exactly once with {@link ConnectionRequest#accept} or
     * {@link ConnectionRequest#reject}, now or later from any thread, within the setup timeout.
     *
     * @param request the request
     */
    void onRequest(ConnectionRequest request);

    /**
     * A connection attempt failed before it was offered to {@link #onRequest} (invalid frame,
     * timeout, local policy refusal, lost connection). Purely informative; the default ignores it.
     *
     * @param remote  the peer's address (may be null when unknown)
     * @param failure why
     */
    default void onSetupFailed(SocketAddress remote, ConnectionException failure) {
    }
}
