package io.jrnic.core.mem;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ResourceQuota;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.VerifyHash;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A PD on its own (issue 10): QPs, S-RQs and Deallocate PD go up to its
 * {@link ProtectionDomainOwner}, memory verbs down to the {@link MemoryManager}; the PD does not
 * know the RNIC class.
 */
class SoftProtectionDomainTest extends MemoryFixture {

    @Test
    void queuesAndDeallocationAreHandedToTheOwner_V_PD_4() {
        SoftProtectionDomain pd = pd();
        pd.createQueuePair(new QueuePairConfig());
        pd.createSharedReceiveQueue(8, 2, 1);
        pd.close();
        assertThat(owner.calls).containsExactly("qp in PD[1]", "srq in PD[1] 8/2/1", "deallocate PD[1]");
    }

    @Test
    void allocatedRegionsTakePageAlignedMemoryFromTheOwnersArena_V_MR_4() {
        SoftProtectionDomain pd = pd();
        MemoryRegion mr = pd.allocateMemoryRegion(100, AccessRights.LOCAL, 0, AddressType.VA_BASED);
        assertThat(owner.calls).containsExactly("allocate 100 align " + PAGE);
        assertThat(mr.memory().byteSize()).isEqualTo(100);
        assertThat(mr.memory().address() % PAGE).isZero();
        assertThat(pd.users.get()).isEqualTo(1);
    }

    private static VerbsException refusal(Runnable verb) {
        try {
            verb.run();
        } catch (VerbsException e) {
            return e;
        }
        throw new AssertionError("the verb was not refused");
    }

    @Test
    void aDeallocatedPdRefusesEveryVerbBeforeItsQuotaOrItsOwner_V_PD_4() {
        MemoryManager limited = manager(ResourceQuota.UNLIMITED.withMaxMrs(1).withMaxMws(0));
        SoftProtectionDomain pd = new SoftProtectionDomain(limited, owner, 3);
        MemorySegment m = memory(1);
        MemoryRegion mr = pd.registerMemory(m, AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256);
        pd.closed = true;
        // the PD's quota is used up: a verb that asked the quota first would say INSUFFICIENT_RESOURCES
        for (Runnable verb : new Runnable[] {
                () -> pd.registerMemory(m, AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                        VerifyHash.SHA_256),
                () -> pd.allocateMemoryRegion(64, AccessRights.LOCAL, 0, AddressType.VA_BASED),
                () -> pd.allocateRegionStag(1, false),
                () -> pd.registerSharedMemory(mr.stag(), AccessRights.LOCAL, 1, AddressType.VA_BASED, m.address(),
                        VerifyHash.SHA_256),
                pd::allocateWindow,
                () -> pd.createQueuePair(new QueuePairConfig()),
                () -> pd.createSharedReceiveQueue(8, 1, 0)}) {
            assertThat(refusal(verb).status()).isEqualTo(VerbsStatus.INVALID_PD_ID);
        }
        assertThat(owner.calls).isEmpty(); // no memory from the arena, no QP or S-RQ asked for
        pd.closed = false;
        owner.open = false;
        assertThat(refusal(() -> pd.createQueuePair(new QueuePairConfig())).status())
                .isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
        assertThat(refusal(() -> pd.createSharedReceiveQueue(8, 1, 0)).status())
                .isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
        assertThat(owner.calls).isEmpty();
    }

    @Test
    void theRegionAndWindowQuotasAllowExactlyTheirNumber_R_SEC_024() {
        SoftProtectionDomain pd = new SoftProtectionDomain(manager(ResourceQuota.UNLIMITED.withMaxMrs(2)
                .withMaxMws(1)), owner, 4);
        SoftProtectionDomain other = new SoftProtectionDomain(pd.manager, owner, 5);
        MemorySegment m = memory(1);
        MemoryRegion first = pd.registerMemory(m, AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256);
        assertThat(first).isNotNull();
        assertThat(pd.allocateRegionStag(1, false)).isNotNull();
        assertThat(refusal(() -> pd.allocateRegionStag(1, false))).hasMessageContaining("maxMrs=2");
        assertThat(pd.allocateWindow()).isNotNull();
        assertThat(refusal(pd::allocateWindow)).hasMessageContaining("maxMws=1");
        // another PD has its own quota; a deallocated region is no longer charged
        assertThat(other.allocateWindow()).isNotNull();
        first.close();
        assertThat(pd.allocateRegionStag(1, false)).isNotNull();
    }

    @Test
    void theByteQuotaCountsRegisteredAndReservedBytes_R_SEC_024() {
        SoftProtectionDomain pd = new SoftProtectionDomain(manager(ResourceQuota.UNLIMITED
                .withMaxRegisteredBytes(3 * PAGE)), owner, 6);
        MemorySegment m = memory(4);
        MemoryRegion one = pd.registerMemory(m.asSlice(0, PAGE), AccessRights.LOCAL, 0, AddressType.VA_BASED,
                m.address(), false, VerifyHash.SHA_256);
        pd.registerMemory(m.asSlice(0, PAGE), AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256);
        assertThat(refusal(() -> pd.registerMemory(m.asSlice(0, 2 * PAGE), AccessRights.LOCAL, 0,
                AddressType.VA_BASED, m.address(), false, VerifyHash.SHA_256)))
                .hasMessageContaining("maxRegisteredBytes");
        // a Shared region maps bytes already charged (Verbs §7.3.2.4)
        assertThat(pd.registerSharedMemory(one.stag(), AccessRights.LOCAL, 1, AddressType.VA_BASED, m.address(),
                VerifyHash.SHA_256)).isNotNull();
        assertThat(pd.registerMemory(m.asSlice(0, PAGE), AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(),
                false, VerifyHash.SHA_256)).isNotNull();
        assertThat(refusal(() -> pd.allocateMemoryRegion(1, AccessRights.LOCAL, 0, AddressType.VA_BASED)))
                .hasMessageContaining("maxRegisteredBytes");
        assertThat(owner.calls).isEmpty(); // refused before the arena gave memory away
    }

    @Test
    void anStagForFastRegisterReservesItsWholePbl_R_SEC_024() {
        // the manager allows 16 PBL entries of a page; the quota one page less
        SoftProtectionDomain pd = new SoftProtectionDomain(manager(ResourceQuota.UNLIMITED
                .withMaxRegisteredBytes(15 * PAGE)), owner, 7);
        assertThat(refusal(() -> pd.allocateRegionStag(16, false))).hasMessageContaining("maxRegisteredBytes");
        assertThat(pd.allocateRegionStag(15, false)).isNotNull();
        assertThat(refusal(() -> pd.allocateRegionStag(1, false))).hasMessageContaining("maxRegisteredBytes");
        assertThat(refusal(() -> pd.allocateRegionStag(17, false)).status()).isEqualTo(VerbsStatus.INVALID_LENGTH);
    }

    @Test
    void anAllocatedRegionHasTheRemoteAccessFlagExactlyWithRemoteRights_V_MR_4() {
        SoftProtectionDomain pd = pd();
        MemoryRegion local = pd.allocateMemoryRegion(64, AccessRights.LOCAL, 0, AddressType.VA_BASED);
        assertThat(local.query().remoteAccess()).isFalse();
        MemoryRegion remote = pd.allocateMemoryRegion(64, AccessRights.LOCAL | AccessRights.REMOTE_READ, 0,
                AddressType.VA_BASED);
        assertThat(remote.query().remoteAccess()).isTrue();
        assertThatThrownBy(() -> pd.allocateMemoryRegion(64, AccessRights.REMOTE_READ, 0, AddressType.VA_BASED))
                .isInstanceOf(VerbsException.class); // Figure 18: no local right
    }

    @Test
    void eachQuotaIsCheckedOnlyForWhatTheVerbCreates_R_SEC_024() {
        SoftProtectionDomain a = new SoftProtectionDomain(manager(ResourceQuota.UNLIMITED.withMaxMrs(1)
                .withMaxRegisteredBytes(PAGE)), owner, 8);
        SoftProtectionDomain b = new SoftProtectionDomain(a.manager, owner, 9);
        MemorySegment m = memory(2);
        MemoryRegion moved = a.registerMemory(m.asSlice(0, PAGE), AccessRights.LOCAL, 0, AddressType.VA_BASED,
                m.address(), false, VerifyHash.SHA_256);
        b.registerMemory(m.asSlice(0, PAGE), AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256);
        // b is at its region and byte quotas: a Reregister may not move a region in (R-SEC-024,
        // ReregisterQuotaTest), and the refusal deallocates it (Verbs §7.3.2.3, V-MR-51)
        assertThat(refusal(() -> moved.reregister(b, m, AccessRights.LOCAL, 1, AddressType.VA_BASED, m.address(),
                false, VerifyHash.SHA_256))).hasMessageContaining("maxMrs=1");
        assertThat(refusal(() -> b.allocateRegionStag(1, false))).hasMessageContaining("maxMrs=1");
        // a window is neither a region nor bytes: its verb asks only the window quota
        assertThat(b.allocateWindow()).isNotNull();
        assertThat(a.allocateWindow()).isNotNull();
    }
}
