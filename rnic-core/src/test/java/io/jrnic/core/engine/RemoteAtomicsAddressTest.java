package io.jrnic.core.engine;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The address the responder's atomic alignment check is applied to (RFC 7306 §5.1, AMB-28): the
 * target's effective address, the memory's address plus the offset, so that memory which itself
 * starts off an 8-byte boundary is judged by where the 8 bytes really are.
 */
class RemoteAtomicsAddressTest {
    @Test
    void theAlignmentCheckSeesTheEffectiveAddressOfTheTarget_AMB_28() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(64, 8);
            MemorySegment region = page.asSlice(2); // memory that starts 2 bytes past an 8-byte boundary
            assertThat(RemoteAtomics.address(region, 6)).isEqualTo(page.address() + 8); // aligned
            assertThat(RemoteAtomics.address(region, 0) % 8).isEqualTo(2);
            assertThat(RemoteAtomics.address(region, 14) % 8).isZero();
        }
    }
}
