package io.jrnic.core.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class TcpCongestionTest {

    @Test
    void bbrInEveryVersionPacesAndTheLossBasedControlsDoNot() {
        assertThat(TcpCongestion.paces("bbr")).isTrue();
        assertThat(TcpCongestion.paces("bbr2")).isTrue();
        assertThat(TcpCongestion.paces("bbr3")).isTrue();
        assertThat(TcpCongestion.paces("cubic")).isFalse();
        assertThat(TcpCongestion.paces("reno")).isFalse();
        assertThat(TcpCongestion.paces("dctcp")).isFalse();
        assertThat(TcpCongestion.paces("")).as("unknown").isFalse();
    }

    @Test
    void theFileGivesItsFirstLineTrimmedAndAMissingOneNothing(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("tcp_congestion_control");
        Files.writeString(file, "bbr\n");
        assertThat(TcpCongestion.read(file)).isEqualTo("bbr");
        Files.writeString(file, "  cubic  \nreno\n");
        assertThat(TcpCongestion.read(file)).isEqualTo("cubic");
        assertThat(TcpCongestion.read(dir.resolve("absent"))).isEmpty();
    }

    @Test
    void theSegmentRuleIsOnByDefaultExactlyWhenTheSystemsControlPaces() {
        assertThat(TcpCongestion.SYSTEM_PACES)
                .isEqualTo(TcpCongestion.paces(TcpCongestion.read(TcpCongestion.SYSTEM_DEFAULT)));
        assertThat(TransportConfig.defaults().segmentRule()).isEqualTo(TcpCongestion.SYSTEM_PACES);
        assertThat(TransportConfig.builder().segmentRule(false).build().segmentRule()).isFalse();
        assertThat(TransportConfig.builder().segmentRule(true).build().segmentRule()).isTrue();
    }
}
