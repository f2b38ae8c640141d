package io.jrnic.core.mem;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.ResourceQuota;
import io.jrnic.api.StagState;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.VerifyHash;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The memory manager on its own (issue 10): the RNIC is only a {@link MemoryOwner} and a QP only a
 * {@link QpMemoryView}, so the SQ memory operations (Verbs §7.3.2.5, §7.8, §7.10) and their QP
 * checks run without an RNIC, a QP or a WQE.
 */
class MemoryManagerTest extends MemoryFixture {
    private static final int REGION_RIGHTS = AccessRights.LOCAL | AccessRights.REMOTE_READ | AccessRights.REMOTE_WRITE
            | AccessRights.BIND_WINDOW;

    private SoftMemoryRegion region(SoftProtectionDomain pd, MemorySegment m) {
        return manager.register(pd, m, REGION_RIGHTS, 0x10, AddressType.VA_BASED, m.address(), true,
                VerifyHash.SHA_256);
    }

    private static int withKey(StagEntry e, int key) {
        return e.index << 8 | key;
    }

    @Test
    void bindAndUnbindCountTheWindowsOfTheQp_V_MW_39_V_QP_35() {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        SoftMemoryRegion mr = region(pd, m);
        SoftMemoryWindow mw = manager.allocateWindow(pd);
        FakeQp qp = new FakeQp(pd, 5).enables(false, true, false, false);
        int stag = withKey(mw, 0x33);
        assertThat(manager.bind(qp, stag, mr.stag(), m.address() + 8, 32, AddressType.VA_BASED,
                AccessRights.REMOTE_WRITE)).isNull();
        assertThat(qp.boundWindows).isEqualTo(1);
        assertThat(mr.boundWindows).isEqualTo(1);
        assertThat(mw.boundQp).isSameAs(qp);
        StagBinding b = mw.binding;
        assertThat(b.qpId()).isEqualTo(5);
        assertThat(b.pd()).isSameAs(pd);
        assertThat(b.baseTo()).isEqualTo(m.address() + 8);
        assertThat(b.rights()).isEqualTo(AccessRights.REMOTE_WRITE);
        // only the QP it is bound to invalidates it (V-MW-30); then it is unbound and counted down
        assertThat(manager.invalidateLocal(new FakeQp(pd, 6), stag)).isEqualTo(WorkCompletionStatus.INVALID_PD_ID);
        assertThat(qp.boundWindows).isEqualTo(1);
        assertThat(manager.invalidateLocal(qp, stag)).isNull();
        assertThat(qp.boundWindows).isZero();
        assertThat(mr.boundWindows).isZero();
        assertThat(mw.boundQp).isNull();
        assertThat(mw.binding.state()).isEqualTo(StagState.INVALID);
        // deallocating a bound window unbinds it too (Verbs §7.10.5)
        assertThat(manager.bind(qp, withKey(mw, 0x34), mr.stag(), m.address(), 16, AddressType.ZERO_BASED,
                AccessRights.REMOTE_READ)).isNull();
        assertThat(qp.boundWindows).isEqualTo(1);
        manager.deallocate(mw);
        assertThat(qp.boundWindows).isZero();
        assertThat(mr.boundWindows).isZero();
    }

    @Test
    void bindNeedsTheBindEnableAndThePdOfTheQp_V_MW_10_V_MW_12() {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        SoftMemoryRegion mr = region(pd, m);
        SoftMemoryWindow mw = manager.allocateWindow(pd);
        int stag = withKey(mw, 1);
        FakeQp noBind = new FakeQp(pd, 1);
        assertThat(manager.bind(noBind, stag, mr.stag(), m.address(), 16, AddressType.VA_BASED,
                AccessRights.REMOTE_READ)).isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION);
        FakeQp otherPd = new FakeQp(pd(), 2).enables(false, true, false, false);
        assertThat(manager.bind(otherPd, stag, mr.stag(), m.address(), 16, AddressType.VA_BASED,
                AccessRights.REMOTE_READ)).isEqualTo(WorkCompletionStatus.INVALID_PD_ID);
        assertThat(noBind.boundWindows + otherPd.boundWindows).isZero();
        assertThat(mw.binding.state()).isEqualTo(StagState.INVALID);
    }

    @Test
    void fastRegisterNeedsAPrivilegedQpOfTheRegionsPd_V_MR_67_V_MR_63() {
        SoftProtectionDomain pd = pd();
        SoftMemoryRegion mr = manager.allocateStag(pd, 4, true);
        MemorySegment m = memory(2);
        int stag = withKey(mr, 0x77);
        int rights = AccessRights.LOCAL | AccessRights.REMOTE_WRITE;
        assertThat(manager.fastRegister(new FakeQp(pd, 1), stag, m, m.address(), AddressType.VA_BASED, rights, null))
                .isEqualTo(WorkCompletionStatus.QP_NOT_PRIVILEGED);
        FakeQp foreign = new FakeQp(pd(), 2).enables(true, false, false, false);
        assertThat(manager.fastRegister(foreign, stag, m, m.address(), AddressType.VA_BASED, rights, null))
                .isEqualTo(WorkCompletionStatus.INVALID_PD_ID);
        assertThat(mr.binding.state()).isEqualTo(StagState.INVALID);
        FakeQp priv = new FakeQp(pd, 3).enables(true, false, false, false);
        assertThat(manager.fastRegister(priv, stag, m, 0, AddressType.ZERO_BASED, rights, VerifyHash.SHA_256))
                .isNull();
        StagBinding b = mr.binding;
        assertThat(b.state()).isEqualTo(StagState.VALID);
        assertThat(mr.stag()).isEqualTo(stag);
        assertThat(b.memory()).isEqualTo(m);
        assertThat(b.rights()).isEqualTo(rights);
        assertThat(table.lookupValid(stag)).isSameAs(b);
    }

    @Test
    void sendWithInvalidateNeedsARemoteEnableOnTheQp_V_MR_122() {
        SoftProtectionDomain pd = pd();
        SoftMemoryRegion mr = region(pd, memory(1));
        int stag = mr.stag();
        assertThat(manager.invalidateRemote(new FakeQp(pd, 1), stag))
                .isEqualTo(InvalidateRefusal.QP_WITHOUT_REMOTE_ACCESS);
        assertThat(manager.invalidateRemote(new FakeQp(pd(), 1).enables(false, false, false, true), stag))
                .isEqualTo(InvalidateRefusal.REGION_OF_OTHER_PD);
        assertThat(mr.binding.state()).isEqualTo(StagState.VALID);
        assertThat(manager.invalidateRemote(new FakeQp(pd, 1).enables(false, false, false, true), stag)).isNull();
        assertThat(mr.binding.state()).isEqualTo(StagState.INVALID);
    }

    @Test
    void aPdOfAnotherManagerIsNotAPdOfThisOne_V_PD_4() {
        MemoryManager second = new MemoryManager(owner, new StagTable(8, MemorySegment.NULL), PAGE, 16, 8, 8,
                ResourceQuota.UNLIMITED);
        SoftProtectionDomain foreign = new SoftProtectionDomain(second, owner, 1);
        assertThatThrownBy(() -> manager.register(foreign, memory(1), AccessRights.LOCAL, 0, AddressType.VA_BASED,
                0, false, VerifyHash.SHA_256)).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_PD_ID);
        SoftProtectionDomain closed = pd();
        closed.closed = true;
        assertThatThrownBy(() -> manager.allocateWindow(closed)).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_PD_ID);
    }

    @Test
    void everyVerbAsksTheOwnerWhetherTheRnicIsOpen_V_RNIC_12() {
        SoftProtectionDomain pd = pd();
        SoftMemoryRegion mr = region(pd, memory(1));
        SoftMemoryWindow mw = manager.allocateWindow(pd);
        owner.open = false;
        for (Runnable verb : new Runnable[] {
                mr::query, mw::query, mr::close, mw::close, () -> manager.allocateWindow(pd),
                () -> manager.allocateStag(pd, 1, false), () -> pd.allocateWindow(),
                () -> region(pd, memory(1)),
                () -> manager.registerShared(pd, mr.stag(), AccessRights.LOCAL, 1, AddressType.VA_BASED,
                        mr.binding.baseTo(), VerifyHash.SHA_256),
                () -> mr.reregister(pd, memory(1), AccessRights.LOCAL, 2, AddressType.ZERO_BASED, 0, false,
                        VerifyHash.SHA_256)}) {
            assertThatThrownBy(verb::run).isInstanceOf(VerbsException.class)
                    .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
        }
        owner.open = true;
        assertThat(mr.query().state()).isEqualTo(StagState.VALID); // nothing changed
    }

    @Test
    void theLedgerIsKeptOnlyWithAMemoryQuota_R_SEC_024() {
        assertThat(manager.ledger).isNull();
        MemoryManager limited = manager(ResourceQuota.UNLIMITED.withMaxMrs(1));
        assertThat(limited.ledger).isNotNull();
        SoftProtectionDomain pd = new SoftProtectionDomain(limited, owner, 9);
        pd.registerMemory(memory(1), AccessRights.LOCAL, 0, AddressType.VA_BASED, 0, false, VerifyHash.SHA_256);
        assertThatThrownBy(() -> pd.allocateRegionStag(1, false)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("maxMrs=1");
    }

    private static VerbsStatus statusOf(Runnable verb) {
        try {
            verb.run();
        } catch (VerbsException e) {
            return e.status();
        }
        return null;
    }

    @Test
    void keysAreEightBitsAndAllOfThemAreUsable_V_MR_20() {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        for (int key : new int[] {0, 0xFF}) {
            SoftMemoryRegion mr = manager.register(pd, m, AccessRights.LOCAL, key, AddressType.VA_BASED,
                    m.address(), false, VerifyHash.SHA_256);
            assertThat(mr.stag() & 0xFF).isEqualTo(key);
        }
        for (int key : new int[] {-1, 0x100}) {
            assertThatThrownBy(() -> manager.register(pd, m, AccessRights.LOCAL, key, AddressType.VA_BASED,
                    m.address(), false, VerifyHash.SHA_256)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aRegionMayHaveExactlyTheMaximumPblEntries_V_MR_35() {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(17); // the fixture's manager allows 16 pages
        MemorySegment max = m.asSlice(0, 16 * PAGE);
        assertThat(manager.register(pd, max, AccessRights.LOCAL, 0, AddressType.VA_BASED, max.address(), false,
                VerifyHash.SHA_256).binding.length()).isEqualTo(16 * PAGE);
        MemorySegment longer = m.asSlice(0, 16 * PAGE + 1);
        assertThat(statusOf(() -> manager.register(pd, longer, AccessRights.LOCAL, 0, AddressType.VA_BASED,
                longer.address(), false, VerifyHash.SHA_256))).isEqualTo(VerbsStatus.INVALID_LENGTH);
        MemorySegment unaligned = m.asSlice(1, 16 * PAGE); // 16 pages of bytes over 17 pages
        assertThat(statusOf(() -> manager.register(pd, unaligned, AccessRights.LOCAL, 0, AddressType.VA_BASED,
                unaligned.address(), false, VerifyHash.SHA_256))).isEqualTo(VerbsStatus.INVALID_LENGTH);
    }

    @Test
    void zeroLengthMemoryRegistersAtAnyVa_V_MR_110() {
        SoftProtectionDomain pd = pd();
        MemorySegment empty = memory(1).asSlice(PAGE / 2, 0);
        // no bytes: VA + 0 never wraps (Verbs §7.6.1.1 is about the last byte)
        long va = -PAGE + PAGE / 2;
        assertThat(manager.register(pd, empty, AccessRights.LOCAL, 0, AddressType.VA_BASED, va, false,
                VerifyHash.SHA_256).binding.baseTo()).isEqualTo(va);
        SoftMemoryRegion mr = manager.allocateStag(pd, 1, false);
        FakeQp priv = new FakeQp(pd, 1).enables(true, false, false, false);
        assertThat(manager.fastRegister(priv, withKey(mr, 3), empty, va, AddressType.VA_BASED, AccessRights.LOCAL,
                null)).isNull();
        assertThat(mr.binding.length()).isZero();
    }

    @Test
    void memoryOfAConfinedArenaIsRefused_issue9_item8() {
        SoftProtectionDomain pd = pd();
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment m = confined.allocate(PAGE, PAGE);
            assertThat(MemoryManager.accessibleFromAnyThread(m)).isFalse();
            assertThat(statusOf(() -> manager.register(pd, m, AccessRights.LOCAL, 0, AddressType.VA_BASED,
                    m.address(), false, VerifyHash.SHA_256))).isEqualTo(VerbsStatus.INVALID_PBL_ENTRY);
            SoftMemoryRegion mr = manager.allocateStag(pd, 1, false);
            FakeQp priv = new FakeQp(pd, 1).enables(true, false, false, false);
            assertThat(manager.fastRegister(priv, withKey(mr, 1), m, m.address(), AddressType.VA_BASED,
                    AccessRights.LOCAL, null)).isEqualTo(WorkCompletionStatus.INVALID_PBL_ENTRY);
            assertThat(manager.fastRegister(priv, withKey(mr, 1), MemorySegment.ofArray(new byte[64]), 0,
                    AddressType.ZERO_BASED, AccessRights.LOCAL, null)).isEqualTo(WorkCompletionStatus.INVALID_PBL_ENTRY);
            assertThat(mr.binding.state()).isEqualTo(StagState.INVALID);
        }
        assertThat(MemoryManager.accessibleFromAnyThread(memory(1))).isTrue();
    }

    @Test
    void fastRegisterChecksPersistenceAndKeepsTheVerifyHash_V_MR_66_C_VERIFY_002() {
        SoftProtectionDomain pd = pd();
        SoftMemoryRegion mr = manager.allocateStag(pd, 2, true);
        MemorySegment m = memory(1);
        FakeQp priv = new FakeQp(pd, 1).enables(true, false, false, false);
        int persistent = AccessRights.LOCAL | AccessRights.REMOTE_WRITE | AccessRights.FLUSHABLE_PERSISTENT;
        // draft-talpey-rdma-commit-01 §2.4: memory that is not file-mapped cannot be made persistent
        assertThat(manager.fastRegister(priv, withKey(mr, 1), m, m.address(), AddressType.VA_BASED, persistent, null))
                .isEqualTo(WorkCompletionStatus.INVALID_ACCESS_RIGHTS);
        VerifyHash sha512 = VerifyHash.of("SHA-512");
        assertThat(manager.fastRegister(priv, withKey(mr, 2), m, m.address(), AddressType.VA_BASED,
                AccessRights.LOCAL | AccessRights.REMOTE_WRITE, sha512)).isNull();
        assertThat(mr.binding.verifyHash()).isSameAs(sha512);
        assertThat(manager.invalidateLocal(priv, withKey(mr, 2))).isNull();
        assertThat(manager.fastRegister(priv, withKey(mr, 3), m, m.address(), AddressType.VA_BASED,
                AccessRights.LOCAL, null)).isNull();
        assertThat(mr.binding.verifyHash()).isSameAs(VerifyHash.SHA_256); // none named: the default
    }

    @Test
    void bindChecksTheRegionAndTheWindowsBounds_V_MW_9_V_MW_13() {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        SoftMemoryRegion mr = region(pd, m);
        SoftMemoryWindow other = manager.allocateWindow(pd);
        FakeQp qp = new FakeQp(pd, 5).enables(false, true, false, false);
        int read = AccessRights.REMOTE_READ;
        long base = m.address();
        SoftMemoryWindow mw = manager.allocateWindow(pd);
        assertThat(manager.bind(qp, withKey(mw, 1), withKey(other, 0), base, 8, AddressType.VA_BASED, read))
                .isEqualTo(WorkCompletionStatus.INVALID_REGION); // a window is no region
        assertThat(manager.bind(qp, withKey(mw, 1), withKey(mr, 0x11), base, 8, AddressType.VA_BASED, read))
                .isEqualTo(WorkCompletionStatus.INVALID_REGION); // wrong key
        assertThat(manager.bind(qp, withKey(mw, 1), mr.stag(), base, -1, AddressType.VA_BASED, read))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(manager.bind(qp, withKey(mw, 1), mr.stag(), base + PAGE + 1, 0, AddressType.VA_BASED, read))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(manager.bind(qp, withKey(mw, 1), mr.stag(), base - 1, 0, AddressType.VA_BASED, read))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(manager.bind(qp, withKey(mw, 1), mr.stag(), base + 1, PAGE, AddressType.VA_BASED, read))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(mw.binding.state()).isEqualTo(StagState.INVALID);
        // zero-length windows at both ends of the region are inside it (V-MW-13)
        for (long va : new long[] {base, base + PAGE}) {
            assertThat(manager.bind(qp, withKey(mw, 2), mr.stag(), va, 0, AddressType.VA_BASED, read)).isNull();
            assertThat(mw.binding.baseTo()).isEqualTo(va);
            assertThat(manager.invalidateLocal(qp, withKey(mw, 2))).isNull();
        }
        assertThat(manager.bind(qp, withKey(mw, 3), mr.stag(), base, PAGE, AddressType.VA_BASED, read)).isNull();
    }

    @Test
    void regionAndWindowLimitsOfTheRnicCountFreedEntriesBack_V_RNIC_maxMrs() {
        MemoryManager mm = new MemoryManager(owner, new StagTable(16, MemorySegment.NULL), PAGE, 16, 2, 2,
                ResourceQuota.UNLIMITED);
        SoftProtectionDomain pd = new SoftProtectionDomain(mm, owner, 1);
        MemorySegment m = memory(1);
        SoftMemoryRegion first = mm.register(pd, m, AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256);
        mm.allocateStag(pd, 1, false);
        assertThatThrownBy(() -> mm.allocateStag(pd, 1, false)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("region limit 2");
        first.close();
        mm.allocateStag(pd, 1, false);
        SoftMemoryWindow w = mm.allocateWindow(pd);
        mm.allocateWindow(pd);
        assertThatThrownBy(() -> mm.allocateWindow(pd)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("window limit 2");
        w.close();
        mm.allocateWindow(pd);
        assertThat(mm.liveEntries(16)).hasSize(4);
    }

    @Test
    void sendWithInvalidateChecksEachRefusal_V_MR_122_V_MW_45() {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        SoftMemoryRegion mr = region(pd, m);
        FakeQp qp = new FakeQp(pd, 1).enables(false, true, true, false);
        FakeQp sibling = new FakeQp(pd, 2).enables(false, true, true, false);
        assertThat(manager.invalidateRemote(qp, 0)).isEqualTo(InvalidateRefusal.UNKNOWN_STAG);
        assertThat(manager.invalidateRemote(qp, withKey(mr, 0x11))).isEqualTo(InvalidateRefusal.UNKNOWN_STAG);
        SoftMemoryRegion shared = manager.registerShared(pd, mr.stag(), AccessRights.LOCAL | AccessRights.REMOTE_READ,
                5, AddressType.VA_BASED, m.address(), VerifyHash.SHA_256);
        assertThat(manager.invalidateRemote(qp, shared.stag())).isEqualTo(InvalidateRefusal.SHARED_REGION);
        SoftMemoryRegion local = manager.register(pd, m, AccessRights.LOCAL, 6, AddressType.VA_BASED, m.address(),
                false, VerifyHash.SHA_256);
        assertThat(manager.invalidateRemote(qp, local.stag()))
                .isEqualTo(InvalidateRefusal.REGION_WITHOUT_REMOTE_RIGHTS);
        SoftMemoryRegion target = region(pd, m);
        SoftMemoryWindow mw = manager.allocateWindow(pd);
        int window = withKey(mw, 7);
        assertThat(manager.bind(qp, window, target.stag(), m.address(), 8, AddressType.VA_BASED,
                AccessRights.REMOTE_READ)).isNull();
        assertThat(manager.invalidateRemote(qp, target.stag()))
                .isEqualTo(InvalidateRefusal.REGION_WITH_BOUND_WINDOWS);
        // a bound window belongs to its QP, not to the PD (RFC 5040 §8.1.1 (7))
        assertThat(manager.invalidateRemote(sibling, window)).isEqualTo(InvalidateRefusal.WINDOW_OF_OTHER_QP);
        assertThat(manager.invalidateRemote(qp, withKey(mw, 8))).isEqualTo(InvalidateRefusal.UNKNOWN_STAG);
        assertThat(manager.invalidateRemote(qp, window)).isNull();
        assertThat(mw.binding.state()).isEqualTo(StagState.INVALID);
        assertThat(qp.boundWindows).isZero();
        assertThat(target.boundWindows).isZero();
        assertThat(mw.boundQp).isNull();
        // an Invalid window is the PD's again: another PD's QP may not invalidate it
        assertThat(manager.invalidateRemote(new FakeQp(pd(), 1).enables(false, false, true, false), window))
                .isEqualTo(InvalidateRefusal.WINDOW_OF_OTHER_QP);
        assertThat(manager.invalidateRemote(sibling, window)).isNull();
        assertThat(manager.invalidateRemote(qp, target.stag())).isNull();
    }

    /**
     * R-SEC-016: a revocation swaps the binding and then waits until the placement in progress
     * left the fence; it must not return while the placement can still write.
     */
    private static void assertRevocationWaitsForThePlacement(StagEntry entry, Runnable revoke) throws Exception {
        StagBinding.Fence fence = StagBinding.Fence.of(entry);
        StagBinding validated = entry.binding;
        assertThat(fence.enter(entry, validated)).isTrue();
        assertThat(fence.active()).isOne();
        AtomicBoolean returned = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread revoker = Thread.ofPlatform().start(() -> {
            try {
                revoke.run();
            } catch (Throwable t) {
                failure.set(t);
            }
            returned.set(true);
        });
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (entry.binding == validated) {
            if (System.nanoTime() > deadline || returned.get()) {
                fence.exit();
                fail("the revocation did not swap the binding", failure.get());
            }
            Thread.onSpinWait();
        }
        for (int i = 0; i < 100_000; i++) {
            Thread.onSpinWait(); // give a revoker that does not wait every chance to return first
        }
        boolean returnedWhilePlacing = returned.get();
        fence.exit();
        revoker.join(10_000);
        assertThat(failure.get()).isNull();
        assertThat(returned).isTrue();
        assertThat(returnedWhilePlacing).as("revocation returned while a placement was writing").isFalse();
        assertThat(fence.active()).isZero();
    }

    @Test
    void everyRevocationWaitsForThePlacementInProgress_R_SEC_016() throws Exception {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        FakeQp qp = new FakeQp(pd, 1).enables(true, true, true, true);
        SoftMemoryRegion a = region(pd, m);
        assertRevocationWaitsForThePlacement(a, () -> assertThat(manager.invalidateLocal(qp, a.stag())).isNull());
        SoftMemoryRegion b = region(pd, m);
        assertRevocationWaitsForThePlacement(b, () -> assertThat(manager.invalidateRemote(qp, b.stag())).isNull());
        SoftMemoryRegion c = region(pd, m);
        assertRevocationWaitsForThePlacement(c, () -> c.reregister(pd, memory(1), AccessRights.LOCAL, 0x20,
                AddressType.ZERO_BASED, 0, false, VerifyHash.SHA_256));
        SoftMemoryRegion d = region(pd, m);
        assertRevocationWaitsForThePlacement(d, d::close);
        SoftMemoryRegion e = region(pd, m);
        SoftMemoryWindow w = manager.allocateWindow(pd);
        assertThat(manager.bind(qp, withKey(w, 1), e.stag(), m.address(), 8, AddressType.VA_BASED,
                AccessRights.REMOTE_READ)).isNull();
        assertRevocationWaitsForThePlacement(w, w::close);
    }

    @Test
    void sharedAndReregisteredRegionsTakeEightBitKeysToo_V_MR_20() {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        SoftMemoryRegion mr = region(pd, m);
        for (int key : new int[] {-1, 0x100}) {
            assertThatThrownBy(() -> manager.registerShared(pd, mr.stag(), AccessRights.LOCAL, key,
                    AddressType.VA_BASED, m.address(), VerifyHash.SHA_256))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> mr.reregister(pd, m, AccessRights.LOCAL, key, AddressType.VA_BASED,
                    m.address(), false, VerifyHash.SHA_256)).isInstanceOf(IllegalArgumentException.class);
        }
        // refused before anything changed: the region is Valid, unshared, with its key
        assertThat(mr.query().state()).isEqualTo(StagState.VALID);
        assertThat(mr.query().shared()).isFalse();
        assertThat(table.lookupValid(mr.stag())).isSameAs(mr.binding);
        // a Shared region has the Remote Access Flag exactly when it has remote rights (Verbs §7.3.2.4)
        SoftMemoryRegion local = manager.registerShared(pd, mr.stag(), AccessRights.LOCAL, 0xFF,
                AddressType.VA_BASED, m.address(), VerifyHash.SHA_256);
        assertThat(local.query().remoteAccess()).isFalse();
        assertThat(local.stag() & 0xFF).isEqualTo(0xFF);
        SoftMemoryRegion remote = manager.registerShared(pd, mr.stag(), AccessRights.LOCAL | AccessRights.REMOTE_READ,
                0, AddressType.VA_BASED, m.address(), VerifyHash.SHA_256);
        assertThat(remote.query().remoteAccess()).isTrue();
    }
}
