package io.jrnic.api;

import org.junit.jupiter.api.Test;

import static io.jrnic.api.AccessRights.BIND_WINDOW;
import static io.jrnic.api.AccessRights.FLUSHABLE_GLOBAL;
import static io.jrnic.api.AccessRights.FLUSHABLE_PERSISTENT;
import static io.jrnic.api.AccessRights.LOCAL_READ;
import static io.jrnic.api.AccessRights.LOCAL_WRITE;
import static io.jrnic.api.AccessRights.REMOTE_ATOMIC;
import static io.jrnic.api.AccessRights.REMOTE_READ;
import static io.jrnic.api.AccessRights.REMOTE_WRITE;
import static io.jrnic.api.AccessRights.VERIFIABLE;
import static org.assertj.core.api.Assertions.assertThat;

class AccessRightsTest {

    /** Verbs Figure 18 enumerated over all 16 combinations of the four base rights. */
    @Test
    void regionCombinationsFollowFigure18_V_MR_74_V_MR_78_V_MR_79() {
        for (int rights = 0; rights < 16; rights++) {
            boolean lr = (rights & LOCAL_READ) != 0;
            boolean lw = (rights & LOCAL_WRITE) != 0;
            boolean rr = (rights & REMOTE_READ) != 0;
            boolean rw = (rights & REMOTE_WRITE) != 0;
            boolean expected = (lr || lw) && (!rr || lr) && (!rw || lw);
            assertThat(AccessRights.isValidRegionCombination(rights))
                    .as(AccessRights.describe(rights)).isEqualTo(expected);
            assertThat(AccessRights.isValidRegionCombination(rights | BIND_WINDOW))
                    .as("bind with " + AccessRights.describe(rights)).isEqualTo(expected);
        }
    }

    @Test
    void figure18ValidRowsExplicitly_V_MR_79() {
        int[] valid = {LOCAL_READ, LOCAL_READ | REMOTE_READ, LOCAL_WRITE, LOCAL_WRITE | REMOTE_WRITE,
            LOCAL_READ | LOCAL_WRITE, LOCAL_READ | LOCAL_WRITE | REMOTE_READ, LOCAL_READ | LOCAL_WRITE | REMOTE_WRITE,
            LOCAL_READ | LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE};
        int[] invalid = {0, REMOTE_READ, REMOTE_WRITE, LOCAL_READ | REMOTE_WRITE,
            LOCAL_READ | REMOTE_READ | REMOTE_WRITE, LOCAL_WRITE | REMOTE_READ, LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE,
            BIND_WINDOW};
        for (int v : valid) {
            assertThat(AccessRights.isValidRegionCombination(v)).as(AccessRights.describe(v)).isTrue();
        }
        for (int v : invalid) {
            assertThat(AccessRights.isValidRegionCombination(v)).as(AccessRights.describe(v)).isFalse();
        }
    }

    @Test
    void extensionRightsNeedTheirLocalBasis_C_ATTR_002_C_ATTR_004() {
        assertThat(AccessRights.isValidRegionCombination(LOCAL_READ | LOCAL_WRITE | REMOTE_ATOMIC)).isTrue();
        assertThat(AccessRights.isValidRegionCombination(LOCAL_READ | REMOTE_ATOMIC)).isFalse();
        assertThat(AccessRights.isValidRegionCombination(LOCAL_WRITE | REMOTE_WRITE | FLUSHABLE_GLOBAL)).isTrue();
        assertThat(AccessRights.isValidRegionCombination(LOCAL_WRITE | FLUSHABLE_PERSISTENT)).isFalse();
        assertThat(AccessRights.isValidRegionCombination(LOCAL_READ | VERIFIABLE)).isTrue();
        assertThat(AccessRights.isValidRegionCombination(LOCAL_WRITE | VERIFIABLE)).isFalse();
        assertThat(AccessRights.isValidRegionCombination(LOCAL_READ | 1 << 20)).isFalse();
    }

    /** Verbs Figure 20: window rights against region local rights. */
    @Test
    void windowCombinationsFollowFigure20_V_MW_19_V_MW_20_V_MW_21_V_MW_22() {
        int[] regions = {LOCAL_READ, LOCAL_WRITE, LOCAL_READ | LOCAL_WRITE, 0};
        int[] windows = {REMOTE_READ, REMOTE_WRITE, REMOTE_READ | REMOTE_WRITE, 0};
        boolean[][] expected = {
            {true, false, false, false},
            {false, true, false, false},
            {true, true, true, false},
            {false, false, false, false},
        };
        for (int r = 0; r < regions.length; r++) {
            for (int w = 0; w < windows.length; w++) {
                assertThat(AccessRights.isValidWindowCombination(windows[w], regions[r]))
                        .as("MR " + AccessRights.describe(regions[r]) + " MW " + AccessRights.describe(windows[w]))
                        .isEqualTo(expected[r][w]);
                // V-MW-21: the region's remote rights do not matter
                assertThat(AccessRights.isValidWindowCombination(windows[w], regions[r] | REMOTE_READ | REMOTE_WRITE))
                        .isEqualTo(expected[r][w]);
            }
        }
        assertThat(AccessRights.isValidWindowCombination(REMOTE_READ | LOCAL_READ, LOCAL_READ)).isFalse();
    }

    @Test
    void describeNamesEveryBit() {
        assertThat(AccessRights.describe(0)).isEqualTo("none");
        assertThat(AccessRights.describe(LOCAL_READ | REMOTE_WRITE | BIND_WINDOW)).isEqualTo("LR|RW|BIND");
        assertThat(AccessRights.describe(1 << 12)).isEqualTo("|0x1000");
        assertThat(AccessRights.has(AccessRights.ALL, AccessRights.REMOTE_MASK)).isTrue();
    }
}
