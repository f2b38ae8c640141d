package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.NotifyType;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairAttributes;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.StagState;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.wq.ReceiveWqe;
import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Work-request validation (immediate and completion errors), ordering, signalling, fences, ORD, inline. */
class QueuePairWorkRequestTest extends VerbsFixture {

    private MemorySegment memory;
    private MemoryRegion local;

    private static void assertStatus(Runnable r, VerbsStatus status) {
        assertThatThrownBy(r::run).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(status);
    }

    private MemoryRegion local() {
        if (local == null) {
            memory = rnic.allocateMemory(4096, 4096);
            local = pd.registerMemory(memory, AccessRights.LOCAL, 0, AddressType.ZERO_BASED, 0, false);
        }
        return local;
    }

    private SendWorkRequest send(long id) {
        return new SendWorkRequest().wrId(id).opcode(Opcode.SEND).sge(local().stag(), 0, 16);
    }

    private SendWorkRequest write(long id) {
        return new SendWorkRequest().wrId(id).opcode(Opcode.RDMA_WRITE).sge(local().stag(), 0, 16).remote(0x1234, 0);
    }

    private SendWorkRequest read(long id) {
        return new SendWorkRequest().wrId(id).opcode(Opcode.RDMA_READ).sge(local().stag(), 0, 16).remote(0x1234, 0);
    }

    private SendWorkRequest localInvalidate(long id) {
        return new SendWorkRequest().wrId(id).opcode(Opcode.INVALIDATE_LOCAL_STAG)
                .invalidateStag(pd.allocateRegionStag(1, false).stag());
    }

    @Test
    void createValidatesEveryInput_V_QP_4_V_VERB_CreateQP_4_V_VERB_CreateQP_7_V_WR_45() {
        assertStatus(() -> pd.createQueuePair(qpConfig().cqs(null, cq)), VerbsStatus.INVALID_CQ_HANDLE);
        assertStatus(() -> pd.createQueuePair(qpConfig().depths(0, 4)), VerbsStatus.INVALID_MODIFIER);
        assertStatus(() -> pd.createQueuePair(qpConfig().depths(16385, 4)), VerbsStatus.MAX_WRS_EXCEED_CAPABILITY);
        assertStatus(() -> pd.createQueuePair(qpConfig().depths(4, 16385)), VerbsStatus.MAX_WRS_EXCEED_CAPABILITY);
        assertStatus(() -> pd.createQueuePair(qpConfig().sges(17, 1, 1, 0)), VerbsStatus.MAX_SGES_EXCEED_CAPABILITY);
        assertStatus(() -> pd.createQueuePair(qpConfig().sges(1, 17, 1, 0)), VerbsStatus.MAX_SGES_EXCEED_CAPABILITY);
        assertStatus(() -> pd.createQueuePair(qpConfig().sges(1, 1, 17, 0)), VerbsStatus.MAX_SGES_EXCEED_CAPABILITY);
        assertStatus(() -> pd.createQueuePair(qpConfig().sges(1, 1, 1, 257)), VerbsStatus.INVALID_MODIFIER);
        assertStatus(() -> pd.createQueuePair(qpConfig().readDepths(1, 65)), VerbsStatus.ORD_EXCEEDS_CAPABILITY);
        assertStatus(() -> pd.createQueuePair(qpConfig().readDepths(65, 1)), VerbsStatus.IRD_EXCEEDS_CAPABILITY);
        io.jrnic.api.CompletionQueue dead = rnic.createCq(1);
        dead.close();
        assertStatus(() -> pd.createQueuePair(qpConfig().cqs(cq, dead)), VerbsStatus.INVALID_CQ_HANDLE);
        try (SoftRnic user = SoftRnic.open(config().privilegedConsumer(false))) {
            io.jrnic.api.CompletionQueue c = user.createCq(4);
            assertStatus(() -> user.allocatePd().createQueuePair(new io.jrnic.api.QueuePairConfig().cqs(c, c)
                    .privileged(true)), VerbsStatus.INVALID_MODIFIER); // V-VERB-CreateQP-3, V-SEC-5
        }
    }

    @Test
    void queryReturnsAllocatedAttributes_V_QP_6_V_QP_15_V_QP_19_V_VERB_QueryQP_2_V_VERB_CreateQP_5() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(8, 12).sges(3, 2, 5, 64).readDepths(2, 3)
                .access(false, true, false).signalAll(false));
        QueuePairAttributes a = qp.query();
        assertThat(a.qpId()).isEqualTo(qp.id());
        assertThat(a.pdId()).isEqualTo(pd.id());
        assertThat(a.sendCq()).isSameAs(cq);
        assertThat(a.receiveCq()).isSameAs(cq);
        assertThat(a.srq()).isNull();
        assertThat(a.sqDepth()).isEqualTo(8);
        assertThat(a.rqDepth()).isEqualTo(12);
        assertThat(a.maxSendSge()).isEqualTo(3);
        assertThat(a.maxWriteSge()).isEqualTo(2);
        assertThat(a.maxReceiveSge()).isEqualTo(5);
        assertThat(a.maxInlineData()).isEqualTo(64);
        assertThat(a.ird()).isEqualTo(2);
        assertThat(a.ord()).isEqualTo(3);
        assertThat(a.inboundRead()).isFalse();
        assertThat(a.inboundWrite()).isTrue();
        assertThat(a.bindWindows()).isFalse();
        assertThat(a.privileged()).isFalse();
        assertThat(a.signalAll()).isFalse();
        assertThat(a.llpStream()).isNull();
        assertThat(pd.createQueuePair(qpConfig()).id()).isNotEqualTo(qp.id());
    }

    @Test
    void immediateErrorsOfPostSqLeaveTheQpUnchanged_V_ERR_40_V_VERB_PostSQ_10_V_QPS_42() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(2, 2).sges(2, 1, 2, 8));
        toRts(qp);
        assertStatus(() -> qp.postSend(new SendWorkRequest().wrId(1)), VerbsStatus.INVALID_OPERATION_TYPE);
        assertStatus(() -> qp.postSend(new SendWorkRequest().opcode(Opcode.RECEIVE)), VerbsStatus.INVALID_OPERATION_TYPE);
        assertStatus(() -> qp.postSend(send(1).sge(1, 0, 1).sge(1, 0, 1)), VerbsStatus.INVALID_SGL_LENGTH);
        assertStatus(() -> qp.postSend(write(1).sge(1, 0, 1)), VerbsStatus.INVALID_SGL_LENGTH);
        assertStatus(() -> qp.postSend(read(1).sge(1, 0, 1)), VerbsStatus.INVALID_SGL_FORMAT);
        assertStatus(() -> qp.postSend(new SendWorkRequest().opcode(Opcode.SEND).sge(1, 0, -1)),
                VerbsStatus.INVALID_SGL_FORMAT);
        assertStatus(() -> qp.postSend(send(1).inline(true).sge(local().stag(), 0, 1)), VerbsStatus.INVALID_SGL_LENGTH);
        assertStatus(() -> qp.postSend(new SendWorkRequest().bind(1, 2, 0, 1, null, AccessRights.REMOTE_READ)),
                VerbsStatus.INVALID_MODIFIER);
        assertThat(qp.state()).isEqualTo(QpState.RTS);
        assertThat(drain(cq)).isEmpty();
    }

    @Test
    void queueFullUntilCompletionIsPolled_V_WRP_7_V_WRP_8_V_QP_9() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(2, 1));
        FakeTransport t = toRts(qp);
        qp.postSend(send(1));
        qp.postSend(send(2));
        assertStatus(() -> qp.postSend(send(3)), VerbsStatus.TOO_MANY_WRS_POSTED);
        t.completeAll();
        assertStatus(() -> qp.postSend(send(3)), VerbsStatus.TOO_MANY_WRS_POSTED); // completed but not reaped
        WorkCompletion wc = new WorkCompletion();
        assertThat(cq.poll(wc)).isTrue();
        qp.postSend(send(3));
        qp.postReceive(new ReceiveWorkRequest().sge(local().stag(), 0, 1));
        assertStatus(() -> qp.postReceive(new ReceiveWorkRequest().sge(local().stag(), 0, 1)),
                VerbsStatus.TOO_MANY_WRS_POSTED);
    }

    @Test
    void unsignaledSuccessFreesSlotWithoutCompletion_V_WR_33_V_WRP_45_V_DEF_14_V_WR_37() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(1, 1).signalAll(false));
        FakeTransport t = toRts(qp);
        for (int i = 0; i < 5; i++) {
            qp.postSend(send(i).signaled(false));
            t.completeAll();
        }
        qp.postSend(send(9).signaled(true));
        t.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(9L);
    }

    @Test
    void unsignaledFailureCompletesAndLaterWrsAreFlushed_V_WR_35_V_QPS_37_V_QPS_52_V_QPS_63_V_ERR_59_V_ERR_60() {
        QueuePair qp = pd.createQueuePair(qpConfig().signalAll(false));
        FakeTransport t = toRts(qp);
        t.autoClose = true;
        qp.postSend(send(1).signaled(false));
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).signaled(false).sge(0x7700, 0, 4)); // bad STag
        qp.postSend(send(3).signaled(false));
        assertThat(t.terminates).containsExactly(new TerminateMessage(0, true, null)); // Fig. 23: 0x0000
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        List<WorkCompletion> wcs = drain(cq);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED,
                WorkCompletionStatus.INVALID_STAG, WorkCompletionStatus.FLUSHED);
        assertThat(events).isEmpty(); // reported in a CQE: no asynchronous error
        qp.modify(new io.jrnic.api.QueuePairModification().nextState(QpState.IDLE));
    }

    @Test
    void sendSourceChecksAreCompletionErrors_V_MR_75_V_WR_40_V_WR_42_V_ERR_10() {
        MemorySegment m = rnic.allocateMemory(64, 8);
        MemoryRegion writeOnly = pd.registerMemory(m, AccessRights.LOCAL_WRITE);
        MemoryRegion otherPd = rnic.allocatePd().registerMemory(m, AccessRights.LOCAL_READ);
        io.jrnic.api.MemoryWindow mw = pd.allocateWindow();
        Object[][] cases = {
            {writeOnly.stag(), m.address(), 8, WorkCompletionStatus.ACCESS_VIOLATION},
            {otherPd.stag(), m.address(), 8, WorkCompletionStatus.INVALID_PD_ID},
            {local().stag(), 4090L, 8, WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION},
            {local().stag() + 1, 0L, 8, WorkCompletionStatus.INVALID_STAG},
            {mw.stag(), 0L, 8, WorkCompletionStatus.INVALID_STAG},
            {0, 0L, 8, WorkCompletionStatus.INVALID_STAG},
        };
        for (Object[] c : cases) {
            QueuePair qp = qp();
            FakeTransport t = toRts(qp);
            qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge((int) c[0], (long) c[1], (int) c[2]));
            assertThat(t.transmitted).isEmpty();
            assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly((WorkCompletionStatus) c[3]);
            assertThat(qp.state()).isEqualTo(QpState.TERMINATE);
        }
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(0x7777_7700, 0, 0)); // zero length: no check
        qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.SEND)); // zero-length message (V-WR-43, V-WR-58)
        assertThat(t.transmittedIds).containsExactly(2L, 3L);
    }

    @Test
    void rdmaWriteAndReadStagZeroAndOrdRules_V_WR_50_V_WRP_28_V_ERR_9_V_ERR_53_V_MR_83() {
        QueuePair w = qp();
        toRts(w);
        w.postSend(write(1).remote(0, 0));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.INVALID_STAG);
        QueuePair r = qp();
        toRts(r);
        r.postSend(read(2).remote(0, 0));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.INVALID_STAG);
        QueuePair zeroOrd = pd.createQueuePair(qpConfig().readDepths(1, 0));
        toRts(zeroOrd);
        zeroOrd.postSend(read(3));
        assertThat(drain(cq)).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.ZERO_RDMA_READ_RESOURCES);
        // the read sink needs no local right at post time (checked when the response arrives)
        MemoryRegion readOnly = pd.registerMemory(rnic.allocateMemory(64, 8), AccessRights.LOCAL_READ);
        QueuePair ok = pd.createQueuePair(qpConfig().readDepths(1, 2));
        FakeTransport t = toRts(ok);
        ok.postSend(new SendWorkRequest().wrId(4).opcode(Opcode.RDMA_READ).sge(readOnly.stag(), 0, 0).remote(0, 0));
        ok.postSend(new SendWorkRequest().wrId(5).opcode(Opcode.RDMA_READ)
                .sge(readOnly.stag(), readOnly.query().baseTo(), 8).remote(0x4400, 0));
        assertThat(t.transmittedIds).containsExactly(4L, 5L); // zero-length read needs no valid STag (V-WRP-41)
    }

    @Test
    void ordLimitsReadsOnTheWireButNotPosting_V_IRD_7_V_IRD_8_V_IRD_9_V_WRP_27() {
        QueuePair qp = pd.createQueuePair(qpConfig().readDepths(1, 1));
        FakeTransport t = toRts(qp);
        qp.postSend(read(1));
        qp.postSend(read(2));
        qp.postSend(send(3));
        assertThat(t.transmittedIds).containsExactly(1L); // the SQ stalls in order
        t.completeNext(WorkCompletionStatus.SUCCESS);
        assertThat(t.transmittedIds).containsExactly(1L, 2L, 3L); // the send behind may pass the read
        assertThat(t.transmitted).hasSize(2);
        t.completeAll();
        assertThat(t.transmittedIds).containsExactly(1L, 2L, 3L);
        t.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
    }

    @Test
    void readFenceWaitsForPriorReads_V_WRP_38_V_WRP_24_V_WRP_40() {
        QueuePair qp = pd.createQueuePair(qpConfig().readDepths(1, 4));
        FakeTransport t = toRts(qp);
        qp.postSend(read(1));
        qp.postSend(send(2)); // unfenced: may pass the read
        qp.postSend(write(3).readFence(true));
        qp.postSend(send(4));
        assertThat(t.transmittedIds).containsExactly(1L, 2L);
        t.completeNext(WorkCompletionStatus.SUCCESS); // the read completes
        assertThat(t.transmittedIds).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void localFenceWaitsForEveryPriorWr_V_WRP_39_V_WRP_69_V_WRP_35() {
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        MemoryRegion target = pd.registerMemory(rnic.allocateMemory(64, 8), AccessRights.LOCAL, 4,
                AddressType.ZERO_BASED, 0, false);
        qp.postSend(send(1));
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(target.stag())
                .localFence(true));
        qp.postSend(send(3));
        assertThat(target.query().state()).isEqualTo(StagState.VALID); // fenced behind the send
        assertThat(t.transmittedIds).containsExactly(1L);
        t.completeAll();
        assertThat(target.query().state()).isEqualTo(StagState.INVALID);
        assertThat(t.transmittedIds).containsExactly(1L, 3L);
        t.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
    }

    @Test
    void completionsFollowPostingOrderAcrossLocalAndWireWrs_V_WRP_11_V_WRP_12_V_WRP_36_V_QPS_22() {
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        MemoryRegion target = pd.registerMemory(rnic.allocateMemory(64, 8), AccessRights.LOCAL);
        qp.postSend(send(1));
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(target.stag()));
        assertThat(target.query().state()).isEqualTo(StagState.INVALID); // took effect without waiting
        assertThat(drain(cq)).isEmpty(); // but completes after the earlier send
        t.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
    }

    /**
     * Polling mode's post path (issue 11): a PostSQ's hand-overs are marked as such, because the
     * posting thread calls progress() after the QP's lock, which then runs the transmit with no task
     * in between; hand-overs with no poster behind them (a Modify to RTS, a completion releasing a
     * fenced WR) are not, since nobody would make that call.
     */
    @Test
    void onlyAPostsHandOversCountOnItsProgressAndItAlwaysComes() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(16, 2).readDepths(1, 1));
        qp.postSend(send(1)); // Idle: queued, not processed
        FakeTransport t = toRts(qp);
        assertThat(t.handOvers).as("the Modify to RTS processed the WR posted in Idle").containsExactly(1);
        assertThat(t.postedHandOvers).isZero();

        qp.postSend(send(2));
        SendWorkRequest[] list = {send(3), localInvalidate(4), send(5)};
        qp.postSend(list, 0, list.length);
        assertThat(t.handOvers).containsExactly(1, 1, 1, 1);
        assertThat(t.postedHandOvers).isEqualTo(3);
        assertThat(t.progressOwed).as("each post made its progress() after the lock").isZero();

        qp.postSend(read(6));
        qp.postSend(read(7)); // ORD 1: waits for the first Read
        assertThat(t.postedHandOvers).isEqualTo(4);
        t.completeAll(); // the first Read completes on the transport's thread and releases the second
        assertThat(t.transmittedIds).contains(7L);
        assertThat(t.postedHandOvers).as("released by a completion, not a post").isEqualTo(4);
    }

    @Test
    void aPostMakesItsProgressBeforeItsEventHandlersRun() {
        FakeTransport[] transport = new FakeTransport[1];
        int handler = rnic.setCompletionEventHandler(0, (r, c) -> {
            transport[0].progressBeforeHandler = transport[0].progressOwed == 0;
            throw new IllegalStateException("the application's handler fails");
        });
        CompletionQueue armed = rnic.createCq(16, handler);
        QueuePair qp = pd.createQueuePair(qpConfig().cqs(armed, armed));
        FakeTransport t = toRts(qp);
        transport[0] = t;
        armed.requestNotification(NotifyType.NEXT_COMPLETION);
        SendWorkRequest[] list = {localInvalidate(1), send(2)};
        assertThatThrownBy(() -> qp.postSend(list, 0, list.length)).isInstanceOf(IllegalStateException.class);
        assertThat(t.postedHandOvers).isEqualTo(1);
        assertThat(t.progressOwed).as("the handler's exception did not skip the transmit").isZero();
        assertThat(t.progressBeforeHandler).as("the transmit ran before the handler").isTrue();
    }

    @Test
    void aPostListReachesTheTransportInOneHandOverCutBeforeEachMemoryWr_V_WRP_11_V_WRP_36() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(16, 2));
        FakeTransport t = toRts(qp);
        MemoryRegion target = pd.registerMemory(rnic.allocateMemory(64, 8), AccessRights.LOCAL);
        List<StagState> seen = new java.util.ArrayList<>();
        t.onHandOver = () -> seen.add(target.query().state());
        SendWorkRequest[] list = {send(1), send(2),
            new SendWorkRequest().wrId(3).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(target.stag()),
            send(4), send(5), send(6)};

        assertThat(qp.postSend(list, 0, list.length)).isEqualTo(list.length);

        assertThat(t.handOvers).containsExactly(2, 3);
        assertThat(t.transmittedIds).containsExactly(1L, 2L, 4L, 5L, 6L);
        // the Sends before the Invalidate were handed over (their SGEs resolved) before it took effect
        assertThat(seen).containsExactly(StagState.VALID, StagState.INVALID);
    }

    @Test
    void aListLongerThanTheSqsRoomIsRefusedAtItsFirstWrBeyondTheDepthAndPostsTheOnesBefore_V_WRP_7() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(3, 1));
        FakeTransport t = toRts(qp);
        qp.postSend(send(1));
        SendWorkRequest[] list = {send(2), send(3), send(4), send(5)};

        VerbsException e = catchThrowableOfType(VerbsException.class, () -> qp.postSend(list, 0, list.length));

        assertThat(e.status()).isEqualTo(VerbsStatus.TOO_MANY_WRS_POSTED);
        assertThat(e.postedCount()).isEqualTo(2);
        assertThat(e.getMessage()).contains("WR 2 of the list");
        assertThat(t.transmittedIds).containsExactly(1L, 2L, 3L);
        // the list's two WRs count as outstanding like single posts: the SQ is full until they are reaped
        t.completeAll();
        assertStatus(() -> qp.postSend(send(6)), VerbsStatus.TOO_MANY_WRS_POSTED);
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
        assertThat(qp.postSend(new SendWorkRequest[] {send(6), send(7), send(8)}, 0, 3)).isEqualTo(3);
    }

    @Test
    void theUnsignaledSuccessesOfAListFreeTheirSlotsTogetherWithoutCompletions_V_WRP_45() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(4, 1).signalAll(false));
        FakeTransport t = toRts(qp);
        for (int round = 0; round < 3; round++) {
            long base = 10L * round;
            SendWorkRequest[] list = {send(base + 1).signaled(false), send(base + 2).signaled(false),
                send(base + 3).signaled(false), send(base + 4).signaled(false)};

            assertThat(qp.postSend(list, 0, list.length)).isEqualTo(4);
            assertStatus(() -> qp.postSend(send(99)), VerbsStatus.TOO_MANY_WRS_POSTED);

            t.completeAllTogether(); // one pass over the SQ completes the four
        }
        assertThat(drain(cq)).isEmpty();
        qp.postSend(send(40).signaled(true));
        t.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(40L);
    }

    @Test
    void aListWhoseWrFailsItsLocalChecksHandsOverTheWrsBeforeItAheadOfTheTerminate_V_WRP_11() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(16, 2));
        FakeTransport t = toRts(qp);
        t.autoClose = true;
        SendWorkRequest[] list = {send(1), send(2),
            new SendWorkRequest().wrId(3).opcode(Opcode.SEND).sge(0x7700, 0, 4), send(4)}; // 3: bad STag

        qp.postSend(list, 0, list.length);

        assertThat(t.log).containsExactly("transmit 1", "transmit 2", "terminate");
        assertThat(drain(cq)).extracting(WorkCompletion::wrId, WorkCompletion::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1L, WorkCompletionStatus.FLUSHED),
                org.assertj.core.groups.Tuple.tuple(2L, WorkCompletionStatus.FLUSHED),
                org.assertj.core.groups.Tuple.tuple(3L, WorkCompletionStatus.INVALID_STAG),
                org.assertj.core.groups.Tuple.tuple(4L, WorkCompletionStatus.FLUSHED));
    }

    @Test
    void completionsReportedTogetherCompleteEachWrOnceInOrder_V_WRP_12() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(16, 2).signalAll(false));
        FakeTransport t = toRts(qp);
        t.autoClose = true;
        SendWorkRequest[] list = {send(1), send(2).signaled(false), send(3), send(4)};
        qp.postSend(list, 0, list.length);

        t.completeAllTogether();

        assertThat(drain(cq)).extracting(WorkCompletion::wrId).containsExactly(1L, 3L, 4L);
        qp.postSend(send(5));
        qp.postSend(send(6));
        qp.modify(new io.jrnic.api.QueuePairModification().nextState(QpState.ERROR)); // flushes 5 and 6
        t.completeAllTogether(); // too late: already complete
        assertThat(drain(cq)).extracting(WorkCompletion::wrId, WorkCompletion::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(5L, WorkCompletionStatus.FLUSHED),
                org.assertj.core.groups.Tuple.tuple(6L, WorkCompletionStatus.FLUSHED));
        assertThat(qp.postSend(new SendWorkRequest[0], 0, 0)).isZero();
    }

    @Test
    void listPostStopsAtFirstError_V_WR_4_V_WRP_2_V_WRP_3_V_WRP_4() {
        QueuePair qp = pd.createQueuePair(qpConfig().depths(16, 2));
        FakeTransport t = toRts(qp);
        SendWorkRequest[] list = {send(1), send(2), new SendWorkRequest().wrId(3), send(4)};
        assertThatThrownBy(() -> qp.postSend(list, 0, 4)).isInstanceOf(VerbsException.class)
                .satisfies(e -> {
                    assertThat(((VerbsException) e).postedCount()).isEqualTo(2);
                    assertThat(((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_OPERATION_TYPE);
                });
        assertThat(t.transmittedIds).containsExactly(1L, 2L);
        assertThat(qp.postSend(list, 0, 2)).isEqualTo(2);
        ReceiveWorkRequest r = new ReceiveWorkRequest().sge(local().stag(), 0, 8);
        assertThatThrownBy(() -> qp.postReceive(new ReceiveWorkRequest[] {r, r, r}, 0, 3))
                .isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).postedCount()).isEqualTo(2));
    }

    @Test
    void inlineDataIsCopiedAtPostTime_V_VERB_PostSQ_11() {
        QueuePair qp = pd.createQueuePair(qpConfig().sges(4, 4, 4, 64));
        FakeTransport t = toRts(qp);
        local();
        memory.setString(0, "hello");
        memory.set(ValueLayout.JAVA_BYTE, 100, (byte) '!');
        qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).inline(true).sge(local.stag(), 0, 5)
                .sge(local.stag(), 100, 1));
        memory.setString(0, "XXXXX"); // the source may be reused at once
        SendWqe w = t.transmitted.getFirst();
        assertThat(w.inline()).isTrue();
        MemorySegment out = MemorySegment.ofArray(new byte[6]);
        w.copyInline(out, 0);
        assertThat(new String(out.toArray(ValueLayout.JAVA_BYTE))).isEqualTo("hello!");
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).inline(true).sge(0x5500, 0, 4));
        t.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS,
                WorkCompletionStatus.INVALID_STAG); // bad inline source reported when processed, in order
    }

    @Test
    void wireWqeExposesWhatTheTransportNeeds_V_VERB_PostSQ_4_V_VERB_PostSQ_5_V_VERB_PostSQ_6_V_WR_55() {
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postSend(new SendWorkRequest().wrId(0xFFFF_FFFF_FFFFL).opcode(Opcode.SEND_SE_INVALIDATE)
                .sge(local().stag(), 8, 4).invalidateStag(0xABCD_EF01).readFence(true));
        qp.postSend(write(2).remote(0x4242, 0x1000));
        SendWqe s = t.transmitted.get(0);
        assertThat(s.wrId()).isEqualTo(0xFFFF_FFFF_FFFFL);
        assertThat(s.opcode()).isEqualTo(Opcode.SEND_SE_INVALIDATE);
        assertThat(s.invalidateStag()).isEqualTo(0xABCD_EF01);
        assertThat(s.readFence()).isTrue();
        assertThat(s.sgeCount()).isEqualTo(1);
        assertThat(s.sgeTo(0)).isEqualTo(8);
        assertThat(s.totalLength()).isEqualTo(4);
        SendWqe w = t.transmitted.get(1);
        assertThat(w.remoteStag()).isEqualTo(0x4242);
        assertThat(w.remoteTo()).isEqualTo(0x1000);
        t.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::opcode).containsExactly(Opcode.SEND_SE_INVALIDATE,
                Opcode.RDMA_WRITE);
    }

    @Test
    void readWithInvalidateInvalidatesTheSinkAfterData_V_WR_25_V_WRP_32_V_MR_115() {
        MemoryRegion sink = pd.registerMemory(rnic.allocateMemory(64, 8), AccessRights.LOCAL_WRITE
                | AccessRights.REMOTE_WRITE, 7, AddressType.ZERO_BASED, 0, true);
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ_INVALIDATE).sge(sink.stag(), 0, 64)
                .remote(0x4400, 0));
        assertThat(sink.query().state()).isEqualTo(StagState.VALID);
        t.completeAll();
        assertThat(sink.query().state()).isEqualTo(StagState.INVALID);
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void receivePathChecksSglAndReportsLengthAndInvalidatedStag_V_MR_76_V_WR_12_V_VERB_PollCQ_5_V_VERB_PollCQ_7() {
        QueuePair qp = qp();
        FakeTransport t = toRts(qp);
        qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(local().stag(), 0, 64));
        ReceiveWqe w = t.upcalls.takeReceive();
        assertThat(w.wrId()).isEqualTo(1);
        assertThat(w.totalLength()).isEqualTo(64);
        MemoryRegion advertised = pd.registerMemory(rnic.allocateMemory(64, 8), AccessRights.LOCAL_WRITE
                | AccessRights.REMOTE_WRITE, 0x31, AddressType.ZERO_BASED, 0, true);
        t.upcalls.receiveCompleted(w, WorkCompletionStatus.SUCCESS, 33, false, advertised.stag());
        WorkCompletion wc = drain(cq).getFirst();
        assertThat(wc.opcode()).isEqualTo(Opcode.RECEIVE);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wc.byteLength()).isEqualTo(33);
        assertThat(wc.stagInvalidated()).isTrue();
        assertThat(wc.invalidatedStag()).isEqualTo(advertised.stag());
        assertThat(advertised.query().state()).isEqualTo(StagState.INVALID); // V-WRP-31, V-MR-115
        assertThat(t.upcalls.takeReceive()).isNull(); // RQ empty
        MemoryRegion readOnly = pd.registerMemory(rnic.allocateMemory(64, 8), AccessRights.LOCAL_READ);
        qp.postReceive(new ReceiveWorkRequest().wrId(2).sge(readOnly.stag(), readOnly.query().baseTo(), 64));
        qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(local().stag(), 0, 64));
        assertThat(t.upcalls.takeReceive()).isNull(); // no Local Write: completion error
        assertThat(qp.state()).isEqualTo(QpState.TERMINATE);
        t.upcalls.closeCompleted();
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.ACCESS_VIOLATION,
                WorkCompletionStatus.FLUSHED);
    }

    @Test
    void receiveErrorsImmediate_V_VERB_PostRQ_3() {
        QueuePair qp = pd.createQueuePair(qpConfig().sges(4, 4, 2, 0));
        assertStatus(() -> qp.postReceive(new ReceiveWorkRequest().sge(1, 0, 1).sge(1, 0, 1).sge(1, 0, 1)),
                VerbsStatus.INVALID_SGL_LENGTH);
        assertStatus(() -> qp.postReceive(new ReceiveWorkRequest()), VerbsStatus.INVALID_SGL_FORMAT);
        assertStatus(() -> qp.postReceive(new ReceiveWorkRequest().sge(1, 0, -5)), VerbsStatus.INVALID_SGL_FORMAT);
    }

    @Test
    void remoteInvalidateChecks_V_MR_85_V_MR_114_V_MR_121_V_MR_122_V_MR_124_V_MW_45_V_ERR_8_V_ERR_52_R_ERR_024_R_SEC_017_AMB_06() {
        MemorySegment m = rnic.allocateMemory(4096, 4096);
        MemoryRegion localOnly = pd.registerMemory(m, AccessRights.LOCAL, 1, AddressType.ZERO_BASED, 0, true);
        MemoryRegion otherPd = rnic.allocatePd().registerMemory(m, AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE,
                2, AddressType.ZERO_BASED, 0, true);
        MemoryRegion base = pd.registerMemory(m, AccessRights.LOCAL_READ | AccessRights.REMOTE_READ, 3,
                AddressType.ZERO_BASED, 0, true);
        MemoryRegion shared = pd.registerSharedMemory(base.stag(), AccessRights.LOCAL_READ | AccessRights.REMOTE_READ,
                4, AddressType.ZERO_BASED, 0);
        // RFC 5040 §5.3/§7.2 with AMB-06: refused for protection reasons -> 0/1/0x09 "STag cannot be
        // Invalidated"; an STag that names nothing -> 0/1/0x00 invalid STag
        Object[][] cases = {
            {localOnly.stag(), WorkCompletionStatus.INVALIDATE_STAG_PD_OR_ACCESS_ERROR, 0x0109},
            {otherPd.stag(), WorkCompletionStatus.INVALIDATE_STAG_PD_OR_ACCESS_ERROR, 0x0109},
            {shared.stag(), WorkCompletionStatus.INVALID_STAG, 0x0109},
            {0x00FF_FF00, WorkCompletionStatus.INVALID_STAG, 0x0100},
        };
        for (Object[] c : cases) {
            QueuePair qp = qp();
            FakeTransport t = toRts(qp);
            qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(local().stag(), 0, 64));
            t.upcalls.receiveCompleted(t.upcalls.takeReceive(), WorkCompletionStatus.SUCCESS, 1, false, (int) c[0]);
            assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly((WorkCompletionStatus) c[1]);
            assertThat(qp.state()).isEqualTo(QpState.TERMINATE); // the stream is torn down (V-MR-124)
            assertThat(t.terminates.getFirst().terminateControl()).isEqualTo((int) c[2]);
        }
        assertThat(localOnly.query().state()).isEqualTo(StagState.VALID);
        // a window can be remotely invalidated only through the QP it is bound to
        MemoryRegion bindable = pd.registerMemory(m, AccessRights.LOCAL_READ | AccessRights.BIND_WINDOW);
        io.jrnic.api.MemoryWindow mw = pd.allocateWindow();
        QueuePair owner = qp();
        FakeTransport to = toRts(owner);
        owner.postSend(new SendWorkRequest().wrId(9).bind(mw.stagIndex() << 8 | 7, bindable.stag(), m.address(), 8,
                AddressType.VA_BASED, AccessRights.REMOTE_READ));
        QueuePair stranger = qp();
        FakeTransport ts = toRts(stranger);
        stranger.postReceive(new ReceiveWorkRequest().wrId(2).sge(local().stag(), 0, 64));
        ts.upcalls.receiveCompleted(ts.upcalls.takeReceive(), WorkCompletionStatus.SUCCESS, 1, false, mw.stag());
        owner.postReceive(new ReceiveWorkRequest().wrId(3).sge(local().stag(), 0, 64));
        to.upcalls.receiveCompleted(to.upcalls.takeReceive(), WorkCompletionStatus.SUCCESS, 1, true, mw.stag());
        assertThat(drain(cq)).extracting(WorkCompletion::wrId, WorkCompletion::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(9L, WorkCompletionStatus.SUCCESS),
                org.assertj.core.groups.Tuple.tuple(2L, WorkCompletionStatus.INVALIDATE_STAG_PD_OR_ACCESS_ERROR),
                org.assertj.core.groups.Tuple.tuple(3L, WorkCompletionStatus.SUCCESS));
        assertThat(ts.terminates.getFirst().terminateControl()).isEqualTo(0x0109); // protection reason
        assertThat(mw.query().state()).isEqualTo(StagState.INVALID);
    }
}
