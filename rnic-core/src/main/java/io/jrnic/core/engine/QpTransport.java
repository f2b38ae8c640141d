package io.jrnic.core.engine;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.LlpStreamHandle;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.link.DrivableExecutor;
import io.jrnic.core.wq.ReceiveWqe;
import io.jrnic.core.wq.SendWqe;

import java.lang.foreign.MemorySegment;

/**
 * The seam between a queue pair and its LLP stream (the transport SPI). A QP is given one as its
 * LLP Stream Handle on the Idle to RTS transition (Verbs 1.0 §6.2.1.2). The QP calls these
 * methods while holding its lock; they must only enqueue work and return (they may call back
 * into {@link Upcalls} synchronously, which is re-entrant). The transport reports what happens on
 * the wire through {@link Upcalls}, from any thread.
 *
 * <p>Thread safety: implementations must tolerate calls from any thread.
 */
public interface QpTransport extends LlpStreamHandle {
    /**
     * Associates the stream with the QP and enables iWARP mode: reset DDP MSNs and MPA marker
     * state (V-QPS-13), send the stream message first if any (V-QPS-15).
     *
     * @param context       what the engine may know about the QP (its PD, number, rights, IRD, state)
     * @param upcalls       how to report events to the QP
     * @param streamMessage the last streaming-mode message to send, or null (a transport whose stream
     *                      is already in iWARP mode, such as {@link QpEngine}, cannot take one: the QP
     *                      refuses it with an Immediate Error before calling this)
     */
    void start(QpContext context, Upcalls upcalls, MemorySegment streamMessage);

    /**
     * Queues a wire work request (Send types, RDMA Write, RDMA Read types) for transmission, in
     * SQ order (V-WRP-11). Completion is reported by {@link Upcalls#sendCompleted}, or for Sends and
     * Writes finished together by {@link Upcalls#sendsCompleted}.
     *
     * @param wqe the WQE; valid until reported complete
     */
    void transmit(SendWqe wqe);

    /**
     * Queues wire work requests processed together: {@code first} and the WQEs linked behind it by
     * {@link SendWqe#txNext}, in SQ order, as if each were given to {@link #transmit} in turn (which
     * this default does). A post list hands its WQEs over in one call, so that the transport takes
     * them in, and wakes its engine, once.
     *
     * @param first the oldest WQE; the chain ends at a null {@code txNext}
     */
    default void transmitAll(SendWqe first) {
        SendWqe w = first;
        while (w != null) {
            SendWqe next = w.txNext;
            w.txNext = null;
            transmit(w);
            w = next;
        }
    }

    /**
     * A post's hand-over (PostSQ): as {@link #transmitAll}, from a thread that calls
     * {@link #progress()} once it has released its locks, also when the post throws. In polling mode
     * the transport may leave the transmit to that call, which then runs it on the posting thread
     * with no task queued in between; this default hands the chain over at once.
     *
     * @param first the oldest WQE; the chain ends at a null {@code txNext}
     */
    default void transmitPosted(SendWqe first) {
        transmitAll(first);
    }

    /** Starts a graceful LLP close (TCP FIN); report the end with {@link Upcalls#closeCompleted()}. */
    void close();

    /**
     * Sends the Terminate message after the last complete segment, then closes the LLP stream
     * (Verbs §6.2.3); report the end with {@link Upcalls#closeCompleted()}.
     *
     * @param message the Terminate to send
     */
    void terminate(TerminateMessage message);

    /** Abortive LLP reset; the stream is disassociated and reports nothing more. */
    void reset();

    /**
     * Whether inbound RDMA Read Requests are still being served (IRRQ not empty).
     *
     * @return true when remote reads are in process
     */
    boolean remoteReadsInProgress();

    /**
     * The QP posted a receive WQE (any thread, under the QP's lock): a Send the transport holds for
     * lack of one is retried (graceful receive overflow, V-WRP-65). Must only schedule work.
     */
    default void receivePosted() {
    }

    /**
     * The QP's post returned and released the QP's lock (any thread): in polling mode
     * ({@code IoMode.POLLING}) the posting thread now runs the transmit work it handed over
     * ({@link #transmitPosted}) or queued, framing and writing the FPDUs itself, unless another
     * thread is running the connection's work (which then sends them). Does nothing by default and
     * in event-loop mode. Never blocks.
     */
    default void progress() {
    }

    /**
     * What a CQ poll drives to make this connection's receive work run on the polling thread
     * ({@code IoMode.POLLING}), or null when the connection runs on its event loop alone.
     *
     * @return the connection's drivable executor, or null
     */
    default DrivableExecutor driver() {
        return null;
    }

    /**
     * What the transport reports to its QP. Every method may be called from any thread.
     */
    interface Upcalls {
        /**
         * A wire WQE finished (for Sends and Writes: last byte handed to the LLP; for Reads: last
         * Read Response placed).
         *
         * @param wqe    the WQE handed to {@link #transmit}
         * @param status SUCCESS, or the error status
         */
        void sendCompleted(SendWqe wqe, WorkCompletionStatus status);

        /**
         * Sends and Writes that finished successfully together (their last bytes handed to the LLP
         * in one write): {@code first} and the WQEs linked behind it by {@link SendWqe#txNext}, in SQ
         * order. One call for the lot, so that a post list of small messages completes under one
         * acquisition of the QP's lock rather than one per message. The same as calling
         * {@link #sendCompleted} with SUCCESS for each in turn, which this default does.
         *
         * @param first the oldest of the finished WQEs; the chain ends at a null {@code txNext}
         */
        default void sendsCompleted(SendWqe first) {
            SendWqe w = first;
            while (w != null) {
                SendWqe next = w.txNext;
                w.txNext = null;
                sendCompleted(w, WorkCompletionStatus.SUCCESS);
                w = next;
            }
        }

        /**
         * Dequeues the receive WQE for the next incoming Send type message (RQ or S-RQ) after
         * checking its SGL (Local Write, PD, bounds: Verbs §7.4.1, V-SRQ-26, V-SRQ-28).
         *
         * @return the WQE, or null when none is posted or its SGL failed the checks (then the QP
         *         completed it in error and is terminating)
         */
        ReceiveWqe takeReceive();

        /**
         * A Send type message was placed into a WQE from {@link #takeReceive()}.
         *
         * @param wqe             the WQE
         * @param status          SUCCESS or the error status
         * @param byteLength      bytes received
         * @param solicited       whether the message carried the Solicited Event flag
         * @param invalidatedStag the STag invalidated by Send with Invalidate, or 0 for none
         */
        void receiveCompleted(ReceiveWqe wqe, WorkCompletionStatus status, int byteLength, boolean solicited,
                              int invalidatedStag);

        /**
         * The peer closed the LLP stream (FIN) without a Terminate (Verbs §6.2.2.2).
         */
        void remoteClosed();

        /** The graceful close or the close after a Terminate has finished. */
        void closeCompleted();

        /**
         * An error compromised an outbound segment that was already partly handed to the LLP
         * (Verbs §6.4 #1, V-TERM-4): the transport stopped at once and reset the LLP stream, and no
         * Terminate was sent. The QP completes the WQE (if any) with the status and enters Error.
         *
         * @param wqe    the WQE whose segment failed, or null (a Read Response)
         * @param status the WQE's completion status
         */
        void streamAborted(SendWqe wqe, WorkCompletionStatus status);

        /**
         * The LLP stream failed: lost (timeout) or reset by the peer.
         *
         * @param reset true for an incoming reset, false for a lost connection
         */
        void connectionFailed(boolean reset);

        /**
         * A Terminate message arrived (Verbs §6.2.2.3): the QP raises "Terminate Message Received".
         *
         * @param message the received Terminate (not locally generated)
         */
        default void terminateReceived(TerminateMessage message) {
            terminateReceived(message, AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        }

        /**
         * A Terminate message arrived, valid or not. A Terminate is never answered (RFC 5040 §5.4,
         * R-TERM-048): one that failed validation is still the peer's last message, but the error
         * found in it is what the QP reports (RFC 5040 §5.4, §7.1: "an error is surfaced").
         *
         * @param message the received Terminate as far as it could be decoded (not locally generated)
         * @param event   {@link AsyncEventType#TERMINATE_MESSAGE_RECEIVED}, or the Figure 24 event of
         *                the error the Terminate's own header failed
         */
        void terminateReceived(TerminateMessage message, AsyncEventType event);

        /**
         * A non-Terminate segment arrived while the QP was Closing (Verbs §6.2.5 Figure 11).
         */
        void segmentWhileClosing();

        /**
         * The receive path detected an error that terminates the stream (Figure 24).
         *
         * @param event the asynchronous event, whose Terminate code the QP sends
         */
        void remoteError(AsyncEventType event);

        /**
         * The receive path detected an error that terminates the stream, with the exact Terminate
         * the transport will send (RFC 5040 §4.8, §7.1: the wire code and the copied headers may be
         * more precise than the event's Verbs code). The QP keeps the message for Query QP and hands
         * it back through {@link QpTransport#terminate}.
         *
         * @param event   the asynchronous event
         * @param message the Terminate to send (locally generated)
         */
        void remoteError(AsyncEventType event, TerminateMessage message);
    }
}
