package io.jrnic.core;

import io.jrnic.api.Counters;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MessageType;
import io.jrnic.api.Opcode;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The traffic counters on the in-memory MPA pipe (docs/observability.md): the engine counts, not
 * the transport, so a link without socket reads counts the same messages, bytes and FPDUs as TCP,
 * and every placed byte as copied.
 */
class EngineCountersTest extends EngineFixture {

    @Test
    void theEngineCountsOnTheInMemoryLinkToo() {
        Side[] p = pair(MemoryLinkPair.Options.defaults().withMaxChunk(333));
        Side a = p[0];
        Side b = p[1];
        int size = 65536;
        MemoryRegion la = a.region(size, RIGHTS);
        MemoryRegion lb = b.region(size, RIGHTS);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(lb.stag(), b.base(lb), 10));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(la.stag(), a.base(la), size)
                .remote(lb.stag(), b.base(lb)));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(la.stag(), a.base(la), 10));
        assertThat(completions(b, 1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
        assertThat(completions(a, 2)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);

        int room = a.engine.link.mulpdu() - 14;
        Counters ca = a.qp.counters();
        Counters cb = b.qp.counters();
        assertThat(ca.messagesSent(MessageType.RDMA_WRITE)).isEqualTo(1);
        assertThat(ca.bytesSent(MessageType.RDMA_WRITE)).isEqualTo(size);
        assertThat(ca.messagesSent(MessageType.SEND)).isEqualTo(1);
        assertThat(ca.bytesSent(MessageType.SEND)).isEqualTo(10);
        assertThat(ca.fpdusSent()).isEqualTo((size + room - 1) / room + 1);
        assertThat(cb.messagesReceived(MessageType.RDMA_WRITE)).isEqualTo(1);
        assertThat(cb.bytesReceived(MessageType.RDMA_WRITE)).isEqualTo(size);
        assertThat(cb.messagesReceived(MessageType.SEND)).isEqualTo(1);
        assertThat(cb.bytesReceived(MessageType.SEND)).isEqualTo(10);
        assertThat(cb.fpdusReceived()).isEqualTo(ca.fpdusSent());
        assertThat(cb.bytesPlacedDirect()).as("no socket reads on this link").isZero();
        assertThat(cb.bytesCopied()).isEqualTo(size + 10);
        assertThat(ca.messagesReceived()).isZero();
        assertThat(cb.messagesSent()).isZero();
    }
}
