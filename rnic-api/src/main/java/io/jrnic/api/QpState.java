package io.jrnic.api;

/**
 * The five queue pair states of Verbs 1.0 §6.2 (V-QPS-1).
 *
 * <p>Thread safety: immutable.
 */
public enum QpState {
    /** Created or reset; work requests may be queued but are not processed (§6.2.1). */
    IDLE,
    /** Ready to send: associated with an LLP stream; work is processed (§6.2.2). */
    RTS,
    /** Graceful LLP close in progress (§6.2.5). */
    CLOSING,
    /** Abnormal termination: Terminate message sent or received, LLP closing (§6.2.3). */
    TERMINATE,
    /** Outstanding work flushed; only Modify to Idle or Destroy are allowed (§6.2.4). */
    ERROR
}
