package io.jrnic.api;

import java.net.SocketAddress;

/**
 * An established connection: a queue pair in RTS on an MPA stream, with what setup negotiated and
 * exchanged (Verbs 1.0 §6.6.1). Teardown follows Verbs §6.6.2 and is a Modify QP on the queue pair;
 * {@link #disconnect()} and {@link #abort()} are shorthands.
 *
 * <p>Thread safety: immutable; the methods are as thread safe as {@link QueuePair#modify}.
 */
public final class Connection {
    /** The MPA role of an endpoint (RFC 5044 §7.1: the active side is the Initiator). */
    public enum Role {
        /** Sent the MPA Request (the active side). */
        INITIATOR,
        /** Answered with the MPA Reply (the passive side). */
        RESPONDER
    }

    private final QueuePair queuePair;
    private final Role role;
    private final ConnectionParameters parameters;
    private final int mulpdu;
    private final byte[] localPrivateData;
    private final byte[] peerPrivateData;
    private final SocketAddress localAddress;
    private final SocketAddress remoteAddress;

    /**
     * Creates the description of an established connection (called by the connection manager).
     *
     * @param queuePair        the queue pair, in RTS on the connection
     * @param role             this endpoint's role
     * @param parameters       what was negotiated
     * @param mulpdu           the largest ULPDU this endpoint sends (RFC 5044 §4.5)
     * @param localPrivateData the private data this endpoint sent (copied)
     * @param peerPrivateData  the private data the peer sent (copied)
     * @param localAddress     this endpoint's address
     * @param remoteAddress    the peer's address
     */
    public Connection(QueuePair queuePair, Role role, ConnectionParameters parameters, int mulpdu,
                      byte[] localPrivateData, byte[] peerPrivateData, SocketAddress localAddress,
                      SocketAddress remoteAddress) {
        if (queuePair == null || role == null || parameters == null) {
            throw new IllegalArgumentException("queue pair, role and parameters must not be null");
        }
        this.queuePair = queuePair;
        this.role = role;
        this.parameters = parameters;
        this.mulpdu = mulpdu;
        this.localPrivateData = localPrivateData == null ? new byte[0] : localPrivateData.clone();
        this.peerPrivateData = peerPrivateData == null ? new byte[0] : peerPrivateData.clone();
        this.localAddress = localAddress;
        this.remoteAddress = remoteAddress;
    }

    /**
     * The queue pair running on the connection.
     *
     * @return the queue pair
     */
    public QueuePair queuePair() {
        return queuePair;
    }

    /**
     * This endpoint's MPA role.
     *
     * @return the role
     */
    public Role role() {
        return role;
    }

    /**
     * What setup negotiated (the IRD/ORD here are those applied to the queue pair).
     *
     * @return the parameters
     */
    public ConnectionParameters parameters() {
        return parameters;
    }

    /**
     * The largest ULPDU (DDP header plus payload) one FPDU of this endpoint carries (RFC 5044 §4.5).
     *
     * @return bytes
     */
    public int mulpdu() {
        return mulpdu;
    }

    /**
     * The ULP private data this endpoint sent in its Request or Reply.
     *
     * @return a copy
     */
    public byte[] localPrivateData() {
        return localPrivateData.clone();
    }

    /**
     * The ULP private data of the peer's Request or Reply (after the RFC 6581 IRD/ORD word).
     *
     * @return a copy
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * This endpoint's socket address.
     *
     * @return the address
     */
    public SocketAddress localAddress() {
        return localAddress;
    }

    /**
     * The peer's socket address.
     *
     * @return the address
     */
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /**
     * Normal close (Verbs §6.6.2.1): Modify QP to Closing. Call it once this side's SQ work has
     * completed; the receive queue is flushed, FIN follows the FPDUs already queued, and when the
     * close finishes the queue pair reaches Idle with the affiliated event
     * {@link AsyncEventType#LLP_CLOSE_COMPLETE}. With SQ work or inbound Reads still outstanding the
     * Verbs make this a Bad Close: the queue pair goes to Error and the stream is reset.
     *
     * @throws VerbsException INVALID_QP_STATE_CHANGE when the queue pair is not in RTS
     */
    public void disconnect() {
        queuePair.modify(new QueuePairModification().nextState(QpState.CLOSING));
    }

    /**
     * Abortive teardown (Verbs §6.6.2.3): Modify QP to Error. The stream is reset (no Terminate) and
     * every outstanding work request completes once with {@link WorkCompletionStatus#FLUSHED}.
     *
     * @throws VerbsException INVALID_QP_STATE_CHANGE when the queue pair is Closing or Terminate
     */
    public void abort() {
        queuePair.modify(new QueuePairModification().nextState(QpState.ERROR));
    }

    @Override
    public String toString() {
        return "Connection[" + role + " " + localAddress + " -> " + remoteAddress + ", QP " + queuePair.id() + "]";
    }
}
