package io.jrnic.core.transport;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.Opcode;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Closing state over TCP (Verbs §6.2.5) against a raw peer that controls its half of the
 * close: the LLP close waits for the peer's FIN (V-QPS-70: TCP needs the exchange, so Closing is not
 * passed rapidly), and it is bounded by {@link ConnectionSettings#closeTimeout}, whose expiry is an
 * error: RST, the queue pair in Error, LLP Connection Lost (V-QPS-79).
 */
class CloseTimeoutTest {
    private RawInitiator peer;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    @Test
    void closeThatNeverFinishesIsAnErrorAfterTheCloseTimeout_V_QPS_79() throws Exception {
        peer = new RawInitiator(new ConnectionSettings().closeTimeout(Duration.ofMillis(300)));
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(5).sge(0, 0, 0));
        peer.connect();

        peer.qp.modify(new QueuePairModification().nextState(QpState.CLOSING));
        assertThat(peer.raw.getInputStream().read()).as("our FIN").isEqualTo(-1);
        // the raw peer never sends its FIN: the close times out
        peer.awaitState(QpState.ERROR);
        peer.awaitEvent(AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(peer.completions(1)).extracting(wc -> wc.status()).containsExactly(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void closeAfterATerminateStuckBehindUnreadDataIsBounded_V_QPS_79_V_QPS_53() throws Exception {
        peer = new RawInitiator(new ConnectionSettings().closeTimeout(Duration.ofMillis(300)));
        peer.connect();
        // 32 MiB of Sends toward a peer that reads nothing: the socket buffers fill and the rest waits
        // in our outbound queue, so the Terminate and our FIN cannot leave either
        int size = 4 << 20;
        var mr = peer.pd.registerMemory(peer.rnic.allocateMemory(size, 4096), RawInitiator.RIGHTS);
        for (int i = 0; i < 8; i++) {
            peer.qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND).signaled(true)
                    .sge(mr.stag(), mr.query().baseTo(), size));
        }
        peer.qp.modify(new QueuePairModification().nextState(QpState.TERMINATE));
        // the close after the Terminate times out: the wait is bounded from the close request on
        peer.awaitState(QpState.ERROR);
        peer.awaitEvent(AsyncEventType.BAD_CLOSE);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.BAD_CLOSE); // an LLP error in Terminate
        List<WorkCompletion> wcs = peer.completions(8);
        assertThat(wcs).extracting(WorkCompletion::status).contains(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void closeTimeoutMustBePositive() {
        ConnectionSettings settings = new ConnectionSettings();
        assertThat(settings.closeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(settings.closeTimeout(Duration.ofMillis(1)).closeTimeout()).isEqualTo(Duration.ofMillis(1));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> settings.closeTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("close timeout must be positive: PT0S");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> settings.closeTimeout(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("close timeout must be positive: null");
    }

    @Test
    void closingWaitsForThePeersFinAndThenEndsInIdle_V_QPS_70() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.connect();

        peer.qp.modify(new QueuePairModification().nextState(QpState.CLOSING));
        assertThat(peer.raw.getInputStream().read()).as("our FIN").isEqualTo(-1);
        // TCP's close is an exchange: the QP stays in Closing until the peer's FIN (no rapid pass)
        assertThat(peer.qp.state()).isEqualTo(QpState.CLOSING);
        assertThat(peer.eventTypes()).isEmpty();
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.IDLE);
        peer.awaitEvent(AsyncEventType.LLP_CLOSE_COMPLETE);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);
    }
}
