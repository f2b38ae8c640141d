package io.jrnic.rdmap;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class AtomicOpsTest {

    @Test
    void maskedFetchAddDropsCarryAtFieldMsb_A_ATOM_017() {
        assertThat(AtomicOps.fetchAdd(0x0000_0000_FFFF_FFFFL, 1L, 0x0000_0000_8000_0000L)).isZero();
        assertThat(AtomicOps.fetchAdd(0x00FF_00FF_00FF_00FFL, 0x0001_0001_0001_0001L, 0x8000_8000_8000_8000L))
                .isEqualTo(0x0100_0100_0100_0100L);
        // eight independent byte counters: 0xFF + 1 wraps to 0 without touching the next byte
        assertThat(AtomicOps.fetchAdd(0xFF01_FF01_FF01_FF01L, 0x0101_0101_0101_0101L, 0x8080_8080_8080_8080L))
                .isEqualTo(0x0002_0002_0002_0002L);
    }

    @Test
    void zeroMaskIsAPlain64BitAdd_A_ATOM_017() {
        assertThat(AtomicOps.fetchAdd(40L, 2L, 0L)).isEqualTo(42L);
        assertThat(AtomicOps.fetchAdd(0xFFFF_FFFF_FFFF_FFFFL, 1L, 0L)).isZero();
        assertThat(AtomicOps.fetchAdd(0x0000_0000_FFFF_FFFFL, 1L, 0L)).isEqualTo(0x1_0000_0000L);
        assertThat(AtomicOps.fetchAdd(5L, -1L, 0L)).isEqualTo(4L);
    }

    @Test
    void closedFormMatchesTheRfcBitSerialPseudocode_A_ATOM_016() {
        SplittableRandom random = new SplittableRandom(7306);
        for (int i = 0; i < 20_000; i++) {
            long original = random.nextLong();
            long add = random.nextLong();
            long mask = i % 4 == 0 ? 0L : random.nextLong() & random.nextLong();
            assertThat(AtomicOps.fetchAdd(original, add, mask))
                    .as("orig=%x add=%x mask=%x", original, add, mask)
                    .isEqualTo(rfcFetchAdd(original, add, mask));
        }
    }

    @Test
    void maskedCompareSwap_A_ATOM_018() {
        long original = 0x1122_3344_5566_7788L;
        // upper half compared and equal: lower half swapped
        assertThat(AtomicOps.compareSwap(original, 0x1122_3344_0000_0000L, 0xFFFF_FFFF_0000_0000L,
                0xAAAA_AAAA_AAAA_AAAAL, 0x0000_0000_FFFF_FFFFL)).isEqualTo(0x1122_3344_AAAA_AAAAL);
        // one compared bit differs: unchanged
        assertThat(AtomicOps.compareSwap(original, 0x1122_3345_0000_0000L, 0xFFFF_FFFF_0000_0000L,
                0xAAAA_AAAA_AAAA_AAAAL, -1L)).isEqualTo(original);
        assertThat(AtomicOps.compareMatches(original, 0x1122_3345_0000_0000L, 0xFFFF_FFFF_0000_0000L)).isFalse();
        assertThat(AtomicOps.compareMatches(original, 0x1122_3345_0000_0000L, 0xFFFF_FFFE_0000_0000L)).isTrue();
    }

    @Test
    void unmaskedAndDegenerateCompareSwap_A_ATOM_019() {
        long original = 0x1122_3344_5566_7788L;
        assertThat(AtomicOps.compareSwap(original, original, -1L, 42L, -1L)).as("plain CAS hit").isEqualTo(42L);
        assertThat(AtomicOps.compareSwap(original, 0L, -1L, 42L, -1L)).as("plain CAS miss").isEqualTo(original);
        assertThat(AtomicOps.compareSwap(original, 0L, 0L, 42L, -1L)).as("compare mask 0 always matches (swap)")
                .isEqualTo(42L);
        assertThat(AtomicOps.compareSwap(original, original, -1L, 42L, 0L)).as("swap mask 0 never changes memory")
                .isEqualTo(original);
    }

    @Test
    void misalignedTargetIsCatastrophicLocalized_A_ATOM_015() {
        assertThat(AtomicOps.checkAlignment(0x1000L)).isNull();
        assertThat(AtomicOps.checkAlignment(0L)).isNull();
        assertThat(AtomicOps.checkAlignment(0xFFFF_FFFF_FFFF_FFF8L)).isNull();
        for (long misaligned = 0x1001L; misaligned < 0x1008L; misaligned++) {
            assertThat(AtomicOps.checkAlignment(misaligned)).isEqualTo(RdmapError.CATASTROPHIC_LOCALIZED);
        }
        assertThat(RdmapError.CATASTROPHIC_LOCALIZED.terminateCodeBits()).isEqualTo(0x0207);
    }

    /** RFC 7306 §5.1.1 pseudocode, transcribed literally. */
    private static long rfcFetchAdd(long original, long addData, long addMask) {
        long bitLocation = 1;
        long carry = 0;
        long result = 0;
        for (int bit = 0; bit < 64; bit++) {
            if (bit != 0) {
                bitLocation <<= 1;
            }
            long val1 = (original & bitLocation) >>> bit;
            long val2 = (addData & bitLocation) >>> bit;
            long sum = carry + val1 + val2;
            carry = (sum & 2) >>> 1;
            sum = sum & 1;
            if (sum != 0) {
                result |= bitLocation;
            }
            carry = carry != 0 && (addMask & bitLocation) == 0 ? 1 : 0;
        }
        return result;
    }
}
