package io.jrnic.core.qp;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.QpState;
import io.jrnic.api.TerminateMessage;

/**
 * The Verbs QP state machine (Verbs 1.0 §6.2, Figure 4 for Modify QP, Figure 11 for the LLP's
 * events): every input a QP receives -- a Modify QP, an event of its LLP stream, an error found
 * by the QP or its engine -- goes through {@link #input}, which dispatches on the source state to
 * one method per state, as Linux siw's {@code siw_qp_modify()} does with
 * {@code siw_qp_nextstate_from_idle/rts/term/close()}. This is the only place that assigns the
 * state. What a transition does to the queues and the stream is delegated to the QP through
 * {@link Actions}, in the order the spec gives (for instance V-QPS-81: disassociate, the event,
 * then Idle).
 *
 * <p>Thread safety: not thread safe; the QP calls it under its lock. {@link #state()} is a volatile
 * read for the QP's lock-free readers (Query QP, the engine's context).
 */
final class QpStateMachine {
    /** The inputs of Figures 4 and 11. */
    enum Input {
        /** Modify QP to Idle (from Error: the QP may be reused, V-QPS-69). */
        MODIFY_IDLE,
        /** Modify QP to RTS: from Idle with an LLP stream (V-QPS-12); from RTS an attribute change. */
        MODIFY_RTS,
        /** Modify QP to Closing: a graceful close (V-QPS-30), or a Bad Close with work left (V-QPS-31). */
        MODIFY_CLOSING,
        /** Modify QP to Terminate (V-QPS-44). */
        MODIFY_TERMINATE,
        /** Modify QP to Error: LLP reset, no Terminate (V-QPS-39). */
        MODIFY_ERROR,
        /** An error the QP itself found (a local WR error, V-TERM-*), or a CQ overflow: Terminate. */
        LOCAL_ERROR,
        /** An error reported with an asynchronous event (Verbs §8.3.3 Figure 24: a received segment, a CQ overflow): the event, then Terminate. */
        ASYNC_ERROR,
        /** The peer closed its side without a Terminate (FIN, Verbs §6.2.2.2). */
        LLP_REMOTE_CLOSE,
        /** The graceful LLP close completed. */
        LLP_CLOSE_COMPLETE,
        /** The peer's Terminate arrived (V-QPS-38, V-QPS-85). */
        TERMINATE_RECEIVED,
        /** A segment arrived after the QP entered Closing (V-QPS-84). */
        SEGMENT_WHILE_CLOSING,
        /** A WR was posted to the SQ in Closing (Figure 11: Bad Close). */
        POST_WHILE_CLOSING,
        /** The LLP was reset or lost (RFC 5040 §6.2.1). */
        LLP_FAILURE,
        /** The stream broke while a segment was being framed (Verbs §6.4 #1): already reset. */
        STREAM_ABORTED
    }

    /**
     * What a transition makes the QP do. Called under the QP's lock, in the order of the spec.
     */
    interface Actions {
        /**
         * Whether SQ WRs or inbound Reads are outstanding (a close then is a Bad Close, V-QPS-31,
         * V-QPS-82, or a Bad LLP Close, V-QPS-28).
         *
         * @return true when work is outstanding
         */
        boolean workOutstanding();

        /** Idle -> RTS: starts the LLP stream in iWARP mode and the WRs posted in Idle (V-QPS-22). */
        void attachStream();

        /** Starts the graceful LLP close (Verbs §6.2.3). */
        void closeStream();

        /** Flushes the receives not in progress: a closing QP takes no more Sends (V-QPS-30). */
        void flushReceives();

        /** Resets the LLP stream and disassociates the QP from it (V-QPS-39, V-QP-33). */
        void resetStream();

        /** Disassociates the QP from its closed LLP stream (V-QPS-81). */
        void detachStream();

        /**
         * Sends a Terminate, then closes the stream (V-QPS-45/46); the message is kept for Query QP.
         *
         * @param message the Terminate
         */
        void sendTerminate(TerminateMessage message);

        /**
         * Keeps the peer's Terminate for Query QP (Verbs §6.3).
         *
         * @param message the Terminate received, or null to forget the last one
         */
        void keepTerminate(TerminateMessage message);

        /** The SQ WR in progress completes Remote Termination Error (Verbs §6.6.2.4, V-ERR-46). */
        void failWorkInProgress();

        /** Enters Error's duties: disassociate, flush every incomplete WQE (Verbs §6.2.4). */
        void flushAll();

        /**
         * Raises an asynchronous event (delivered after the QP's lock is released).
         *
         * @param type the event
         */
        void raise(AsyncEventType type);

        /**
         * The state changed (the JFR event io.jrnic.QpStateChange).
         *
         * @param from the old state
         * @param to   the new state
         */
        void stateChanged(QpState from, QpState to);
    }

    private final Actions qp;
    private volatile QpState state = QpState.IDLE;

    /**
     * Creates the state machine of a new QP, in Idle (Verbs §6.1.1).
     *
     * @param qp what the transitions do
     */
    QpStateMachine(Actions qp) {
        this.qp = qp;
    }

    /**
     * The current state (a volatile read, any thread).
     *
     * @return the state
     */
    QpState state() {
        return state;
    }

    /**
     * Whether Modify QP may take a QP from one state to another (Verbs §6.2, Figure 4, V-QPS-88).
     *
     * @param from the current state
     * @param to   the requested state
     * @return true when the transition exists
     */
    static boolean modifyAllowed(QpState from, QpState to) {
        return switch (from) {
            case IDLE -> to == QpState.IDLE || to == QpState.RTS || to == QpState.ERROR;
            case RTS -> to != QpState.IDLE;
            case ERROR -> to == QpState.IDLE;
            case CLOSING, TERMINATE -> false;
        };
    }

    /**
     * Applies an input without a Terminate or an event of its own.
     *
     * @param input the input
     */
    void input(Input input) {
        input(input, null, null);
    }

    /**
     * Applies an input in the current state; inputs a state does not react to are ignored (an LLP
     * event racing a transition the QP already made).
     *
     * @param input   the input
     * @param message the Terminate sent (LOCAL_ERROR, ASYNC_ERROR) or received (TERMINATE_RECEIVED)
     * @param event   the asynchronous event of ASYNC_ERROR and TERMINATE_RECEIVED; for LLP_FAILURE,
     *                LLP_CONNECTION_RESET or LLP_CONNECTION_LOST as the LLP reported it
     */
    void input(Input input, TerminateMessage message, AsyncEventType event) {
        switch (state) {
            case IDLE -> fromIdle(input, event);
            case RTS -> fromRts(input, message, event);
            case CLOSING -> fromClosing(input, message);
            case TERMINATE -> fromTerminate(input);
            case ERROR -> fromError(input);
        }
    }

    private void fromIdle(Input input, AsyncEventType event) {
        switch (input) {
            case MODIFY_RTS -> {
                moveTo(QpState.RTS);
                qp.attachStream();
            }
            case MODIFY_ERROR -> enterError();
            case STREAM_ABORTED -> failStream(AsyncEventType.LOCAL_QP_CATASTROPHIC);
            case LLP_FAILURE -> failStream(event);
            default -> { } // Modify Idle -> Idle changes attributes only; no stream, no LLP events
        }
    }

    private void fromRts(Input input, TerminateMessage message, AsyncEventType event) {
        switch (input) {
            case MODIFY_CLOSING -> {
                moveTo(QpState.CLOSING);
                if (qp.workOutstanding()) {
                    badClose(); // V-QPS-31, V-QPS-82: Closing, then at once Error
                } else {
                    qp.flushReceives(); // V-QPS-30: no event for a requested close
                    qp.closeStream();
                }
            }
            case MODIFY_TERMINATE -> terminate(new TerminateMessage(TerminateMessage.LOCAL_CATASTROPHIC, true, null));
            case MODIFY_ERROR -> {
                qp.resetStream(); // V-QPS-39: no Terminate, LLP reset
                enterError();
            }
            case LOCAL_ERROR -> terminate(message);
            case ASYNC_ERROR -> {
                qp.raise(event);
                terminate(message);
            }
            case LLP_REMOTE_CLOSE -> {
                if (qp.workOutstanding()) {
                    // V-QPS-28: work left -> Terminate with Bad LLP Close (0x0207)
                    qp.raise(AsyncEventType.BAD_LLP_CLOSE);
                    terminate(new TerminateMessage(AsyncEventType.BAD_LLP_CLOSE.terminateCode(), true, null));
                } else {
                    moveTo(QpState.CLOSING); // reported by LLP_CLOSE_COMPLETE on reaching Idle (V-NOTE-10)
                    qp.flushReceives();
                    qp.closeStream();
                }
            }
            case TERMINATE_RECEIVED -> {
                // V-QPS-38: Terminate state, event, and no Terminate sent back
                moveTo(QpState.TERMINATE);
                qp.keepTerminate(message);
                qp.failWorkInProgress();
                qp.raise(event);
                qp.closeStream();
            }
            case LLP_FAILURE -> failStream(event); // Figure 24 tells a reset from a loss
            case STREAM_ABORTED -> failStream(AsyncEventType.LOCAL_QP_CATASTROPHIC);
            default -> { } // Modify RTS -> RTS changes attributes only
        }
    }

    private void fromClosing(Input input, TerminateMessage message) {
        switch (input) {
            case LLP_CLOSE_COMPLETE -> {
                qp.detachStream(); // V-QPS-81: disassociate, event, then Idle
                qp.raise(AsyncEventType.LLP_CLOSE_COMPLETE);
                moveTo(QpState.IDLE);
            }
            case TERMINATE_RECEIVED -> {
                qp.keepTerminate(message); // V-QPS-85: LLP reset, Bad Close, Terminate kept, Error
                badClose();
            }
            case SEGMENT_WHILE_CLOSING, POST_WHILE_CLOSING -> badClose(); // V-QPS-84; Figure 11
            // V-QPS-83 (Verbs §6.2.5 Figure 11): any LLP failure in Closing, a reset included, is
            // LLP Connection Lost
            case LLP_FAILURE -> failStream(AsyncEventType.LLP_CONNECTION_LOST);
            case STREAM_ABORTED -> failStream(AsyncEventType.LOCAL_QP_CATASTROPHIC);
            default -> { }
        }
    }

    private void fromTerminate(Input input) {
        switch (input) {
            case LLP_CLOSE_COMPLETE -> enterError(); // V-QPS-54
            case LLP_FAILURE -> failStream(AsyncEventType.BAD_CLOSE); // V-QPS-53
            case STREAM_ABORTED -> failStream(AsyncEventType.LOCAL_QP_CATASTROPHIC);
            default -> { } // V-QPS-44: nothing else is processed; the queues flush on Error
        }
    }

    private void fromError(Input input) {
        if (input == Input.MODIFY_IDLE) {
            moveTo(QpState.IDLE); // V-QPS-69: the QP may be reused; the last Terminate is forgotten
            qp.keepTerminate(null);
        }
    }

    /** V-QPS-44..46: Terminate state, the Terminate sent, then the LLP close. */
    private void terminate(TerminateMessage message) {
        moveTo(QpState.TERMINATE);
        qp.sendTerminate(message);
    }

    /** A Bad Close (Verbs §6.2.5): LLP reset, the event, then Error. */
    private void badClose() {
        qp.resetStream();
        qp.raise(AsyncEventType.BAD_CLOSE);
        enterError();
    }

    /** The stream failed or was reset under the QP: the event, then Error. */
    private void failStream(AsyncEventType event) {
        qp.raise(event);
        enterError();
    }

    /** Verbs §6.2.4: disassociated from the LLP, Error, every incomplete WQE flushed. */
    private void enterError() {
        qp.detachStream();
        moveTo(QpState.ERROR);
        qp.flushAll();
    }

    private void moveTo(QpState next) {
        QpState from = state;
        state = next;
        if (from != next) {
            qp.stateChanged(from, next);
        }
    }
}
