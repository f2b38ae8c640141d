package io.jrnic.api;

/**
 * Resource Indicator of an asynchronous event record (Verbs 1.0 §9.4.2).
 *
 * <p>Thread safety: immutable.
 */
public enum ResourceType {
    /** A queue pair (affiliated event). */
    QP,
    /** A completion queue. */
    CQ,
    /** A shared receive queue. */
    SRQ,
    /** The RNIC itself (unaffiliated). */
    RNIC
}
