package io.jrnic.mpa;

/**
 * Why an MPA Request or Reply frame is improperly formatted. Every reason is reported to the peer
 * and the ULP as {@link MpaError#INVALID_STARTUP_FRAME} (RFC 5044 §8 code 4: TCP must be closed at
 * once); the reason only makes the local report precise.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum StartupFrameReason {
    /** The 16-byte key is neither "MPA ID Req Frame" nor "MPA ID Rep Frame" (RFC 5044 §7.1.1). */
    BAD_KEY,
    /**
     * A Request arrived where a Reply was expected: the peer is another Initiator (RFC 5044 §7.1.2
     * rule 8, the "Initiator/Initiator" case).
     */
    INITIATOR_INITIATOR,
    /** A Reply arrived where a Request was expected: the peer is also a Responder. */
    RESPONDER_RESPONDER,
    /** Rev is one this implementation cannot interoperate with (RFC 5044 §7.1.1 "Rev"). */
    UNSUPPORTED_REVISION,
    /** PD_Length exceeds 512, the protocol maximum (RFC 5044 §7.1.1 "PD_Length"). */
    PD_LENGTH_TOO_LONG,
    /**
     * PD_Length exceeds the locally configured private data limit, i.e. the receiving buffer
     * (RFC 5044 §7.1.2 rule 9).
     */
    PD_LENGTH_EXCEEDS_LIMIT,
    /**
     * The frame ends before its 20-byte header or before PD_Length octets of private data
     * (RFC 5044 §7.1.1 "PD_Length").
     */
    PRIVATE_DATA_TRUNCATED,
    /** S=1 with Rev &lt; 2 (RFC 6581 §6: enhanced features need Rev two or higher). */
    ENHANCED_WITH_OLD_REVISION,
    /** S=1 but PD_Length &lt; 4, so the IRD/ORD word cannot be present (RFC 6581 §9). */
    ENHANCED_DATA_MISSING,
    /**
     * An enhanced Responder answered an enhanced Request with an unenhanced Reply, or the reverse
     * (RFC 6581 §10: the Reply must match the Request's S).
     */
    ENHANCED_MISMATCH;

    /** {@return the MPA error reported for every reason: {@link MpaError#INVALID_STARTUP_FRAME}} */
    public MpaError error() {
        return MpaError.INVALID_STARTUP_FRAME;
    }
}
