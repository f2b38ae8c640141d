package io.jrnic.api;

/**
 * Why a connection setup failed (Verbs 1.0 §6.6.1, RFC 5044 §7.1, RFC 6581 §9): the exception a
 * {@link ConnectionManager#connect} or {@link ConnectionRequest#accept} stage completes with, and
 * what {@link ConnectionRequestHandler#onSetupFailed} receives. It carries a typed
 * {@link #reason()} and what the peer told us, so callers never need to parse the message.
 *
 * <p>Thread safety: immutable, safe to share.
 */
public final class ConnectionException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final byte[] NONE = new byte[0];

    /** Categories of setup failure. */
    public enum Reason {
        /** The TCP connection could not be established (refused, unreachable, connect timeout). */
        CONNECT_FAILED,
        /** The peer did not complete its part of the setup within the setup timeout (RFC 5044 §7.1.2 rule 10). */
        TIMEOUT,
        /** The peer's MPA Request or Reply is improperly formatted (RFC 5044 §8, MPA code 4). */
        INVALID_FRAME,
        /** The peer rejected the connection (Reply with R=1, RFC 5044 §7.1.2 rule 3). */
        REJECTED_BY_PEER,
        /** The local ULP rejected the request (passive side). */
        REJECTED_LOCALLY,
        /**
         * The MPA negotiation failed locally: CRC required but not offered, markers refused, or an
         * RFC 6581 failure (insufficient IRD, no matching RTR) answered with a Terminate.
         */
        NEGOTIATION_FAILED,
        /** The peer sent a Terminate as its first FPDU (RFC 6581 §9). */
        PEER_TERMINATED,
        /** Passive side, peer-to-peer: the first FPDU was not an announced RTR (RFC 6581 §9.2). */
        RTR_INVALID,
        /** The peer closed or reset the connection during setup (RFC 5044 §8 code 1). */
        CONNECTION_LOST,
        /** The RNIC, its connection manager or the listener was closed, or the request went unanswered. */
        CLOSED,
        /**
         * The connection was established but the queue pair could not enter RTS (it was modified or
         * destroyed meanwhile); the connection was aborted.
         */
        QUEUE_PAIR_UNUSABLE
    }

    /** Why the setup failed. */
    private final Reason reason;
    /** The iWARP error code of the failure on the wire (RFC 5040 §4.8 layout), or -1. */
    private final int terminateCode;
    /** The private data of the peer's reject Reply, or null. */
    private final byte[] peerPrivateData;
    /** The IRD of the peer's enhanced frame (RFC 6581), or -1. */
    private final int peerIrd;
    /** The ORD of the peer's enhanced frame (RFC 6581), or -1. */
    private final int peerOrd;

    /**
     * Creates the exception.
     *
     * @param reason          the category
     * @param message         what happened, for people
     * @param terminateCode   the iWARP error code that describes the failure on the wire (Layer, EType
     *                        and code as in a Terminate control field, RFC 5040 §4.8), or -1
     * @param peerPrivateData the private data of the peer's reject Reply, or null
     * @param peerIrd         the IRD of the peer's enhanced frame, or -1
     * @param peerOrd         the ORD of the peer's enhanced frame, or -1
     * @param cause           the I/O cause, or null
     */
    public ConnectionException(Reason reason, String message, int terminateCode, byte[] peerPrivateData,
                               int peerIrd, int peerOrd, Throwable cause) {
        super(message, cause);
        if (reason == null) {
            throw new IllegalArgumentException("reason must not be null");
        }
        this.reason = reason;
        this.terminateCode = terminateCode;
        this.peerPrivateData = peerPrivateData == null ? NONE : peerPrivateData.clone();
        this.peerIrd = peerIrd;
        this.peerOrd = peerOrd;
    }

    /**
     * The category.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /**
     * The iWARP error describing the failure on the wire as Terminate control bits
     * ({@code Layer << 12 | EType << 8 | Code}), e.g. 0x2004 for an invalid startup frame or 0x2007
     * for no matching RTR.
     *
     * @return the bits, or -1 when there is none
     */
    public int terminateCode() {
        return terminateCode;
    }

    /**
     * The ULP private data of the peer's reject Reply (RFC 5044 §7.1.2 rule 3).
     *
     * @return a copy; empty when there is none
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * The IRD the peer announced (RFC 6581 §9.1: reported to the ULP even on failure).
     *
     * @return the IRD, or -1 when the peer's frame was not enhanced
     */
    public int peerIrd() {
        return peerIrd;
    }

    /**
     * The ORD the peer announced.
     *
     * @return the ORD, or -1 when the peer's frame was not enhanced
     */
    public int peerOrd() {
        return peerOrd;
    }
}
