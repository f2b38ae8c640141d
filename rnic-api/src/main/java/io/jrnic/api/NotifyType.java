package io.jrnic.api;

/**
 * Arming type of Request Completion Notification (Verbs 1.0 §8.2.5, §9.3.2.2).
 *
 * <p>Thread safety: immutable.
 */
public enum NotifyType {
    /** Fire on the next completion of any kind added to the CQ. */
    NEXT_COMPLETION,
    /** Fire on the next solicited receive completion or the next completion in error. */
    SOLICITED
}
