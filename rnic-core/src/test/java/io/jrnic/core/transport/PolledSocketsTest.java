package io.jrnic.core.transport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link PolledSockets}' own arithmetic; its reads and epoll hand-offs are tested in {@link DrivableEventLoopTest}. */
class PolledSocketsTest {

    @Test
    void everySixteenthPassLetsEpollLook() {
        PolledSockets sockets = new PolledSockets(null); // the handler is needed only to resume a socket
        for (int round = 0; round < 3; round++) {
            for (int pass = 1; pass < PolledSockets.EPOLL_EVERY; pass++) {
                assertThat(sockets.epollDue()).as("pass %d of round %d", pass, round).isFalse();
            }
            assertThat(sockets.epollDue()).as("pass %d of round %d", PolledSockets.EPOLL_EVERY, round).isTrue();
        }
        assertThat(PolledSockets.EPOLL_EVERY).isEqualTo(16);
    }
}
