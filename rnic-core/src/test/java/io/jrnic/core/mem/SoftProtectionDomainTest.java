package io.jrnic.core.mem;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QueuePairConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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
}
