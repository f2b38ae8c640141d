package io.jrnic.core.mem;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.StagState;
import io.jrnic.api.ResourceQuota;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.VerifyHash;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.rdmap.RdmapError;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * STag indices: a table slot below random bits, so they cannot be predicted (RFC 5042 §5.1.2);
 * and the request-target check on its own, given a PD and a QP number (issue 10).
 */
class StagTableTest extends MemoryFixture {

    @Test
    void indicesCarryRandomBitsAboveTheSlot_R_SEC_018() {
        StagTable table = new StagTable(1000, MemorySegment.NULL); // 10 slot bits, 14 random bits
        Set<Integer> slots = new HashSet<>();
        Set<Integer> high = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int index = table.reserve();
            assertThat(index).isPositive().isLessThan(1 << 24);
            assertThat(slots.add(index & 0x3FF)).isTrue(); // every slot once
            high.add(index >>> 10);
        }
        // 200 draws of 14 random bits: all equal (a counter would give one value) is impossible
        assertThat(high.size()).isGreaterThan(100);
    }

    @Test
    void reusedSlotGetsANewIndex_R_SEC_018() {
        StagTable table = new StagTable(8, MemorySegment.NULL);
        Set<Integer> indices = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            int index = table.reserve();
            indices.add(index);
            table.release(index); // LIFO: the same slot comes back next time
        }
        assertThat(indices.stream().map(x -> x & 0xF).distinct()).hasSize(1);
        assertThat(indices).hasSizeGreaterThan(1); // 20 random bits: five equal draws won't happen
    }

    @Test
    void requestTargetOfARegionIsCheckedAgainstThePdAlone_RFC5040_7_2() {
        SoftProtectionDomain pd = pd();
        SoftProtectionDomain other = pd();
        MemorySegment m = memory(1);
        int rights = AccessRights.LOCAL_READ | AccessRights.REMOTE_READ;
        SoftMemoryRegion mr = manager.register(pd, m, rights, 0x21, AddressType.VA_BASED, m.address(), true,
                VerifyHash.SHA_256);
        int stag = mr.stag();
        long to = m.address();
        int read = AccessRights.REMOTE_READ;
        // any QP number of the PD: a region belongs to a PD, not to a QP
        assertThat(table.checkRequestTarget(pd, 1, stag, to, PAGE, read, 0, true)).isNull();
        assertThat(table.checkRequestTarget(pd, 99, stag, to + 10, 20, read, 0, true)).isNull();
        // in the order of RFC 5040 §7.2 / RFC 5042 §5: STag and key, PD, right, wrap, bounds
        assertThat(table.checkRequestTarget(pd, 1, stag ^ 1, to, 1, read, 0, true))
                .isEqualTo(RdmapError.INVALID_STAG);
        assertThat(table.checkRequestTarget(pd, 1, stag & 0xFF, to, 1, read, 0, true))
                .isEqualTo(RdmapError.INVALID_STAG); // index 0: STag 0 is never a remote target
        assertThat(table.checkRequestTarget(other, 1, stag, to, 1, read, 0, true))
                .isEqualTo(RdmapError.STAG_NOT_ASSOCIATED);
        assertThat(table.checkRequestTarget(pd, 1, stag, to, 1, AccessRights.REMOTE_WRITE, 0, true))
                .isEqualTo(RdmapError.ACCESS_RIGHTS_VIOLATION);
        assertThat(table.checkRequestTarget(pd, 1, stag, to, 1, 0, AccessRights.REMOTE_ATOMIC, true))
                .isEqualTo(RdmapError.ACCESS_RIGHTS_VIOLATION); // none of anyOf
        assertThat(table.checkRequestTarget(pd, 1, stag, to, 1, read, 0, false))
                .isEqualTo(RdmapError.ACCESS_RIGHTS_VIOLATION); // not enabled on the QP
        assertThat(table.checkRequestTarget(pd, 1, stag, -8, 16, read, 0, true)).isEqualTo(RdmapError.TO_WRAP);
        assertThat(table.checkRequestTarget(pd, 1, stag, to + 1, PAGE, read, 0, true))
                .isEqualTo(RdmapError.BASE_OR_BOUNDS_VIOLATION);
    }

    @Test
    void requestTargetOfAWindowNeedsTheQpNumberItIsBoundTo_RFC5040_7_2_V_MW_30() {
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        SoftMemoryRegion mr = manager.register(pd, m, AccessRights.LOCAL | AccessRights.REMOTE_READ
                | AccessRights.BIND_WINDOW, 0x21, AddressType.VA_BASED, m.address(), true, VerifyHash.SHA_256);
        SoftMemoryWindow mw = manager.allocateWindow(pd);
        FakeQp qp = new FakeQp(pd, 7).enables(false, true, true, false);
        int stag = mw.stag() & ~0xFF | 0x42;
        assertThat(manager.bind(qp, stag, mr.stag(), m.address(), 64, AddressType.VA_BASED,
                AccessRights.REMOTE_READ)).isNull();
        int read = AccessRights.REMOTE_READ;
        assertThat(table.checkRequestTarget(pd, 7, stag, m.address(), 64, read, 0, true)).isNull();
        // the same PD is not enough: another QP of it may not use the window (RFC 5040 §8.1.1 (7))
        assertThat(table.checkRequestTarget(pd, 8, stag, m.address(), 64, read, 0, true))
                .isEqualTo(RdmapError.STAG_NOT_ASSOCIATED);
        assertThat(table.checkRequestTarget(pd, 7, stag, m.address(), 65, read, 0, true))
                .isEqualTo(RdmapError.BASE_OR_BOUNDS_VIOLATION);
    }

    @Test
    void anStagWhoseLow24BitsAreZeroIsAnOrdinaryStag_V_MR_19() {
        // slot 0x10000 of a 17-bit table: index = random << 17 | 0x10000, so with key 0 the STag's
        // low 24 bits are all zero; only index 0 (the top 24 bits) is STag 0 (Verbs §7.2.1)
        StagTable big = new StagTable(0x10001, MemorySegment.NULL);
        for (int i = 1; i < 0x10000; i++) {
            big.reserve();
        }
        MemoryManager mm = new MemoryManager(owner, big, PAGE, 16, 4, 4, ResourceQuota.UNLIMITED);
        SoftProtectionDomain pd = new SoftProtectionDomain(mm, owner, 1);
        MemorySegment m = memory(1);
        int rights = AccessRights.LOCAL | AccessRights.REMOTE_READ | AccessRights.REMOTE_WRITE
                | AccessRights.BIND_WINDOW;
        SoftMemoryRegion mr = mm.register(pd, m, rights, 0, AddressType.VA_BASED, m.address(), true,
                VerifyHash.SHA_256);
        int stag = mr.stag();
        assertThat(stag & 0xFF_FFFF).isZero();
        assertThat(stag).isNotZero();
        long to = m.address();
        assertThat(big.checkLocal(stag, to, 8, pd, false, AccessRights.LOCAL_READ)).isNull();
        MemorySegment[] memory = new MemorySegment[1];
        long[] offset = {-1};
        assertThat(big.resolveLocal(stag, to + 8, 8, pd, false, AccessRights.LOCAL_READ, memory, offset, 0)).isNull();
        assertThat(memory[0]).isSameAs(m);
        assertThat(offset[0]).isEqualTo(8);
        assertThat(big.checkRequestTarget(pd, 1, stag, to, 8, AccessRights.REMOTE_READ, 0, true)).isNull();
        SoftMemoryWindow mw = mm.allocateWindow(pd);
        FakeQp qp = new FakeQp(pd, 1).enables(false, true, false, true);
        assertThat(mm.bind(qp, mw.stag(), stag, to, 8, AddressType.VA_BASED, AccessRights.REMOTE_READ)).isNull();
        assertThat(mm.invalidateLocal(qp, mw.stag())).isNull();
        assertThat(mm.invalidateRemote(qp, stag)).isNull();
        assertThat(mr.binding.state()).isEqualTo(StagState.INVALID);
        assertThat(mm.invalidateLocal(qp, stag)).isNull(); // Invalid already: allowed again (§7.8)
    }

    @Test
    void stagZeroReachesExactlyThePhysicalMemory_V_MR_19() {
        MemorySegment physical = memory(1);
        StagTable t = new StagTable(8, physical);
        SoftProtectionDomain pd = pd();
        long base = physical.address();
        int read = AccessRights.LOCAL_READ;
        assertThat(t.checkLocal(0, base, PAGE, pd, true, read)).isNull();
        assertThat(t.checkLocal(0, base + PAGE - 1, 1, pd, true, AccessRights.LOCAL_WRITE)).isNull();
        assertThat(t.checkLocal(0, base - 1, 1, pd, true, read))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(t.checkLocal(0, base + PAGE, 1, pd, true, read))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(t.checkLocal(0, base + 1, PAGE, pd, true, read))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        // enabled per QP (V-QP-12); index 0 with a key is no STag at all
        assertThat(t.checkLocal(0, base, 1, pd, false, read)).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertThat(t.checkLocal(5, base, 1, pd, true, read)).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertThat(t.resolveMemory(0, base + 10)).isEqualTo(physical);
        assertThat(t.resolveOffset(0, base + 10)).isEqualTo(10);
        // an unknown STag resolves to nothing
        assertThat(t.resolveMemory(0x1234_5601, base)).isEqualTo(MemorySegment.NULL);
        assertThat(t.resolveOffset(0x1234_5601, base)).isZero();
    }

    @Test
    void resolveLocalGivesCheckLocalsVerdictAndResolvesExactlyTheSgesThatPass_V_MR_75() {
        MemorySegment physical = memory(1);
        StagTable t = new StagTable(16, physical);
        MemoryManager mm = new MemoryManager(owner, t, PAGE, 16, 4, 4, ResourceQuota.UNLIMITED);
        SoftProtectionDomain pd = new SoftProtectionDomain(mm, owner, 1);
        SoftProtectionDomain other = new SoftProtectionDomain(mm, owner, 2);
        MemorySegment m = memory(1);
        long baseTo = 0x7000_0000L;
        SoftMemoryRegion mr = mm.register(pd, m, AccessRights.LOCAL_READ | AccessRights.BIND_WINDOW, 0x21,
                AddressType.VA_BASED, baseTo, true, VerifyHash.SHA_256);
        SoftMemoryWindow mw = mm.allocateWindow(pd);
        int stag = mr.stag();
        // a window bound over the region is valid, yet never an SGE (V-WR-40)
        FakeQp qp = new FakeQp(pd, 1).enables(false, true, false, true);
        assertThat(mm.bind(qp, mw.stag(), stag, baseTo, 64, AddressType.VA_BASED, AccessRights.REMOTE_READ)).isNull();
        int read = AccessRights.LOCAL_READ;
        long phys = physical.address();
        record Sge(int stag, long to, long length, SoftProtectionDomain pd, boolean zero, int right,
                   MemorySegment memory, long offset) { }
        Sge[] sges = {
            new Sge(stag, baseTo + 100, 32, pd, false, read, m, 100),              // passes: offset from the base TO
            new Sge(stag, baseTo, PAGE, pd, false, read, m, 0),
            new Sge(0, phys + 10, 8, pd, true, read, physical, 10),                // STag 0 (V-MR-16)
            new Sge(stag ^ 1, baseTo, 8, pd, false, read, null, 0),                // wrong key
            new Sge(stag + 0x100, baseTo, 8, pd, false, read, null, 0),            // no such index
            new Sge(stag, baseTo, 8, other, false, read, null, 0),                 // another PD
            new Sge(stag, baseTo, 8, pd, false, AccessRights.LOCAL_WRITE, null, 0), // right not granted
            new Sge(stag, -8, 16, pd, false, read, null, 0),                       // TO wraps
            new Sge(stag, baseTo + 1, PAGE, pd, false, read, null, 0),             // out of bounds
            new Sge(mw.stag(), baseTo, 8, pd, false, read, null, 0),               // a bound window (V-WR-40)
            new Sge(0, phys, 8, pd, false, read, null, 0),                         // STag 0 not enabled
            new Sge(0, phys + PAGE, 1, pd, true, read, null, 0),                   // STag 0 beyond the memory
            new Sge(stag ^ 1, baseTo, 0, pd, false, read, null, 0),                // zero length: never checked
        };
        for (Sge s : sges) {
            MemorySegment[] memory = {MemorySegment.NULL, MemorySegment.NULL};
            long[] offset = {-1, -1};

            WorkCompletionStatus st = t.resolveLocal(s.stag(), s.to(), s.length(), s.pd(), s.zero(), s.right(),
                    memory, offset, 1);

            assertThat(st).as("%s", s).isEqualTo(t.checkLocal(s.stag(), s.to(), s.length(), s.pd(), s.zero(),
                    s.right()));
            assertThat(st == null).as("%s passes", s).isEqualTo(s.memory() != null || s.length() == 0);
            assertThat(memory[0]).isEqualTo(MemorySegment.NULL);
            assertThat(offset[0]).isEqualTo(-1);
            if (s.memory() != null) {
                assertThat(memory[1]).as("%s", s).isSameAs(s.memory());
                assertThat(offset[1]).as("%s", s).isEqualTo(s.offset());
            } else {
                assertThat(memory[1]).as("%s resolves nothing", s).isEqualTo(MemorySegment.NULL);
                assertThat(offset[1]).as("%s", s).isEqualTo(-1);
            }
        }
    }

    @Test
    void everySlotOfTheTableIsUsableAndAFreedSlotIsReused_V_MR_19() {
        StagTable small = new StagTable(3, MemorySegment.NULL);
        MemoryManager mm = new MemoryManager(owner, small, PAGE, 16, 8, 8, ResourceQuota.UNLIMITED);
        SoftProtectionDomain pd = new SoftProtectionDomain(mm, owner, 1);
        MemorySegment m = memory(1);
        SoftMemoryRegion[] regions = new SoftMemoryRegion[3];
        for (int i = 0; i < 3; i++) {
            regions[i] = mm.register(pd, m, AccessRights.LOCAL, i, AddressType.VA_BASED, m.address(), false,
                    VerifyHash.SHA_256);
            assertThat(small.lookupValid(regions[i].stag())).isSameAs(regions[i].binding);
        }
        assertThat(mm.liveEntries(3)).containsExactlyInAnyOrder(regions);
        assertThatThrownBy(() -> mm.allocateWindow(pd)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("STag table full");
        regions[1].close();
        assertThat(small.lookup(regions[1].stag())).isNull();
        assertThat(mm.liveEntries(3)).containsExactlyInAnyOrder(regions[0], regions[2]);
        SoftMemoryWindow mw = mm.allocateWindow(pd); // the freed slot
        assertThat(mm.liveEntries(3)).containsExactlyInAnyOrder(regions[0], mw, regions[2]);
        mw.close();
        assertThat(mm.liveEntries(3)).containsExactlyInAnyOrder(regions[0], regions[2]);
        assertThat(mm.register(pd, m, AccessRights.LOCAL, 9, AddressType.VA_BASED, m.address(), false,
                VerifyHash.SHA_256)).isNotNull();
    }

    @Test
    void liveEntriesFindsEntriesWhateverTheirRandomBits_V_RNIC_Close() {
        // the fixture's table has 64 slots and 17 random bits above them (R-SEC-018)
        SoftProtectionDomain pd = pd();
        MemorySegment m = memory(1);
        SoftMemoryRegion mr = manager.register(pd, m, AccessRights.LOCAL, 1, AddressType.VA_BASED, m.address(),
                false, VerifyHash.SHA_256);
        SoftMemoryWindow mw = manager.allocateWindow(pd);
        assertThat(mr.index >>> 7 | mw.index >>> 7).as("random bits").isNotZero();
        assertThat(manager.liveEntries(64)).containsExactlyInAnyOrder(mr, mw);
    }

    @Test
    void theLargestTableHas24SlotBitsAndNoRandomBits_R_SEC_018() {
        StagTable largest = new StagTable(1 << 23, MemorySegment.NULL); // slots 1 .. 2^23: 24 bits
        assertThat(largest.reserve()).isOne();
        assertThatThrownBy(() -> new StagTable(1 << 24, MemorySegment.NULL))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
