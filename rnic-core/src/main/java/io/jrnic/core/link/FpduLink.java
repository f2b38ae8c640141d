package io.jrnic.core.link;

import io.jrnic.mpa.FpduHandler;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;

/**
 * An established MPA stream in Full Operation as the QP engine sees it (RFC 5044 §4): whole FPDUs
 * out, verified ULPDUs in. The netty transport's {@code io.jrnic.core.transport.FpduChannel}
 * implements it directly; tests run the engine over in-memory implementations.
 *
 * <p><b>TX.</b> {@link #send} frames one ULPDU (a small header plus a slice of registered memory)
 * into one FPDU. The header is copied during the call; the payload slice must stay valid until the
 * FPDU was handed to TCP, which {@link Listener#onSent} reports for tokens. {@link #flush} hands the
 * queued FPDUs to the LLP.
 *
 * <p><b>RX.</b> Nothing is delivered before {@link #start}; then every verified ULPDU goes to the
 * handler, a {@link io.jrnic.mpa.PlacementHandler} enabling direct placement.
 *
 * <p>Thread safety: {@link #start}, {@link #send} and {@link #flush} are called on
 * {@link #executor()} only, and every callback runs there. {@link #close()} and {@link #abort()}
 * may be called from any thread.
 */
public interface FpduLink {
    /**
     * How a link ended; reported exactly once through {@link Listener#onClosed}.
     *
     * <p>Thread safety: immutable enum, safe to share.
     */
    enum Closure {
        /** This side closed gracefully: queued FPDUs were handed to the LLP, then FIN ({@link #close()}). */
        LOCAL_CLOSE,
        /** This side aborted the connection: RST ({@link #abort()}), queued FPDUs dropped. */
        LOCAL_ABORT,
        /** The peer closed its sending half (FIN) at an FPDU boundary: a normal remote close (Verbs §6.6.2.1). */
        REMOTE_CLOSE,
        /**
         * The peer's FIN arrived in the middle of an FPDU: the stream is truncated, which RFC 5044 §8
         * code 1 calls a lost connection.
         */
        REMOTE_CLOSE_MID_FPDU,
        /** The peer reset the connection (RST). */
        REMOTE_RESET,
        /** The connection failed for another reason (I/O error, retransmission timeout). */
        CONNECTION_LOST,
        /** The transport that owns the link was shut down underneath it. */
        TRANSPORT_CLOSED
    }

    /**
     * What the link reports besides ULPDUs: the link's notifications up to the engine. Every method
     * is called on {@link #executor()} and must not block it.
     */
    interface Listener {
        /**
         * The link became writable again after {@link #send} returned false (the queued bytes fell
         * below the low water mark): the TX engine may resume. Does nothing by default.
         */
        default void onWritable() {
        }

        /**
         * The LLP has taken every byte of the FPDU sent with this token, and of all FPDUs before it
         * (RFC 5040 §5: a Send or Write completes when its last byte is handed to the LLP). Reports
         * are cumulative: a link that hands several FPDUs to TCP as one piece reports only the last
         * token among them. Does nothing by default.
         *
         * @param token the token passed to {@link #send(MemorySegment, long, int, MemorySegment, long, int, long)}
         */
        default void onSent(long token) {
        }

        /**
         * The link is closed; reported exactly once, after which nothing more is reported.
         *
         * @param closure why
         */
        void onClosed(Closure closure);
    }

    /**
     * The event loop that owns the link.
     *
     * @return the executor
     */
    Executor executor();

    /**
     * Runs a task on {@link #executor()} every period until the returned future is cancelled (the
     * engine's progress timeout: one timer per connection, no allocation per run). Called on
     * {@link #executor()}. A link without timers keeps the default, which refuses: the engine asks
     * only when a progress timeout is set.
     *
     * @param task        what to run, on {@link #executor()}
     * @param periodNanos the period (and the first delay), positive
     * @return cancel it to stop the task
     * @throws UnsupportedOperationException if this link cannot run timers
     */
    default Future<?> schedulePeriodic(Runnable task, long periodNanos) {
        throw new UnsupportedOperationException(getClass().getName() + " runs no timers");
    }

    /**
     * FPDUs the LLP has taken whole so far (the local TCP stack accepted their last byte): the
     * engine's measure of outbound progress, read on {@link #executor()} by its progress check.
     * The default, 0, leaves the engine with {@link Listener#onSent} and {@link Listener#onWritable}
     * alone as signs of outbound progress.
     *
     * @return a count that only grows
     */
    default long fpdusWritten() {
        return 0;
    }

    /**
     * Largest ULPDU (DDP header plus payload) one FPDU may carry (RFC 5044 §4.5, MULPDU).
     *
     * @return bytes
     */
    int mulpdu();

    /**
     * MSN of our first Send type message: 1, or 2 when a Send RTR consumed MSN 1 (RFC 6581 §9.3).
     *
     * @return the MSN
     */
    default int firstOutboundSendMsn() {
        return 1;
    }

    /**
     * MSN of our first Read Request: 1, or 2 after a Read RTR (RFC 6581 §9.3).
     *
     * @return the MSN
     */
    default int firstOutboundReadRequestMsn() {
        return 1;
    }

    /**
     * MSN of the peer's first Send type message after RTR processing.
     *
     * @return the MSN
     */
    default int firstInboundSendMsn() {
        return 1;
    }

    /**
     * MSN of the peer's first Read Request after RTR processing.
     *
     * @return the MSN
     */
    default int firstInboundReadRequestMsn() {
        return 1;
    }

    /**
     * Graceful receive overflow (Verbs §13.2, V-WRP-65/66, MAY): whether a Send that finds no
     * receive WQE pauses reception until one is posted, instead of terminating the stream with
     * 1/2/0x02 (RFC 5040 §5.3), the default. A link that says yes must implement
     * {@link #pauseReceive()} and {@link #resumeReceive()}.
     *
     * @return true to pause, false (default) to terminate
     */
    default boolean gracefulReceiveOverflow() {
        return false;
    }

    /**
     * Stops consuming bytes from the LLP: the TCP receive window closes and flow control holds the
     * peer back (V-WRP-66). ULPDUs of bytes already read may still be delivered. Called on
     * {@link #executor()}; idempotent.
     */
    default void pauseReceive() {
    }

    /**
     * Undoes {@link #pauseReceive()}: reading continues exactly where it stopped. Called on
     * {@link #executor()}; idempotent.
     */
    default void resumeReceive() {
    }

    /**
     * Payload bytes the LLP read straight into placement targets so far, with no copy (the QP's
     * {@code bytesPlacedDirect} counter; docs/observability.md). Read on {@link #executor()}.
     *
     * @return bytes; 0 (the default) for a link that always hands over whole ULPDUs
     */
    default long bytesPlacedDirect() {
        return 0;
    }

    /**
     * Starts delivery; call once, on {@link #executor()}.
     *
     * @param handler  receives verified ULPDUs and the first stream fault
     * @param listener receives writability, send completions and the closure
     */
    void start(FpduHandler handler, Listener listener);

    /**
     * Queues one FPDU (not flushed).
     *
     * @param header        header bytes, copied during the call
     * @param headerOffset  offset of the header
     * @param headerLength  header length
     * @param payload       payload memory, or null when payloadLength is 0; valid until sent
     * @param payloadOffset offset of the payload
     * @param payloadLength payload length; header plus payload at most {@link #mulpdu()}
     * @return whether more FPDUs are welcome; false when above the high water mark (the FPDU was
     *         queued: wait for {@link Listener#onWritable()}) or closed (nothing queued)
     */
    boolean send(MemorySegment header, long headerOffset, int headerLength,
                 MemorySegment payload, long payloadOffset, int payloadLength);

    /**
     * Like {@link #send(MemorySegment, long, int, MemorySegment, long, int)}, and reports
     * {@link Listener#onSent(long)} once the FPDU was handed to the LLP.
     *
     * @param header        as for the other overload
     * @param headerOffset  as for the other overload
     * @param headerLength  as for the other overload
     * @param payload       as for the other overload
     * @param payloadOffset as for the other overload
     * @param payloadLength as for the other overload
     * @param token         non-negative value identifying the FPDU to the caller
     * @return as for the other overload
     */
    boolean send(MemorySegment header, long headerOffset, int headerLength,
                 MemorySegment payload, long payloadOffset, int payloadLength, long token);

    /** Hands the queued FPDUs to the LLP. */
    void flush();

    /**
     * A flush when the caller queues more FPDUs in a moment (its next run is already scheduled):
     * the link may keep a batch of small FPDUs back, to leave in fewer and larger TCP writes, until
     * they fill a write or the next {@link #flush}. The caller must call {@link #flush} after its
     * last FPDU. Default: {@link #flush}.
     */
    default void flushMoreFollows() {
        flush();
    }

    /** Graceful close after the queued FPDUs (TCP FIN); {@link Listener#onClosed} follows. */
    void close();

    /** Abortive close (TCP RST); queued FPDUs are dropped; {@link Listener#onClosed} follows. */
    void abort();
}
