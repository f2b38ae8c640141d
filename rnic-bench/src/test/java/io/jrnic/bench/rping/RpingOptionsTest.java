package io.jrnic.bench.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RpingOptionsTest {

    @Test
    void parsesRpingsClientCommandLine() {
        RpingOptions o = RpingOptions.parse("-c", "-a", "127.0.0.1", "-p", "17174", "-C", "100", "-S", "65535", "-v", "-V");

        assertThat(o.mode()).isEqualTo(RpingOptions.Mode.CLIENT);
        assertThat(o.address()).isEqualTo("127.0.0.1");
        assertThat(o.port()).isEqualTo(17174);
        assertThat(o.count()).isEqualTo(100);
        assertThat(o.size()).isEqualTo(65535);
        assertThat(o.verbose()).isTrue();
        assertThat(o.validate()).isTrue();
        assertThat(o.debug()).isFalse();
    }

    @Test
    void acceptsClusteredFlagsAndAttachedValuesLikeGetopt() {
        RpingOptions o = RpingOptions.parse("-sPvVd", "-p7175", "-S100");

        assertThat(o.mode()).isEqualTo(RpingOptions.Mode.SERVER);
        assertThat(o.persistent()).isTrue();
        assertThat(o.verbose() && o.validate() && o.debug()).isTrue();
        assertThat(o.port()).isEqualTo(7175);
        assertThat(o.size()).isEqualTo(100);
    }

    @Test
    void defaultsAreRpingsAndLoopbackPingsTenTimes() {
        RpingOptions server = RpingOptions.parse("-s");
        assertThat(server.port()).isEqualTo(7174);
        assertThat(server.size()).isEqualTo(64);
        assertThat(server.count()).isZero();
        assertThat(server.pauseMs()).isEqualTo(100);

        RpingOptions loopback = RpingOptions.parse();
        assertThat(loopback.mode()).isEqualTo(RpingOptions.Mode.LOOPBACK);
        assertThat(loopback.count()).isEqualTo(RpingOptions.LOOPBACK_COUNT);
        assertThat(loopback.portGiven()).isFalse();
        assertThat(RpingOptions.parse("-C", "0").count()).isZero();
    }

    @Test
    void settingsMatchSiwAndFollowTheSwitches() {
        ConnectionSettings plain = RpingOptions.parse("-s").settings();
        assertThat(plain.revision()).isEqualTo(2);
        assertThat(plain.negotiateReadDepths()).isTrue();
        assertThat(plain.crc()).isEqualTo(CrcMode.OFF);
        assertThat(plain.requestMarkers()).isFalse();
        assertThat(plain.acceptMarkerRequests()).isFalse();
        assertThat(plain.privateDataLimit()).isEqualTo(ConnectionSettings.LINUX_PRIVATE_DATA_LIMIT);
        assertThat(plain.firstFpduDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(plain.setupTimeout()).isEqualTo(Duration.ofSeconds(10));

        ConnectionSettings all = RpingOptions.parse("-c", "-a", "h", "--crc", "--markers", "--pause-ms", "0",
                "--setup-timeout-s", "300").settings();
        assertThat(all.crc()).isEqualTo(CrcMode.OPTIONAL);
        assertThat(all.requestMarkers()).isTrue();
        assertThat(all.acceptMarkerRequests()).isTrue();
        assertThat(all.firstFpduDelay()).isEqualTo(Duration.ZERO);
        assertThat(all.setupTimeout()).isEqualTo(Duration.ofSeconds(300));
    }

    @Test
    void rejectsBadArgumentsWithRpingsMessages() {
        assertThatThrownBy(() -> RpingOptions.parse("-S", "25"))
                .hasMessage("Invalid size 25 (valid range is 26 to 65535)");
        assertThatThrownBy(() -> RpingOptions.parse("-S", "65536"))
                .hasMessage("Invalid size 65536 (valid range is 26 to 65535)");
        assertThatThrownBy(() -> RpingOptions.parse("-C", "-1")).hasMessage("Invalid count -1");
        assertThatThrownBy(() -> RpingOptions.parse("-c")).hasMessage("client needs the server's address: -a addr");
        assertThatThrownBy(() -> RpingOptions.parse("-s", "-c")).hasMessage("-s and -c exclude each other");
        assertThatThrownBy(() -> RpingOptions.parse("-P")).hasMessage("-P is a server option (-s)");
        assertThatThrownBy(() -> RpingOptions.parse("-x")).hasMessage("unknown option -x");
        assertThatThrownBy(() -> RpingOptions.parse("--frob")).hasMessage("unknown option --frob");
        assertThatThrownBy(() -> RpingOptions.parse("-p")).hasMessage("option -p needs a value");
        assertThatThrownBy(() -> RpingOptions.parse("-p", "x")).hasMessage("option -p needs a number, was 'x'");
        assertThatThrownBy(() -> RpingOptions.parse("-p", "70000")).hasMessage("Invalid port 70000");
        assertThatThrownBy(() -> RpingOptions.parse("--pause-ms", "-1")).hasMessage("Invalid pause -1 ms");
        assertThatThrownBy(() -> RpingOptions.parse("--pause-ms")).hasMessage("option --pause-ms needs a value");
        assertThatThrownBy(() -> RpingOptions.parse("--setup-timeout-s", "0")).hasMessage("Invalid setup timeout 0 s");
        assertThatThrownBy(() -> RpingOptions.parse("stray")).hasMessage("unexpected argument 'stray'");
    }
}
