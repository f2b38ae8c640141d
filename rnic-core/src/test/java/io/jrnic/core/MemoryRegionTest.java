package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryRegionAttributes;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.StagState;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.mem.StagTable;
import io.jrnic.core.qp.SoftQueuePair;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jrnic.api.AccessRights.LOCAL_READ;
import static io.jrnic.api.AccessRights.LOCAL_WRITE;
import static io.jrnic.api.AccessRights.REMOTE_READ;
import static io.jrnic.api.AccessRights.REMOTE_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryRegionTest extends VerbsFixture {

    private static void assertStatus(Runnable r, VerbsStatus status) {
        assertThatThrownBy(r::run).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(status);
    }

    private MemorySegment mem(long size) {
        return rnic.allocateMemory(size, 4096);
    }

    @Test
    void stagIsIndexAndConsumerKey_V_DEF_1_V_MR_10_V_MR_12_V_MR_19() {
        MemoryRegion mr = pd.registerMemory(mem(4096), LOCAL_READ, 0xAB, AddressType.VA_BASED, mem(1).address() & ~4095L,
                false);
        assertThat(mr.key()).isEqualTo(0xAB);
        assertThat(mr.stagIndex()).isPositive().isLessThan(1 << 24);
        assertThat(mr.stag()).isEqualTo(mr.stagIndex() << 8 | 0xAB);
        assertThatThrownBy(() -> pd.registerMemory(mem(64), LOCAL_READ, 256, AddressType.ZERO_BASED, 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
    }

    @Test
    void vaBasedAndZeroBasedRegions_V_MR_38_V_MR_93_V_MR_94_V_MR_99_V_DEF_7() {
        MemorySegment m = mem(8192);
        MemoryRegion va = pd.registerMemory(m, LOCAL_READ | LOCAL_WRITE);
        MemoryRegion zb = pd.registerMemory(m, LOCAL_READ, 1, AddressType.ZERO_BASED, 0, false);
        assertThat(va.query().baseTo()).isEqualTo(m.address());
        assertThat(va.query().addressType()).isEqualTo(AddressType.VA_BASED);
        assertThat(zb.query().baseTo()).isZero();
        SoftQueuePair qp = (SoftQueuePair) qp();
        StagTable t = rnic.stags;
        // VA-based: TO = VA; zero-based: TO = offset; both resolve to the same byte
        assertThat(t.checkLocal(va.stag(), m.address() + 100, 8, qp.pd(), false, LOCAL_READ)).isNull();
        assertThat(t.resolveOffset(va.stag(), m.address() + 100)).isEqualTo(100);
        assertThat(t.checkLocal(zb.stag(), 100, 8, qp.pd(), false, LOCAL_READ)).isNull();
        assertThat(t.resolveOffset(zb.stag(), 100)).isEqualTo(100);
        assertThat(t.resolveMemory(zb.stag(), 100)).isEqualTo(m);
    }

    @Test
    void arbitraryVaWithSamePageOffset_V_MR_95_V_MR_97_V_MR_98_V_MR_104() {
        MemorySegment m = mem(8192).asSlice(100, 5000);
        MemoryRegion mr = pd.registerMemory(m, LOCAL_READ, 0, AddressType.VA_BASED, 0x7000_0000_0000L + 100, false);
        assertThat(mr.query().baseTo()).isEqualTo(0x7000_0000_0000L + 100);
        assertThat(mr.query().pblEntries()).isEqualTo(2);
        assertStatus(() -> pd.registerMemory(m, LOCAL_READ, 0, AddressType.VA_BASED, 0x7000_0000_0000L + 101, false),
                VerbsStatus.INVALID_VA);
        assertStatus(() -> pd.registerMemory(m, LOCAL_READ, 0, AddressType.VA_BASED, -4096L + 100, false),
                VerbsStatus.INVALID_VA); // wraps
    }

    @Test
    void everyRightsCombinationOfFigure18IsEnforced_V_MR_74_V_MR_78_V_MR_79_V_VERB_RegNSMR_2() {
        MemorySegment m = mem(64);
        for (int rights = 0; rights < 16; rights++) {
            final int r = rights;
            if (AccessRights.isValidRegionCombination(r)) {
                MemoryRegion mr = pd.registerMemory(m, r, 0, AddressType.ZERO_BASED, 0, true);
                assertThat(mr.query().accessRights()).isEqualTo(r);
                mr.close();
            } else {
                assertStatus(() -> pd.registerMemory(m, r, 0, AddressType.ZERO_BASED, 0, true),
                        VerbsStatus.INVALID_ACCESS_RIGHTS);
            }
        }
    }

    @Test
    void remoteRightsNeedRemoteAccessFlag_V_MR_44_V_MR_72() {
        assertStatus(() -> pd.registerMemory(mem(64), LOCAL_READ | REMOTE_READ, 0, AddressType.ZERO_BASED, 0, false),
                VerbsStatus.INVALID_ACCESS_RIGHTS);
        MemoryRegion mr = pd.registerMemory(mem(64), LOCAL_READ, 0, AddressType.ZERO_BASED, 0, true);
        assertThat(mr.query().remoteAccess()).isTrue();
    }

    @Test
    void flushablePersistentNeedsMappedMemory_C_ATTR_003() throws Exception {
        assertStatus(() -> pd.registerMemory(mem(64), LOCAL_WRITE | REMOTE_WRITE | AccessRights.FLUSHABLE_PERSISTENT,
                0, AddressType.ZERO_BASED, 0, true), VerbsStatus.INVALID_ACCESS_RIGHTS);
        java.nio.file.Path f = java.nio.file.Files.createTempFile("jrnic", ".pmem");
        try (Arena arena = Arena.ofShared();
             java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(f,
                     java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            MemorySegment mapped = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
            MemoryRegion mr = pd.registerMemory(mapped, LOCAL_WRITE | REMOTE_WRITE | AccessRights.FLUSHABLE_PERSISTENT
                    | AccessRights.FLUSHABLE_GLOBAL, 0, AddressType.ZERO_BASED, 0, true);
            assertThat(mr.query().accessRights() & AccessRights.FLUSHABLE_PERSISTENT).isNotZero();
            mr.close();
        } finally {
            java.nio.file.Files.deleteIfExists(f);
        }
    }

    @Test
    void heapSegmentsAndOversizedRegionsAreRefused_V_MR_37() {
        assertStatus(() -> pd.registerMemory(MemorySegment.ofArray(new byte[16]), LOCAL_READ, 0,
                AddressType.ZERO_BASED, 0, false), VerbsStatus.INVALID_PBL_ENTRY);
        try (SoftRnic small = SoftRnic.open(config().memoryLimits(4, 4, 4, 2))) {
            ProtectionDomain p = small.allocatePd();
            MemorySegment big = small.allocateMemory(3 * 4096, 4096);
            assertStatus(() -> p.registerMemory(big, LOCAL_READ, 0, AddressType.ZERO_BASED, 0, false),
                    VerbsStatus.INVALID_LENGTH);
            // a failed registration consumes nothing: all 4 region slots are still free
            for (int i = 0; i < 4; i++) {
                p.registerMemory(big.asSlice(0, 4096), LOCAL_READ, 0, AddressType.ZERO_BASED, 0, false);
            }
        }
    }

    @Test
    void queryReturnsEveryAttribute_V_MR_111_V_VERB_QueryMR_2() {
        MemorySegment m = mem(10_000);
        MemoryRegion mr = pd.registerMemory(m, LOCAL_READ | LOCAL_WRITE | REMOTE_WRITE | AccessRights.BIND_WINDOW, 7,
                AddressType.VA_BASED, m.address(), true);
        MemoryRegionAttributes a = mr.query();
        assertThat(a.stag()).isEqualTo(mr.stag());
        assertThat(a.state()).isEqualTo(StagState.VALID);
        assertThat(a.shared()).isFalse();
        assertThat(a.pdId()).isEqualTo(pd.id());
        assertThat(a.remoteAccess()).isTrue();
        assertThat(a.accessRights()).isEqualTo(LOCAL_READ | LOCAL_WRITE | REMOTE_WRITE | AccessRights.BIND_WINDOW);
        assertThat(a.length()).isEqualTo(10_000);
        assertThat(a.pblEntries()).isEqualTo(3);
        assertThat(a.boundWindows()).isZero();
    }

    @Test
    void deallocateRevokesAccessAndFreesTheIndex_V_MR_125_V_MR_126_V_MR_128_V_MR_129_V_MR_130() {
        MemorySegment m = mem(64);
        MemoryRegion mr = pd.registerMemory(m, LOCAL_READ, 3, AddressType.ZERO_BASED, 0, false);
        SoftQueuePair qp = (SoftQueuePair) qp();
        int stag = mr.stag();
        mr.close();
        assertThat(rnic.stags.checkLocal(stag, 0, 8, qp.pd(), false, LOCAL_READ))
                .isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertStatus(mr::close, VerbsStatus.INVALID_STAG_INDEX);
        assertStatus(mr::query, VerbsStatus.INVALID_STAG_INDEX);
        MemoryRegion invalid = pd.allocateRegionStag(1, false);
        invalid.close(); // an Invalid STag can be deallocated too: no state check
    }

    @Test
    void overlappingRegionsAreIndependent_V_MR_86_V_MR_113_V_MR_127() {
        MemorySegment m = mem(4096);
        MemoryRegion a = pd.registerMemory(m, LOCAL_READ);
        MemoryRegion b = pd.registerMemory(m.asSlice(0, 100), LOCAL_WRITE);
        assertThat(a.stagIndex()).isNotEqualTo(b.stagIndex());
        SoftQueuePair qp = (SoftQueuePair) qp();
        a.close();
        assertThat(rnic.stags.checkLocal(b.stag(), m.address(), 100, qp.pd(), false, LOCAL_WRITE)).isNull();
    }

    @Test
    void localChecksCoverKeyPdRightsBoundsWrapAndZeroLength_V_MR_73_V_MR_75_V_MR_76_V_MR_77_V_MR_107_V_MR_109_V_MR_110() {
        MemorySegment m = mem(4096);
        MemoryRegion mr = pd.registerMemory(m, LOCAL_READ, 5, AddressType.VA_BASED, m.address(), false);
        SoftProtectionDomain p = (SoftProtectionDomain) pd;
        SoftProtectionDomain other = (SoftProtectionDomain) rnic.allocatePd();
        StagTable t = rnic.stags;
        long va = m.address();
        assertThat(t.checkLocal(mr.stag(), va, 4096, p, false, LOCAL_READ)).isNull();
        assertThat(t.checkLocal(mr.stag() ^ 1, va, 1, p, false, LOCAL_READ)).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertThat(t.checkLocal(mr.stag(), va, 1, other, false, LOCAL_READ)).isEqualTo(WorkCompletionStatus.INVALID_PD_ID);
        assertThat(t.checkLocal(mr.stag(), va, 1, p, false, LOCAL_WRITE))
                .isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION);
        assertThat(t.checkLocal(mr.stag(), va, 4097, p, false, LOCAL_READ))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(t.checkLocal(mr.stag(), va - 1, 2, p, false, LOCAL_READ))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(t.checkLocal(mr.stag(), -2, 4, p, false, LOCAL_READ)).isEqualTo(WorkCompletionStatus.WRAP_ERROR);
        // zero length: nothing is checked, not even the STag
        assertThat(t.checkLocal(0xDEAD_BE00, 0, 0, other, false, LOCAL_WRITE)).isNull();
        // remote rights are never used for SGEs
        MemoryRegion rw = pd.registerMemory(m, LOCAL_WRITE | REMOTE_WRITE, 0, AddressType.ZERO_BASED, 0, true);
        assertThat(t.checkLocal(rw.stag(), 0, 1, p, false, LOCAL_READ)).isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION);
    }

    @Test
    void stagZeroRules_V_MR_16_V_MR_20_V_MR_21_V_MR_22_V_MR_23_V_MR_24_V_MR_27() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment phys = arena.allocate(4096);
            try (SoftRnic r = SoftRnic.open(config().physicalMemory(phys))) {
                ProtectionDomain p = r.allocatePd();
                io.jrnic.api.CompletionQueue c = r.createCq(8);
                SoftQueuePair priv = (SoftQueuePair) p.createQueuePair(new QueuePairConfig().cqs(c, c).privileged(true));
                SoftQueuePair plain = (SoftQueuePair) p.createQueuePair(new QueuePairConfig().cqs(c, c));
                SoftProtectionDomain other = (SoftProtectionDomain) r.allocatePd();
                StagTable t = r.stags;
                // local read and write, no PD check, TO = physical address
                assertThat(t.checkLocal(0, phys.address() + 10, 10, other, true, LOCAL_WRITE)).isNull();
                assertThat(t.checkLocal(0, phys.address() + 10, 10, other, true, LOCAL_READ)).isNull();
                assertThat(t.checkLocal(0, phys.address() + 4090, 10, other, true, LOCAL_READ))
                        .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
                // not enabled on the QP
                assertThat(t.checkLocal(0, phys.address(), 1, plain.pd(), plain.privileged(), LOCAL_READ))
                        .isEqualTo(WorkCompletionStatus.INVALID_STAG);
                // index 0 with a non-zero key is not STag 0
                assertThat(t.checkLocal(0x01, phys.address(), 1, priv.pd(), true, LOCAL_READ))
                        .isEqualTo(WorkCompletionStatus.INVALID_STAG);
                // never remote
                assertThat(t.checkRequestTarget(priv.pd(), priv.id(), 0, phys.address(), 1, REMOTE_READ, 0, true))
                        .isEqualTo(io.jrnic.rdmap.RdmapError.INVALID_STAG);
                assertThat(t.lookupValid(0)).isNull(); // the tagged placement path finds nothing either
                // STag 0 as input to memory verbs
                assertThatThrownBy(() -> p.registerSharedMemory(0, LOCAL_READ, 0, AddressType.ZERO_BASED, 0))
                        .isInstanceOf(VerbsException.class)
                        .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_STAG_INDEX);
            }
        }
    }

    @Test
    void allocateStagIsInvalidUntilFastRegistered_V_MR_40_V_MR_41_V_MR_43_V_VERB_AllocNSMR_2() {
        MemoryRegion s = pd.allocateRegionStag(4, true);
        MemoryRegionAttributes a = s.query();
        assertThat(a.state()).isEqualTo(StagState.INVALID);
        assertThat(a.pblEntries()).isEqualTo(4);
        assertThat(a.remoteAccess()).isTrue();
        assertThat(s.stagIndex()).isPositive();
        SoftQueuePair qp = (SoftQueuePair) qp();
        assertThat(rnic.stags.checkLocal(s.stag(), 0, 1, qp.pd(), false, LOCAL_READ))
                .isEqualTo(WorkCompletionStatus.INVALID_STAG); // V-MR-28
        assertStatus(() -> pd.allocateRegionStag(0, false), VerbsStatus.INVALID_LENGTH);
        assertStatus(() -> pd.allocateRegionStag((1 << 20) + 1, false), VerbsStatus.INVALID_LENGTH);
    }

    @Test
    void registerSharedCreatesNewStagOverSameMemory_V_MR_55_V_MR_57_V_MR_59_V_MR_60_V_MR_87_V_VERB_RegSMR_1() {
        MemorySegment m = mem(8192);
        MemoryRegion base = pd.registerMemory(m, LOCAL_READ | LOCAL_WRITE, 9, AddressType.VA_BASED, m.address(), false);
        ProtectionDomain other = rnic.allocatePd();
        MemoryRegion shared = other.registerSharedMemory(base.stag(), LOCAL_READ, 0x42, AddressType.ZERO_BASED, 0);
        assertThat(shared.stagIndex()).isNotEqualTo(base.stagIndex());
        assertThat(shared.key()).isEqualTo(0x42);
        assertThat(shared.query().shared()).isTrue();
        assertThat(shared.query().pdId()).isEqualTo(other.id());
        assertThat(shared.query().length()).isEqualTo(8192);
        assertThat(shared.memory()).isEqualTo(m);
        MemoryRegionAttributes b = base.query();
        assertThat(b.shared()).isTrue(); // converted permanently
        assertThat(b.accessRights()).isEqualTo(LOCAL_READ | LOCAL_WRITE);
        assertThat(b.baseTo()).isEqualTo(m.address());
        MemoryRegion another = pd.registerSharedMemory(base.stag(), LOCAL_READ, 1, AddressType.VA_BASED,
                m.address() + 8192 * 16);
        assertThat(another.query().baseTo()).isEqualTo(m.address() + 8192 * 16);
    }

    @Test
    void registerSharedChecks_V_MR_55_V_MR_57_V_MR_58_V_MW_4() {
        MemorySegment m = mem(4096);
        MemoryRegion base = pd.registerMemory(m, LOCAL_READ, 9, AddressType.VA_BASED, m.address(), false);
        assertStatus(() -> pd.registerSharedMemory(base.stag() ^ 1, LOCAL_READ, 0, AddressType.ZERO_BASED, 0),
                VerbsStatus.INVALID_STAG_INDEX); // key mismatch
        MemoryRegion invalid = pd.allocateRegionStag(1, false);
        assertStatus(() -> pd.registerSharedMemory(invalid.stag(), LOCAL_READ, 0, AddressType.ZERO_BASED, 0),
                VerbsStatus.INVALID_STAG_INDEX); // NSMR must be Valid
        assertStatus(() -> pd.registerSharedMemory(pd.allocateWindow().stag(), LOCAL_READ, 0, AddressType.ZERO_BASED, 0),
                VerbsStatus.INVALID_STAG_INDEX); // windows are not regions
        assertStatus(() -> pd.registerSharedMemory(base.stag(), LOCAL_READ, 0, AddressType.VA_BASED, m.address() + 1),
                VerbsStatus.INVALID_VA); // different page offset
        assertStatus(() -> pd.registerSharedMemory(base.stag(), REMOTE_WRITE, 0, AddressType.ZERO_BASED, 0),
                VerbsStatus.INVALID_ACCESS_RIGHTS);
    }

    @Test
    void sharedRegionsCannotBeInvalidatedButCanBeDeallocated_V_MR_34_V_MR_114() {
        MemorySegment m = mem(4096);
        MemoryRegion base = pd.registerMemory(m, LOCAL_READ);
        MemoryRegion shared = pd.registerSharedMemory(base.stag(), LOCAL_READ, 0, AddressType.ZERO_BASED, 0);
        SoftQueuePair qp = (SoftQueuePair) qp();
        assertThat(rnic.memory.invalidateLocal(qp, shared.stag())).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertThat(rnic.memory.invalidateLocal(qp, base.stag())).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        shared.close();
        assertThat(base.query().state()).isEqualTo(StagState.VALID);
    }

    @Test
    void reregisterKeepsIndexAndReplacesEverything_V_MR_46_V_MR_52_V_MR_53_V_VERB_ReregNSMR_1() {
        MemorySegment m1 = mem(4096);
        MemorySegment m2 = mem(8192);
        MemoryRegion mr = pd.registerMemory(m1, LOCAL_READ, 1, AddressType.ZERO_BASED, 0, false);
        ProtectionDomain other = rnic.allocatePd();
        int stag = mr.reregister(other, m2, LOCAL_WRITE | REMOTE_WRITE, 2, AddressType.VA_BASED, m2.address(), true);
        assertThat(stag >>> 8).isEqualTo(mr.stagIndex());
        assertThat(stag & 0xFF).isEqualTo(2);
        MemoryRegionAttributes a = mr.query();
        assertThat(a.pdId()).isEqualTo(other.id());
        assertThat(a.accessRights()).isEqualTo(LOCAL_WRITE | REMOTE_WRITE);
        assertThat(a.remoteAccess()).isTrue();
        assertThat(a.baseTo()).isEqualTo(m2.address());
        assertThat(a.length()).isEqualTo(8192);
        mr.reregister(pd, m1, LOCAL_READ, 3, AddressType.ZERO_BASED, 0, false);
        assertThat(mr.key()).isEqualTo(3);
        pd.allocateRegionStag(2, false).reregister(pd, m1, LOCAL_READ, 0, AddressType.ZERO_BASED, 0, false);
        other.close(); // the old PD is no longer used
    }

    @Test
    void reregisterFailuresFollowTheSpecialRules_V_MR_47_V_MR_50_V_MR_51_V_ERR_2() {
        MemorySegment m = mem(4096);
        MemoryRegion base = pd.registerMemory(m, LOCAL_READ);
        pd.registerSharedMemory(base.stag(), LOCAL_READ, 0, AddressType.ZERO_BASED, 0);
        assertStatus(() -> base.reregister(pd, m, LOCAL_READ, 0, AddressType.ZERO_BASED, 0, false),
                VerbsStatus.INVALID_STAG_INDEX); // Shared: unchanged
        assertThat(base.query().state()).isEqualTo(StagState.VALID);
        MemoryRegion mr = pd.registerMemory(m, LOCAL_READ);
        assertStatus(() -> mr.reregister(pd, m, REMOTE_READ, 0, AddressType.ZERO_BASED, 0, true),
                VerbsStatus.INVALID_ACCESS_RIGHTS);
        assertStatus(mr::query, VerbsStatus.INVALID_STAG_INDEX); // any other failure deallocates it
    }

    /** The STag table's slot reuse seen through Register / Deregister (moved from StagTableTest, which tests the table alone). */
    @Test
    void staleStagOfAReusedSlotFindsNothing_R_SEC_018_V_MR_129() {
        try (SoftRnic rnic = SoftRnic.open(new RnicConfig().name("stag-reuse").memoryLimits(4, 4, 4, 1024));
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = rnic.allocatePd();
            MemorySegment memory = arena.allocate(4096, 4096);
            int rights = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE;
            MemoryRegion first = pd.registerMemory(memory, rights, 0x11, AddressType.ZERO_BASED, 0, false);
            int oldStag = first.stag();
            first.close();
            // same slot (LIFO) and key; a second try covers the 2^-20 case of an equal random part
            MemoryRegion second = pd.registerMemory(memory, rights, 0x11, AddressType.ZERO_BASED, 0, false);
            if (second.stag() == oldStag) {
                second.close();
                second = pd.registerMemory(memory, rights, 0x11, AddressType.ZERO_BASED, 0, false);
            }
            assertThat(second.stag()).isNotEqualTo(oldStag);
            assertThat(rnic.stags.lookupValid(oldStag)).isNull();
            assertThat(rnic.stags.lookupValid(second.stag())).isNotNull();
        }
    }
}
