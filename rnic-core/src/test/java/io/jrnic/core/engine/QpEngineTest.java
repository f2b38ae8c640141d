package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.Wire;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine on its own (issue 10): two {@link QpEngine}s over a {@link MemoryLinkPair} (the real
 * MPA framing and deframing, in memory), each with a {@link FakeQpContext} (real STag table and PDs)
 * and {@link RecordingUpcalls} in place of the QP; no SoftRnic, no SoftQueuePair. The expectations
 * are those EngineDataPathTest and EngineErrorTest assert through real QPs.
 */
class QpEngineTest {
    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;
    private static final HexFormat HEX = HexFormat.of();

    private final FakeRnic memA = new FakeRnic();
    private final FakeRnic memB = new FakeRnic();
    private MemoryLinkPair link;
    private End a;
    private End b;

    /** One side: its memory, context, recorded upcalls and engine. */
    private static final class End {
        final FakeRnic mem;
        final SoftProtectionDomain pd;
        final FakeQpContext context;
        final RecordingUpcalls upcalls;
        final MemoryLinkPair.Endpoint endpoint;
        QpEngine engine;

        End(FakeRnic mem, int qpId, MemoryLinkPair.Endpoint endpoint) {
            this.mem = mem;
            this.pd = mem.pd();
            this.context = new FakeQpContext(qpId, pd, mem.table);
            this.upcalls = new RecordingUpcalls(pd);
            this.endpoint = endpoint;
        }

        void start() {
            engine = new QpEngine(endpoint);
            upcalls.engine = engine;
            engine.start(context, upcalls, null);
        }

        MemoryRegion region(SoftProtectionDomain in, int pages, int rights) {
            return in.registerMemory(mem.memory(pages), rights);
        }

        MemorySegment memory(MemoryRegion mr) {
            return mem.table.resolveMemory(mr.stag(), mr.query().baseTo());
        }
    }

    private void connect(MemoryLinkPair.Options options) {
        link = new MemoryLinkPair(options);
        a = new End(memA, 1, link.a);
        b = new End(memB, 2, link.b);
    }

    private void start() {
        a.start();
        b.start();
    }

    @AfterEach
    void tearDown() {
        if (link != null) {
            link.close();
        }
        memA.close();
        memB.close();
    }

    /** Waits (bounded, no sleeping) until the condition holds, letting both event loops run. */
    private void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; A: " + a.upcalls.names() + ", B: "
                        + b.upcalls.names());
            }
            link.a.barrier();
            link.b.barrier();
            Thread.onSpinWait();
        }
    }

    private static SendWqe wqe(SendWorkRequest wr) {
        SendWqe w = new SendWqe(4, 64);
        w.copyFrom(wr, true);
        w.inFlight = true; // as the QP's processSq hands it over
        return w;
    }

    private static void fill(MemorySegment m, long length, int seed) {
        for (long i = 0; i < length; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
    }

    private static byte[] bytes(MemorySegment m, long length) {
        return m.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void rdmaWriteIsPlacedAtThePeerAndCompletesOnceHandedToTheLink_R_WRITE_V_WRP() {
        connect(MemoryLinkPair.Options.defaults());
        start();
        MemoryRegion src = a.region(a.pd, 2, RIGHTS);
        MemoryRegion dst = b.region(b.pd, 2, RIGHTS);
        fill(a.memory(src), 5000, 1);
        // the peer does not read its socket: the Write still completes at the requester once the
        // link took its last FPDU (Verbs §8.2.2: handed to the LLP), not when it is placed
        link.b.executor().execute(link.b::pauseReceive);
        SendWqe w = wqe(new SendWorkRequest().wrId(7).opcode(Opcode.RDMA_WRITE)
                .sge(src.stag(), src.query().baseTo(), 5000).remote(dst.stag(), dst.query().baseTo()));
        a.engine.transmit(w);

        await(() -> a.upcalls.first("sendCompleted") != null, "the Write's completion");
        RecordingUpcalls.Call c = a.upcalls.first("sendCompleted");
        assertThat(c.send()).isSameAs(w);
        assertThat(c.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(b.memory(dst), 5000)).containsOnly(0); // not read yet

        link.b.executor().execute(link.b::resumeReceive);
        await(() -> Arrays.equals(bytes(b.memory(dst), 5000), bytes(a.memory(src), 5000)), "the placement");
        link.settle();
        assertThat(a.upcalls.names()).containsExactly("sendCompleted"); // exactly once
        assertThat(b.upcalls.calls).isEmpty(); // RFC 5040 §5.1: a Write completes nothing at the Data Sink
    }

    @Test
    void sendConsumesThePeersReceiveWqe_R_SEND_V_WRP() {
        connect(MemoryLinkPair.Options.defaults());
        start();
        MemoryRegion src = a.region(a.pd, 1, RIGHTS);
        MemoryRegion dst = b.region(b.pd, 1, RIGHTS);
        fill(a.memory(src), 2000, 2);
        var rwqe = b.upcalls.postReceive(5, dst.stag(), dst.query().baseTo(), 4096);
        SendWqe w = wqe(new SendWorkRequest().wrId(8).opcode(Opcode.SEND_SE)
                .sge(src.stag(), src.query().baseTo(), 2000));
        a.engine.transmit(w);

        await(() -> b.upcalls.first("receiveCompleted") != null, "the receive completion");
        RecordingUpcalls.Call r = b.upcalls.first("receiveCompleted");
        assertThat(r.receive()).isSameAs(rwqe);
        assertThat(r.receive().wrId()).isEqualTo(5);
        assertThat(r.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(r.byteLength()).isEqualTo(2000);
        assertThat(r.solicited()).isTrue(); // Send with Solicited Event (RFC 5040 §4.3)
        assertThat(r.invalidatedStag()).isZero();
        assertThat(bytes(b.memory(dst), 2000)).isEqualTo(bytes(a.memory(src), 2000));
        assertThat(b.upcalls.names()).containsExactly("takeReceive", "receiveCompleted"); // one WQE, once
        await(() -> a.upcalls.first("sendCompleted") != null, "the Send's completion");
        assertThat(a.upcalls.first("sendCompleted").status()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void rdmaReadReturnsTheSourceBytesAndCompletesAtTheRequester_R_READ_005() {
        connect(MemoryLinkPair.Options.defaults());
        start();
        MemoryRegion sink = a.region(a.pd, 2, RIGHTS);
        MemoryRegion source = b.region(b.pd, 2, RIGHTS);
        fill(b.memory(source), 6000, 3);
        SendWqe w = wqe(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ)
                .sge(sink.stag(), sink.query().baseTo(), 6000).remote(source.stag(), source.query().baseTo()));
        a.engine.transmit(w);

        await(() -> a.upcalls.first("sendCompleted") != null, "the Read's completion");
        RecordingUpcalls.Call c = a.upcalls.first("sendCompleted");
        assertThat(c.send()).isSameAs(w);
        assertThat(c.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        // the completion comes with the last Read Response placed (Verbs §8.2.2): the bytes are there
        assertThat(bytes(a.memory(sink), 6000)).isEqualTo(bytes(b.memory(source), 6000));
        link.settle();
        assertThat(a.upcalls.names()).containsExactly("sendCompleted");
        assertThat(b.upcalls.calls).isEmpty(); // a Read completes nothing at the Data Source
        assertThat(b.engine.remoteReadsInProgress()).isFalse(); // the IRD slot was released
    }

    @Test
    void readOfAnotherPdsStagIsTerminatedWithStagNotAssociated_R_ERR_028() {
        connect(MemoryLinkPair.Options.defaults());
        start();
        a.upcalls.actLikeQp = true;
        b.upcalls.actLikeQp = true;
        MemoryRegion sink = a.region(a.pd, 1, RIGHTS);
        MemoryRegion foreign = b.region(memB.pd(), 1, RIGHTS); // a PD that is not the QP's
        SendWqe w = wqe(new SendWorkRequest().wrId(10).opcode(Opcode.RDMA_READ)
                .sge(sink.stag(), sink.query().baseTo(), 64).remote(foreign.stag(), foreign.query().baseTo()));
        a.engine.transmit(w);

        await(() -> a.upcalls.first("terminateReceived") != null, "the Terminate at the requester");
        byte[] rr = link.a.sentUlpdus.getFirst();
        assertThat(rr).hasSize(46);
        // the responder: Figure 24 "invalid PD" for the IRRQ, the Terminate it hands back
        RecordingUpcalls.Call e = b.upcalls.first("remoteError");
        assertThat(e.event()).isEqualTo(AsyncEventType.IRRQ_INVALID_PD);
        assertThat(e.message().terminateControl()).isEqualTo(0x0103); // RDMAP, remote protection, not associated
        assertThat(e.message().locallyGenerated()).isTrue();
        assertThat(e.message().headers()).isEqualTo(rr); // DDP and RDMA Read Request headers (RFC 5040 §4.8)
        // on the wire: exactly the Terminate EngineErrorTest expects, the responder's last FPDU
        await(() -> link.b.closure != null, "the responder's close");
        List<byte[]> sent = link.b.sentUlpdus;
        assertThat(sent).hasSize(1);
        assertThat(HEX.formatHex(sent.getFirst())).isEqualTo(
                (Wire.TERMINATE_HEADER + " 0103e000 0000 ").replace(" ", "") + HEX.formatHex(rr));
        // graceful, not a reset (R-TERM-034); the requester's own close may cross the responder's FIN
        assertThat(link.b.closure).isIn(FpduLink.Closure.LOCAL_CLOSE, FpduLink.Closure.REMOTE_CLOSE);
        // the requester: the Terminate, not answered; its Read is left to the QP's flush
        RecordingUpcalls.Call t = a.upcalls.first("terminateReceived");
        assertThat(t.event()).isEqualTo(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(t.message().terminateControl()).isEqualTo(0x0103);
        assertThat(t.message().locallyGenerated()).isFalse();
        assertThat(t.message().headers()).isEqualTo(rr);
        await(() -> a.upcalls.first("closeCompleted") != null && b.upcalls.first("closeCompleted") != null,
                "both closes");
        assertThat(a.upcalls.names()).containsExactly("terminateReceived", "closeCompleted");
        assertThat(b.upcalls.names()).containsExactly("remoteError", "closeCompleted");
        assertThat(link.a.sentUlpdus).hasSize(1); // R-TERM-048: a Terminate is never answered
        assertThat(bytes(a.memory(sink), 64)).containsOnly(0);
        assertThat(b.context.terminateClosing.get()).isEqualTo(1);
        assertThat(b.context.terminateClosed.get()).isEqualTo(1);
    }

    @Test
    void closeEndsWithCloseCompletedAndThePeerSeesAFin_V_QPS() {
        connect(MemoryLinkPair.Options.defaults());
        start();
        a.engine.close();
        await(() -> a.upcalls.first("closeCompleted") != null, "the close");
        await(() -> b.upcalls.first("remoteClosed") != null, "the FIN at the peer");
        link.settle();
        assertThat(a.upcalls.names()).containsExactly("closeCompleted");
        assertThat(b.upcalls.names()).containsExactly("remoteClosed"); // Verbs §6.2.2.2: FIN without a Terminate
        assertThat(link.a.closure).isEqualTo(FpduLink.Closure.LOCAL_CLOSE);
        assertThat(link.a.sentUlpdus).isEmpty(); // no Terminate on a graceful close
        assertThat(a.engine.linkEnded()).isTrue();
        assertThat(a.context.terminateClosing.get()).isZero();
        assertThat(a.context.terminateClosed.get()).isEqualTo(1);
    }

    @Test
    void resetAbortsTheLinkAndReportsNothing_V_QPS_39() {
        connect(MemoryLinkPair.Options.defaults());
        start();
        MemoryRegion src = a.region(a.pd, 1, RIGHTS);
        MemoryRegion dst = b.region(b.pd, 1, RIGHTS);
        a.engine.reset();
        await(() -> link.a.closure != null, "the abort");
        assertThat(link.a.closure).isEqualTo(FpduLink.Closure.LOCAL_ABORT);
        assertThat(a.engine.established()).isFalse();
        // a WQE handed over afterwards is not sent and not completed (the QP flushes it)
        a.engine.transmit(wqe(new SendWorkRequest().wrId(11).opcode(Opcode.RDMA_WRITE)
                .sge(src.stag(), src.query().baseTo(), 16).remote(dst.stag(), dst.query().baseTo())));
        await(() -> b.upcalls.first("connectionFailed(reset)") != null, "the reset at the peer");
        link.settle();
        assertThat(a.upcalls.calls).isEmpty();
        assertThat(link.a.fpdusSent).isZero();
        assertThat(b.upcalls.names()).containsExactly("connectionFailed(reset)");
    }

    @Test
    void requestedTerminateIsSentBeforeTheClose_V_QPS_45_R_TERM_034() {
        connect(MemoryLinkPair.Options.defaults());
        start();
        int code = 0x0205; // RDMAP, remote operation error, catastrophic (a Verbs-generated Terminate)
        a.engine.terminate(new TerminateMessage(code, true, null));
        await(() -> b.upcalls.names().contains("remoteClosed"), "the peer's FIN");
        await(() -> a.upcalls.first("closeCompleted") != null, "the close after the Terminate");
        // the Terminate came first, then the FIN (RFC 5040 §6.2.1: the Terminate is the last message)
        assertThat(b.upcalls.names()).containsExactly("terminateReceived", "remoteClosed");
        RecordingUpcalls.Call t = b.upcalls.first("terminateReceived");
        assertThat(t.message().terminateControl()).isEqualTo(code);
        assertThat(t.message().locallyGenerated()).isFalse();
        assertThat(t.event()).isEqualTo(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(link.a.sentUlpdus).hasSize(1);
        assertThat(link.a.sentUlpdus.getFirst()[1] & 0x0F).isEqualTo(Wire.TERMINATE);
        assertThat(link.a.closure).isEqualTo(FpduLink.Closure.LOCAL_CLOSE); // graceful, not a reset
        assertThat(a.upcalls.names()).containsExactly("closeCompleted");
        assertThat(a.context.terminateClosing.get()).isEqualTo(1); // Close RNIC waits for it (R-TERM-034)
        assertThat(a.context.terminateClosed.get()).isEqualTo(1);
    }

    @Test
    void txCutsAWriteAtMulpduAndNeverAcrossAnSge_RFC_5041_5_2() {
        connect(MemoryLinkPair.Options.defaults()); // MULPDU 1448: 1434 payload bytes after the tagged header
        start();
        MemoryRegion src = a.region(a.pd, 1, RIGHTS);
        MemoryRegion dst = b.region(b.pd, 1, RIGHTS);
        fill(a.memory(src), 4096, 4);
        long base = src.query().baseTo();
        long sink = dst.query().baseTo();
        a.engine.transmit(wqe(new SendWorkRequest().wrId(12).opcode(Opcode.RDMA_WRITE)
                .sge(src.stag(), base, 1500).sge(src.stag(), base + 2000, 100).remote(dst.stag(), sink)));
        await(() -> a.upcalls.first("sendCompleted") != null, "the Write's completion");
        link.settle();

        List<byte[]> fpdus = link.a.sentUlpdus;
        // 1500 = 1434 + 66 within the first SGE, then the second SGE alone (RFC 5041 §5.2)
        assertThat(fpdus).extracting(u -> u.length).containsExactly(14 + 1434, 14 + 66, 14 + 100);
        assertThat(fpdus).extracting(u -> u[0] & 0x40).containsExactly(0, 0, 0x40); // L only on the last
        assertThat(fpdus).extracting(u -> java.nio.ByteBuffer.wrap(u, 6, 8).getLong())
                .containsExactly(sink, sink + 1434, sink + 1500); // the TO advances with the payload
        MemorySegment placed = b.memory(dst);
        MemorySegment from = a.memory(src);
        assertThat(bytes(placed, 1500)).isEqualTo(bytes(from, 1500));
        assertThat(bytes(placed.asSlice(1500), 100)).isEqualTo(bytes(from.asSlice(2000), 100));
    }

    @Test
    void msnsStartWhereTheConnectionSetupLeftThem_RFC_6581_9_3() {
        connect(MemoryLinkPair.Options.defaults());
        // an RTR Send and an RTR Read Request consumed MSN 1 of queues 0 and 1 in both directions
        link.a.outboundSendMsn = 2;
        link.a.outboundReadMsn = 2;
        link.b.inboundSendMsn = 2;
        link.b.inboundReadMsn = 2;
        start();
        MemoryRegion ra = a.region(a.pd, 1, RIGHTS);
        MemoryRegion rb = b.region(b.pd, 1, RIGHTS);
        b.upcalls.postReceive(1, rb.stag(), rb.query().baseTo(), 64);
        a.engine.transmit(wqe(new SendWorkRequest().wrId(13).opcode(Opcode.SEND)
                .sge(ra.stag(), ra.query().baseTo(), 16)));
        a.engine.transmit(wqe(new SendWorkRequest().wrId(14).opcode(Opcode.RDMA_READ)
                .sge(ra.stag(), ra.query().baseTo() + 64, 16).remote(rb.stag(), rb.query().baseTo() + 64)));
        await(() -> a.upcalls.calls.stream().filter(c -> c.name().equals("sendCompleted")).count() == 2,
                "both completions");
        link.settle();
        assertThat(a.upcalls.calls).extracting(RecordingUpcalls.Call::status)
                .containsExactly(WorkCompletionStatus.SUCCESS, WorkCompletionStatus.SUCCESS);
        assertThat(b.upcalls.names()).containsExactly("takeReceive", "receiveCompleted"); // no MSN error
        List<byte[]> fpdus = link.a.sentUlpdus;
        assertThat(java.nio.ByteBuffer.wrap(fpdus.get(0), 10, 4).getInt()).isEqualTo(2); // the Send's MSN
        assertThat(java.nio.ByteBuffer.wrap(fpdus.get(1), 10, 4).getInt()).isEqualTo(2); // the Read Request's
    }
}
