package io.jrnic.core;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CQ overflow on a connected QP over loopback TCP (Verbs §8.3.3 Figure 24, §9.5.3): a completion
 * with no room in its CQ raises CQ Overflow on the CQ and CQ/RQ Error (receive side) or CQ/SQ
 * Error (send side) on the QP, which terminates with 0x0207; the peer receives that Terminate.
 * The CQ that failed is the one Query QP names.
 */
class CqOverflowLoopbackTest extends LoopbackFixture {
    private static final ConnectionSettings SETTINGS = new ConnectionSettings();

    private void assertOverflowTerminated(QueuePair victim, CompletionQueue small, AsyncEventType qpEvent, Pair p) {
        AsyncEvent e = b.awaitEvent(qpEvent, victim);
        assertThat(e.qpId()).isEqualTo(victim.id());
        assertThat(b.events).filteredOn(x -> x.type() == AsyncEventType.CQ_OVERFLOW_DETECTED)
                .extracting(AsyncEvent::resource).containsExactly(small);
        assertThat(victim.state()).isIn(QpState.TERMINATE, QpState.ERROR);
        TerminateMessage sent = victim.query().terminateMessage();
        assertThat(sent.locallyGenerated()).isTrue();
        assertThat(sent.terminateControl()).isEqualTo(0x0207);
        a.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, p.qpA());
        assertThat(p.qpA().query().terminateMessage().terminateControl()).as("over TCP").isEqualTo(0x0207);
    }

    @Test
    void receiveCompletionOverflowIsCqRqError_V_EV_35_V_ERR_27() throws Exception {
        CompletionQueue small = b.rnic.createCq(1);
        QueuePair victim = b.pd.createQueuePair(new QueuePairConfig().cqs(b.cq, small).depths(16, 16));
        Pair p = connect(SETTINGS, SETTINGS, a.qp(), victim, null, null);
        assertThat(victim.query().receiveCq()).isSameAs(small); // V-ERR-27: the CQ via Query QP
        victim.postReceive(new ReceiveWorkRequest().wrId(1).sge(0, 0, 0));
        victim.postReceive(new ReceiveWorkRequest().wrId(2).sge(0, 0, 0));
        p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND));
        p.qpA().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND)); // no room for its receive
        assertOverflowTerminated(victim, small, AsyncEventType.CQ_RQ_ERROR, p);
        assertThat(b.eventTypes()).doesNotContain(AsyncEventType.CQ_SQ_ERROR);
    }

    @Test
    void sendCompletionOverflowIsCqSqError_V_ERR_27() throws Exception {
        CompletionQueue small = b.rnic.createCq(1);
        QueuePair victim = b.pd.createQueuePair(new QueuePairConfig().cqs(small, b.cq).depths(16, 16));
        Pair p = connect(SETTINGS, SETTINGS, a.qp(), victim, null, null);
        assertThat(victim.query().sendCq()).isSameAs(small);
        p.qpA().postReceive(new ReceiveWorkRequest().wrId(1).sge(0, 0, 0));
        p.qpA().postReceive(new ReceiveWorkRequest().wrId(2).sge(0, 0, 0));
        victim.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND));
        victim.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND));
        assertOverflowTerminated(victim, small, AsyncEventType.CQ_SQ_ERROR, p);
        assertThat(b.eventTypes()).doesNotContain(AsyncEventType.CQ_RQ_ERROR);
    }
}
