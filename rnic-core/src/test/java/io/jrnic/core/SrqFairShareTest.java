package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.SrqConsumption;
import io.jrnic.api.SrqFairShare;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.wq.ReceiveWqe;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Per-QP accounting of S-RQ consumption and the fair-share policy (RFC 5040 §8.1.2 item 8, RFC
 * 5042 §6.4.3.1) on the verbs level: the QPs take WQEs through their transport upcalls as the
 * receive engine does, so each step is deterministic. {@link SrqFairShareEngineTest} runs the same
 * attack over two real RNICs.
 */
class SrqFairShareTest extends VerbsFixture {
    private MemoryRegion mr;

    private MemoryRegion sink() {
        if (mr == null) {
            MemorySegment m = rnic.allocateMemory(4096, 4096);
            mr = pd.registerMemory(m, AccessRights.LOCAL_WRITE, 0, AddressType.ZERO_BASED, 0, false);
        }
        return mr;
    }

    private SharedReceiveQueue srq(int depth, SrqFairShare policy) {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(depth, 1, 0);
        srq.fairShare(policy);
        for (int i = 0; i < depth; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(i + 1).sge(sink().stag(), 0, 64));
        }
        return srq;
    }

    private List2 onSrq(SharedReceiveQueue srq) {
        QueuePair a = pd.createQueuePair(qpConfig().srq(srq, 0));
        QueuePair b = pd.createQueuePair(qpConfig().srq(srq, 0));
        return new List2(a, toRts(a), b, toRts(b));
    }

    private record List2(QueuePair a, FakeTransport ta, QueuePair b, FakeTransport tb) {
    }

    private static void complete(FakeTransport t, ReceiveWqe w) {
        t.upcalls.receiveCompleted(w, WorkCompletionStatus.SUCCESS, 1, false, 0);
    }

    private java.util.List<AsyncEvent> fairShareEvents() {
        return events.stream().filter(e -> e.type() == AsyncEventType.SRQ_FAIR_SHARE_EXCEEDED).toList();
    }

    @Test
    void qpHoldingTooManyWqesInProcessIsRefusedWhileTheOthersAreServed_R_SEC_026_V_SEC_27() {
        SharedReceiveQueue srq = srq(8, SrqFairShare.inProcess(2, true));
        List2 q = onSrq(srq);
        // the arrival-ordering attack: Sends are opened (WQEs pulled) and never finished
        ReceiveWqe first = q.ta().upcalls.takeReceive();
        assertThat(q.ta().upcalls.takeReceive()).isNotNull();
        assertThat(fairShareEvents()).isEmpty();
        assertThat(q.ta().upcalls.takeReceive()).isNull(); // a third one in process: refused
        assertThat(fairShareEvents()).extracting(AsyncEvent::qpId).containsExactly(q.a().id());
        assertThat(q.ta().upcalls.takeReceive()).isNull();
        assertThat(fairShareEvents()).hasSize(1); // one event per excursion
        assertThat(srq.query().available()).isEqualTo(6); // the refused WQEs stayed for the others
        assertThat(srq.consumption(q.a())).isEqualTo(new SrqConsumption(q.a().id(), 2, 2, 2, 8, 8, 2));
        for (int i = 0; i < 2; i++) {
            assertThat(q.tb().upcalls.takeReceive()).isNotNull();
        }
        assertThat(srq.consumption(q.b()).inProcess()).isEqualTo(2);
        complete(q.ta(), first); // one completion frees one in-process slot
        assertThat(srq.consumption(q.a()).inProcess()).isEqualTo(1);
        assertThat(q.ta().upcalls.takeReceive()).isNotNull();
        assertThat(q.ta().upcalls.takeReceive()).isNull(); // a new excursion: a new event
        assertThat(fairShareEvents()).hasSize(2);
        assertThat(q.b().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void floodAboveTheShareOfTheWindowIsDetectedAndStillServedWithoutTerminate_R_SEC_026() {
        SharedReceiveQueue srq = srq(8, SrqFairShare.share(0.5, false)); // window 8, limit 4
        List2 q = onSrq(srq);
        for (int i = 0; i < 4; i++) {
            complete(q.ta(), q.ta().upcalls.takeReceive());
        }
        assertThat(fairShareEvents()).isEmpty();
        ReceiveWqe fifth = q.ta().upcalls.takeReceive();
        assertThat(fifth).isNotNull(); // detection only: the WQE is still handed out
        assertThat(fairShareEvents()).extracting(AsyncEvent::qpId).containsExactly(q.a().id());
        assertThat(q.ta().upcalls.takeReceive()).isNotNull();
        assertThat(fairShareEvents()).hasSize(1);
        SrqConsumption a = srq.consumption(q.a());
        assertThat(a.taken()).isEqualTo(6);
        assertThat(a.inWindow()).isEqualTo(6);
        assertThat(a.shareLimit()).isEqualTo(4);
        assertThat(a.exceeded()).isEqualTo(2);
        assertThat(q.a().state()).isEqualTo(QpState.RTS);
        assertThat(srq.consumption(q.b())).isEqualTo(new SrqConsumption(q.b().id(), 0, 0, 0, 8, 4, 0));
    }

    @Test
    void takesOfOtherQpsSlideAFlooderBackWithinItsShare_R_SEC_026() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(16, 1, 0);
        srq.fairShare(new SrqFairShare(0, 0.5, 4, false)); // the last 4 takes, at most 2 each
        for (int i = 0; i < 16; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(i + 1).sge(sink().stag(), 0, 64));
        }
        List2 q = onSrq(srq);
        for (int i = 0; i < 3; i++) {
            complete(q.ta(), q.ta().upcalls.takeReceive()); // third take: 3 of the last 4
        }
        assertThat(fairShareEvents()).hasSize(1);
        for (int i = 0; i < 3; i++) {
            complete(q.tb(), q.tb().upcalls.takeReceive()); // window now a b b b
        }
        assertThat(srq.consumption(q.a()).inWindow()).isEqualTo(1);
        assertThat(srq.consumption(q.b()).inWindow()).isEqualTo(3);
        assertThat(fairShareEvents()).extracting(AsyncEvent::qpId).containsExactly(q.a().id(), q.b().id());
        complete(q.ta(), q.ta().upcalls.takeReceive()); // b b b a -> a within its share again
        complete(q.ta(), q.ta().upcalls.takeReceive()); // b b a a -> still within
        assertThat(fairShareEvents()).hasSize(2);
        complete(q.ta(), q.ta().upcalls.takeReceive()); // b a a a -> a new excursion
        assertThat(fairShareEvents()).extracting(AsyncEvent::qpId)
                .containsExactly(q.a().id(), q.b().id(), q.a().id());
    }

    @Test
    void aSingleAttachedQpHasNobodyToBeUnfairTo_R_SEC_026() {
        SharedReceiveQueue srq = srq(4, SrqFairShare.share(0.25, true));
        QueuePair only = pd.createQueuePair(qpConfig().srq(srq, 0));
        FakeTransport t = toRts(only);
        for (int i = 0; i < 4; i++) {
            assertThat(t.upcalls.takeReceive()).isNotNull();
        }
        assertThat(fairShareEvents()).isEmpty();
        assertThat(srq.consumption(only).taken()).isEqualTo(4);
    }

    @Test
    void shrinkingTheWindowKeepsTheMostRecentTakes_R_SEC_026() {
        SharedReceiveQueue srq = srq(8, SrqFairShare.UNLIMITED);
        List2 q = onSrq(srq);
        complete(q.ta(), q.ta().upcalls.takeReceive());
        complete(q.ta(), q.ta().upcalls.takeReceive());
        complete(q.tb(), q.tb().upcalls.takeReceive());
        complete(q.ta(), q.ta().upcalls.takeReceive()); // a a b a
        assertThat(srq.consumption(q.a()).inWindow()).isEqualTo(3); // counted even without a limit
        srq.fairShare(new SrqFairShare(0, 0.5, 2, true)); // last two: b a
        assertThat(srq.consumption(q.a()).inWindow()).isEqualTo(1);
        assertThat(srq.consumption(q.b()).inWindow()).isEqualTo(1);
        assertThat(srq.consumption(q.a()).window()).isEqualTo(2);
        assertThat(q.ta().upcalls.takeReceive()).isNull(); // a a would exceed 1 of 2
        assertThat(q.tb().upcalls.takeReceive()).isNotNull(); // a b
        srq.fairShare(SrqFairShare.UNLIMITED); // window back to the depth, nothing lost
        assertThat(srq.consumption(q.a()).inWindow()).isEqualTo(1);
        assertThat(srq.consumption(q.b()).inWindow()).isEqualTo(1);
        assertThat(srq.consumption(q.a()).window()).isEqualTo(8);
        assertThat(srq.modify(12, SharedReceiveQueue.UNCHANGED, false)).isEqualTo(12);
        assertThat(srq.consumption(q.a()).window()).isEqualTo(12); // the default window follows the depth
        assertThat(srq.consumption(q.a()).taken()).isEqualTo(3);
    }

    @Test
    void destroyingAQpReleasesItsWqesInProcessAndItsAccount_R_SEC_026() {
        SharedReceiveQueue srq = srq(4, SrqFairShare.inProcess(1, true));
        List2 q = onSrq(srq);
        assertThat(q.ta().upcalls.takeReceive()).isNotNull();
        assertThat(q.ta().upcalls.takeReceive()).isNull();
        q.a().close();
        assertThat(srq.query().outstanding()).isEqualTo(3); // the held WQE's slot came back
        QueuePair c = pd.createQueuePair(qpConfig().srq(srq, 0));
        FakeTransport tc = toRts(c);
        assertThat(srq.consumption(c).taken()).isZero();
        assertThat(tc.upcalls.takeReceive()).isNotNull();
        assertThat(q.tb().upcalls.takeReceive()).isNotNull();
    }

    @Test
    void policyIsValidatedInheritedFromTheRnicAndQueried_R_SEC_026() {
        assertThatThrownBy(() -> new SrqFairShare(-1, 1.0, 0, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxInProcess -1");
        assertThatThrownBy(() -> new SrqFairShare(0, 0.0, 0, false)).hasMessageContaining("maxShare 0.0");
        assertThatThrownBy(() -> new SrqFairShare(0, 1.5, 0, false)).hasMessageContaining("maxShare 1.5");
        assertThatThrownBy(() -> new SrqFairShare(0, Double.NaN, 0, false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SrqFairShare(0, 1.0, -2, false)).hasMessageContaining("window -2");
        assertThatThrownBy(() -> SrqFairShare.inProcess(0, true)).hasMessageContaining("at least 1");
        assertThat(SrqFairShare.UNLIMITED.limited()).isFalse();
        assertThat(SrqFairShare.share(0.3, false).shareLimit(10)).isEqualTo(3);
        assertThat(SrqFairShare.share(0.01, false).shareLimit(10)).isEqualTo(1); // never zero

        SharedReceiveQueue srq = pd.createSharedReceiveQueue(4, 1, 0);
        assertThat(srq.fairShare()).isEqualTo(SrqFairShare.UNLIMITED); // the default
        assertThatThrownBy(() -> srq.fairShare(new SrqFairShare(0, 0.5, 16385, true)))
                .isInstanceOf(VerbsException.class).extracting(e -> ((VerbsException) e).status())
                .isEqualTo(VerbsStatus.INVALID_MODIFIER);
        assertThat(srq.fairShare()).isEqualTo(SrqFairShare.UNLIMITED); // unchanged by the failure
        QueuePair elsewhere = qp(); // a private RQ: not a consumer of the S-RQ
        assertThatThrownBy(() -> srq.consumption(elsewhere)).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_QP_HANDLE);

        SrqFairShare policy = new SrqFairShare(3, 0.25, 8, true);
        RnicConfig config = config().srqFairShare(policy);
        try (SoftRnic other = SoftRnic.open(config)) {
            config.srqFairShare(SrqFairShare.UNLIMITED); // read once at open
            SharedReceiveQueue inherited = other.allocatePd().createSharedReceiveQueue(4, 1, 0);
            assertThat(inherited.fairShare()).isEqualTo(policy);
        }
        assertThatThrownBy(() -> SoftRnic.open(config().srqFairShare(new SrqFairShare(0, 0.5, 99, true))
                .srqLimits(4, 64))).isInstanceOf(VerbsException.class).hasMessageContaining("invalid RNIC limits");
        srq.close();
        assertThatThrownBy(srq::fairShare).isInstanceOf(VerbsException.class);
    }
}
