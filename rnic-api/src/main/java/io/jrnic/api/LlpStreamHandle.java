package io.jrnic.api;

/**
 * Opaque LLP Stream Handle supplied on the Idle to RTS transition (Verbs 1.0 §6.2.1.2, §9.2.5.3).
 * The implementation module defines what a valid handle is (for jrnic-core: its transport SPI).
 *
 * <p>Thread safety: defined by the implementation.
 */
public interface LlpStreamHandle {
    /**
     * Whether the stream is in the Established state (can send and receive), which the Idle to
     * RTS transition requires (Verbs §6.2.1.2, V-QPS-12).
     *
     * @return true when established
     */
    boolean established();
}
