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

    @Test
    void postListIsOneByDefaultAndBoundedByTheWindow() {
        assertThat(new MessageOptions(64, false, false).postList()).isEqualTo(1);
        assertThat(new MessageOptions(64, false, false, MessageOptions.MAX_POST_LIST).postList())
                .isEqualTo(MessageOptions.MAX_POST_LIST);
        assertThatIllegalArgumentException().isThrownBy(() -> new MessageOptions(64, false, false, 0))
                .withMessageContaining("postList");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new MessageOptions(64, false, false, MessageOptions.MAX_POST_LIST + 1))
                .withMessageContaining("postList");
    }
}
