package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The raw-TCP fixtures move real bytes: every message arrives complete, in order, unharmed. */
class TcpTransportTest {

    @ParameterizedTest
    @CsvSource({"65536, false", "65536, true", "4096, false", "4096, true", "8, true"})
    void streamDeliversEveryMessageIntact(int messageSize, boolean crc) throws Exception {
        MessageStream stream = Transport.TCP.openStream(new MessageOptions(messageSize, crc, true));
        for (int i = 0; i < 200; i++) {
            stream.send();
        }

        TransferReport report = stream.finish();

        assertThat(report).isEqualTo(new TransferReport(200, 200, 0, 0, 0, 0));
    }

    @Test
    void streamWithNothingSentReportsNothingDelivered() throws Exception {
        MessageStream stream = Transport.TCP.openStream(new MessageOptions(4096, true, true));

        assertThat(stream.finish()).isEqualTo(new TransferReport(0, 0, 0, 0, 0, 0));
    }

    @Test
    void streamRejectsSecondFinish() throws Exception {
        MessageStream stream = Transport.TCP.openStream(new MessageOptions(4096, false, false));
        stream.finish();

        assertThatIllegalStateException().isThrownBy(stream::finish).withMessageContaining("finish() called twice");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void pingPongReturnsEachSequenceNumber(boolean crc) throws Exception {
        PingPong pingPong = Transport.TCP.openPingPong(new MessageOptions(8, crc, true));
        for (long i = 0; i < 500; i++) {
            assertThat(pingPong.roundTrip()).isEqualTo(i);
        }

        TransferReport report = pingPong.finish();

        assertThat(report).isEqualTo(new TransferReport(500, 500, 0, 0, 0, 0));
    }

    @Test
    void pingPongCarriesLargerMessagesToo() throws Exception {
        PingPong pingPong = Transport.TCP.openPingPong(new MessageOptions(65536, true, true));
        for (long i = 0; i < 20; i++) {
            assertThat(pingPong.roundTrip()).isEqualTo(i);
        }

        assertThat(pingPong.finish().verified().delivered()).isEqualTo(20);
    }
}
