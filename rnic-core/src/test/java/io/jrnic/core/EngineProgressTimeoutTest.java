package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's progress timeout on the in-memory link (issue 13; the loopback TCP cases are in
 * {@code transport.ProgressTimeoutTest}): a Read Request the raw peer never answers ends, after the
 * timeout, in a reset, LLP Connection Lost and the Read flushed once; with the timeout off it stays.
 */
class EngineProgressTimeoutTest extends EngineFixture {

    private Side readNeverAnswered(Duration timeout) {
        progressTimeout = timeout;
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion sink = a.region(4096, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), a.base(sink), 64).remote(0x4201, 0x9000));
        await(() -> !raw.received.isEmpty(), "the Read Request");
        assertThat(raw.received.getFirst()[1] & 0x0F).isEqualTo(Wire.READ_REQUEST);
        return a;
    }

    @Test
    void readNeverAnsweredIsALostConnectionAfterTheTimeout() {
        Side a = readNeverAnswered(Duration.ofMillis(200));
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the reset at the peer");
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_RESET); // no Terminate, no FIN
        assertThat(raw.received).hasSize(1);
        await(() -> a.eventTypes().contains(AsyncEventType.LLP_CONNECTION_LOST), "LLP Connection Lost");
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(3L);
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED);
        assertThat(a.cq.poll(new WorkCompletion())).as("exactly once").isFalse();
        assertThat(a.qp.counters().progressTimeouts()).as("counted once (docs/observability.md)").isEqualTo(1);
    }
}
