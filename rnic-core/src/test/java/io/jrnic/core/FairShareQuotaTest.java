package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ResourceQuota;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Per-PD quotas of RNIC resources (RFC 5040 §8.1.2 item 6, RFC 5042 §6.4.1): a PD, the consumer
 * the Privileged Resource Manager hands to one local ULP, cannot take more than its fair share;
 * another PD keeps its own, and destroying a resource gives its quota back.
 */
class FairShareQuotaTest extends VerbsFixture {
    private static final long PAGE = 4096;
    private static final ResourceQuota QUOTA = ResourceQuota.UNLIMITED.withMaxQps(2).withMaxSrqs(1).withMaxMrs(3)
            .withMaxMws(2).withMaxRegisteredBytes(3 * PAGE);

    @Override
    RnicConfig config() {
        return super.config().pdQuota(QUOTA);
    }

    private static void assertQuota(Runnable r, String quota, ProtectionDomain pd) {
        assertThatThrownBy(r::run).isInstanceOf(VerbsException.class)
                .hasMessageContaining("PD " + pd.id() + " quota " + quota)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INSUFFICIENT_RESOURCES);
    }

    private MemorySegment pages(int n) {
        return rnic.allocateMemory(n * PAGE, PAGE);
    }

    private static MemoryRegion register(ProtectionDomain p, MemorySegment m) {
        return p.registerMemory(m, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE);
    }

    @Test
    void qpsAndSrqsPerPdAreLimitedAndAnotherPdKeepsItsShare_R_SEC_024() {
        QueuePair first = qp();
        qp();
        assertQuota(this::qp, "maxQps=2", pd);
        ProtectionDomain other = rnic.allocatePd();
        QueuePair theirs = other.createQueuePair(qpConfig()); // its own quota
        first.close();
        QueuePair again = qp(); // the destroyed QP's place is free again
        assertThat(again.query().pdId()).isEqualTo(pd.id());

        SharedReceiveQueue srq = other.createSharedReceiveQueue(4, 1, 0);
        assertQuota(() -> other.createSharedReceiveQueue(4, 1, 0), "maxSrqs=1", other);
        other.createQueuePair(qpConfig().srq(srq, 0)); // a QP on the S-RQ is one of the PD's QPs
        assertQuota(() -> other.createQueuePair(qpConfig().srq(srq, 0)), "maxQps=2", other);
        theirs.close();
        assertThatThrownBy(srq::close).isInstanceOf(VerbsException.class); // still in use: quota unchanged
        assertQuota(() -> other.createSharedReceiveQueue(4, 1, 0), "maxSrqs=1", other);
    }

    @Test
    void regionsAndRegisteredBytesPerPdAreLimited_R_SEC_024() {
        MemoryRegion a = register(pd, pages(1));
        MemoryRegion b = register(pd, pages(1)); // 2 pages registered
        assertQuota(() -> register(pd, pages(2)), "maxRegisteredBytes=" + 3 * PAGE, pd);
        assertQuota(() -> pd.allocateRegionStag(2, false), "maxRegisteredBytes=" + 3 * PAGE, pd); // reserves 2 pages
        assertQuota(() -> pd.allocateMemoryRegion(1 << 20, AccessRights.LOCAL_WRITE, 0, AddressType.ZERO_BASED),
                "maxRegisteredBytes", pd);
        MemoryRegion shared = pd.registerSharedMemory(a.stag(), AccessRights.LOCAL_READ, 0, AddressType.ZERO_BASED, 0);
        assertThat(shared.query().shared()).isTrue(); // a third region, no new bytes
        assertQuota(() -> pd.allocateRegionStag(1, false), "maxMrs=3", pd);
        assertThatThrownBy(() -> pd.allocateRegionStag(0, false)).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_LENGTH); // argument first
        shared.close();
        MemoryRegion fr = pd.allocateRegionStag(1, false); // one page reserved for a Fast-Register
        assertThat(fr.query().pblEntries()).isEqualTo(1);
        fr.close();
        b.close();
        MemoryRegion two = pd.allocateMemoryRegion(2 * PAGE, AccessRights.LOCAL_WRITE, 0, AddressType.ZERO_BASED);
        assertThat(two.query().length()).isEqualTo(2 * PAGE);
        ProtectionDomain other = rnic.allocatePd();
        register(other, pages(3)); // every PD has its own three pages
    }

    @Test
    void windowsPerPdAreLimited_R_SEC_024() {
        MemoryWindow first = pd.allocateWindow();
        pd.allocateWindow();
        assertQuota(pd::allocateWindow, "maxMws=2", pd);
        first.close();
        pd.allocateWindow();
        rnic.allocatePd().allocateWindow();
    }

    @Test
    void reregisteringIntoAnotherPdMovesTheCharge_R_SEC_024() {
        ProtectionDomain other = rnic.allocatePd();
        MemoryRegion moved = register(pd, pages(3));
        assertQuota(() -> register(pd, pages(1)), "maxRegisteredBytes", pd);
        MemorySegment m = pages(3);
        moved.reregister(other, m, AccessRights.LOCAL_WRITE, 0, AddressType.VA_BASED, m.address(), false);
        register(pd, pages(3)); // the bytes went with the region
        assertQuota(() -> register(other, pages(1)), "maxRegisteredBytes", other);
    }

    @Test
    void defaultIsUnlimitedAndQuotasAreValidated_R_SEC_024() {
        assertThat(new RnicConfig().pdQuota()).isEqualTo(ResourceQuota.UNLIMITED);
        assertThat(ResourceQuota.UNLIMITED.limitsMemory()).isFalse();
        assertThat(ResourceQuota.UNLIMITED.withMaxQps(1).limitsMemory()).isFalse(); // no memory tracking needed
        assertThat(ResourceQuota.UNLIMITED.withMaxMws(1).limitsMemory()).isTrue();
        assertThatThrownBy(() -> ResourceQuota.UNLIMITED.withMaxSrqs(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
        assertThatThrownBy(() -> new RnicConfig().pdQuota(null)).isInstanceOf(NullPointerException.class);
        RnicConfig c = new RnicConfig().name("quota-default-" + System.nanoTime()).qpLimits(3, 16);
        try (SoftRnic plain = SoftRnic.open(c)) {
            ProtectionDomain p = plain.allocatePd();
            var cq2 = plain.createCq(8);
            for (int i = 0; i < 3; i++) {
                p.createQueuePair(new io.jrnic.api.QueuePairConfig().cqs(cq2, cq2).depths(4, 4));
            }
            // the RNIC-wide maximum still applies, and it is not a PD quota
            assertThatThrownBy(() -> p.createQueuePair(new io.jrnic.api.QueuePairConfig().cqs(cq2, cq2).depths(4, 4)))
                    .hasMessageContaining("QP limit 3 reached").hasMessageNotContaining("quota");
            assertThat(plain.memory.ledger).isNull(); // nothing is tracked without a memory quota
        }
        assertThat(rnic.memory.ledger).isNotNull();
    }
}
