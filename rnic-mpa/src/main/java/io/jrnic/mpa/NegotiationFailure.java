package io.jrnic.mpa;

/**
 * Why MPA startup did not produce a usable connection (see {@link Negotiation}).
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum NegotiationFailure {
    /** The peer's frame is improperly formatted; {@link Negotiation#frameReason()} says how. */
    INVALID_FRAME(MpaError.INVALID_STARTUP_FRAME),
    /** The Responder's Reply has R=1 (RFC 5044 §7.1.2 rule 3). */
    PEER_REJECTED(null),
    /** {@link CrcPolicy#REQUIRED} and the peer sent C=0. */
    CRC_REQUIRED(null),
    /** The peer asked for markers (M=1) and this endpoint is configured not to send them. */
    MARKERS_REFUSED(null),
    /**
     * IRD/ORD cannot be met (RFC 6581 §9.1): at the Responder the Initiator's IRD is below the
     * ULP's required ORD; at the Initiator the Responder's ORD exceeds the IRD it can provide.
     */
    INSUFFICIENT_IRD(MpaError.INSUFFICIENT_IRD),
    /** No RTR form is supported by both ends (RFC 6581 §9.2). */
    NO_MATCHING_RTR(MpaError.NO_MATCHING_RTR);

    private final MpaError error;

    NegotiationFailure(MpaError error) {
        this.error = error;
    }

    /**
     * {@return the MPA error code that describes this failure in a local report or a Terminate, or
     * {@code null} when MPA defines none (policy refusals and peer rejects)}
     */
    public MpaError error() {
        return error;
    }
}
