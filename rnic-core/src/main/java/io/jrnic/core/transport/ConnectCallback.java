package io.jrnic.core.transport;

/**
 * The result of a connection setup: exactly one of the two methods is called, once, on the
 * connection's event loop. Implementations must not block; exceptions they throw are logged and the
 * connection is aborted.
 *
 * <p>Thread safety: called from one thread (the connection's event loop).
 */
public interface ConnectCallback {

    /**
     * MPA setup completed and the connection is in Full Operation. The channel does not read until
     * {@link FpduChannel#start} is called, so nothing the peer sends is lost meanwhile (Verbs
     * §6.2.1.2, V-QPS-15).
     *
     * @param channel the established channel; {@link FpduChannel#info()} is the hand-off to the QP
     */
    void onEstablished(FpduChannel channel);

    /**
     * Setup failed; the TCP connection is closed (or closing).
     *
     * @param failure why
     */
    void onFailed(SetupFailure failure);
}
