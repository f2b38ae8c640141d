package io.jrnic.core;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.Counters;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Direct placement over real loopback TCP for a stream of large messages whose segmentation leaves
 * a small FPDU behind every large one (docs/transport.md, "RX: direct placement with netty"): the
 * payload of the large FPDUs goes from the socket straight into the target, not through the
 * staging buffer.
 */
class DirectPlacementLoopbackTest extends LoopbackFixture {
    private static final int WRITE = 64 * 1024;
    private static final int WRITES = 64;

    @Test
    void largeWritesWithASmallTailFpduArePlacedFromTheSocket() throws Exception {
        QueuePair qpB = b.qp();
        Buffer recv = b.buffer(8);
        qpB.postReceive(new ReceiveWorkRequest().wrId(100).sge(recv.stag(), recv.to(), 8));
        ConnectionSettings settings = new ConnectionSettings().emss(ConnectionSettings.MAX_EMSS);
        Pair p = connect(settings, settings, a.qp(), qpB, null, null);
        QueuePair qpA = p.qpA();
        int room = p.active().mulpdu() - 14;        // tagged DDP header (RFC 5041 §4.2)
        assertThat(WRITE % room).as("each Write ends in a small FPDU").isPositive().isLessThan(1024);
        Buffer src = a.buffer(WRITE);
        Buffer sink = b.buffer(WRITE);
        fill(src.memory(), 7);
        for (int i = 0; i < WRITES; i++) {
            qpA.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), WRITE)
                    .remote(sink.stag(), sink.to()));
            if (i % 16 == 15) {
                assertThat(a.completions(16)).extracting(WorkCompletion::status)
                        .containsOnly(WorkCompletionStatus.SUCCESS);
            }
        }
        // a Send behind the Writes: its completion at B means every Write before it was placed
        qpA.postSend(new SendWorkRequest().wrId(WRITES).opcode(Opcode.SEND).sge(src.stag(), src.to(), 8));
        assertThat(a.completions(1)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(b.completions(1)).extracting(WorkCompletion::wrId).containsExactly(100L);

        assertThat(bytes(sink.memory(), 0, WRITE)).isEqualTo(bytes(src.memory(), 0, WRITE));
        Counters cb = qpB.counters();
        assertThat(cb.bytesPlacedDirect() + cb.bytesCopied()).isEqualTo((long) WRITE * WRITES + 8);
        // copied: the first FPDU (before any large one was seen, staging reads are full size), the
        // small FPDU of every Write (it comes with the CRC of the large one before it, in one read),
        // and of every large one what a header-sized read brings besides the header; 97% without
        // the memory
        assertThat(cb.bytesCopied()).as("copied through the staging buffer").isLessThan(2L * WRITE);
    }
}
