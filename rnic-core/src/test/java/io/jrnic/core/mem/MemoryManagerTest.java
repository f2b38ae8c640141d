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

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
                () -> manager.allocateStag(pd, 1, false), () -> pd.allocateWindow()}) {
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
}
