package io.jrnic.core.mem;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.VerifyHash;
import io.jrnic.rdmap.RdmapError;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

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
}
