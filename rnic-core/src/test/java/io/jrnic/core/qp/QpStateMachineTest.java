package io.jrnic.core.qp;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.QpState;
import io.jrnic.api.TerminateMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static io.jrnic.core.qp.QpStateMachine.Input.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Verbs QP state machine on its own (Verbs §6.2, Figures 4 and 11): each input in each source
 * state, with the actions it makes the QP take, in the spec's order. A fake QP records the actions.
 */
class QpStateMachineTest {
    private static final TerminateMessage LOCAL = new TerminateMessage(TerminateMessage.LOCAL_CATASTROPHIC, true, null);
    private static final TerminateMessage PEER = new TerminateMessage(0x1100, true, null);

    /** Records every action as a word; workOutstanding answers what the test sets. */
    private static final class FakeQp implements QpStateMachine.Actions {
        final List<String> log = new ArrayList<>();
        boolean work;

        @Override
        public boolean workOutstanding() {
            return work;
        }

        @Override
        public void attachStream() {
            log.add("attach");
        }

        @Override
        public void closeStream() {
            log.add("close");
        }

        @Override
        public void flushReceives() {
            log.add("flushReceives");
        }

        @Override
        public void resetStream() {
            log.add("reset");
        }

        @Override
        public void detachStream() {
            log.add("detach");
        }

        @Override
        public void sendTerminate(TerminateMessage message) {
            log.add("terminate " + Integer.toHexString(message.terminateControl()));
        }

        @Override
        public void keepTerminate(TerminateMessage message) {
            log.add("keep " + (message == null ? "none" : Integer.toHexString(message.terminateControl())));
        }

        @Override
        public void failWorkInProgress() {
            log.add("failInProgress");
        }

        @Override
        public void flushAll() {
            log.add("flushAll");
        }

        @Override
        public void raise(AsyncEventType type) {
            log.add("event " + type);
        }

        @Override
        public void stateChanged(QpState from, QpState to) {
            log.add(from + "->" + to);
        }
    }

    private final FakeQp qp = new FakeQp();
    private final QpStateMachine machine = new QpStateMachine(qp);

    private void reach(QpState state) {
        switch (state) {
            case IDLE -> { }
            case RTS -> machine.input(MODIFY_RTS);
            case CLOSING -> {
                machine.input(MODIFY_RTS);
                machine.input(MODIFY_CLOSING);
            }
            case TERMINATE -> {
                machine.input(MODIFY_RTS);
                machine.input(MODIFY_TERMINATE);
            }
            case ERROR -> machine.input(MODIFY_ERROR);
        }
        assertThat(machine.state()).isEqualTo(state);
        qp.log.clear();
    }

    @Test
    void aNewQpIsIdleAndModifyToRtsAttachesTheStreamAfterEnteringRts_V_QPS_12_V_QPS_22() {
        assertThat(machine.state()).isEqualTo(QpState.IDLE);
        machine.input(MODIFY_RTS);
        assertThat(machine.state()).isEqualTo(QpState.RTS);
        assertThat(qp.log).containsExactly("IDLE->RTS", "attach");
    }

    @Test
    void modifyIdleToErrorFlushesWithoutTouchingAStream() {
        machine.input(MODIFY_ERROR);
        assertThat(machine.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.log).containsExactly("detach", "IDLE->ERROR", "flushAll");
    }

    @Test
    void aRequestedCloseWithNothingOutstandingIsGracefulAndRaisesNoEvent_V_QPS_30() {
        reach(QpState.RTS);
        machine.input(MODIFY_CLOSING);
        assertThat(machine.state()).isEqualTo(QpState.CLOSING);
        assertThat(qp.log).containsExactly("RTS->CLOSING", "flushReceives", "close");
    }

    @Test
    void aRequestedCloseWithWorkOutstandingIsABadCloseThroughClosingToError_V_QPS_31() {
        reach(QpState.RTS);
        qp.work = true;
        machine.input(MODIFY_CLOSING);
        assertThat(machine.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.log).containsExactly("RTS->CLOSING", "reset", "event BAD_CLOSE", "detach", "CLOSING->ERROR",
                "flushAll");
    }

    @Test
    void modifyToTerminateSendsALocalCatastrophicTerminate_V_QPS_44() {
        reach(QpState.RTS);
        machine.input(MODIFY_TERMINATE);
        assertThat(machine.state()).isEqualTo(QpState.TERMINATE);
        assertThat(qp.log).containsExactly("RTS->TERMINATE", "terminate " + Integer.toHexString(LOCAL.terminateControl()));
    }

    @Test
    void modifyRtsToErrorResetsTheStreamWithoutATerminate_V_QPS_39() {
        reach(QpState.RTS);
        machine.input(MODIFY_ERROR);
        assertThat(machine.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.log).containsExactly("reset", "detach", "RTS->ERROR", "flushAll");
    }

    @Test
    void aLocalErrorTerminatesInRtsAndIsIgnoredElsewhere() {
        machine.input(LOCAL_ERROR, LOCAL, null);
        assertThat(machine.state()).isEqualTo(QpState.IDLE);
        assertThat(qp.log).isEmpty();
        reach(QpState.RTS);
        machine.input(LOCAL_ERROR, LOCAL, null);
        assertThat(qp.log).containsExactly("RTS->TERMINATE", "terminate " + Integer.toHexString(LOCAL.terminateControl()));
        qp.log.clear();
        machine.input(LOCAL_ERROR, LOCAL, null); // a second error sends no second Terminate
        assertThat(qp.log).isEmpty();
    }

    @Test
    void anAsynchronousErrorRaisesItsEventBeforeTheTerminate() {
        reach(QpState.RTS);
        TerminateMessage m = new TerminateMessage(AsyncEventType.TAGGED_ACCESS_RIGHTS.terminateCode(), true, null);
        machine.input(ASYNC_ERROR, m, AsyncEventType.TAGGED_ACCESS_RIGHTS);
        assertThat(machine.state()).isEqualTo(QpState.TERMINATE);
        assertThat(qp.log).containsExactly("event TAGGED_ACCESS_RIGHTS", "RTS->TERMINATE",
                "terminate " + Integer.toHexString(m.terminateControl()));
    }

    @Test
    void aFinInRtsWithNothingOutstandingClosesGracefully_V_NOTE_10() {
        reach(QpState.RTS);
        machine.input(LLP_REMOTE_CLOSE);
        assertThat(machine.state()).isEqualTo(QpState.CLOSING);
        assertThat(qp.log).containsExactly("RTS->CLOSING", "flushReceives", "close");
    }

    @Test
    void aFinInRtsWithWorkOutstandingIsABadLlpCloseTerminate_V_QPS_28() {
        reach(QpState.RTS);
        qp.work = true;
        machine.input(LLP_REMOTE_CLOSE);
        assertThat(machine.state()).isEqualTo(QpState.TERMINATE);
        assertThat(qp.log).containsExactly("event BAD_LLP_CLOSE", "RTS->TERMINATE",
                "terminate " + Integer.toHexString(AsyncEventType.BAD_LLP_CLOSE.terminateCode()));
    }

    @Test
    void aTerminateReceivedInRtsIsKeptFailsTheWrInProgressAndIsNotAnswered_V_QPS_38() {
        reach(QpState.RTS);
        machine.input(TERMINATE_RECEIVED, PEER, AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(machine.state()).isEqualTo(QpState.TERMINATE);
        assertThat(qp.log).containsExactly("RTS->TERMINATE", "keep 1100", "failInProgress",
                "event TERMINATE_MESSAGE_RECEIVED", "close");
    }

    @Test
    void aTerminateReceivedWhileClosingIsABadCloseThatKeepsTheTerminate_V_QPS_85() {
        reach(QpState.CLOSING);
        machine.input(TERMINATE_RECEIVED, PEER, AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(machine.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.log).containsExactly("keep 1100", "reset", "event BAD_CLOSE", "detach", "CLOSING->ERROR",
                "flushAll");
    }

    @Test
    void theCloseCompletingInClosingDetachesRaisesThenGoesIdle_V_QPS_81() {
        reach(QpState.CLOSING);
        machine.input(LLP_CLOSE_COMPLETE);
        assertThat(machine.state()).isEqualTo(QpState.IDLE);
        assertThat(qp.log).containsExactly("detach", "event LLP_CLOSE_COMPLETE", "CLOSING->IDLE");
    }

    @Test
    void theCloseCompletingInTerminateEntersError_V_QPS_54() {
        reach(QpState.TERMINATE);
        machine.input(LLP_CLOSE_COMPLETE);
        assertThat(machine.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.log).containsExactly("detach", "TERMINATE->ERROR", "flushAll");
    }

    @ParameterizedTest
    @EnumSource(value = QpStateMachine.Input.class, names = {"SEGMENT_WHILE_CLOSING", "POST_WHILE_CLOSING"})
    void aSegmentOrAPostWhileClosingIsABadClose_V_QPS_84(QpStateMachine.Input input) {
        reach(QpState.CLOSING);
        machine.input(input);
        assertThat(machine.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.log).containsExactly("reset", "event BAD_CLOSE", "detach", "CLOSING->ERROR", "flushAll");
    }

    @Test
    void anLlpFailureInRtsReportsWhatTheLlpSaw() {
        reach(QpState.RTS);
        machine.input(LLP_FAILURE, null, AsyncEventType.LLP_CONNECTION_RESET);
        assertThat(machine.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.log).containsExactly("event LLP_CONNECTION_RESET", "detach", "RTS->ERROR", "flushAll");
    }

    @Test
    void anLlpResetInClosingIsConnectionLost_V_QPS_83() {
        reach(QpState.CLOSING);
        machine.input(LLP_FAILURE, null, AsyncEventType.LLP_CONNECTION_RESET);
        assertThat(qp.log).containsExactly("event LLP_CONNECTION_LOST", "detach", "CLOSING->ERROR", "flushAll");
    }

    @Test
    void anLlpFailureInTerminateIsABadClose_V_QPS_53() {
        reach(QpState.TERMINATE);
        machine.input(LLP_FAILURE, null, AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(qp.log).containsExactly("event BAD_CLOSE", "detach", "TERMINATE->ERROR", "flushAll");
    }

    @ParameterizedTest
    @EnumSource(value = QpState.class, names = {"RTS", "CLOSING", "TERMINATE"})
    void aStreamAbortedWhileFramingIsALocalCatastrophicErrorWithoutATerminate(QpState from) {
        reach(from);
        machine.input(STREAM_ABORTED);
        assertThat(machine.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.log).containsExactly("event LOCAL_QP_CATASTROPHIC", "detach", from + "->ERROR", "flushAll");
    }

    @Test
    void aStreamFailureReportedInIdleStillEndsInError() {
        // no stream is attached in Idle, but a late report from a stream just detached must not be lost
        machine.input(LLP_FAILURE, null, AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(qp.log).containsExactly("event LLP_CONNECTION_LOST", "detach", "IDLE->ERROR", "flushAll");
        machine.input(MODIFY_IDLE);
        qp.log.clear();
        machine.input(STREAM_ABORTED);
        assertThat(qp.log).containsExactly("event LOCAL_QP_CATASTROPHIC", "detach", "IDLE->ERROR", "flushAll");
    }

    @Test
    void modifyErrorToIdleForgetsTheLastTerminate_V_QPS_69() {
        reach(QpState.ERROR);
        machine.input(MODIFY_IDLE);
        assertThat(machine.state()).isEqualTo(QpState.IDLE);
        assertThat(qp.log).containsExactly("ERROR->IDLE", "keep none");
    }

    @ParameterizedTest
    @EnumSource(QpStateMachine.Input.class)
    void errorIgnoresEveryInputButModifyToIdle(QpStateMachine.Input input) {
        reach(QpState.ERROR);
        machine.input(input, LOCAL, AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(machine.state()).isEqualTo(input == MODIFY_IDLE ? QpState.IDLE : QpState.ERROR);
        if (input != MODIFY_IDLE) {
            assertThat(qp.log).isEmpty();
        }
    }

    @Test
    void theModifyTransitionsAreThoseOfFigure4_V_QPS_88() {
        for (QpState from : QpState.values()) {
            for (QpState to : QpState.values()) {
                boolean expected = switch (from) {
                    case IDLE -> to == QpState.IDLE || to == QpState.RTS || to == QpState.ERROR;
                    case RTS -> to != QpState.IDLE;
                    case ERROR -> to == QpState.IDLE;
                    case CLOSING, TERMINATE -> false;
                };
                assertThat(QpStateMachine.modifyAllowed(from, to)).as(from + " -> " + to).isEqualTo(expected);
            }
        }
    }
}
