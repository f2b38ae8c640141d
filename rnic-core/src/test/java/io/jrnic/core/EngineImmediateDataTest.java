package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.NotifyType;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RFC 7306 §6 Immediate Data through two engines and against a raw peer: the exact 26-byte ULPDU
 * (wire-format.md §4.6), one receive WQE consumed in the Send MSN sequence, the 8 bytes and the
 * solicited flag in the receive completion, and the errors (no receive, wrong length, not offered).
 */
class EngineImmediateDataTest extends EngineFixture {
    private static final int IMMEDIATE = 0x8;
    private static final int IMMEDIATE_SE = 0x9;

    private Side a;
    private Side b;

    private void pairUp() {
        Side[] s = pair(MemoryLinkPair.Options.defaults());
        a = s[0];
        b = s[1];
    }

    private Side engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        return a;
    }

    @Test
    void immediateDataCompletesAReceiveWithItsEightBytes_A_IMM_001_A_IMM_004_AMB_32() {
        pairUp();
        MemoryRegion rb = b.region(64, RIGHTS);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(50).sge(rb.stag(), b.base(rb), 64));
        a.qp.postSend(new SendWorkRequest().wrId(1).immediateData(0x0102_0304_0506_0708L, false));
        WorkCompletion rwc = completions(b, 1).getFirst();
        assertThat(rwc.wrId()).isEqualTo(50L);
        assertThat(rwc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(rwc.opcode()).isEqualTo(Opcode.IMMEDIATE_DATA);
        assertThat(rwc.hasImmediateData()).isTrue();
        assertThat(rwc.immediateData()).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(rwc.byteLength()).isZero(); // AMB-32: not placed in the receive buffer
        assertThat(bytes(b.memory(rb), 0, 64)).containsOnly(0);
        WorkCompletion swc = completions(a, 1).getFirst();
        assertThat(swc.opcode()).isEqualTo(Opcode.IMMEDIATE_DATA);
        assertThat(swc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void immediateDataWithSeSolicitsAndPlainImmediateDataDoesNot_A_IMM_014() {
        pairUp();
        MemoryRegion rb = b.region(64, RIGHTS);
        for (int i = 0; i < 2; i++) {
            b.qp.postReceive(new ReceiveWorkRequest().wrId(60 + i).sge(rb.stag(), b.base(rb), 64));
        }
        b.cq.requestNotification(NotifyType.SOLICITED);
        a.qp.postSend(new SendWorkRequest().wrId(1).immediateData(1, false));
        completions(b, 1);
        assertThat(b.notifications.get()).isZero();
        a.qp.postSend(new SendWorkRequest().wrId(2).immediateData(2, true));
        List<WorkCompletion> wcs = completions(b, 2);
        assertThat(wcs.get(1).opcode()).isEqualTo(Opcode.IMMEDIATE_DATA_SE);
        assertThat(wcs.get(1).immediateData()).isEqualTo(2L);
        await(() -> b.notifications.get() == 1, "the solicited notification");
    }

    @Test
    void writeThenImmediateDataIsWriteWithImmediate_A_IMM_002_A_IMM_035() {
        pairUp();
        MemoryRegion la = a.region(4096, RIGHTS);
        fill(a.memory(la), 7);
        MemoryRegion lb = b.region(4096, RIGHTS);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(70).sge(lb.stag(), b.base(lb), 0)); // AMB-32: 0 bytes do
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(la.stag(), a.base(la), 4096)
                .remote(lb.stag(), b.base(lb)));
        a.qp.postSend(new SendWorkRequest().wrId(2).immediateData(4096, false));
        WorkCompletion wc = completions(b, 1).getFirst();
        assertThat(wc.immediateData()).isEqualTo(4096L);
        // the Immediate Data completes only after the Write before it was placed (RFC 7306 §7)
        assertThat(bytes(b.memory(lb), 0, 4096)).isEqualTo(bytes(a.memory(la), 0, 4096));
    }

    @Test
    void immediateDataConsumesASharedReceiveQueueWqe_A_IMM_008() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        a = side(link.a);
        b = new Side();
        b.rnic = SoftRnic.open(new RnicConfig().name("imm-srq"));
        b.rnic.setAsyncEventHandler((r, e) -> b.events.add(e));
        b.pd = b.rnic.allocatePd();
        b.cq = b.rnic.createCq(64);
        SharedReceiveQueue srq = b.pd.createSharedReceiveQueue(16, 2, 0);
        b.qp = b.pd.createQueuePair(new QueuePairConfig().cqs(b.cq, b.cq).srq(srq, 0));
        b.engine = new QpEngine(link.b);
        b.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(b.engine));
        sides.add(b);
        MemoryRegion lb = b.region(64, RIGHTS);
        srq.postReceive(new ReceiveWorkRequest().wrId(100).sge(lb.stag(), b.base(lb), 32));
        srq.postReceive(new ReceiveWorkRequest().wrId(101).sge(lb.stag(), b.base(lb) + 32, 32));
        MemoryRegion la = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).immediateData(0xABCDL, true));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(la.stag(), a.base(la), 5));
        List<WorkCompletion> wcs = completions(b, 2);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(100L, 101L);
        assertThat(wcs.get(0).immediateData()).isEqualTo(0xABCDL);
        assertThat(wcs.get(0).opcode()).isEqualTo(Opcode.IMMEDIATE_DATA_SE);
        assertThat(wcs.get(1).opcode()).isEqualTo(Opcode.RECEIVE);
        assertThat(wcs.get(1).hasImmediateData()).isFalse();
        assertThat(wcs.get(1).byteLength()).isEqualTo(5);
    }

    @Test
    void immediateDataBytesUseTheSendMsnSequence_A_IMM_006_A_IMM_010_A_IMM_011_A_IMM_012() {
        engineWithRawPeer();
        MemoryRegion la = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(la.stag(), a.base(la), 4));
        a.qp.postSend(new SendWorkRequest().wrId(2).immediateData(0x0102_0304_0506_0708L, false));
        a.qp.postSend(new SendWorkRequest().wrId(3).immediateData(-1L, true));
        await(() -> raw.received.size() == 3, "three messages");
        // RFC 7306 §6.2 Figure 7: QN 0, MSN after the Send's, MO 0, L=1, the 8 bytes big-endian
        assertBytes(raw.received.get(1), "41 48 00000000 00000000 00000002 00000000 0102030405060708");
        assertBytes(raw.received.get(2), "41 49 00000000 00000000 00000003 00000000 ffffffffffffffff");
        assertThat(completions(a, 3)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void immediateDataIsDeliveredInOrderWithSends_A_IMM_009_A_IMM_020_A_IMM_034() {
        engineWithRawPeer();
        MemoryRegion rb = a.region(256, RIGHTS);
        for (int i = 0; i < 3; i++) {
            a.qp.postReceive(new ReceiveWorkRequest().wrId(10 + i).sge(rb.stag(), a.base(rb) + 64L * i, 64));
        }
        raw.send(Wire.send(1, new byte[] {1, 2, 3}), immediate(IMMEDIATE, 2, 0x55L), Wire.send(3, new byte[] {4}));
        List<WorkCompletion> wcs = completions(a, 3);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(10L, 11L, 12L);
        assertThat(wcs).extracting(WorkCompletion::opcode)
                .containsExactly(Opcode.RECEIVE, Opcode.IMMEDIATE_DATA, Opcode.RECEIVE);
        assertThat(wcs.get(1).immediateData()).isEqualTo(0x55L);
        assertThat(bytes(a.memory(rb), 128, 1)).containsExactly(4);
    }

    @Test
    void immediateDataWithoutAReceiveIsNoBuffer_A_IMM_008() {
        engineWithRawPeer();
        byte[] m = immediate(IMMEDIATE, 1, 1L);
        raw.send(m);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 1202c000 0008 " + header(m));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
    }

    @Test
    void immediateDataOfTheWrongLengthIsUnspecifiedAndFlushesTheReceive_A_IMM_005_A_IMM_013() {
        engineWithRawPeer();
        MemoryRegion rb = a.region(64, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(9).sge(rb.stag(), a.base(rb), 64));
        byte[] m = Wire.untagged(IMMEDIATE, true, 0, 0, 1, 0, new byte[16]);
        raw.send(m);
        // M=1, D=1 (A-IMM-013); the length after the 8-byte header is 8
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 02ffc000 0008 " + header(m));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC);
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(9L);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void rnicWithoutImmediateDataAnswersUnexpectedOpcodeAndKeepsItsReceive_A_ATOM_003() {
        extensions = EnumSet.of(RnicExtension.ATOMICS, RnicExtension.INLINE_DATA);
        engineWithRawPeer();
        MemoryRegion rb = a.region(64, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(9).sge(rb.stag(), a.base(rb), 64));
        byte[] m = immediate(IMMEDIATE_SE, 1, 1L);
        raw.send(m);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 0206c000 0000 " + header(m));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    private static byte[] immediate(int opcode, int msn, long data) {
        return Wire.untagged(opcode, true, 0, 0, msn, 0, java.nio.ByteBuffer.allocate(8).putLong(data).array());
    }

    private byte[] awaitTerminate() {
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the LLP close");
        assertThat(raw.received).hasSize(1);
        return raw.received.getFirst();
    }

    private static String header(byte[] ulpdu) {
        return hex(Arrays.copyOf(ulpdu, 18));
    }
}
