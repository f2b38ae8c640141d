package io.jrnic.examples.kv;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The slot layout's promise to a client that reads a slot with an RDMA Read while the server
 * rewrites it: any mix of the old and the new bytes is caught by the checksum, and an occupied
 * slot never looks empty.
 */
class KvTableTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aSlotReadWhileItWasRewrittenIsNotIntactAndNeverEmpty() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment before = arena.allocate(KvTable.SLOT_BYTES);
            MemorySegment after = arena.allocate(KvTable.SLOT_BYTES);
            // version 255 -> 256: the byte-wise mix of the two versions can be 0
            KvTable.write(before, 255, utf8("key"), utf8("an old value that is rather longer"));
            KvTable.write(after, 256, utf8("key"), utf8("new"));
            assertThat(KvTable.intact(before)).isTrue();
            assertThat(KvTable.intact(after)).isTrue();
            MemorySegment torn = arena.allocate(KvTable.SLOT_BYTES);
            for (int cut = 1; cut < KvTable.SLOT_BYTES; cut++) {
                // a Read that copied [0, cut) after the update and the rest before it, and the reverse
                for (boolean newFirst : new boolean[] {true, false}) {
                    MemorySegment head = newFirst ? after : before;
                    MemorySegment tail = newFirst ? before : after;
                    torn.copyFrom(tail);
                    torn.asSlice(0, cut).copyFrom(head.asSlice(0, cut));
                    assertThat(KvTable.empty(torn)).as("cut %d", cut).isFalse();
                    if (torn.mismatch(before) != -1 && torn.mismatch(after) != -1) {
                        assertThat(KvTable.intact(torn)).as("cut %d, new first %s", cut, newFirst).isFalse();
                    }
                }
            }
        }
    }

    @Test
    void aNeverWrittenSlotIsEmptyAndAWrittenOneHoldsItsKeyAndValue() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment slot = arena.allocate(KvTable.SLOT_BYTES);
            assertThat(KvTable.empty(slot)).isTrue();
            KvTable.write(slot, 1, utf8("colour"), utf8("blue"));
            assertThat(KvTable.empty(slot)).isFalse();
            assertThat(KvTable.holds(slot, utf8("colour"))).isTrue();
            assertThat(KvTable.holds(slot, utf8("colours"))).isFalse();
            assertThat(new String(KvTable.value(slot), StandardCharsets.UTF_8)).isEqualTo("blue");
            assertThat(KvTable.version(slot)).isEqualTo(1);
            assertThat(KvTable.home(utf8("colour"), 1024)).isBetween(0, 1023);
        }
    }
}
