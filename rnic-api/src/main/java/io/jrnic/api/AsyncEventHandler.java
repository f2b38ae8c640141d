package io.jrnic.api;

/**
 * The single asynchronous event handler of an RNIC (Verbs 1.0 §8.3.3, §9.4.2). Called outside
 * every internal lock, on the thread that detected the event; it must not block for long.
 *
 * <p>Thread safety: implementations must tolerate calls from any thread.
 */
@FunctionalInterface
public interface AsyncEventHandler {
    /**
     * Receives one event.
     *
     * @param rnic  the RNIC handle
     * @param event the Event Record
     */
    void onAsyncEvent(Rnic rnic, AsyncEvent event);
}
