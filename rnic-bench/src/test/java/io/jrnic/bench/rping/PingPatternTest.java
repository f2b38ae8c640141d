package io.jrnic.bench.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class PingPatternTest {

    @Test
    void pingZeroIsWhatSiwsRpingPrints() {
        // the line Linux rping printed in the lab (shared/interop, guest/loopback.sh)
        assertThat(PingPattern.text(64, 0))
                .isEqualTo("rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr");
        assertThat(PingPattern.text(64, 9))
                .isEqualTo("rdma-ping-9: JKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyzA");
    }

    @Test
    void theMessageIsSizeBytesEndingInItsOnlyNul() {
        MemorySegment m = MemorySegment.ofArray(new byte[100]);
        m.fill((byte) 0x7f);
        PingPattern.fill(m, 64, 3);

        assertThat(m.get(ValueLayout.JAVA_BYTE, 63)).isZero();
        assertThat(PingPattern.cString(m, 64)).hasSize(63).startsWith("rdma-ping-3: DEF");
        assertThat(m.get(ValueLayout.JAVA_BYTE, 64)).isEqualTo((byte) 0x7f); // nothing past size
    }

    @Test
    void theStartCharacterAdvancesAndWrapsAfterLowercaseZ() {
        assertThat(PingPattern.startCharacter(0)).isEqualTo('A');
        assertThat(PingPattern.startCharacter(57)).isEqualTo('z');
        assertThat(PingPattern.startCharacter(58)).isEqualTo('A');
        assertThat(PingPattern.text(64, 58)).startsWith("rdma-ping-58: ABC");
    }

    @Test
    void thePatternWrapsFromLowercaseZToUppercaseA() {
        String text = PingPattern.text(200, 0);
        assertThat(text).contains("xyzABC").hasSize(199);
    }

    @Test
    void cStringStopsAtTheLimitWithoutANul() {
        MemorySegment m = MemorySegment.ofArray("abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(PingPattern.cString(m, 4)).isEqualTo("abcd");
    }
}
