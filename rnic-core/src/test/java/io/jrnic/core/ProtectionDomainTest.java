package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProtectionDomainTest extends VerbsFixture {

    private static void assertStatus(Runnable r, VerbsStatus status) {
        assertThatThrownBy(r::run).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(status);
    }

    @Test
    void pdIdsAreUniquePerRnic_V_PD_12() {
        ProtectionDomain a = rnic.allocatePd();
        ProtectionDomain b = rnic.allocatePd();
        assertThat(a.id()).isNotEqualTo(b.id()).isNotEqualTo(pd.id());
    }

    @Test
    void deallocateRefusedWhileQpUsesIt_V_PD_15_V_VERB_DeallocPD_1() {
        ProtectionDomain p = rnic.allocatePd();
        QueuePair qp = p.createQueuePair(qpConfig());
        assertStatus(p::close, VerbsStatus.PD_IN_USE);
        qp.close();
        p.close();
        assertStatus(p::close, VerbsStatus.INVALID_PD_ID);
        assertStatus(p::allocateWindow, VerbsStatus.INVALID_PD_ID);
    }

    @Test
    void deallocateRefusedWhileRegionSrqOrWindowUsesIt_V_PD_15() {
        ProtectionDomain p = rnic.allocatePd();
        MemoryRegion mr = p.allocateMemoryRegion(64, AccessRights.LOCAL, 0, io.jrnic.api.AddressType.VA_BASED);
        assertStatus(p::close, VerbsStatus.PD_IN_USE);
        mr.close();
        SharedReceiveQueue srq = p.createSharedReceiveQueue(4, 1, 0);
        assertStatus(p::close, VerbsStatus.PD_IN_USE);
        srq.close();
        MemoryWindow mw = p.allocateWindow(); // an Invalid (unbound) window counts too
        assertStatus(p::close, VerbsStatus.PD_IN_USE);
        mw.close();
        MemoryRegion stag = p.allocateRegionStag(1, false);
        assertStatus(p::close, VerbsStatus.PD_IN_USE);
        stag.close();
        p.close();
    }

    @Test
    void anyPdWorksWithAnyResource_V_PD_4_V_PD_5_V_PD_6_V_PD_7() {
        ProtectionDomain p = rnic.allocatePd();
        QueuePair q1 = p.createQueuePair(qpConfig());
        QueuePair q2 = p.createQueuePair(qpConfig());
        assertThat(q1.query().pdId()).isEqualTo(p.id()).isEqualTo(q2.query().pdId());
        MemoryRegion m1 = p.allocateMemoryRegion(64, AccessRights.LOCAL, 0, io.jrnic.api.AddressType.VA_BASED);
        MemoryRegion m2 = p.allocateMemoryRegion(64, AccessRights.LOCAL, 0, io.jrnic.api.AddressType.VA_BASED);
        assertThat(m1.query().pdId()).isEqualTo(p.id()).isEqualTo(m2.query().pdId());
        assertThat(p.allocateWindow().query().pdId()).isEqualTo(p.id());
        assertThat(p.allocateWindow().query().pdId()).isEqualTo(p.id());
        assertThat(p.createSharedReceiveQueue(4, 1, 0).query().pdId()).isEqualTo(p.id());
    }
}
