package io.jrnic.api;

/**
 * A Completion Event Handler (Verbs 1.0 §8.2.5, §9.4.1): called once per armed notification with
 * the CQ that generated it. The RNIC never polls on the consumer's behalf (V-WRP-64). Called
 * outside every internal lock, so the handler may poll and re-arm.
 *
 * <p>Thread safety: implementations must tolerate calls from any thread.
 */
@FunctionalInterface
public interface CompletionEventHandler {
    /**
     * Notification that an armed CQ received a matching completion.
     *
     * @param rnic the RNIC handle
     * @param cq   the CQ that generated the notification
     */
    void onCompletionEvent(Rnic rnic, CompletionQueue cq);
}
