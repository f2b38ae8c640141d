package io.jrnic.core.transport;

import io.jrnic.mpa.MpaParameters;

import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A valid MPA Request waiting for the ULP's answer (Verbs §6.6.1.2): the peer's private data and
 * IRD/ORD, and the parameters the connection will have if accepted. Answer exactly once with
 * {@link #accept} or {@link #reject}, from any thread.
 *
 * <p>Thread safety: safe to use from any thread; the answer runs on the connection's event loop.
 */
public final class MpaRequest {

    private final MpaSetupHandler connection;
    private final int revision;
    private final MpaParameters parameters;
    private final byte[] privateData;
    private final SocketAddress remoteAddress;
    private final int maxReplyPrivateData;
    private final AtomicBoolean answered = new AtomicBoolean();

    MpaRequest(MpaSetupHandler connection, int revision, MpaParameters parameters, byte[] privateData,
                      SocketAddress remoteAddress, int maxReplyPrivateData) {
        this.connection = connection;
        this.revision = revision;
        this.parameters = parameters;
        this.privateData = privateData;
        this.remoteAddress = remoteAddress;
        this.maxReplyPrivateData = maxReplyPrivateData;
    }

    /** The Rev of the peer's Request (1 or 2). */
    public int revision() {
        return revision;
    }

    /** The parameters of the connection if accepted (CRC, markers, negotiated IRD/ORD, RTR forms). */
    public MpaParameters parameters() {
        return parameters;
    }

    /** The peer's ULP private data (after the RFC 6581 IRD/ORD word); a copy. */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** The IRD in the peer's Request, or -1 if it was not enhanced (RFC 6581 §9.1: passed to the ULP). */
    public int peerIrd() {
        return parameters.peerIrd();
    }

    /** The ORD in the peer's Request, or -1 if it was not enhanced. */
    public int peerOrd() {
        return parameters.peerOrd();
    }

    /** The peer's socket address. */
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** The most ULP private data a Reply may carry (the limit minus the IRD/ORD word in revision 2). */
    public int maxReplyPrivateData() {
        return maxReplyPrivateData;
    }

    /**
     * Accepts: sends the Reply and, once the connection is in Full Operation (peer-to-peer: after the
     * RTR arrived), calls {@code callback.onEstablished}; otherwise {@code callback.onFailed}.
     *
     * @param replyPrivateData ULP private data for the Reply, at most {@link #maxReplyPrivateData()}
     *                         bytes ({@code null} for none)
     * @param callback         the result
     * @throws IllegalArgumentException if the private data is too long or callback is null
     * @throws IllegalStateException    if the request was already answered
     */
    public void accept(byte[] replyPrivateData, ConnectCallback callback) {
        byte[] data = checkData(replyPrivateData);
        if (callback == null) {
            throw new IllegalArgumentException("callback must not be null");
        }
        markAnswered();
        connection.nettyChannel().eventLoop().execute(() -> connection.accept(data, callback));
    }

    /**
     * Rejects: sends the Reply with R=1 and the private data (RFC 5044 §7.1.2 rule 2), then closes.
     *
     * @param replyPrivateData ULP private data for the Reply ({@code null} for none)
     * @throws IllegalArgumentException if the private data is too long
     * @throws IllegalStateException    if the request was already answered
     */
    public void reject(byte[] replyPrivateData) {
        byte[] data = checkData(replyPrivateData);
        markAnswered();
        connection.nettyChannel().eventLoop().execute(() -> connection.reject(data));
    }

    private byte[] checkData(byte[] data) {
        byte[] copy = data == null ? new byte[0] : data.clone();
        if (copy.length > maxReplyPrivateData) {
            throw new IllegalArgumentException("reply private data of " + copy.length + " bytes exceeds the limit of "
                    + maxReplyPrivateData);
        }
        return copy;
    }

    private void markAnswered() {
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("connection request already answered");
        }
    }
}
