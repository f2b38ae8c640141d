package io.jrnic.test;

/**
 * What carries the TCP stream between the two ends of an {@link RnicPair}.
 *
 * <p>The active end connects to the address the link gives it, not to the passive end's listener
 * directly, so that a link can later put something between the two ends, such as a fault proxy
 * that delays, splits, corrupts or cuts the stream. No such link exists yet: {@link #LOOPBACK} is
 * the only value, and tests written against it will run unchanged through a proxying link. Tests
 * that set up their own connections can put a {@link FaultProxy} between the ends today.
 *
 * <p>Thread safety: immutable enum.
 */
public enum Link {
    /** Direct loopback TCP: the active end connects to the passive end's listener on 127.0.0.1. */
    LOOPBACK
}
