package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two RNICs end to end over the in-memory MPA pipe: every operation at the segmentation
 * boundaries, gather/scatter, inline data, ordering, ORD, backpressure, direct placement.
 */
class EngineDataPathTest extends EngineFixture {
    private static final int MULPDU = 1448;

    enum Op { SEND, WRITE, READ }

    static Stream<Arguments> sizes() {
        MemoryLinkPair.Options plain = MemoryLinkPair.Options.defaults();
        MemoryLinkPair.Options markers = plain.withCrc(false).withMarkers(true).withMaxChunk(700);
        MemoryLinkPair.Options both = plain.withMarkers(true).withMaxChunk(97);
        int[] sizes = {0, 1, MULPDU - 19, MULPDU - 18, MULPDU - 17, MULPDU - 15, MULPDU - 14, MULPDU - 13,
            MULPDU - 1, MULPDU, MULPDU + 1, 65536};
        List<Arguments> out = new ArrayList<>();
        for (Op op : Op.values()) {
            for (int size : sizes) {
                out.add(Arguments.of(op, size, plain));
            }
            out.add(Arguments.of(op, 3 << 20, plain));
            out.add(Arguments.of(op, 65536 + 3, markers));
            out.add(Arguments.of(op, 3 * MULPDU, both));
            out.add(Arguments.of(op, 0, both));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} of {1} bytes, {2}")
    @MethodSource("sizes")
    void everyOperationAtEverySegmentBoundary_R_HDR_009_R_WRITE_019_R_SEND_019_R_READ_021(Op op, int size,
                                                                                        MemoryLinkPair.Options o) {
        Side[] p = pair(o);
        Side a = p[0];
        Side b = p[1];
        MemoryRegion la = a.region(size, RIGHTS);
        MemoryRegion lb = b.region(size, RIGHTS);
        fill(a.memory(la), size);
        fill(b.memory(lb), size + 1);
        switch (op) {
            case SEND -> {
                b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(lb.stag(), b.base(lb), size));
                a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(la.stag(), a.base(la), size));
                WorkCompletion r = completions(b, 1).getFirst();
                assertThat(r.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(r.byteLength()).isEqualTo(size);
                assertThat(r.opcode()).isEqualTo(Opcode.RECEIVE);
            }
            case WRITE -> {
                b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(0, 0, 0));
                a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(la.stag(), a.base(la), size)
                        .remote(lb.stag(), b.base(lb)));
                // R-WRITE-017, R-ORD-010: a later Send signals that the Write is placed
                a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND));
                assertThat(completions(b, 1).getFirst().byteLength()).isZero();
            }
            case READ -> {
                a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(la.stag(), a.base(la), size)
                        .remote(lb.stag(), b.base(lb)));
            }
        }
        List<WorkCompletion> wcs = completions(a, op == Op.WRITE ? 2 : 1);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        if (op == Op.READ) {
            assertThat(bytes(a.memory(la), 0, size)).isEqualTo(bytes(b.memory(lb), 0, size));
        } else {
            assertThat(bytes(b.memory(lb), 0, size)).isEqualTo(bytes(a.memory(la), 0, size));
        }
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
        assertThat(a.events).isEmpty();
        assertThat(b.events).isEmpty();
    }

    @Test
    void sendGathersAcrossRegionsAndScattersAcrossSges_R_SEND_017_R_WRITE_015() {
        Side[] p = pair(MemoryLinkPair.Options.defaults().withMaxChunk(333));
        Side a = p[0];
        Side b = p[1];
        MemoryRegion a1 = a.region(5000, RIGHTS);
        MemoryRegion a2 = a.region(5000, RIGHTS);
        fill(a.memory(a1), 11);
        fill(a.memory(a2), 12);
        MemoryRegion b1 = b.region(9000, RIGHTS);
        MemoryRegion b2 = b.region(9000, RIGHTS);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(b1.stag(), b.base(b1) + 100, 2500)
                .sge(b2.stag(), b.base(b2), 10).sge(b1.stag(), b.base(b1) + 4000, 5000));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(a1.stag(), a.base(a1) + 1, 1000)
                .sge(a2.stag(), a.base(a2), 3000).sge(a1.stag(), a.base(a1) + 4000, 7));
        WorkCompletion r = completions(b, 1).getFirst();
        assertThat(r.byteLength()).isEqualTo(4007);
        byte[] sent = concat(bytes(a.memory(a1), 1, 1000), bytes(a.memory(a2), 0, 3000), bytes(a.memory(a1), 4000, 7));
        byte[] got = concat(bytes(b.memory(b1), 100, 2500), bytes(b.memory(b2), 0, 10), bytes(b.memory(b1), 4000, 1497));
        assertThat(got).isEqualTo(sent);
        assertThat(bytes(b.memory(b1), 4000 + 1497, 16)).containsOnly(0); // nothing past the message
        // a gathered Write into one remote buffer
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).sge(a2.stag(), a.base(a2) + 10, 2000)
                .sge(a1.stag(), a.base(a1), 3333).remote(b2.stag(), b.base(b2) + 50));
        b.qp.postReceive(new ReceiveWorkRequest().wrId(71).sge(0, 0, 0));
        a.qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.SEND));
        completions(b, 2);
        assertThat(bytes(b.memory(b2), 50, 5333)).isEqualTo(concat(bytes(a.memory(a2), 10, 2000),
                bytes(a.memory(a1), 0, 3333)));
    }

    @Test
    void inlineSendAndWriteCarryTheirCopiedBytes_V_WRP_21() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        MemoryRegion la = a.region(64, RIGHTS);
        MemoryRegion lb = b.region(256, RIGHTS);
        fill(a.memory(la), 3);
        byte[] expected = bytes(a.memory(la), 0, 64);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(lb.stag(), b.base(lb), 64));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).inline(true).sge(la.stag(), a.base(la), 64));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).inline(true)
                .sge(la.stag(), a.base(la), 40).remote(lb.stag(), b.base(lb) + 128));
        fill(a.memory(la), 4); // the inline data was copied at post time
        b.qp.postReceive(new ReceiveWorkRequest().wrId(71).sge(0, 0, 0));
        a.qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.SEND));
        completions(b, 2);
        assertThat(bytes(b.memory(lb), 0, 64)).isEqualTo(expected);
        assertThat(bytes(b.memory(lb), 128, 40)).isEqualTo(java.util.Arrays.copyOf(expected, 40));
    }

    @Test
    void sendsAreDeliveredInOrderWithConsecutiveMsns_R_SEND_014_R_ORD_015() {
        Side[] p = pair(MemoryLinkPair.Options.defaults().withMaxChunk(50));
        Side a = p[0];
        Side b = p[1];
        MemoryRegion la = a.region(4096, RIGHTS);
        MemoryRegion lb = b.region(60 * 64, RIGHTS);
        for (int i = 0; i < 60; i++) {
            b.qp.postReceive(new ReceiveWorkRequest().wrId(100 + i).sge(lb.stag(), b.base(lb) + 64L * i, 64));
        }
        for (int i = 0; i < 60; i++) {
            a.qp.postSend(new SendWorkRequest().wrId(i).opcode(i % 2 == 0 ? Opcode.SEND : Opcode.SEND_SE)
                    .sge(la.stag(), a.base(la), i));
        }
        List<WorkCompletion> r = completions(b, 60);
        for (int i = 0; i < 60; i++) {
            assertThat(r.get(i).wrId()).isEqualTo(100 + i);
            assertThat(r.get(i).byteLength()).isEqualTo(i);
        }
        assertThat(completions(a, 60)).extracting(WorkCompletion::wrId).startsWith(0L, 1L, 2L).hasSize(60);
        link.a.barrier();
        // MSNs 1..60 on queue 0 (RFC 5041 §5.1): the 60th Send carried MSN 60
        byte[] lastSend = link.a.sentUlpdus.getLast();
        assertThat(java.nio.ByteBuffer.wrap(lastSend, 10, 4).getInt()).isEqualTo(60);
    }

    @Test
    void readsBeyondOrdWaitAndCompleteInOrder_V_IRD_7_V_IRD_9_R_READ_043() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        MemoryRegion la = a.region(10 * 3000, RIGHTS);
        MemoryRegion lb = b.region(10 * 3000, RIGHTS);
        fill(b.memory(lb), 9);
        for (int i = 0; i < 10; i++) {
            a.qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_READ)
                    .sge(la.stag(), a.base(la) + 3000L * i, 3000).remote(lb.stag(), b.base(lb) + 3000L * i));
        }
        List<WorkCompletion> wcs = completions(a, 10);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(a.memory(la), 0, 30000)).isEqualTo(bytes(b.memory(lb), 0, 30000));
        long requests = link.a.sentUlpdus.stream().filter(u -> (u[1] & 0x0F) == 1).count();
        assertThat(requests).isEqualTo(10);
    }

    @Test
    void readResponsesInterleaveWithTheSendQueue_R_ORD_013_R_READ_029() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        MemoryRegion la = a.region(1 << 20, RIGHTS);
        MemoryRegion lb = b.region(1 << 20, RIGHTS);
        fill(a.memory(la), 21);
        for (int i = 0; i < 30; i++) {
            a.qp.postReceive(new ReceiveWorkRequest().wrId(500 + i).sge(la.stag(), a.base(la), 100));
        }
        // A reads 1 MiB from B while B sends 30 messages to A: B's TX alternates between them. B's
        // event loop is held until both the Read Request and the Sends are queued there.
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        link.b.executor.execute(() -> {
            try {
                hold.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(la.stag(), a.base(la), 1 << 20)
                .remote(lb.stag(), b.base(lb)));
        link.a.barrier(); // the Read Request is queued at B
        for (int i = 0; i < 30; i++) {
            b.qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND).sge(lb.stag(), b.base(lb), 100));
        }
        hold.countDown();
        completions(a, 31);
        completions(b, 30);
        List<byte[]> wire = link.b.sentUlpdus;
        int firstSend = -1;
        int lastResponse = -1;
        for (int i = 0; i < wire.size(); i++) {
            int opcode = wire.get(i)[1] & 0x0F;
            if (opcode == 3 && firstSend < 0) {
                firstSend = i;
            }
            if (opcode == 2) {
                lastResponse = i;
            }
        }
        assertThat(firstSend).isLessThan(lastResponse); // not all Sends wait for the whole Read Response
    }

    @Test
    void backpressureStopsAndResumesTransmission_V_TERM_1() {
        Side[] p = pair(MemoryLinkPair.Options.defaults().withHighWaterMark(8192));
        Side a = p[0];
        Side b = p[1];
        int size = 1 << 20;
        MemoryRegion la = a.region(size, RIGHTS);
        MemoryRegion lb = b.region(size, RIGHTS);
        fill(a.memory(la), 31);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(0, 0, 0));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(la.stag(), a.base(la), size)
                .remote(lb.stag(), b.base(lb)));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND));
        completions(b, 1);
        assertThat(completions(a, 2)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(b.memory(lb), 0, size)).isEqualTo(bytes(a.memory(la), 0, size));
    }

    @Test
    void largePayloadIsPlacedWithoutStagingCopies() {
        // chunks far below the FPDU size: every FPDU arrives in pieces, so header-then-payload applies
        Side[] p = pair(MemoryLinkPair.Options.defaults().withMaxChunk(400));
        Side a = p[0];
        Side b = p[1];
        int size = 1 << 20;
        MemoryRegion la = a.region(size, RIGHTS);
        MemoryRegion lb = b.region(size, RIGHTS);
        fill(a.memory(la), 41);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(lb.stag(), b.base(lb), size));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(la.stag(), a.base(la), size)
                .remote(lb.stag(), b.base(lb)));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(la.stag(), a.base(la), size));
        completions(b, 1);
        link.b.barrier();
        assertThat(bytes(b.memory(lb), 0, size)).isEqualTo(bytes(a.memory(la), 0, size));
        assertThat(b.engine.bytesCopied()).isZero();
        assertThat(b.engine.bytesPlacedDirect()).isEqualTo(2L * size);
        // the link read most payload straight into the target (the rest went through the deframer)
        assertThat(link.b.directBytes).isGreaterThan(size);
    }

    @Test
    void memoryOperationsTakeEffectInSqOrder_V_WRP_35() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        MemorySegment m = a.rnic.allocateMemory(256, 8);
        fill(m, 55);
        MemoryRegion src = a.pd.registerMemory(m, io.jrnic.api.AccessRights.LOCAL_READ, 6,
                io.jrnic.api.AddressType.VA_BASED, m.address(), false);
        MemoryRegion lb = b.region(256, RIGHTS);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(lb.stag(), b.base(lb), 256));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(src.stag(), m.address(), 256));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(src.stag()));
        assertThat(completions(b, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(b.memory(lb), 0, 256)).isEqualTo(bytes(m, 0, 256));
        assertThat(completions(a, 2)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void rtrConsumedMsnsShiftTheFirstMessages_RFC_6581_S9_3() {
        MemoryLinkPair l = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        l.a.outboundSendMsn = 2;
        l.b.inboundSendMsn = 2;
        l.a.outboundReadMsn = 2;
        l.b.inboundReadMsn = 2;
        Side[] p = connect(l);
        Side a = p[0];
        Side b = p[1];
        MemoryRegion la = a.region(100, RIGHTS);
        MemoryRegion lb = b.region(100, RIGHTS);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(lb.stag(), b.base(lb), 100));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(la.stag(), a.base(la), 10));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).sge(la.stag(), a.base(la), 10)
                .remote(lb.stag(), b.base(lb)));
        assertThat(completions(b, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(completions(a, 2)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(java.nio.ByteBuffer.wrap(link.a.sentUlpdus.getFirst(), 10, 4).getInt()).isEqualTo(2);
    }

    @Test
    void gracefulCloseTakesBothSidesToIdle_V_QPS_30_V_QPS_81() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(0, 0, 0));
        a.qp.modify(new QueuePairModification().nextState(QpState.CLOSING));
        awaitState(a, QpState.IDLE);
        awaitState(b, QpState.IDLE);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);
        assertThat(completions(b, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void remoteErrorTerminatesBothSides_R_WRITE_003_R_TERM_023() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        MemoryRegion la = a.region(64, RIGHTS);
        MemoryRegion lb = b.region(64, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(la.stag(), a.base(la), 64));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(la.stag(), a.base(la), 64)
                .remote(lb.stag(), b.base(lb) + 32)); // 32 bytes past the end
        awaitState(a, QpState.ERROR);
        awaitState(b, QpState.ERROR);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TAGGED_BASE_BOUNDS);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(a.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1101);
        assertThat(a.qp.query().terminateMessage().headers())
                .isEqualTo(b.qp.query().terminateMessage().headers()).hasSize(14);
        // RFC 5040 §5: the Write completed when handed to the LLP; the receive is flushed
        assertThat(completions(a, 2)).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.SUCCESS, WorkCompletionStatus.FLUSHED);
        assertThat(bytes(b.memory(lb), 0, 64)).containsOnly(0);
    }

    private static byte[] concat(byte[]... parts) {
        return Wire.concat(parts);
    }
}
