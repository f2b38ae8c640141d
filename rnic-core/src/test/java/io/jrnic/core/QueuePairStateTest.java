package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairAttributes;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Verbs 1.0 §6.2: every state, every transition, and what happens to queued work requests. */
class QueuePairStateTest extends VerbsFixture {

    private static void assertStatus(Runnable r, VerbsStatus status) {
        assertThatThrownBy(r::run).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(status);
    }

    private static QueuePairModification to(QpState s) {
        return new QueuePairModification().nextState(s);
    }

    private MemoryRegion region(int rights) {
        MemorySegment m = rnic.allocateMemory(4096, 4096);
        return pd.registerMemory(m, rights, 0, io.jrnic.api.AddressType.ZERO_BASED, 0,
                (rights & AccessRights.REMOTE_MASK) != 0);
    }

    private SendWorkRequest send(long id, MemoryRegion mr) {
        return new SendWorkRequest().wrId(id).opcode(Opcode.SEND).sge(mr.stag(), 0, 16);
    }

    private ReceiveWorkRequest recv(long id, MemoryRegion mr) {
        return new ReceiveWorkRequest().wrId(id).sge(mr.stag(), 0, 64);
    }

    /** Puts a new QP into {@code s} through the legal path; the fake transport never auto-closes. */
    private QueuePair inState(QpState s) {
        QueuePair qp = qp();
        switch (s) {
            case IDLE -> { }
            case RTS -> toRts(qp);
            case CLOSING -> {
                toRts(qp);
                qp.modify(to(QpState.CLOSING));
            }
            case TERMINATE -> {
                toRts(qp);
                qp.modify(to(QpState.TERMINATE));
            }
            case ERROR -> qp.modify(to(QpState.ERROR));
        }
        assertThat(qp.state()).isEqualTo(s);
        return qp;
    }

    @Test
    void newQpIsIdle_V_QP_17_V_QPS_6() {
        assertThat(qp().state()).isEqualTo(QpState.IDLE);
    }

    @Test
    void modifyTransitionMatrix_V_QPS_2_V_QPS_9_V_QPS_24_V_QPS_57_V_QPS_60_V_QPS_72_V_QPS_88() {
        Set<String> allowed = Set.of("IDLE>IDLE", "IDLE>RTS", "IDLE>ERROR", "RTS>RTS", "RTS>CLOSING", "RTS>TERMINATE",
                "RTS>ERROR", "ERROR>IDLE");
        for (QpState from : QpState.values()) {
            for (QpState target : QpState.values()) {
                QueuePair qp = inState(from);
                QueuePairModification m = to(target);
                if (from == QpState.IDLE && target == QpState.RTS) {
                    m.llpStream(new FakeTransport());
                }
                String key = from + ">" + target;
                if (allowed.contains(key)) {
                    assertThat(qp.modify(m).state()).as(key).isEqualTo(target);
                } else {
                    assertThatThrownBy(() -> qp.modify(m)).as(key).isInstanceOf(VerbsException.class)
                            .extracting(e -> ((VerbsException) e).status())
                            .isEqualTo(VerbsStatus.INVALID_QP_STATE_CHANGE);
                    assertThat(qp.state()).as(key + " unchanged").isEqualTo(from);
                }
                qp.close(); // Destroy QP succeeds in every state (V-QP-36)
            }
        }
    }

    @Test
    void idleToRtsNeedsEstablishedStream_V_QPS_11_V_QPS_12_V_QPS_15_V_VERB_ModifyQP_4() {
        QueuePair qp = qp();
        assertStatus(() -> qp.modify(to(QpState.RTS)), VerbsStatus.INVALID_LLP_STREAM_HANDLE);
        FakeTransport down = new FakeTransport();
        down.established = false;
        assertStatus(() -> qp.modify(to(QpState.RTS).llpStream(down)), VerbsStatus.INVALID_LLP_STREAM_HANDLE);
        assertStatus(() -> qp.modify(to(QpState.RTS).llpStream(() -> true)), VerbsStatus.INVALID_LLP_STREAM_HANDLE);
        FakeTransport t = new FakeTransport();
        MemorySegment msg = MemorySegment.ofArray(new byte[] {1, 2, 3});
        QueuePairAttributes a = qp.modify(to(QpState.RTS).llpStream(t).streamMessage(msg));
        assertThat(a.state()).isEqualTo(QpState.RTS);
        assertThat(a.llpStream()).isSameAs(t);
        assertThat(t.starts).isEqualTo(1);
        assertThat(t.streamMessage).isSameAs(msg);
        assertStatus(() -> qp.modify(to(QpState.RTS).llpStream(t)), VerbsStatus.INVALID_MODIFIER); // only on Idle->RTS
    }

    @Test
    void attributesOnlyWhereFigure4And5AllowThem_V_QP_20_V_QP_21_V_QP_22_V_QP_25_V_QP_30() {
        QueuePair qp = qp();
        assertStatus(() -> qp.modify(new QueuePairModification()), VerbsStatus.INVALID_MODIFIER);
        QueuePairAttributes a = qp.modify(to(QpState.IDLE).ord(3).ird(4).depths(32, 24));
        assertThat(a.ord()).isEqualTo(3);
        assertThat(a.ird()).isEqualTo(4);
        assertThat(a.sqDepth()).isEqualTo(32);
        assertThat(a.rqDepth()).isEqualTo(24);
        // all or nothing: a valid ORD with an out-of-range IRD changes nothing
        assertStatus(() -> qp.modify(to(QpState.IDLE).ord(1).ird(65)), VerbsStatus.IRD_EXCEEDS_CAPABILITY);
        assertThat(qp.query().ord()).isEqualTo(3);
        assertStatus(() -> qp.modify(to(QpState.IDLE).ord(65)), VerbsStatus.ORD_EXCEEDS_CAPABILITY);
        assertStatus(() -> qp.modify(to(QpState.IDLE).ord(-2)), VerbsStatus.INVALID_MODIFIER);
        assertStatus(() -> qp.modify(to(QpState.IDLE).depths(16385, QueuePairModification.UNSET)),
                VerbsStatus.MAX_WRS_EXCEED_CAPABILITY);
        assertStatus(() -> qp.modify(to(QpState.ERROR).ord(1)), VerbsStatus.INVALID_MODIFIER);
        assertStatus(() -> qp.modify(to(QpState.IDLE).llpStream(new FakeTransport())), VerbsStatus.INVALID_MODIFIER);
        assertStatus(() -> qp.modify(to(QpState.IDLE).rqLimit(1)), VerbsStatus.INVALID_MODIFIER); // no S-RQ
        toRts(qp);
        assertThat(qp.modify(to(QpState.RTS).ord(0).ird(2)).ord()).isZero(); // V-IRD-13: decrease accepted
        assertStatus(() -> qp.modify(to(QpState.CLOSING).ord(1)), VerbsStatus.INVALID_MODIFIER);
        assertThat(qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void resizeWithWorkOutstanding_V_QP_27_V_QP_29_V_QPS_26() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        for (int i = 0; i < 4; i++) {
            qp.postSend(send(i, mr));
            qp.postReceive(recv(i, mr));
        }
        assertStatus(() -> qp.modify(to(QpState.IDLE).depths(3, QueuePairModification.UNSET)),
                VerbsStatus.SHRINK_TOO_MANY_ELEMENTS);
        assertStatus(() -> qp.modify(to(QpState.IDLE).depths(QueuePairModification.UNSET, 3)),
                VerbsStatus.SHRINK_TOO_MANY_ELEMENTS);
        assertThat(qp.query().sqDepth()).isEqualTo(16);
        qp.modify(to(QpState.IDLE).depths(4, 4));
        assertStatus(() -> qp.postSend(send(9, mr)), VerbsStatus.TOO_MANY_WRS_POSTED);
        qp.modify(to(QpState.IDLE).depths(40, 40));
        FakeTransport t = toRts(qp);
        assertThat(t.transmittedIds).containsExactly(0L, 1L, 2L, 3L); // nothing lost by the resize
    }

    @Test
    void resizeKeepsTheRingsPlaceWhenItsCountersAreNotAtZero_V_QP_27() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp(); // SQ depth 16
        FakeTransport first = toRts(qp);
        for (int i = 0; i < 5; i++) {
            qp.postSend(send(i, mr));
        }
        first.completeAll();
        assertThat(drain(cq)).hasSize(5);
        qp.modify(to(QpState.CLOSING));
        first.upcalls.closeCompleted(); // back to Idle with the SQ counters at 5
        for (long id = 10; id < 13; id++) {
            qp.postSend(send(id, mr)); // slots 5, 6, 7 of 16
        }

        qp.modify(to(QpState.IDLE).depths(6, QueuePairModification.UNSET)); // now slots 5, 0, 1 of 6

        FakeTransport second = toRts(qp);
        assertThat(second.transmittedIds).containsExactly(10L, 11L, 12L);
        second.completeAll();
        List<WorkCompletion> done = new java.util.ArrayList<>(drain(cq));
        for (long id = 13; id < 19; id++) {
            qp.postSend(send(id, mr)); // around the ring again: every slot reused once more
            second.completeAll();
            done.addAll(drain(cq));
        }
        assertThat(done).extracting(WorkCompletion::wrId).containsExactly(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L);
        assertThat(second.transmittedIds).hasSize(9);
    }

    @Test
    void idleQueuesButNeverProcesses_V_QPS_7_V_QPS_20_V_QPS_22() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        qp.postSend(send(1, mr));
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.INVALIDATE_LOCAL_STAG)
                .invalidateStag(pd.allocateRegionStag(1, false).stag()));
        qp.postSend(send(3, mr));
        assertThat(drain(cq)).isEmpty();
        assertStatus(() -> qp.postSend(new SendWorkRequest().wrId(4)), VerbsStatus.INVALID_OPERATION_TYPE);
        assertThat(qp.state()).isEqualTo(QpState.IDLE);
        FakeTransport t = toRts(qp);
        assertThat(t.transmittedIds).containsExactly(1L, 3L);
        t.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
    }

    @Test
    void idleToErrorFlushesEveryWqeExactlyOnce_V_QPS_17_V_QPS_61_V_WRP_48_V_WRP_51() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        for (int i = 0; i < 3; i++) {
            qp.postSend(send(i, mr).signaled(false));
            qp.postReceive(recv(10 + i, mr));
        }
        qp.modify(to(QpState.ERROR));
        List<WorkCompletion> wcs = drain(cq);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(0L, 1L, 2L, 10L, 11L, 12L);
        assertThat(wcs).allMatch(w -> w.status() == WorkCompletionStatus.FLUSHED); // unsignaled too
        assertThat(wcs).filteredOn(w -> w.wrId() >= 10).allMatch(w -> w.opcode() == Opcode.RECEIVE);
        qp.modify(to(QpState.IDLE)); // V-QPS-68: nothing left to flush
        assertThat(drain(cq)).isEmpty();
        assertThat(qp.query().terminateMessage()).isNull();
    }

    @Test
    void postingInErrorIsFlushed_V_QPS_64_V_QPS_18() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = inState(QpState.ERROR);
        qp.postSend(send(1, mr));
        qp.postReceive(recv(2, mr));
        assertThat(drain(cq)).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.FLUSHED, WorkCompletionStatus.FLUSHED);
    }

    @Test
    void postingInTerminateIsRefused_V_QPS_49() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = inState(QpState.TERMINATE);
        assertStatus(() -> qp.postSend(send(1, mr)), VerbsStatus.INVALID_QP_STATE);
        assertStatus(() -> qp.postReceive(recv(1, mr)), VerbsStatus.INVALID_QP_STATE);
        assertThat(qp.state()).isEqualTo(QpState.TERMINATE);
    }

    @Test
    void modifyToTerminateSendsLocalCatastrophicWithoutEvent_V_QPS_33_V_QPS_34_V_QPS_51_V_NOTE_1_V_NOTE_3() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postSend(send(1, mr)); // in flight
        qp.postReceive(recv(2, mr));
        qp.modify(to(QpState.TERMINATE));
        assertThat(t.terminates).containsExactly(new TerminateMessage(0x0000, true, null));
        QueuePairAttributes a = qp.query();
        assertThat(a.terminateMessage().locallyGenerated()).isTrue();
        assertThat(drain(cq)).isEmpty(); // V-QPS-44: nothing processed, flushed on Error
        t.upcalls.closeCompleted();
        assertThat(qp.state()).isEqualTo(QpState.ERROR); // V-QPS-54
        assertThat(drain(cq)).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.FLUSHED, WorkCompletionStatus.FLUSHED);
        assertThat(qp.query().terminateMessage().terminateControl()).isZero(); // V-QPS-65
        assertThat(qp.query().llpStream()).isNull(); // V-QPS-41
        assertThat(events).isEmpty(); // V-QPS-51: no "Error State Entered"
        t.completeAll(); // a late completion from the old stream is ignored
        assertThat(drain(cq)).isEmpty();
    }

    @Test
    void modifyToErrorResetsWithoutTerminate_V_QPS_39_V_CM_12() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postSend(send(1, mr));
        qp.modify(to(QpState.ERROR));
        assertThat(t.resets).isEqualTo(1);
        assertThat(t.terminates).isEmpty();
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED);
        assertThat(events).isEmpty();
    }

    @Test
    void gracefulCloseFlushesRqAndReachesIdleWithEvent_V_QPS_30_V_QPS_76_V_QPS_81_V_CM_9_V_EV_2() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postReceive(recv(1, mr));
        qp.modify(to(QpState.CLOSING));
        assertThat(t.closes).isEqualTo(1);
        assertThat(events).isEmpty(); // requested close: no event yet
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED);
        qp.postReceive(recv(2, mr)); // V-QPS-86: enqueued and flushed, stays Closing
        assertThat(qp.state()).isEqualTo(QpState.CLOSING);
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(2L);
        t.upcalls.closeCompleted();
        assertThat(qp.state()).isEqualTo(QpState.IDLE);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);
        assertThat(qp.query().llpStream()).isNull(); // V-QPS-71
        toRts(qp); // reusable on a new stream (V-QPS-56)
    }

    @Test
    void closingWithSqWorkGoesToErrorWithBadClose_V_QPS_31_V_QPS_82() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postSend(send(1, mr));
        qp.modify(to(QpState.CLOSING));
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        assertThat(t.resets).isEqualTo(1);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.BAD_CLOSE);
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED);
        QueuePair qp2 = qp();
        FakeTransport t2 = toRts(qp2);
        t2.remoteReads = true; // a remote RDMA Read in process counts too
        qp2.modify(to(QpState.CLOSING));
        assertThat(qp2.state()).isEqualTo(QpState.ERROR);
    }

    @Test
    void postSqInClosingResetsWithBadClose_V_QPS_86_V_QPS_75() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = inState(QpState.CLOSING);
        qp.postSend(send(5, mr));
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.BAD_CLOSE);
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(5L);
    }

    @Test
    void remoteFinWithEmptySqClosesGracefully_V_QPS_27_V_QPS_28_V_QPS_29_V_CM_10_V_NOTE_10() {
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        t.upcalls.remoteClosed();
        assertThat(qp.state()).isEqualTo(QpState.CLOSING);
        t.upcalls.closeCompleted();
        assertThat(qp.state()).isEqualTo(QpState.IDLE);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);
    }

    @Test
    void remoteFinWithSqWorkTerminatesWithBadLlpClose_V_QPS_28_V_EV_23_V_ERR_24() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postSend(send(1, mr));
        t.upcalls.remoteClosed();
        assertThat(qp.state()).isEqualTo(QpState.TERMINATE);
        assertThat(t.terminates.getFirst().terminateControl()).isEqualTo(0x0207);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.BAD_LLP_CLOSE);
    }

    @Test
    void receivedTerminateIsKeptAndNotAnswered_V_QPS_38_V_QPS_58_V_CM_14_V_EV_3_V_NOTE_2_V_VERB_QueryQP_3() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postSend(send(1, mr));
        qp.postSend(send(2, mr));
        TerminateMessage remote = new TerminateMessage(0x1100, false, new byte[] {9, 9});
        t.upcalls.terminateReceived(remote);
        assertThat(qp.state()).isEqualTo(QpState.TERMINATE);
        // Verbs §6.2.2.3, Figure 36 (V-ERR-46): the WR in progress completes now, before Error
        assertThat(drain(cq)).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        assertThat(t.terminates).isEmpty(); // never answer a Terminate
        assertThat(t.closes).isEqualTo(1);
        assertThat(qp.query().terminateMessage()).isEqualTo(remote);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        t.upcalls.closeCompleted();
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.query().terminateMessage().locallyGenerated()).isFalse();
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void llpFailuresGoToErrorWithTheirEvents_V_QPS_40_V_QPS_53_V_QPS_83_V_EV_4_V_EV_5() {
        QueuePair lost = qp();
        toRts(lost).upcalls.connectionFailed(false);
        QueuePair reset = qp();
        toRts(reset).upcalls.connectionFailed(true);
        QueuePair closing = inState(QpState.CLOSING);
        FakeTransport ct = (FakeTransport) closing.query().llpStream();
        ct.upcalls.connectionFailed(false);
        QueuePair terminating = qp();
        FakeTransport tt = toRts(terminating);
        terminating.modify(to(QpState.TERMINATE));
        tt.upcalls.connectionFailed(true);
        assertThat(List.of(lost, reset, closing, terminating)).allMatch(q -> q.state() == QpState.ERROR);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.LLP_CONNECTION_LOST,
                AsyncEventType.LLP_CONNECTION_RESET, AsyncEventType.LLP_CONNECTION_LOST, AsyncEventType.BAD_CLOSE);
    }

    @Test
    void resetInClosingIsConnectionLost_V_QPS_83() {
        QueuePair closing = inState(QpState.CLOSING);
        ((FakeTransport) closing.query().llpStream()).upcalls.connectionFailed(true);
        assertThat(closing.state()).isEqualTo(QpState.ERROR);
        // Verbs §6.2.5 Figure 11: any LLP connection failure in Closing, an incoming reset too
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
    }

    @Test
    void segmentOrTerminateWhileClosingIsBadClose_V_QPS_84_V_QPS_85_V_EV_22() {
        QueuePair a = inState(QpState.CLOSING);
        ((FakeTransport) a.query().llpStream()).upcalls.segmentWhileClosing();
        QueuePair b = inState(QpState.CLOSING);
        FakeTransport bt = (FakeTransport) b.query().llpStream();
        bt.upcalls.terminateReceived(new TerminateMessage(0x0100, false, null));
        assertThat(a.state()).isEqualTo(QpState.ERROR);
        assertThat(b.state()).isEqualTo(QpState.ERROR);
        assertThat(b.query().terminateMessage().terminateControl()).isEqualTo(0x0100);
        assertThat(bt.resets).isEqualTo(1);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.BAD_CLOSE, AsyncEventType.BAD_CLOSE);
    }

    @Test
    void remoteProtectionErrorTerminatesWithItsCode_V_QPS_35_V_QPS_36_V_EV_17_V_ERR_23() {
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        t.upcalls.remoteError(AsyncEventType.TAGGED_INVALID_STAG);
        assertThat(qp.state()).isEqualTo(QpState.TERMINATE);
        assertThat(t.terminates.getFirst().terminateControl()).isEqualTo(0x1100);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
    }

    @Test
    void destroyInAnyStateStopsCompletions_V_QP_32_V_QP_34_V_QP_36_V_QP_37_V_WRP_49() {
        MemoryRegion mr = region(AccessRights.LOCAL);
        for (QpState s : EnumSet.allOf(QpState.class)) {
            QueuePair qp = inState(s);
            if (s == QpState.IDLE) {
                qp.postSend(send(1, mr));
                qp.postReceive(recv(2, mr));
            }
            drain(cq);
            qp.close();
            assertThat(drain(cq)).as(s.toString()).isEmpty();
            assertStatus(qp::query, VerbsStatus.INVALID_QP_HANDLE);
            assertStatus(() -> qp.postSend(send(3, mr)), VerbsStatus.INVALID_QP_HANDLE);
            assertStatus(qp::close, VerbsStatus.INVALID_QP_HANDLE);
        }
    }
}
