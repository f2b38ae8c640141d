package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.MemoryWindowAttributes;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.StagState;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.qp.SoftQueuePair;
import io.jrnic.rdmap.RdmapError;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.jrnic.api.AccessRights.BIND_WINDOW;
import static io.jrnic.api.AccessRights.LOCAL_READ;
import static io.jrnic.api.AccessRights.LOCAL_WRITE;
import static io.jrnic.api.AccessRights.REMOTE_READ;
import static io.jrnic.api.AccessRights.REMOTE_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Memory windows (Verbs §7.10), Fast-Register (§7.3.2.5) and Invalidate Local STag (§7.8) through the SQ. */
class MemoryWindowTest extends VerbsFixture {
    private MemorySegment mem;
    private MemoryRegion mr;
    private SoftQueuePair qp;
    private FakeTransport transport;

    private static void assertStatus(Runnable r, VerbsStatus status) {
        assertThatThrownBy(r::run).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(status);
    }

    @BeforeEach
    void setUp() {
        mem = rnic.allocateMemory(8192, 4096);
        mr = pd.registerMemory(mem, LOCAL_READ | LOCAL_WRITE | BIND_WINDOW, 1, AddressType.VA_BASED, mem.address(),
                false);
        qp = (SoftQueuePair) pd.createQueuePair(qpConfig().privileged(true));
        transport = toRts(qp);
    }

    private SendWorkRequest bind(MemoryWindow mw, int key, MemoryRegion region, long va, long len, AddressType type,
                                 int rights) {
        return new SendWorkRequest().wrId(77).bind(mw.stagIndex() << 8 | key, region.stag(), va, len, type, rights);
    }

    /** Posts on a fresh QP and returns the completion status (the QP is then terminated on error). */
    private WorkCompletionStatus postOnFreshQp(SendWorkRequest wr, boolean bindEnable) {
        QueuePair q = pd.createQueuePair(qpConfig().access(true, true, bindEnable));
        toRts(q);
        drain(cq);
        q.postSend(wr);
        List<WorkCompletion> wcs = drain(cq);
        assertThat(wcs).hasSize(1);
        if (wcs.getFirst().status() != WorkCompletionStatus.SUCCESS) {
            assertThat(q.state()).isEqualTo(QpState.TERMINATE); // V-MW-26: on to Error
        }
        return wcs.getFirst().status();
    }

    @Test
    void allocateGivesInvalidWindowInThePd_V_MW_3_V_MW_33_V_VERB_AllocMW_1_V_VERB_QueryMW_1() {
        MemoryWindow mw = pd.allocateWindow();
        MemoryWindowAttributes a = mw.query();
        assertThat(a.state()).isEqualTo(StagState.INVALID);
        assertThat(a.pdId()).isEqualTo(pd.id());
        assertThat(a.boundQpId()).isEqualTo(-1);
        assertThat(mw.stagIndex()).isPositive();
    }

    @Test
    void bindMakesWindowValidOnTheQp_V_MW_6_V_MW_11_V_MW_16_V_MW_24_V_WR_27_V_WR_28_V_WRP_34() {
        MemoryWindow mw = pd.allocateWindow();
        qp.postSend(bind(mw, 0x5A, mr, mem.address() + 100, 200, AddressType.VA_BASED, REMOTE_WRITE));
        assertThat(transport.transmitted).isEmpty(); // nothing on the wire
        assertThat(drain(cq)).extracting(WorkCompletion::opcode, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Opcode.BIND_MW, WorkCompletionStatus.SUCCESS));
        MemoryWindowAttributes a = mw.query();
        assertThat(a.state()).isEqualTo(StagState.VALID);
        assertThat(a.stag()).isEqualTo(mw.stagIndex() << 8 | 0x5A);
        assertThat(a.boundQpId()).isEqualTo(qp.id());
        assertThat(a.accessRights()).isEqualTo(REMOTE_WRITE);
        assertThat(a.baseTo()).isEqualTo(mem.address() + 100);
        assertThat(a.length()).isEqualTo(200);
        assertThat(a.regionStag()).isEqualTo(mr.stag());
        assertThat(mr.query().boundWindows()).isEqualTo(1);
    }

    @Test
    void everyBindCheckIsACompletionError_V_MW_9_V_MW_10_V_MW_12_V_MW_13_V_MW_23_V_MW_39_V_ERR_12_V_ERR_57() {
        MemoryWindow mw = pd.allocateWindow();
        long va = mem.address();
        MemoryRegion noBind = pd.registerMemory(mem, LOCAL_READ | LOCAL_WRITE);
        MemoryRegion zeroBased = pd.registerMemory(mem, LOCAL_READ | BIND_WINDOW, 0, AddressType.ZERO_BASED, 0, false);
        MemoryRegion otherPdMr = rnic.allocatePd().registerMemory(mem, LOCAL_READ | BIND_WINDOW);
        MemoryWindow otherPdMw = rnic.allocatePd().allocateWindow();
        MemoryRegion invalidMr = pd.allocateRegionStag(2, false);
        assertThat(postOnFreshQp(bind(mw, 0, mr, va, 8, AddressType.VA_BASED, REMOTE_READ), false))
                .isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION); // QP without bind enable
        assertThat(postOnFreshQp(new SendWorkRequest().bind(mr.stag(), mr.stag(), va, 8, AddressType.VA_BASED,
                REMOTE_READ), true)).isEqualTo(WorkCompletionStatus.INVALID_WINDOW); // not a window
        assertThat(postOnFreshQp(bind(otherPdMw, 0, mr, va, 8, AddressType.VA_BASED, REMOTE_READ), true))
                .isEqualTo(WorkCompletionStatus.INVALID_PD_ID);
        assertThat(postOnFreshQp(new SendWorkRequest().bind(mw.stagIndex() << 8, 0, va, 8, AddressType.VA_BASED,
                REMOTE_READ), true)).isEqualTo(WorkCompletionStatus.INVALID_REGION); // STag 0
        assertThat(postOnFreshQp(bind(mw, 0, invalidMr, va, 8, AddressType.VA_BASED, REMOTE_READ), true))
                .isEqualTo(WorkCompletionStatus.INVALID_REGION); // MR not Valid
        assertThat(postOnFreshQp(new SendWorkRequest().bind(mw.stagIndex() << 8, mr.stag() ^ 1, va, 8,
                AddressType.VA_BASED, REMOTE_READ), true)).isEqualTo(WorkCompletionStatus.INVALID_REGION); // key
        assertThat(postOnFreshQp(bind(mw, 0, otherPdMr, va, 8, AddressType.VA_BASED, REMOTE_READ), true))
                .isEqualTo(WorkCompletionStatus.INVALID_PD_ID);
        assertThat(postOnFreshQp(bind(mw, 0, noBind, va, 8, AddressType.VA_BASED, REMOTE_READ), true))
                .isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION);
        assertThat(postOnFreshQp(bind(mw, 0, zeroBased, 0, 8, AddressType.VA_BASED, REMOTE_READ), true))
                .isEqualTo(WorkCompletionStatus.INVALID_REGION); // Fig. 19
        assertThat(postOnFreshQp(bind(mw, 0, mr, va, 8, AddressType.VA_BASED, 0), true))
                .isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION); // V-MW-19: no right
        assertThat(postOnFreshQp(bind(mw, 0, mr, va + 8000, 193, AddressType.VA_BASED, REMOTE_READ), true))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(postOnFreshQp(bind(mw, 0, mr, va - 1, 2, AddressType.VA_BASED, REMOTE_READ), true))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION); // V-MW-15
        assertThat(mw.query().state()).isEqualTo(StagState.INVALID); // nothing took effect
        qp.postSend(bind(mw, 0, mr, va, 8, AddressType.VA_BASED, REMOTE_READ));
        assertThat(postOnFreshQp(bind(mw, 0, mr, va, 8, AddressType.VA_BASED, REMOTE_READ), true))
                .isEqualTo(WorkCompletionStatus.STAG_NOT_INVALID); // bound (to qp) already
        assertThat(mw.query().boundQpId()).isEqualTo(qp.id());
        qp.postSend(bind(mw, 1, mr, va, 8, AddressType.VA_BASED, REMOTE_READ));
        assertThat(drain(cq)).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.STAG_NOT_INVALID); // V-WRP-37
    }

    @Test
    void windowRightsFollowFigure20AtBind_V_MW_20_V_MW_21_V_MW_22_V_NOTE_4() {
        int[] regionRights = {LOCAL_READ, LOCAL_WRITE, LOCAL_READ | LOCAL_WRITE};
        int[] windowRights = {REMOTE_READ, REMOTE_WRITE, REMOTE_READ | REMOTE_WRITE};
        for (int r : regionRights) {
            MemoryRegion region = pd.registerMemory(mem, r | BIND_WINDOW);
            for (int w : windowRights) {
                MemoryWindow mw = pd.allocateWindow();
                WorkCompletionStatus st = postOnFreshQp(bind(mw, 0, region, mem.address(), 16, AddressType.VA_BASED, w),
                        true);
                assertThat(st == WorkCompletionStatus.SUCCESS).as(AccessRights.describe(r) + " / "
                        + AccessRights.describe(w)).isEqualTo(AccessRights.isValidWindowCombination(w, r));
                if (st != WorkCompletionStatus.SUCCESS) {
                    assertThat(st).isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION);
                }
            }
        }
    }

    @Test
    void windowsBindToSharedRegionsOverlapAndAllToOneQp_V_MW_7_V_MW_8_V_MW_27_V_NOTE_5_V_MR_56() {
        MemoryRegion shared = pd.registerSharedMemory(mr.stag(), LOCAL_READ | BIND_WINDOW, 2, AddressType.VA_BASED,
                mem.address());
        MemoryWindow a = pd.allocateWindow();
        MemoryWindow b = pd.allocateWindow();
        qp.postSend(bind(a, 0, shared, mem.address(), 100, AddressType.VA_BASED, REMOTE_READ));
        qp.postSend(bind(b, 0, mr, mem.address() + 50, 100, AddressType.VA_BASED, REMOTE_READ | REMOTE_WRITE));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        pd.registerSharedMemory(mr.stag(), LOCAL_READ, 3, AddressType.ZERO_BASED, 0);
        assertThat(b.query().state()).isEqualTo(StagState.VALID); // Register Shared leaves bound windows alone
        assertThat(mr.query().boundWindows()).isEqualTo(1);
    }

    @Test
    void regionWithBoundWindowCannotBeDeallocatedReregisteredOrInvalidated_V_MR_48_V_MR_131_V_MW_46_V_ERR_13() {
        MemoryWindow mw = pd.allocateWindow();
        qp.postSend(bind(mw, 0, mr, mem.address(), 16, AddressType.VA_BASED, REMOTE_READ));
        assertStatus(mr::close, VerbsStatus.MWS_STILL_BOUND_TO_REGION);
        assertStatus(() -> mr.reregister(pd, mem, LOCAL_READ, 0, AddressType.ZERO_BASED, 0, false),
                VerbsStatus.MWS_STILL_BOUND_TO_REGION);
        assertThat(mr.query().state()).isEqualTo(StagState.VALID); // unchanged
        qp.postSend(new SendWorkRequest().wrId(5).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(mr.stag()));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS,
                WorkCompletionStatus.ACCESS_VIOLATION);
    }

    @Test
    void invalidateWindowChecksQpAndMovesItBackToThePd_V_MW_29_V_MW_30_V_MW_31_V_MW_32_V_MW_36_V_MW_45() {
        MemoryWindow mw = pd.allocateWindow();
        qp.postSend(bind(mw, 9, mr, mem.address(), 16, AddressType.VA_BASED, REMOTE_READ));
        int stag = mw.stag();
        QueuePair other = pd.createQueuePair(qpConfig());
        toRts(other);
        other.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(stag));
        assertThat(mw.query().state()).isEqualTo(StagState.VALID);
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(stag ^ 1));
        assertThat(mw.query().state()).isEqualTo(StagState.VALID); // key must match while Valid
        QueuePair q2 = pd.createQueuePair(qpConfig());
        toRts(q2);
        drain(cq);
        SoftQueuePair owner = (SoftQueuePair) pd.createQueuePair(qpConfig());
        toRts(owner);
        MemoryWindow w2 = pd.allocateWindow();
        owner.postSend(bind(w2, 4, mr, mem.address(), 16, AddressType.VA_BASED, REMOTE_READ));
        owner.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(w2.stag()));
        assertThat(w2.query().state()).isEqualTo(StagState.INVALID);
        assertThat(w2.query().pdId()).isEqualTo(pd.id());
        assertThat(rnic.stags.checkRequestTarget(owner.pd(), owner.id(), w2.stag(), mem.address(), 1, REMOTE_READ, 0, true))
                .isEqualTo(RdmapError.INVALID_STAG); // V-MW-34
        // invalidating an Invalid window needs only the PD to match
        owner.postSend(new SendWorkRequest().wrId(4).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(w2.stag()));
        QueuePair foreign = rnic.allocatePd().createQueuePair(qpConfig());
        toRts(foreign);
        foreign.postSend(new SendWorkRequest().wrId(5).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(w2.stag()));
        assertThat(drain(cq)).extracting(WorkCompletion::wrId, WorkCompletion::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(77L, WorkCompletionStatus.SUCCESS),
                org.assertj.core.groups.Tuple.tuple(3L, WorkCompletionStatus.SUCCESS),
                org.assertj.core.groups.Tuple.tuple(4L, WorkCompletionStatus.SUCCESS),
                org.assertj.core.groups.Tuple.tuple(5L, WorkCompletionStatus.INVALID_PD_ID));
        // rebind after invalidate (V-MW-33)
        owner.postSend(bind(w2, 5, mr, mem.address(), 16, AddressType.VA_BASED, REMOTE_READ));
        assertThat(w2.query().stag() & 0xFF).isEqualTo(5);
        assertThat(rnic.stags.checkRequestTarget(owner.pd(), owner.id(), w2.stag() & ~0xFF | 4, mem.address(), 1, REMOTE_READ, 0, true))
                .isEqualTo(RdmapError.INVALID_STAG); // V-MW-25: old key fails
    }

    @Test
    void deallocateBoundWindowUnbindsAndDestroyQpWaitsForIt_V_MW_35_V_MW_38_V_QP_35_V_QPS_66_V_VERB_DestroyQP_1() {
        MemoryWindow mw = pd.allocateWindow();
        qp.postSend(bind(mw, 0, mr, mem.address(), 16, AddressType.VA_BASED, REMOTE_READ));
        int stag = mw.stag();
        assertStatus(qp::close, VerbsStatus.MWS_STILL_BOUND_TO_QP);
        assertThat(qp.state()).isEqualTo(QpState.RTS);
        mw.close();
        assertThat(rnic.stags.checkRequestTarget(qp.pd(), qp.id(), stag, mem.address(), 1, REMOTE_READ, 0, true))
                .isEqualTo(RdmapError.INVALID_STAG);
        assertThat(mr.query().boundWindows()).isZero();
        assertStatus(mw::close, VerbsStatus.INVALID_STAG_INDEX);
        assertStatus(mw::query, VerbsStatus.INVALID_STAG_INDEX);
        qp.close();
        mr.close();
    }

    @Test
    void fastRegisterFillsAnAllocatedStag_V_MR_42_V_MR_61_V_MR_62_V_MR_68_V_MR_69_V_WR_29_V_WRP_33() {
        MemoryRegion s = pd.allocateRegionStag(2, true);
        MemorySegment m = rnic.allocateMemory(5000, 4096);
        qp.postSend(new SendWorkRequest().wrId(1).fastRegister(s.stagIndex() << 8 | 0x33, m,
                LOCAL_READ | LOCAL_WRITE | REMOTE_WRITE, AddressType.ZERO_BASED, 0));
        // a later WR on the same SQ may use it at once
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(s.stagIndex() << 8 | 0x33, 4096, 100));
        assertThat(transport.transmittedIds).containsExactly(2L);
        assertThat(s.query().state()).isEqualTo(StagState.VALID);
        assertThat(s.key()).isEqualTo(0x33);
        assertThat(s.query().length()).isEqualTo(5000);
        // invalidate then fast-register again: guaranteed for PBL <= the allocated size (V-MR-119)
        qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(s.stag()));
        assertThat(s.query().state()).isEqualTo(StagState.INVALID);
        assertThat(s.query().pblEntries()).isEqualTo(2); // V-MR-116, V-MR-118
        assertThat(s.query().remoteAccess()).isTrue();
        qp.postSend(new SendWorkRequest().wrId(4).fastRegister(s.stagIndex() << 8 | 0x34, m.asSlice(0, 4096),
                LOCAL_READ, AddressType.VA_BASED, m.address()));
        assertThat(s.query().baseTo()).isEqualTo(m.address());
        transport.completeAll();
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void fastRegisterChecks_V_MR_63_V_MR_64_V_MR_65_V_MR_66_V_MR_67_V_PD_9_V_PD_10_V_ERR_11_V_ERR_54_V_ERR_56() {
        MemorySegment m = rnic.allocateMemory(3 * 4096, 4096);
        MemoryRegion s = pd.allocateRegionStag(2, false);
        MemoryRegion otherPd = rnic.allocatePd().allocateRegionStag(2, false);
        MemoryWindow mw = pd.allocateWindow();
        int key = 1;
        Object[][] cases = {
            {s, m.asSlice(0, 100), LOCAL_READ | REMOTE_READ, AddressType.ZERO_BASED, 0L,
                WorkCompletionStatus.INVALID_ACCESS_RIGHTS}, // remote right without the Remote Access Flag
            {s, m.asSlice(0, 100), REMOTE_WRITE, AddressType.ZERO_BASED, 0L, WorkCompletionStatus.INVALID_ACCESS_RIGHTS},
            {s, m, LOCAL_READ, AddressType.ZERO_BASED, 0L, WorkCompletionStatus.PBL_TOO_LONG},
            {s, m.asSlice(0, 100), LOCAL_READ, AddressType.VA_BASED, m.address() + 1,
                WorkCompletionStatus.INVALID_VIRTUAL_ADDRESS},
            {otherPd, m.asSlice(0, 100), LOCAL_READ, AddressType.ZERO_BASED, 0L, WorkCompletionStatus.INVALID_PD_ID},
            {mr, m.asSlice(0, 100), LOCAL_READ, AddressType.ZERO_BASED, 0L, WorkCompletionStatus.STAG_NOT_INVALID},
            {null, m.asSlice(0, 100), LOCAL_READ, AddressType.ZERO_BASED, 0L, WorkCompletionStatus.INVALID_STAG},
        };
        for (Object[] c : cases) {
            int stag = c[0] == null ? 0 : ((MemoryRegion) c[0]).stagIndex() << 8 | key;
            QueuePair q = pd.createQueuePair(qpConfig().privileged(true));
            toRts(q);
            q.postSend(new SendWorkRequest().wrId(1).fastRegister(stag, (MemorySegment) c[1], (int) c[2],
                    (AddressType) c[3], (long) c[4]));
            assertThat(drain(cq)).extracting(WorkCompletion::status).as(String.valueOf(c[5]))
                    .containsExactly((WorkCompletionStatus) c[5]);
        }
        QueuePair q = pd.createQueuePair(qpConfig().privileged(true));
        toRts(q);
        q.postSend(new SendWorkRequest().wrId(1).fastRegister(mw.stag(), m, LOCAL_READ, AddressType.ZERO_BASED, 0));
        QueuePair plain = pd.createQueuePair(qpConfig());
        toRts(plain);
        plain.postSend(new SendWorkRequest().wrId(2).fastRegister(s.stag(), m.asSlice(0, 10), LOCAL_READ,
                AddressType.ZERO_BASED, 0));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.INVALID_STAG,
                WorkCompletionStatus.QP_NOT_PRIVILEGED);
        assertThat(s.query().state()).isEqualTo(StagState.INVALID); // nothing took effect
        MemoryRegion base = pd.registerMemory(m, LOCAL_READ);
        pd.registerSharedMemory(base.stag(), LOCAL_READ, 0, AddressType.ZERO_BASED, 0);
        QueuePair q3 = pd.createQueuePair(qpConfig().privileged(true));
        toRts(q3);
        q3.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(base.stag()));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.INVALID_STAG);
    }

    @Test
    void invalidateLocalRegionRules_V_MR_112_V_MR_117_V_MR_120_V_MR_121_V_MR_123_V_MR_26_V_WR_30_V_WR_31_V_WRP_35() {
        MemoryRegion target = pd.registerMemory(mem, LOCAL_READ, 6, AddressType.VA_BASED, mem.address(), false);
        qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(target.stag()));
        qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(target.stag(), mem.address(), 8));
        assertThat(transport.transmitted).isEmpty(); // the send saw the invalid STag
        List<WorkCompletion> wcs = drain(cq);
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS,
                WorkCompletionStatus.INVALID_STAG);
        QueuePair q = pd.createQueuePair(qpConfig());
        toRts(q);
        q.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(target.stag()));
        q.postSend(new SendWorkRequest().wrId(4).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(0));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS,
                WorkCompletionStatus.INVALID_STAG); // already Invalid is fine; STag 0 never
        QueuePair foreign = rnic.allocatePd().createQueuePair(qpConfig());
        toRts(foreign);
        foreign.postSend(new SendWorkRequest().wrId(5).opcode(Opcode.INVALIDATE_LOCAL_STAG)
                .invalidateStag(mr.stag()));
        QueuePair q2 = pd.createQueuePair(qpConfig());
        toRts(q2);
        int freed = pd.allocateRegionStag(1, false).stag();
        ((MemoryRegion) rnic.stags.lookup(freed)).close();
        q2.postSend(new SendWorkRequest().wrId(6).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(freed));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.INVALID_PD_ID,
                WorkCompletionStatus.INVALID_STAG);
    }
}
