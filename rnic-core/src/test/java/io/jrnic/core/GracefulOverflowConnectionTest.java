package io.jrnic.core;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ConnectionSettings#gracefulReceiveOverflow(boolean)} through the Verbs connection manager
 * over loopback TCP (V-WRP-65/66): Sends that find no receive WQE pause the passive QP's stream and
 * are delivered, in order and byte for byte, once receives are posted; without the option the first
 * such Send terminates the stream (RFC 5040 §5.3).
 */
class GracefulOverflowConnectionTest extends LoopbackFixture {

    private static final int MESSAGE = 50_000;
    private static final int MESSAGES = 6;

    @Test
    void sendsWithoutReceivesWaitForThePost_V_WRP_65_V_WRP_66() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        connect(new ConnectionSettings(), new ConnectionSettings().gracefulReceiveOverflow(true), qpA, qpB, null, null);
        Buffer src = a.buffer((long) MESSAGE * MESSAGES);
        Buffer dst = b.buffer((long) MESSAGE * MESSAGES);
        fill(src.memory(), 21);
        for (int i = 0; i < MESSAGES; i++) {
            qpA.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND)
                    .sge(src.stag(), src.to() + (long) i * MESSAGE, MESSAGE));
        }
        QpEngine engineB = (QpEngine) qpB.query().llpStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (engineB.rx.receivePauses == 0) {
            assertThat(System.nanoTime()).as("B pauses its stream").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(qpB.state()).isEqualTo(QpState.RTS);
        assertThat(qpA.state()).isEqualTo(QpState.RTS);
        assertThat(b.drain()).isEmpty();

        for (int i = 0; i < MESSAGES; i++) {
            qpB.postReceive(new ReceiveWorkRequest().wrId(100 + i)
                    .sge(dst.stag(), dst.to() + (long) i * MESSAGE, MESSAGE));
        }
        List<WorkCompletion> received = b.completions(MESSAGES);
        for (int i = 0; i < MESSAGES; i++) {
            assertThat(received.get(i).wrId()).isEqualTo(100 + i);
            assertThat(received.get(i).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(received.get(i).byteLength()).isEqualTo(MESSAGE);
        }
        assertThat(a.completions(MESSAGES)).extracting(WorkCompletion::status)
                .containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(dst.memory(), 0, (long) MESSAGE * MESSAGES))
                .isEqualTo(bytes(src.memory(), 0, (long) MESSAGE * MESSAGES));
        assertThat(a.events).isEmpty();
        assertThat(b.events).isEmpty();
        assertThat(qpB.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void withoutTheOptionASendWithoutReceiveTerminates() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        Buffer src = a.buffer(100);
        qpA.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(src.stag(), src.to(), 100));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (qpB.state() != QpState.ERROR) {
            assertThat(System.nanoTime()).as("B terminates").isLessThan(deadline);
            Thread.onSpinWait();
        }
        // RFC 5041 §7.2: DDP layer, untagged buffer error, "no buffer available" (0x1202)
        assertThat(qpB.query().terminateMessage().terminateControl()).isEqualTo(0x1202);
    }
}
