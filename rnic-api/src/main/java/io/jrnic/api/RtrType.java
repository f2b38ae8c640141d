package io.jrnic.api;

/**
 * The Ready-To-Receive indications of the peer-to-peer connection model (RFC 6581 §9.2): the first
 * FPDU the Initiator sends, before any ULP message, so that the Responder knows the Initiator is in
 * Full Operation.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum RtrType {
    /** Zero-length RDMA Write: consumes nothing at the Responder (preferred when both offer it). */
    WRITE,
    /** Zero-length RDMA Read Request: takes MSN 1 of queue 1 and an IRD slot until it is answered. */
    READ,
    /** Zero-length Send: takes MSN 1 of queue 0, but no receive buffer. */
    SEND
}
