package io.jrnic.core.transport;

import io.jrnic.mpa.NegotiationFailure;
import io.jrnic.mpa.StartupFrameReason;
import io.jrnic.wire.IwarpError;

/**
 * Why an MPA connection setup did not produce an {@link FpduChannel}: a typed value handed to
 * {@link ConnectCallback#onFailed} or {@link MpaRequestHandler#onSetupFailed}, never thrown.
 *
 * <p>Thread safety: immutable record (the private data array must not be modified), safe to share.
 *
 * @param kind            the category
 * @param negotiation     for {@link Kind#NEGOTIATION_FAILED} and {@link Kind#REJECTED_BY_PEER}: the
 *                        negotiator's reason, else {@code null}
 * @param frameReason     for {@link Kind#INVALID_FRAME}: how the peer's startup frame is malformed
 * @param error           the iWARP error that describes the failure on the wire (MPA code 4 for an
 *                        invalid frame, 6 or 7 for a Terminate sent or received, ...), or {@code null}
 * @param peerPrivateData for {@link Kind#REJECTED_BY_PEER}: the ULP private data of the reject Reply
 *                        (RFC 5044 §7.1.2 rule 3), else an empty array
 * @param peerIrd         the IRD of the peer's enhanced frame, or -1 (RFC 6581 §9.1: reported to the ULP)
 * @param peerOrd         the ORD of the peer's enhanced frame, or -1
 * @param cause           the I/O exception behind {@link Kind#CONNECT_FAILED} or
 *                        {@link Kind#CONNECTION_LOST}, else {@code null}
 */
public record SetupFailure(Kind kind, NegotiationFailure negotiation, StartupFrameReason frameReason,
                           IwarpError error, byte[] peerPrivateData, int peerIrd, int peerOrd, Throwable cause) {

    private static final byte[] NONE = new byte[0];

    /** Categories of setup failure. */
    public enum Kind {
        /** The TCP connection could not be established. */
        CONNECT_FAILED,
        /** The peer did not complete its part of the setup within {@link TransportConfig#setupTimeout()}. */
        TIMEOUT,
        /** The peer's Request or Reply is improperly formatted; TCP was closed at once (RFC 5044 §8 code 4). */
        INVALID_FRAME,
        /** The Responder sent a Reply with R=1 (RFC 5044 §7.1.2 rule 3). */
        REJECTED_BY_PEER,
        /** The local ULP rejected the Request (Responder side). */
        REJECTED_LOCALLY,
        /**
         * The negotiation failed locally: a policy refusal (CRC required, markers refused), or an
         * RFC 6581 failure for which this endpoint sent the Terminate (codes 6 and 7) before closing.
         */
        NEGOTIATION_FAILED,
        /** The peer sent a Terminate as its first FPDU (RFC 6581 §9: codes 5, 6, 7). */
        PEER_TERMINATED,
        /**
         * Responder, peer-to-peer: the first FPDU was not one of the announced RTR forms (or was
         * corrupt); a Terminate was sent and the connection closed.
         */
        RTR_INVALID,
        /** The peer closed or reset the connection before the setup completed (RFC 5044 §8 code 1). */
        CONNECTION_LOST,
        /** The transport or listener was closed, or the ULP never answered before the connection ended. */
        CLOSED
    }

    /**
     * Checks the record.
     *
     * @throws IllegalArgumentException if kind is null
     */
    public SetupFailure {
        if (kind == null) {
            throw new IllegalArgumentException("kind must not be null");
        }
        peerPrivateData = peerPrivateData == null ? NONE : peerPrivateData;
    }

    /** A failure with nothing but its kind and error. */
    static SetupFailure of(Kind kind, IwarpError error) {
        return new SetupFailure(kind, null, null, error, null, -1, -1, null);
    }

    /** A failure caused by an I/O exception. */
    static SetupFailure ofCause(Kind kind, Throwable cause) {
        return new SetupFailure(kind, null, null, null, null, -1, -1, cause);
    }

    @Override
    public String toString() {
        return "SetupFailure[" + kind
                + (negotiation != null ? ", " + negotiation : "")
                + (frameReason != null ? ", " + frameReason : "")
                + (error != null ? ", error 0x" + Integer.toHexString(error.terminateCodeBits()) : "")
                + (peerPrivateData.length > 0 ? ", " + peerPrivateData.length + " bytes of private data" : "")
                + (cause != null ? ", " + cause : "") + "]";
    }
}
