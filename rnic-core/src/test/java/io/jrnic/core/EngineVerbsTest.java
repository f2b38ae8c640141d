package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.NotifyType;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.StagState;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Verbs behaviour that needs the wire: events, windows, S-RQ, invalidation, LLP closure. */
class EngineVerbsTest extends EngineFixture {

    @Test
    void onlySolicitedSendsFireASolicitedNotification_R_SEND_015_V_WRP_20() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        b.qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(0, 0, 0));
        b.qp.postReceive(new ReceiveWorkRequest().wrId(2).sge(0, 0, 0));
        b.cq.requestNotification(NotifyType.SOLICITED);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND));
        completions(b, 1);
        link.settle(); // the completion's upcall, notification included, has finished on B's loop
        assertThat(b.notifications.get()).isZero();
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND_SE));
        completions(b, 2);
        await(() -> b.notifications.get() > 0, "the solicited notification");
        link.settle();
        assertThat(b.notifications.get()).isEqualTo(1);
    }

    @Test
    void writeAndReadThroughAWindowBoundToTheQp_R_SEC_012_V_MW_41() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        MemoryRegion region = b.pd.registerMemory(b.rnic.allocateMemory(8192, 8), RIGHTS | AccessRights.BIND_WINDOW);
        MemoryWindow mw = b.pd.allocateWindow();
        b.qp.postSend(new SendWorkRequest().wrId(9).bind(mw.stag(), region.stag(), b.base(region) + 4096, 1024,
                AddressType.VA_BASED, AccessRights.REMOTE_WRITE | AccessRights.REMOTE_READ));
        completions(b, 1);
        MemoryRegion la = a.region(1024, RIGHTS);
        fill(a.memory(la), 77);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(la.stag(), a.base(la), 1024)
                .remote(mw.stag(), b.base(region) + 4096));
        MemoryRegion back = a.region(1024, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).sge(back.stag(), a.base(back), 1024)
                .remote(mw.stag(), b.base(region) + 4096));
        assertThat(completions(a, 2)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(b.memory(region), 4096, 1024)).isEqualTo(bytes(a.memory(la), 0, 1024));
        assertThat(bytes(a.memory(back), 0, 1024)).isEqualTo(bytes(a.memory(la), 0, 1024));
    }

    @Test
    void readWithInvalidateLocalInvalidatesTheSinkAfterPlacement_V_WRP_32() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        var m = a.rnic.allocateMemory(512, 8);
        // Verbs §7.5.2, Figure 21: a Read sink needs Remote Write (V-MR-82)
        MemoryRegion sink = a.pd.registerMemory(m, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE
                | AccessRights.REMOTE_WRITE, 3, AddressType.VA_BASED, m.address(), true);
        MemoryRegion src = b.region(512, RIGHTS);
        fill(b.memory(src), 8);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ_INVALIDATE).sge(sink.stag(), m.address(), 512)
                .remote(src.stag(), b.base(src)));
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(m, 0, 512)).isEqualTo(bytes(b.memory(src), 0, 512));
        assertThat(sink.query().state()).isEqualTo(StagState.INVALID);
    }

    @Test
    void sendsConsumeSharedReceiveQueueWqesInMsnOrder_V_SRQ_21_V_SRQ_22() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        Side a = side(link.a);
        Side b = new Side();
        b.rnic = SoftRnic.open(new io.jrnic.api.RnicConfig().name("srq-side"));
        b.rnic.setAsyncEventHandler((r, e) -> b.events.add(e));
        b.pd = b.rnic.allocatePd();
        b.cq = b.rnic.createCq(64);
        SharedReceiveQueue srq = b.pd.createSharedReceiveQueue(16, 2, 0);
        b.qp = b.pd.createQueuePair(new QueuePairConfig().cqs(b.cq, b.cq).srq(srq, 0));
        b.engine = new QpEngine(link.b);
        b.qp.modify(new io.jrnic.api.QueuePairModification().nextState(QpState.RTS).llpStream(b.engine));
        sides.add(b);
        MemoryRegion lb = b.region(300, RIGHTS);
        for (int i = 0; i < 3; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(100 + i).sge(lb.stag(), b.base(lb) + 100L * i, 100));
        }
        MemoryRegion la = a.region(64, RIGHTS);
        for (int i = 0; i < 3; i++) {
            a.qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND).sge(la.stag(), a.base(la), 10 + i));
        }
        List<WorkCompletion> wcs = completions(b, 3);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(100L, 101L, 102L);
        assertThat(wcs).extracting(WorkCompletion::byteLength).containsExactly(10, 11, 12);
    }

    @Test
    void receiveWithABadSglTerminatesWithLocalCatastrophic_V_ERR_7_R_TERM_010() {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion readOnly = a.region(64, AccessRights.LOCAL_READ);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(5).sge(readOnly.stag(), a.base(readOnly), 64));
        raw.send(Wire.send(1, new byte[8]));
        await(() -> !raw.received.isEmpty(), "the Terminate");
        assertBytes(raw.received.getFirst(), Wire.TERMINATE_HEADER + " 00000000"); // M=D=R=0
        awaitState(a, QpState.ERROR);
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION);
        assertThat(bytes(a.memory(readOnly), 0, 8)).containsOnly(0);
    }

    @Test
    void peerResetFlushesAndReportsConnectionReset_V_ERR_20() {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        a.qp.postReceive(new ReceiveWorkRequest().wrId(5).sge(0, 0, 0));
        raw.endpoint.abort();
        awaitState(a, QpState.ERROR);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_RESET);
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void peerCloseOfAnIdleStreamClosesTheQp_V_QPS_27_V_NOTE_10() {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        raw.endpoint.close();
        awaitState(a, QpState.IDLE);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);
    }

    @Test
    void peerCloseWithWorkOutstandingIsBadLlpClose_V_QPS_28() {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(mr.stag(), a.base(mr), 64)
                .remote(0x4401, 0)); // outstanding: the raw peer never answers
        await(() -> !raw.received.isEmpty(), "the Read Request");
        raw.endpoint.close();
        awaitState(a, QpState.ERROR);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.BAD_LLP_CLOSE);
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void modifyToErrorResetsTheStream_V_QPS_39() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        a.qp.modify(new io.jrnic.api.QueuePairModification().nextState(QpState.ERROR));
        awaitState(b, QpState.ERROR);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_RESET);
        assertThat(a.engine.established()).isFalse();
    }
}
