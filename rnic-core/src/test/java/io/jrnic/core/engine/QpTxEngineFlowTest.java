package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transmit side's flow over a link that pushes back (issue 13): one {@link QpEngine} on a
 * {@link SteppedLink} around side A of a caller-thread {@link MemoryLinkPair}, a raw peer on side B.
 * A link that asks the engine to wait (its send returned false: the socket is full) gets no further
 * FPDU until it reports itself writable (V-TERM-1: outbound processing waits for the LLP, it does
 * not fail), whichever kind of FPDU filled it; the engine's reset forgets the responses it owed.
 */
class QpTxEngineFlowTest {
    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;

    private final FakeRnic mem = new FakeRnic();
    private MemoryLinkPair pair;
    private SteppedLink link;
    private final FakeQpContext context = new FakeQpContext(9, mem.pd(), mem.table);
    private final RecordingUpcalls upcalls = new RecordingUpcalls(context.pd);
    private final Peer peer = new Peer();
    private QpEngine engine;

    /** Side B: records the ULPDUs it receives. */
    private static final class Peer implements FpduHandler, FpduLink.Listener {
        final List<byte[]> received = new CopyOnWriteArrayList<>();

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            received.add(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
        }

        @Override
        public void onError(DeframeFault fault) {
            throw new AssertionError("the peer could not deframe: " + fault);
        }

        @Override
        public void onClosed(FpduLink.Closure c) {
        }
    }

    @AfterEach
    void tearDown() {
        if (pair != null) {
            pair.close();
        }
        mem.close();
    }

    private void start(MemoryLinkPair.Options options) {
        pair = MemoryLinkPair.onCallerThread(options);
        link = new SteppedLink(pair.a);
        engine = new QpEngine(link, Duration.ofSeconds(10), Duration.ZERO);
        upcalls.engine = engine;
        pair.b.executor().execute(() -> pair.b.start(peer, peer));
        engine.start(context, upcalls, null);
        pair.settle();
    }

    private static SendWqe wqe(SendWorkRequest wr) {
        SendWqe w = new SendWqe(4, 128);
        w.copyFrom(wr, true);
        w.inFlight = true;
        return w;
    }

    private MemoryRegion region() {
        return context.pd.registerMemory(mem.memory(1), RIGHTS);
    }

    private SendWqe write(long wrId, MemoryRegion mr, int length) {
        return wqe(new SendWorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), mr.query().baseTo(), length)
                .remote(0x4301, 0));
    }

    private long completed() {
        return upcalls.calls.stream().filter(c -> c.name().equals("sendCompleted")
                && c.status() == WorkCompletionStatus.SUCCESS).count();
    }

    @Test
    void aFullLinkGetsNoFurtherFpduUntilItIsWritable_V_TERM_1() {
        start(MemoryLinkPair.Options.defaults()); // 1434 payload bytes per tagged segment
        MemoryRegion mr = region();
        link.windowClosed = true;
        // a Write's last (and only) FPDU fills the link: the next Write waits
        engine.transmit(write(1, mr, 8));
        engine.transmit(write(2, mr, 3000));
        pair.settle();
        assertThat(peer.received).hasSize(1);
        assertThat(completed()).isEqualTo(1); // the first was handed over whole
        // writable again: the second Write's first segment (a middle FPDU) fills it again
        link.listener.onWritable();
        pair.settle();
        assertThat(peer.received).hasSize(2);
        assertThat(completed()).isEqualTo(1);
        link.windowClosed = false;
        link.listener.onWritable();
        pair.settle();
        assertThat(peer.received).extracting(u -> u.length).containsExactly(14 + 8, 14 + 1434, 14 + 1434, 14 + 132);
        assertThat(completed()).isEqualTo(2);
    }

    @Test
    void aFullLinkAfterAReadRequestHoldsTheNextRequest_V_TERM_1() {
        start(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = region();
        link.windowClosed = true;
        engine.transmit(wqe(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_READ)
                .sge(mr.stag(), mr.query().baseTo(), 64).remote(0x4201, 0x9000)));
        engine.transmit(write(4, mr, 8));
        pair.settle();
        assertThat(peer.received).hasSize(1);
        link.windowClosed = false;
        link.listener.onWritable();
        pair.settle();
        assertThat(peer.received).hasSize(2);
    }

    /**
     * Inline data (V-WRP-21) longer than one segment's room is cut at MULPDU like any other payload
     * (RFC 5041 §5.2): with MULPDU 64 an untagged segment carries 46 bytes, so 100 inline bytes are
     * three Send segments of 46, 46 and 8 bytes at MOs 0, 46 and 92, the last with L=1.
     */
    @Test
    void inlineDataLongerThanASegmentIsCutAtMulpdu_RFC_5041_5_2() {
        start(MemoryLinkPair.Options.defaults().withMulpdu(64));
        SendWqe w = wqe(new SendWorkRequest().wrId(5).opcode(Opcode.SEND).inline(true));
        for (int i = 0; i < 100; i++) {
            w.inlineData[i] = (byte) (i + 1);
        }
        w.inlineLength = 100;
        engine.transmit(w);
        pair.settle();
        assertThat(peer.received).extracting(u -> u.length).containsExactly(18 + 46, 18 + 46, 18 + 8);
        assertThat(peer.received).extracting(u -> u[0] & 0x40).containsExactly(0, 0, 0x40);
        assertThat(peer.received).extracting(u -> java.nio.ByteBuffer.wrap(u, 14, 4).getInt())
                .containsExactly(0, 46, 92);
        byte[] all = new byte[100];
        int at = 0;
        for (byte[] u : peer.received) {
            System.arraycopy(u, 18, all, at, u.length - 18);
            at += u.length - 18;
        }
        assertThat(all).isEqualTo(Arrays.copyOf(w.inlineData, 100));
        assertThat(completed()).isEqualTo(1);
    }

    /**
     * Our own side's bounds, checked again when the segment is built: an SGE that runs past the
     * memory its STag resolved to (a WQE whose bounds the QP's post checks did not catch) fails
     * before any of its bytes reach the link, and nothing beyond the memory is read. The WQE
     * completes once in local catastrophic error and the stream is not reset (the segment was not
     * begun: Verbs §6.4 #4, V-TERM-8, the Terminate goes instead).
     */
    @Test
    void anSgeRunningPastItsMemoryFailsBeforeAnyByteIsSent_V_TERM_8() {
        start(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = region();
        long end = mr.query().baseTo() + mr.query().length();
        engine.transmit(wqe(new SendWorkRequest().wrId(7).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), end - 8, 64)
                .remote(0x4301, 0)));
        pair.settle();
        assertThat(peer.received).isEmpty();
        assertThat(upcalls.calls).filteredOn(c -> c.name().equals("sendCompleted"))
                .extracting(RecordingUpcalls.Call::status)
                .containsExactly(WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR);
        assertThat(upcalls.names()).doesNotContain("streamAborted");
    }

    /**
     * A segment that fails before it is begun stops only itself and what follows (Verbs §6.4 #4,
     * V-TERM-8): the Write handed to the link before it in the same run of the engine still reaches
     * the peer (the run flushes what it sent) and completes successfully; the failed WQE completes in
     * error.
     */
    @Test
    void theMessageBeforeAFailedSegmentStillGoesAndCompletes_V_TERM_8() {
        start(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = region();
        long end = mr.query().baseTo() + mr.query().length();
        engine.transmit(write(7, mr, 8)); // goes at once (the latency path): the next two share one run
        engine.transmit(write(8, mr, 8));
        engine.transmit(wqe(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), end - 8, 64)
                .remote(0x4301, 0)));
        pair.settle();
        assertThat(peer.received).extracting(u -> u.length).containsExactly(14 + 8, 14 + 8);
        assertThat(upcalls.calls).filteredOn(c -> c.name().equals("sendCompleted"))
                .extracting(c -> c.send().wrId, RecordingUpcalls.Call::status)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(7L, WorkCompletionStatus.SUCCESS),
                        org.assertj.core.groups.Tuple.tuple(8L, WorkCompletionStatus.SUCCESS),
                        org.assertj.core.groups.Tuple.tuple(9L, WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR));
    }

    /** The QP's reset (Destroy QP, Modify to Error) drops the Read Responses still owed: none is in progress after it. */
    @Test
    void aResetForgetsTheResponsesOwed() {
        start(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = region();
        link.windowClosed = true; // the first response fills the link; the second waits in the IRD
        RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.RFC_5040);
        byte[] r1 = new byte[RdmapMessageEncoder.READ_REQUEST_LENGTH];
        byte[] r2 = new byte[RdmapMessageEncoder.READ_REQUEST_LENGTH];
        encoder.readRequest(MemorySegment.ofArray(r1), 0, 1, 0x77, 0, 64, mr.stag(), mr.query().baseTo());
        encoder.readRequest(MemorySegment.ofArray(r2), 0, 2, 0x77, 64, 64, mr.stag(), mr.query().baseTo());
        pair.b.inject(r1, r2);
        pair.settle();
        assertThat(peer.received).hasSize(1);
        assertThat(engine.remoteReadsInProgress()).isTrue();
        engine.reset();
        pair.settle();
        assertThat(engine.remoteReadsInProgress()).isFalse();
        assertThat(peer.received).hasSize(1);
    }
}
