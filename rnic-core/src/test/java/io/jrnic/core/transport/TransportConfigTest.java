package io.jrnic.core.transport;

import io.jrnic.mpa.Fpdu;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TransportConfigTest {

    @Test
    void defaultsFollowTheInteropChoices() {
        TransportConfig c = TransportConfig.defaults();
        assertThat(c.emss()).isEqualTo(1460);
        // wire-format.md §2.6: EMSS 1460 gives MULPDU 1454 without markers, 1442 with.
        assertThat(Fpdu.mulpdu(c.emss(), false)).isEqualTo(1454);
        assertThat(Fpdu.mulpdu(c.emss(), true)).isEqualTo(1442);
        assertThat(c.firstFpduDelay()).isZero();
        assertThat(c.writeLowWaterMark()).isLessThanOrEqualTo(c.writeHighWaterMark());
    }

    /**
     * RFC 5044 §4.1: a sender's MULPDU is 128..64768 whatever EMSS the configuration allows; the
     * largest EMSS accepted gives 64768, not the ULPDU_Length field's 65535.
     */
    @Test
    void everyAcceptedEmssGivesAMulpduWithinRfc5044Section41() {
        for (int emss = Fpdu.MIN_MULPDU + Fpdu.OVERHEAD; emss <= TransportConfig.MAX_EMSS; emss++) {
            TransportConfig c = TransportConfig.builder().emss(emss).build();
            for (boolean markers : new boolean[] {false, true}) {
                assertThat(Fpdu.mulpdu(c.emss(), markers)).as("EMSS %d, markers %s", emss, markers)
                        .isBetween(Fpdu.MIN_MULPDU, Fpdu.MAX_MULPDU);
            }
        }
        assertThat(Fpdu.mulpdu(TransportConfig.MAX_EMSS, false)).isEqualTo(64768);
        assertThat(Fpdu.mulpdu(TransportConfig.MAX_EMSS, true)).isEqualTo(64768);
        assertThat(Fpdu.mulpdu(Fpdu.MIN_MULPDU + Fpdu.OVERHEAD, true)).isEqualTo(128);
    }

    @Test
    void rejectsInvalidSettingsNamingThem() {
        assertThatThrownBy(() -> TransportConfig.builder().eventLoopThreads(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eventLoopThreads");
        assertThatThrownBy(() -> TransportConfig.builder().setupTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("setupTimeout");
        assertThatThrownBy(() -> TransportConfig.builder().closeTimeout(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("closeTimeout");
        assertThatThrownBy(() -> TransportConfig.builder().firstFpduDelay(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("firstFpduDelay");
        assertThatThrownBy(() -> TransportConfig.builder().emss(133).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("emss");
        assertThatThrownBy(() -> TransportConfig.builder().emss(TransportConfig.MAX_EMSS + 1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("emss");
        assertThatThrownBy(() -> TransportConfig.builder().writeWaterMarks(10, 5).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("water marks");
        assertThatThrownBy(() -> TransportConfig.builder().stagingBufferSize(63).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stagingBufferSize");
        assertThatThrownBy(() -> TransportConfig.builder().directPlacementThreshold(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("directPlacementThreshold");
        assertThat(TransportConfig.builder().emss(134).build().emss()).isEqualTo(134);
    }
}
