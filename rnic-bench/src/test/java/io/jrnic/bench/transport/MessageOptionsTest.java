package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class MessageOptionsTest {

    @Test
    void frameSizeAddsTrailerOnlyWithCrc() {
        assertThat(new MessageOptions(65536, false, false).frameSize()).isEqualTo(65536);
        assertThat(new MessageOptions(65536, true, false).frameSize()).isEqualTo(65540);
        assertThat(new MessageOptions(8, true, false).frameSize()).isEqualTo(12);
    }

    @Test
    void rejectsMessagesWithoutRoomForTheSequenceNumber() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new MessageOptions(7, false, false))
                .withMessageContaining("messageSize")
                .withMessageContaining("was 7");
    }

    @Test
    void rejectsMessagesOverOneGibibyte() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new MessageOptions(MessageOptions.MAX_MESSAGE_SIZE + 1, false, false))
                .withMessageContaining("messageSize");
    }
}
