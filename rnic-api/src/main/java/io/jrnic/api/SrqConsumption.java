package io.jrnic.api;

/**
 * What one QP consumed of a shared receive queue (RFC 5040 §8.1.2 item 8: the statistics that let
 * the local peer see which remote peer consumes the buffers), returned by
 * {@link SharedReceiveQueue#consumption(QueuePair)}.
 *
 * <p>Thread safety: immutable.
 *
 * @param qpId       the QP
 * @param taken      WQEs the QP took from the S-RQ since it was attached
 * @param inProcess  WQEs it holds now: taken, completion not yet written
 * @param inWindow   WQEs among the S-RQ's last {@code window} takes that this QP took
 * @param window     the window size (takes) the share is measured over
 * @param shareLimit takes of the window the policy allows one QP
 * @param exceeded   takes that exceeded the fair share (each refused when the policy terminates)
 */
public record SrqConsumption(int qpId, long taken, int inProcess, int inWindow, int window, int shareLimit,
                             long exceeded) {
}
