package io.jrnic.mpa;

/**
 * The decision of {@link MpaNegotiator} on a received startup frame.
 *
 * <p>Thread safety: immutable record, safe to share.
 *
 * @param outcome     what the endpoint must do next
 * @param parameters  the negotiated parameters; present for {@link Outcome#ACCEPT} and
 *                    {@link Outcome#TERMINATE}, and for {@link Outcome#REJECT} /
 *                    {@link Outcome#PEER_REJECTED} where known (the peer's IRD/ORD are passed to
 *                    the ULP, RFC 6581 §9.1); {@code null} for {@link Outcome#CLOSE}
 * @param failure     why the connection does not proceed, {@code null} for {@link Outcome#ACCEPT}
 * @param frameReason for {@link NegotiationFailure#INVALID_FRAME}, how the frame is malformed
 */
public record Negotiation(Outcome outcome, MpaParameters parameters, NegotiationFailure failure,
                          StartupFrameReason frameReason) {

    /** What an endpoint does after a startup frame has been judged. */
    public enum Outcome {
        /**
         * Responder: send an accepting Reply and enter Full Operation. Initiator: enter Full
         * Operation; in peer-to-peer mode send the {@link MpaParameters#rtr()} first.
         */
        ACCEPT,
        /**
         * Responder only: send a Reply with R=1 and exit MPA leaving TCP open (RFC 5044 §7.1.2
         * rule 2); with S=1 the Reply carries the required ORD (RFC 6581 §9.1).
         */
        REJECT,
        /** Initiator only: the Responder rejected; exit MPA leaving TCP open (RFC 5044 §7.1.2 rule 3). */
        PEER_REJECTED,
        /** Close TCP at once and report locally (RFC 5044 §8 code 4, or a local policy refusal). */
        CLOSE,
        /**
         * Initiator only: enter Full Operation just to send one Terminate (Layer 2, EType 0, code
         * {@link NegotiationFailure#error()}) as the first FPDU, then close (RFC 6581 §9.1, §9.2).
         */
        TERMINATE
    }

    /** An accepting decision. */
    static Negotiation accept(MpaParameters parameters) {
        return new Negotiation(Outcome.ACCEPT, parameters, null, null);
    }

    /** A decision to close because the frame is malformed. */
    static Negotiation invalid(StartupFrameReason reason) {
        return new Negotiation(Outcome.CLOSE, null, NegotiationFailure.INVALID_FRAME, reason);
    }

    /**
     * {@return the MPA error for a local report or Terminate, or {@code null} (see {@link
     * NegotiationFailure#error()})}
     */
    public MpaError error() {
        return failure == null ? null : failure.error();
    }
}
