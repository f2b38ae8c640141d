package io.jrnic.core.transport;

/**
 * How an established {@link FpduChannel} ended; reported exactly once through
 * {@link ChannelListener#onClosed}.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum ChannelClosure {
    /** This side closed gracefully: pending FPDUs were handed to TCP, then FIN ({@link FpduChannel#close()}). */
    LOCAL_CLOSE,
    /** This side aborted the connection: RST through SO_LINGER 0 ({@link FpduChannel#abort()}). */
    LOCAL_ABORT,
    /** The peer closed its sending half (FIN) at an FPDU boundary: a normal remote close (Verbs §6.6.2.1). */
    REMOTE_CLOSE,
    /**
     * The peer's FIN arrived in the middle of an FPDU: the stream is truncated, which RFC 5044 §8
     * code 1 calls a lost connection.
     */
    REMOTE_CLOSE_MID_FPDU,
    /** The peer reset the connection (RST). */
    REMOTE_RESET,
    /** The connection failed for another reason (I/O error, retransmission timeout). */
    CONNECTION_LOST,
    /** The owning {@link IwarpTransport} was closed. */
    TRANSPORT_CLOSED
}
