package io.jrnic.api;

import java.net.SocketAddress;
import java.util.concurrent.CompletionStage;

/**
 * A valid MPA Request waiting for the passive ULP's answer (Verbs 1.0 §6.6.1.2; RFC 5044 §7.1.2):
 * the peer's private data and IRD/ORD, and the parameters the connection gets if it is accepted.
 *
 * <p>Thread safety: thread safe; answer exactly once, from any thread.
 */
public interface ConnectionRequest {
    /**
     * The peer's ULP private data (after the RFC 6581 IRD/ORD word).
     *
     * @return a copy
     */
    byte[] privateData();

    /**
     * The revision of the peer's Request.
     *
     * @return 1 or 2
     */
    int revision();

    /**
     * The IRD in the peer's Request (RFC 6581 §9.1).
     *
     * @return the IRD, 0x3FFF for "no negotiation", or -1 when the Request was not enhanced
     */
    int peerIrd();

    /**
     * The ORD in the peer's Request.
     *
     * @return the ORD, 0x3FFF for "no negotiation", or -1 when the Request was not enhanced
     */
    int peerOrd();

    /**
     * What the connection will use if accepted (CRC, markers, the IRD/ORD this side announces, RTR
     * types).
     *
     * @return the parameters
     */
    ConnectionParameters parameters();

    /**
     * The peer's socket address.
     *
     * @return the address
     */
    SocketAddress remoteAddress();

    /**
     * The most ULP private data the Reply may carry (the limit minus the IRD/ORD word in revision 2).
     *
     * @return bytes
     */
    int maxReplyPrivateData();

    /**
     * Accepts with a queue pair: sends the MPA Reply and, once the connection is in Full Operation
     * (peer-to-peer: after the RTR arrived), moves the queue pair to RTS with the negotiated IRD/ORD.
     *
     * @param qp        an Idle queue pair of this RNIC, with its receives posted
     * @param replyData ULP private data for the Reply ({@code null} for none)
     * @return completes with the connection, or exceptionally with a {@link ConnectionException}
     * @throws IllegalArgumentException if qp is null or the private data exceeds {@link #maxReplyPrivateData()}
     * @throws VerbsException           INVALID_QP_HANDLE, INVALID_QP_STATE (not Idle or already connecting)
     * @throws IllegalStateException    if the request was already answered
     */
    CompletionStage<Connection> accept(QueuePair qp, byte[] replyData);

    /**
     * Rejects: sends the MPA Reply with R=1 and the private data, then closes (RFC 5044 §7.1.2 rule 2).
     *
     * @param replyData ULP private data for the reject Reply ({@code null} for none)
     * @throws IllegalArgumentException if the private data exceeds {@link #maxReplyPrivateData()}
     * @throws IllegalStateException    if the request was already answered
     */
    void reject(byte[] replyData);
}
