package io.jrnic.core.mem;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ResourceQuota;
import io.jrnic.api.StagState;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.VerifyHash;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RI-Reregister under a per-PD quota (issue 13; R-SEC-024, RFC 5040 §8.1.2 item 6: the PRM keeps a
 * local consumer to its fair share; docs/verbs.md "Per-PD quotas"). A Reregister that moves a
 * region into a PD, or grows it, must fit the PD's region and byte quotas as a create verb must; at
 * the exact quota it succeeds, one region or one byte more is refused with INSUFFICIENT_RESOURCES
 * (Verbs Figure 33 lists it for RI-Reregister), and the refusal follows Verbs §7.3.2.3 (V-MR-51):
 * the region is deallocated and nothing is registered, its old PD gets its share back, the target
 * PD's usage is unchanged.
 */
class ReregisterQuotaTest extends MemoryFixture {
    private static final long QUOTA_BYTES = 3 * PAGE;

    private final MemoryManager limited = manager(ResourceQuota.UNLIMITED.withMaxMrs(2)
            .withMaxRegisteredBytes(QUOTA_BYTES));
    private final SoftProtectionDomain a = new SoftProtectionDomain(limited, owner, 1);
    private final SoftProtectionDomain b = new SoftProtectionDomain(limited, owner, 2);
    private final MemorySegment m = memory(4);

    private MemoryRegion register(SoftProtectionDomain pd, long bytes) {
        return pd.registerMemory(m.asSlice(0, bytes), AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256);
    }

    private void reregister(MemoryRegion mr, SoftProtectionDomain pd, long bytes) {
        mr.reregister(pd, m.asSlice(0, bytes), AccessRights.LOCAL, 1, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256);
    }

    /** The Reregister is refused with INSUFFICIENT_RESOURCES naming the quota, and the region is gone (V-MR-51). */
    private static void assertRefusedAndDeallocated(MemoryRegion mr, Runnable reregister, String quota, SoftProtectionDomain pd) {
        VerbsException e = null;
        try {
            reregister.run();
        } catch (VerbsException ex) {
            e = ex;
        }
        assertThat(e).as("the Reregister was refused").isNotNull();
        assertThat(e.status()).isEqualTo(VerbsStatus.INSUFFICIENT_RESOURCES);
        assertThat(e).hasMessageContaining("PD " + pd.id() + " quota " + quota);
        assertThat(((SoftMemoryRegion) mr).binding.state()).as("deallocated, nothing registered (V-MR-51)")
                .isEqualTo(StagState.FREE);
    }

    @Test
    void movingARegionInMayFillTheByteQuotaExactlyNotOneByteMore_R_SEC_024_V_MR_51() {
        register(b, 2 * PAGE);
        MemoryRegion fits = register(a, PAGE);
        MemoryRegion over = register(a, PAGE);
        assertRefusedAndDeallocated(over, () -> reregister(over, b, PAGE + 1),
                "maxRegisteredBytes=" + QUOTA_BYTES, b);
        reregister(fits, b, PAGE); // 2 + 1 pages: exactly the quota
        assertThat(fits.query().pdId()).isEqualTo(b.id());
        assertThat(fits.query().length()).isEqualTo(PAGE);
        // a's share came back (one region moved, one deallocated), b's is full
        assertThat(limited.ledger.usage(a)).isEqualTo(new SoftProtectionDomain.MemoryLedger.Usage(0, 0, 0));
        assertThat(limited.ledger.usage(b)).isEqualTo(new SoftProtectionDomain.MemoryLedger.Usage(2, 0, QUOTA_BYTES));
        assertThat(register(a, QUOTA_BYTES)).isNotNull();
    }

    @Test
    void movingARegionInMayFillTheRegionQuotaExactlyNotOneRegionMore_R_SEC_024_V_MR_51() {
        register(b, 1);
        MemoryRegion fits = register(a, 1);
        MemoryRegion over = register(a, 1);
        reregister(fits, b, 1); // b's second region: exactly the quota
        assertThat(fits.query().pdId()).isEqualTo(b.id());
        assertRefusedAndDeallocated(over, () -> reregister(over, b, 1), "maxMrs=2", b);
        assertThat(limited.ledger.usage(b)).isEqualTo(new SoftProtectionDomain.MemoryLedger.Usage(2, 0, 2));
        assertThat(limited.ledger.usage(a).regions()).isZero();
    }

    @Test
    void growingARegionInItsPdMayFillTheByteQuotaExactlyNotOneByteMore_R_SEC_024_V_MR_51() {
        register(a, PAGE);
        MemoryRegion grown = register(a, PAGE);
        reregister(grown, a, 2 * PAGE); // 1 + 2 pages: exactly the quota
        reregister(grown, a, 2 * PAGE); // at the quota, the same length again is no growth
        reregister(grown, b, 2 * PAGE); // moved out: a has its two pages back
        reregister(grown, a, 2 * PAGE); // and in again, to exactly the quota
        assertThat(limited.ledger.usage(a).bytes()).isEqualTo(QUOTA_BYTES);
        assertRefusedAndDeallocated(grown, () -> reregister(grown, a, 2 * PAGE + 1),
                "maxRegisteredBytes=" + QUOTA_BYTES, a);
        assertThat(limited.ledger.usage(a)).isEqualTo(new SoftProtectionDomain.MemoryLedger.Usage(1, 0, PAGE));
    }

    @Test
    void shrinkingIsNeverRefusedAndAFastRegisterStagKeepsItsReservedPbl_R_SEC_024() {
        MemoryRegion region = register(a, PAGE);
        MemoryRegion stag = a.allocateRegionStag(2, false); // reserves 2 pages: a is at its quota
        reregister(region, a, 1); // smaller: nothing to check
        reregister(stag, a, PAGE); // within the reserved PBL: charged 2 pages as before
        reregister(stag, a, 2 * PAGE);
        assertThat(limited.ledger.usage(a)).isEqualTo(new SoftProtectionDomain.MemoryLedger.Usage(2, 0, 2 * PAGE + 1));
        reregister(region, a, PAGE); // back to 1 page: exactly the quota
        assertRefusedAndDeallocated(stag, () -> reregister(stag, a, 2 * PAGE + 1),
                "maxRegisteredBytes=" + QUOTA_BYTES, a);
    }

    @Test
    void withoutAMemoryQuotaReregisterIsNotAccounted() {
        SoftProtectionDomain p = pd();
        SoftProtectionDomain q = pd();
        MemoryRegion mr = p.registerMemory(m, AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256);
        mr.reregister(q, m, AccessRights.LOCAL, 1, AddressType.VA_BASED, m.address(), false, VerifyHash.SHA_256);
        assertThat(mr.query().pdId()).isEqualTo(q.id());
        assertThat(manager.ledger).isNull();
    }
}
