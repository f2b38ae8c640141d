package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the LLP stream sees when a QP leaves it (Verbs §6.1.4, §6.2.5): the resets the conformance
 * rows name, which the state tests did not check (surviving PIT mutants of SoftQueuePair).
 */
class QueuePairTeardownEdgeTest extends VerbsFixture {

    private static QueuePairModification to(QpState s) {
        return new QueuePairModification().nextState(s);
    }

    @Test
    void postSqInClosingResetsTheStreamThenErrorThenBadClose_V_QPS_78_V_QPS_80() {
        MemorySegment m = rnic.allocateMemory(64, 8);
        MemoryRegion mr = pd.registerMemory(m, AccessRights.LOCAL);
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.modify(to(QpState.CLOSING));
        List<String> atEvent = new ArrayList<>();
        rnic.setAsyncEventHandler((r, e) -> atEvent.add(e.type() + " resets=" + t.resets + " state=" + qp.state()));
        qp.postSend(new SendWorkRequest().wrId(5).opcode(Opcode.SEND).sge(mr.stag(), m.address(), 8));
        // Verbs §6.2.5 Figure 11, in this order: LLP Reset and disassociation, Error, then the event
        assertThat(t.resets).isEqualTo(1);
        assertThat(atEvent).containsExactly(AsyncEventType.BAD_CLOSE + " resets=1 state=ERROR");
        assertThat(qp.query().llpStream()).isNull();
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void destroyResetsTheStreamOfAQpInRts_V_QP_33() {
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.close();
        // Verbs §6.1.4: the stream is disassociated; this RI resets it (the MAY), so the peer learns
        assertThat(t.resets).isEqualTo(1);
        assertThat(t.terminates).isEmpty();
    }

    @Test
    void modifyToErrorDisassociatesTheStream_V_QPS_59() {
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        assertThat(qp.query().llpStream()).isSameAs(t);
        qp.modify(to(QpState.ERROR));
        assertThat(qp.query().llpStream()).isNull();
        assertThat(t.resets).isEqualTo(1);
    }
}
