package io.jrnic.mpa;

/**
 * How an endpoint declares and accepts CRC usage during MPA startup (RFC 5044 §4.4, §7.1.1 "C").
 *
 * <p>The rule on the wire is fixed: CRCs are generated and checked in both directions exactly when
 * either startup frame has C=1 (see {@link MpaNegotiator#crcEnabled(boolean, boolean)}). A policy
 * only decides the C bit this endpoint sends and whether it refuses a peer whose C differs.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum CrcPolicy {
    /**
     * Send C=1 and refuse a peer that sends C=0. The RFC does not require the refusal (the peer must
     * use CRCs anyway once we set C); it is the "strict" choice for deployments that want only peers
     * which themselves prefer CRCs. Do not use toward Linux siw initiators, which send C=0.
     */
    REQUIRED(true, true),
    /**
     * The default, RFC 5044 §4.4's default configuration: send C=1 and accept any peer. CRCs are
     * then always on.
     */
    OPTIONAL(true, false),
    /**
     * Send C=0: the administrator's preference not to use CRCs (RFC 5044 §4.4 (2a)). CRCs are off
     * only if the peer also sends C=0; if the peer sends C=1 they are on, as RFC 5044 §7.1.1 demands.
     */
    OFF(false, false);

    private final boolean sendC;
    private final boolean refuseWithoutC;

    CrcPolicy(boolean sendC, boolean refuseWithoutC) {
        this.sendC = sendC;
        this.refuseWithoutC = refuseWithoutC;
    }

    /** {@return the C bit this endpoint puts in its startup frame} */
    public boolean sendC() {
        return sendC;
    }

    /** {@return whether a peer frame with C=0 makes this endpoint refuse the connection} */
    public boolean refusesPeerWithoutCrc() {
        return refuseWithoutC;
    }
}
