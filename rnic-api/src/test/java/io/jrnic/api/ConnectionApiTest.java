package io.jrnic.api;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The connection-management value types of the API: settings, failures, parameters, connections. */
class ConnectionApiTest {

    @Test
    void settingsDefaultsFollowTheInteropChoices() {
        ConnectionSettings s = new ConnectionSettings();
        assertThat(s.revision()).isEqualTo(2);
        assertThat(s.crc()).isEqualTo(CrcMode.OPTIONAL);
        assertThat(s.requestMarkers()).isFalse();
        assertThat(s.acceptMarkerRequests()).isTrue();
        assertThat(s.peerToPeer()).isTrue();
        assertThat(s.rtrTypes()).isEqualTo(EnumSet.allOf(RtrType.class));
        assertThat(s.negotiateReadDepths()).isTrue();
        // what we send: Linux's limit by default (issue 9 item 4); up to 512 is always accepted
        assertThat(s.privateDataLimit()).isEqualTo(ConnectionSettings.LINUX_PRIVATE_DATA_LIMIT);
        assertThat(s.maxUlpPrivateData()).isEqualTo(252); // RFC 6581: the IRD/ORD word counts
        assertThat(s.revision(1).maxUlpPrivateData()).isEqualTo(256);
        s.revision(2).privateDataLimit(ConnectionSettings.RFC_PRIVATE_DATA_LIMIT);
        assertThat(s.maxUlpPrivateData()).isEqualTo(508);
        assertThat(s.setupTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.firstFpduDelay()).isEqualTo(Duration.ZERO);
        assertThat(s.emss()).isEqualTo(ConnectionSettings.AUTO_EMSS);
    }

    @Test
    void siwPresetCarriesTheInteropAccommodations() {
        ConnectionSettings siw = ConnectionSettings.linuxSiw();
        assertThat(siw.privateDataLimit()).isEqualTo(ConnectionSettings.LINUX_PRIVATE_DATA_LIMIT);
        assertThat(siw.maxUlpPrivateData()).isEqualTo(252);
        assertThat(siw.firstFpduDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(siw.requestMarkers()).isFalse();
        assertThat(siw.acceptMarkerRequests()).isFalse();
        assertThat(siw.revision()).isEqualTo(2);
        assertThat(siw.emss()).isEqualTo(1460);
    }

    @Test
    void settingsRefuseBadValuesNamingThem() {
        ConnectionSettings s = new ConnectionSettings();
        assertThatThrownBy(() -> s.revision(3)).hasMessageContaining("MPA revision must be 1 or 2: 3");
        assertThatThrownBy(() -> s.privateDataLimit(513)).hasMessageContaining("4..512: 513");
        assertThatThrownBy(() -> s.privateDataLimit(3)).hasMessageContaining("4..512: 3");
        assertThatThrownBy(() -> s.emss(133)).hasMessageContaining("134..65544: 133");
        assertThatThrownBy(() -> s.emss(65545)).hasMessageContaining("134..65544: 65545");
        assertThatThrownBy(() -> s.setupTimeout(Duration.ZERO)).hasMessageContaining("positive");
        assertThatThrownBy(() -> s.firstFpduDelay(Duration.ofMillis(-1))).hasMessageContaining("negative");
        assertThatThrownBy(() -> s.crc(null)).hasMessageContaining("CRC mode");
        assertThatThrownBy(() -> s.rtrTypes(new RtrType[0])).hasMessageContaining("at least one RTR type");
        assertThatThrownBy(() -> s.emss(1)).hasMessageContaining("0 (automatic) or 134..65544: 1");
        assertThat(s.emss(134).emss()).isEqualTo(134);
        assertThat(s.emss(ConnectionSettings.AUTO_EMSS).emss()).isZero();
        assertThat(s.rtrTypes(RtrType.SEND, RtrType.SEND).rtrTypes()).containsExactly(RtrType.SEND);
    }

    @Test
    void connectionExceptionKeepsCopiesOfWhatThePeerSaid() {
        byte[] data = {1, 2, 3};
        ConnectionException e = new ConnectionException(ConnectionException.Reason.REJECTED_BY_PEER, "rejected", -1,
                data, 4, 5, null);
        data[0] = 9;
        assertThat(e.peerPrivateData()).containsExactly(1, 2, 3);
        e.peerPrivateData()[1] = 9;
        assertThat(e.peerPrivateData()).containsExactly(1, 2, 3);
        assertThat(e.reason()).isEqualTo(ConnectionException.Reason.REJECTED_BY_PEER);
        assertThat(e.peerIrd()).isEqualTo(4);
        assertThat(e.peerOrd()).isEqualTo(5);
        assertThat(e.terminateCode()).isEqualTo(-1);
        assertThat(new ConnectionException(ConnectionException.Reason.TIMEOUT, "t", 0x2004, null, -1, -1, null)
                .peerPrivateData()).isEmpty();
        assertThatThrownBy(() -> new ConnectionException(null, "x", -1, null, -1, -1, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parametersCopyTheirRtrSet() {
        Set<RtrType> types = EnumSet.of(RtrType.WRITE);
        ConnectionParameters p = new ConnectionParameters(2, true, true, false, false, 4, 4, 4, 4, true, types,
                RtrType.WRITE);
        types.add(RtrType.READ);
        assertThat(p.rtrTypes()).containsExactly(RtrType.WRITE);
    }
}
