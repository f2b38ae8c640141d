package io.jrnic.api;

/**
 * The CRC policy of an endpoint during MPA connection setup (RFC 5044 §4.4, §7.1.1 "C"). On the wire
 * the rule is fixed: CRCs are generated and checked in both directions exactly when either startup
 * frame has C=1. A mode only decides the C bit this endpoint sends and whether it refuses a peer
 * that sent C=0.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum CrcMode {
    /**
     * The strict policy: send C=1 and refuse a peer that sent C=0 (a Responder rejects the Request,
     * an Initiator closes). Stricter than the RFC; do not use toward Linux siw initiators, which
     * send C=0.
     */
    REQUIRED,
    /** The default (RFC 5044 §4.4): send C=1 and accept any peer, so CRCs are always on. */
    OPTIONAL,
    /**
     * Send C=0 (RFC 5044 §4.4 (2a)): CRCs are off only when the peer also sends C=0; a peer that
     * sends C=1 turns them on (RFC 5044 §7.1.1).
     */
    OFF
}
