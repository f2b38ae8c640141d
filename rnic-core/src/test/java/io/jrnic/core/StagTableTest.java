package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.RnicConfig;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** STag indices: a table slot below random bits, so they cannot be predicted (RFC 5042 §5.1.2). */
class StagTableTest {

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
