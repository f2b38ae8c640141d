package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairAttributes;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.SrqAttributes;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.wq.ReceiveWqe;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SharedReceiveQueueTest extends VerbsFixture {

    private static void assertStatus(Runnable r, VerbsStatus status) {
        assertThatThrownBy(r::run).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(status);
    }

    private MemoryRegion sink(ProtectionDomain p) {
        MemorySegment m = rnic.allocateMemory(4096, 4096);
        return p.registerMemory(m, AccessRights.LOCAL_WRITE, 0, AddressType.ZERO_BASED, 0, false);
    }

    private void post(SharedReceiveQueue srq, MemoryRegion mr, int n, long firstId) {
        for (int i = 0; i < n; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(firstId + i).sge(mr.stag(), 0, 64));
        }
    }

    @Test
    void createQueryAndValidation_V_SRQ_3_V_SRQ_7_V_SRQ_36_V_SRQ_41_V_VERB_CreateSRQ_4_V_VERB_QuerySRQ_1() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(8, 2, 3);
        SrqAttributes a = srq.query();
        assertThat(a.maxWrs()).isEqualTo(8);
        assertThat(a.maxSge()).isEqualTo(2);
        assertThat(a.pdId()).isEqualTo(pd.id());
        assertThat(a.limit()).isEqualTo(3);
        assertThat(a.limitArmed()).isTrue();
        assertThat(pd.createSharedReceiveQueue(8, 2, 0).query().limitArmed()).isFalse();
        assertStatus(() -> pd.createSharedReceiveQueue(16385, 1, 0), VerbsStatus.MAX_WRS_EXCEED_CAPABILITY);
        assertStatus(() -> pd.createSharedReceiveQueue(8, 17, 0), VerbsStatus.MAX_SGES_EXCEED_CAPABILITY);
        assertStatus(() -> pd.createSharedReceiveQueue(8, 1, 9), VerbsStatus.SRQ_LIMIT_OUT_OF_RANGE);
        try (SoftRnic none = SoftRnic.open(config().srqLimits(0, 0))) {
            assertThat(none.query().srqSupported()).isFalse();
            assertThat(none.query().maxSrqWrs()).isZero();
            assertStatus(() -> none.allocatePd().createSharedReceiveQueue(1, 1, 0), VerbsStatus.INSUFFICIENT_RESOURCES);
        }
    }

    @Test
    void qpOnSrqRefusesOwnRqAndReportsNoRqAttributes_V_SRQ_14_V_SRQ_15_V_SRQ_17_V_QP_8_V_VERB_QueryQP_4() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(8, 1, 0);
        QueuePair qp = pd.createQueuePair(qpConfig().srq(srq, 2).depths(4, 99999)); // RQ depth ignored
        QueuePairAttributes a = qp.query();
        assertThat(a.srq()).isSameAs(srq);
        assertThat(a.rqDepth()).isZero();
        assertThat(a.maxReceiveSge()).isZero();
        assertThat(a.rqLimit()).isEqualTo(2);
        assertThat(a.rqLimitArmed()).isTrue();
        assertStatus(() -> qp.postReceive(new ReceiveWorkRequest().sge(1, 0, 1)), VerbsStatus.RQ_ASSOCIATED_WITH_SRQ);
        assertStatus(() -> pd.createQueuePair(qpConfig().srq(srq, 9)), VerbsStatus.QP_RQ_LIMIT_OUT_OF_RANGE);
    }

    @Test
    void wqeStaysCountedUntilPolled_V_SRQ_18_V_SRQ_19_V_SRQ_23_V_SRQ_2() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(2, 1, 0);
        MemoryRegion mr = sink(pd);
        QueuePair qp = pd.createQueuePair(qpConfig().srq(srq, 0));
        FakeTransport t = toRts(qp);
        post(srq, mr, 2, 1);
        assertStatus(() -> post(srq, mr, 1, 3), VerbsStatus.TOO_MANY_WRS_POSTED);
        ReceiveWqe w = t.upcalls.takeReceive();
        t.upcalls.receiveCompleted(w, WorkCompletionStatus.SUCCESS, 5, false, 0);
        assertStatus(() -> post(srq, mr, 1, 3), VerbsStatus.TOO_MANY_WRS_POSTED); // completed, not polled
        WorkCompletion wc = new WorkCompletion();
        assertThat(cq.poll(wc)).isTrue(); // the CQ of the consuming QP's RQ
        assertThat(wc.qpId()).isEqualTo(qp.id());
        assertThat(wc.wrId()).isEqualTo(1);
        post(srq, mr, 1, 3); // can post again right away
        assertThat(srq.query().outstanding()).isEqualTo(2);
        assertThat(srq.query().available()).isEqualTo(2);
    }

    @Test
    void anyQpMayConsumeAllWqesAndUnusedOnesAreNotFlushed_V_SRQ_24_V_SRQ_30_V_SRQ_33_V_SRQ_5() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(8, 1, 0);
        MemoryRegion mr = sink(pd);
        QueuePair a = pd.createQueuePair(qpConfig().srq(srq, 0));
        QueuePair b = pd.createQueuePair(qpConfig().srq(srq, 0));
        FakeTransport ta = toRts(a);
        toRts(b);
        post(srq, mr, 4, 1);
        ReceiveWqe consumed = ta.upcalls.takeReceive();
        assertThat(consumed.wrId()).isEqualTo(1);
        a.modify(new QueuePairModification().nextState(QpState.ERROR));
        assertThat(drain(cq)).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, WorkCompletionStatus.FLUSHED));
        assertThat(srq.query().available()).isEqualTo(3); // the other WQEs stay for b
        assertThat(b.state()).isEqualTo(QpState.RTS);
        FakeTransport tb = (FakeTransport) b.query().llpStream();
        for (int i = 0; i < 3; i++) {
            assertThat(tb.upcalls.takeReceive()).isNotNull();
        }
        assertThat(tb.upcalls.takeReceive()).isNull();
    }

    @Test
    void srqSglIsCheckedAgainstTheSrqPd_V_SRQ_26_V_MR_108() {
        ProtectionDomain other = rnic.allocatePd();
        SharedReceiveQueue srq = other.createSharedReceiveQueue(4, 1, 0);
        QueuePair qp = pd.createQueuePair(qpConfig().srq(srq, 0));
        FakeTransport t = toRts(qp);
        post(srq, sink(other), 1, 1); // region in the S-RQ's PD, not the QP's
        assertThat(t.upcalls.takeReceive()).isNotNull();
        post(srq, sink(pd), 1, 2); // region in the QP's PD: wrong for an S-RQ WQE
        assertThat(t.upcalls.takeReceive()).isNull();
        assertThat(qp.state()).isEqualTo(QpState.TERMINATE);
    }

    @Test
    void srqLimitEventFiresOnceAndCanBeRearmed_V_SRQ_35_V_SRQ_37_V_SRQ_38_V_SRQ_39_V_EV_40_V_VERB_ModifySRQ_1() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(8, 1, 2);
        MemoryRegion mr = sink(pd);
        QueuePair qp = pd.createQueuePair(qpConfig().srq(srq, 0));
        FakeTransport t = toRts(qp);
        post(srq, mr, 4, 1);
        t.upcalls.takeReceive(); // 3 left
        t.upcalls.takeReceive(); // 2 left: not below the limit
        assertThat(events).isEmpty();
        t.upcalls.takeReceive(); // 1 left: below
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.SRQ_LIMIT_REACHED);
        assertThat(events.getFirst().resource()).isSameAs(srq);
        assertThat(srq.query().limitArmed()).isFalse();
        t.upcalls.takeReceive();
        assertThat(events).hasSize(1); // one shot
        assertThat(qp.state()).isEqualTo(QpState.RTS); // nothing else disturbed
        srq.modify(SharedReceiveQueue.UNCHANGED, SharedReceiveQueue.UNCHANGED, true);
        srq.modify(SharedReceiveQueue.UNCHANGED, SharedReceiveQueue.UNCHANGED, true); // re-arm while armed: fine
        post(srq, mr, 2, 10);
        t.upcalls.takeReceive();
        assertThat(events).hasSize(2);
    }

    @Test
    void modifyResizesWithOutstandingWorkAndChecksTheLimit_V_SRQ_8_V_SRQ_10_V_SRQ_40_V_VERB_ModifySRQ_2() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(8, 1, 2);
        MemoryRegion mr = sink(pd);
        post(srq, mr, 4, 1);
        assertStatus(() -> srq.modify(3, SharedReceiveQueue.UNCHANGED, false), VerbsStatus.SHRINK_TOO_MANY_ELEMENTS);
        assertStatus(() -> srq.modify(1, 1, false), VerbsStatus.SHRINK_TOO_MANY_ELEMENTS);
        assertStatus(() -> srq.modify(SharedReceiveQueue.UNCHANGED, 9, false), VerbsStatus.SRQ_LIMIT_OUT_OF_RANGE);
        assertStatus(() -> srq.modify(16385, SharedReceiveQueue.UNCHANGED, false), VerbsStatus.MAX_WRS_EXCEED_CAPABILITY);
        SharedReceiveQueue armed = pd.createSharedReceiveQueue(8, 1, 6);
        assertStatus(() -> armed.modify(5, SharedReceiveQueue.UNCHANGED, false), VerbsStatus.INVALID_MODIFIER);
        assertThat(srq.query().maxWrs()).isEqualTo(8); // unchanged by the failures
        assertThat(srq.modify(4, 1, false)).isEqualTo(4);
        assertThat(srq.modify(32, SharedReceiveQueue.UNCHANGED, false)).isEqualTo(32);
        post(srq, mr, 28, 100);
        assertThat(srq.query().outstanding()).isEqualTo(32);
    }

    @Test
    void qpRqLimitEventOnMessagesInProgress_V_SRQ_42_V_SRQ_43_V_EV_41_V_NOTE_6_V_VERB_ModifyQP_3() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(8, 1, 0);
        MemoryRegion mr = sink(pd);
        QueuePair qp = pd.createQueuePair(qpConfig().srq(srq, 1));
        FakeTransport t = toRts(qp);
        post(srq, mr, 6, 1);
        t.upcalls.takeReceive(); // 1 in progress: not above the limit
        assertThat(events).isEmpty();
        t.upcalls.takeReceive(); // 2 in progress
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.QP_RQ_LIMIT_REACHED);
        assertThat(events.getFirst().qpId()).isEqualTo(qp.id());
        t.upcalls.takeReceive();
        assertThat(events).hasSize(1);
        assertThat(qp.query().rqLimitArmed()).isFalse();
        qp.modify(new QueuePairModification().nextState(QpState.RTS).rqLimit(2).armRqLimit());
        qp.modify(new QueuePairModification().nextState(QpState.RTS).armRqLimit()); // re-arm armed: allowed
        t.upcalls.takeReceive(); // 4 in progress > 2
        assertThat(events).hasSize(2);
        assertThatThrownBy(() -> qp.modify(new QueuePairModification().nextState(QpState.RTS).rqLimit(9)))
                .isInstanceOf(VerbsException.class);
    }

    @Test
    void destroyOnlyWithoutQpsAndNeverCompletesPostedWqes_V_SRQ_11_V_SRQ_12_V_SRQ_13_V_VERB_DestroySRQ_1() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(8, 1, 0);
        QueuePair qp = pd.createQueuePair(qpConfig().srq(srq, 0));
        post(srq, sink(pd), 3, 1);
        assertStatus(srq::close, VerbsStatus.SRQ_IN_USE);
        qp.close();
        srq.close();
        assertThat(drain(cq)).isEmpty();
        assertStatus(srq::query, VerbsStatus.INVALID_SRQ_HANDLE);
        assertStatus(() -> post(srq, sink(pd), 1, 1), VerbsStatus.INVALID_SRQ_HANDLE);
        assertStatus(() -> pd.createQueuePair(qpConfig().srq(srq, 0)), VerbsStatus.INVALID_SRQ_HANDLE);
    }

    @Test
    void destroyingAConsumingQpReturnsItsSrqCapacity_V_SRQ_30() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(2, 1, 0);
        MemoryRegion mr = sink(pd);
        QueuePair qp = pd.createQueuePair(qpConfig().srq(srq, 0));
        FakeTransport t = toRts(qp);
        post(srq, mr, 2, 1);
        t.upcalls.takeReceive();
        t.upcalls.takeReceive();
        qp.close();
        post(srq, mr, 2, 3);
        assertThat(srq.query().outstanding()).isEqualTo(2);
    }
}
