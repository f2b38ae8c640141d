package io.jrnic.core.transport;

/**
 * Events of an established {@link FpduChannel} other than received data. Every method is called on
 * the channel's event loop and must not block it; exceptions thrown by an implementation are logged
 * and otherwise ignored.
 *
 * <p>Thread safety: called from one thread (the channel's event loop).
 */
public interface ChannelListener {

    /**
     * The channel became writable again after {@link FpduChannel#send} returned {@code false}
     * (the pending bytes fell below the low water mark): the TX engine may resume.
     */
    default void onWritable() {
    }

    /**
     * TCP has taken every byte of the FPDU sent with this token (RFC 5040 §5: a Send or Write
     * completes at the requester when its last byte is handed to the LLP).
     *
     * @param token the token given to {@link FpduChannel#send(java.lang.foreign.MemorySegment, long, int,
     *              java.lang.foreign.MemorySegment, long, int, long)}
     */
    default void onSent(long token) {
    }

    /**
     * The channel is closed; called exactly once, after which nothing more is reported.
     *
     * @param closure how it ended
     */
    void onClosed(ChannelClosure closure);
}
