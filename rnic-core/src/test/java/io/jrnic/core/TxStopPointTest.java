package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.FpduHandler;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where outbound processing stops on errors and Modify QP (Verbs §6.4 #1, #3, #5, #6): the FPDUs
 * that leave before the stop are counted exactly, the Terminate (or the reset instead of one) is
 * checked byte for byte, with the events, completions and QP states on both sides.
 *
 * <p>The stop is provoked at an exact FPDU by a {@link HookLink} around side A's end of the pipe: it
 * runs an action on A's event loop right after the n-th FPDU was handed to the link, in the middle
 * of the TX engine's run, as another thread's Modify QP or Deregister would land there.
 * A 64 KiB message with MULPDU 1448 is 46 FPDUs of 1434 payload bytes; one engine run sends at most
 * {@link QpEngine#FPDU_BUDGET} = 16.
 */
class TxStopPointTest extends EngineFixture {
    private static final int SIZE = 64 * 1024;
    private static final int CHUNK = 1448 - 14;
    private static final int STOP_AT = 20;

    /** An {@link FpduLink} that runs a hook after the n-th {@code send} (or throws from it). */
    static final class HookLink implements FpduLink {
        final FpduLink inner;
        volatile int sends;
        volatile int hookAt = -1;
        volatile IntConsumer hook;
        volatile RuntimeException failAt;

        HookLink(FpduLink inner) {
            this.inner = inner;
        }

        void after(int n, IntConsumer action) {
            hookAt = n;
            hook = action;
        }

        @Override
        public Executor executor() {
            return inner.executor();
        }

        @Override
        public int mulpdu() {
            return inner.mulpdu();
        }

        @Override
        public void start(FpduHandler handler, Listener listener) {
            inner.start(handler, listener);
        }

        @Override
        public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength) {
            return send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, -1);
        }

        @Override
        public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength, long token) {
            int n = sends + 1;
            if (n == hookAt && failAt != null) {
                throw failAt; // the link fails while framing this segment
            }
            sends = n;
            boolean more = token < 0 ? inner.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength)
                    : inner.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
            if (n == hookAt && hook != null) {
                hook.accept(n);
            }
            return more;
        }

        @Override
        public void flush() {
            inner.flush();
        }

        @Override
        public void close() {
            inner.close();
        }

        @Override
        public void abort() {
            inner.abort();
        }
    }

    private HookLink hook;

    /** Side A on a hook link, side B an RNIC on the other end. */
    private Side[] hookedPair() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        hook = new HookLink(link.a);
        return new Side[] {side(hook), side(link.b)};
    }

    /** Side A on a hook link, a raw peer on the other end. */
    private Side hookedRawPeer() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        hook = new HookLink(link.a);
        return side(hook);
    }

    /** Runs the action while A's event loop is held, so that the engine sees all of it in one run. */
    private void withLoopHeld(Runnable action) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        link.a.executor.execute(() -> {
            held.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            action.run();
        } finally {
            release.countDown();
        }
    }

    private MemoryRegion source(Side s) {
        MemoryRegion mr = s.region(SIZE, RIGHTS);
        fill(s.memory(mr), 11);
        return mr;
    }

    private static SendWorkRequest write(long wrId, Side s, MemoryRegion from, MemoryRegion to, Side peer) {
        return new SendWorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(from.stag(), s.base(from), SIZE).remote(to.stag(), peer.base(to));
    }

    /** The sink bytes of a partly placed Write: the first n segments arrived, nothing after them. */
    private static void assertPlacedSegments(Side a, MemoryRegion from, Side b, MemoryRegion to, int segments) {
        int placed = segments * CHUNK;
        assertThat(bytes(b.memory(to), 0, placed)).isEqualTo(bytes(a.memory(from), 0, placed));
        assertThat(bytes(b.memory(to), placed, SIZE - placed)).containsOnly(0);
    }

    private List<byte[]> sentByA() {
        return link.a.sentUlpdus;
    }

    @Test
    void modifyToTerminateStopsAtTheNextSegmentBoundary_V_TERM_7_V_QPS_46() {
        Side[] p = hookedPair();
        Side a = p[0];
        Side b = p[1];
        MemoryRegion from = source(a);
        MemoryRegion to = b.region(SIZE, RIGHTS);
        hook.after(STOP_AT, n -> a.qp.modify(new QueuePairModification().nextState(QpState.TERMINATE)));

        a.qp.postSend(write(1, a, from, to, b));

        awaitState(a, QpState.ERROR);
        awaitState(b, QpState.ERROR);
        // Verbs §6.4 #3: the segment in hand when the Modify landed was the last; then the Terminate
        assertThat(sentByA()).hasSize(STOP_AT + 1);
        assertBytes(sentByA().getLast(), Wire.TERMINATE_HEADER + " 00000000"); // Fig. 12: 0/0/0, HdrCt 000
        assertPlacedSegments(a, from, b, to, STOP_AT);
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        assertThat(a.eventTypes()).isEmpty(); // a requested Terminate raises no event
        assertThat(a.qp.query().terminateMessage().terminateControl()).isEqualTo(TerminateMessage.LOCAL_CATASTROPHIC);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        TerminateMessage atB = b.qp.query().terminateMessage();
        assertThat(atB.terminateControl()).isEqualTo(0x0000);
        assertThat(atB.locallyGenerated()).isFalse();
        assertThat(atB.headers()).isEmpty();
    }

    @Test
    void modifyToErrorStopsAtTheNextSegmentBoundaryAndResets_V_TERM_7_V_QPS_39() {
        Side[] p = hookedPair();
        Side a = p[0];
        Side b = p[1];
        MemoryRegion from = source(a);
        MemoryRegion to = b.region(SIZE, RIGHTS);
        hook.after(STOP_AT, n -> a.qp.modify(new QueuePairModification().nextState(QpState.ERROR)));

        a.qp.postSend(write(1, a, from, to, b));

        awaitState(b, QpState.ERROR);
        assertThat(a.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(sentByA()).hasSize(STOP_AT); // no segment after the Modify, and no Terminate (Fig. 12)
        assertPlacedSegments(a, from, b, to, STOP_AT);
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        assertThat(a.eventTypes()).isEmpty();
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_RESET);
        assertThat(b.qp.query().terminateMessage()).isNull();
    }

    @Test
    void cqOverflowStopsTheMessageInProgress_V_TERM_10_V_EV_34() throws Exception {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        hook = new HookLink(link.a);
        Side a = sideWithCq(hook, 1);
        Side b = side(link.b);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(0, 0, 0));
        b.qp.postReceive(new ReceiveWorkRequest().wrId(2).sge(0, 0, 0));
        MemoryRegion from = source(a);
        MemoryRegion to = b.region(SIZE, RIGHTS);

        // Two Sends and a Write in one engine run: 1 + 1 + 14 FPDUs. The two Sends complete when the
        // link reports them taken (after the run); the second completion overflows A's one-entry CQ.
        withLoopHeld(() -> {
            a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).signaled(true));
            a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).signaled(true));
            a.qp.postSend(write(3, a, from, to, b));
        });

        awaitState(a, QpState.ERROR);
        awaitState(b, QpState.ERROR);
        // Verbs §6.4 #6: the Write in process stopped before its next segment; Figure 24 CQ/SQ error
        // code 0x0207 with the header control bits all zero
        assertThat(sentByA()).hasSize(QpEngine.FPDU_BUDGET + 1);
        assertBytes(sentByA().getLast(), Wire.TERMINATE_HEADER + " 02070000");
        assertPlacedSegments(a, from, b, to, QpEngine.FPDU_BUDGET - 2);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.CQ_OVERFLOW_DETECTED, AsyncEventType.CQ_SQ_ERROR);
        assertThat(completions(a, 1).getFirst().wrId()).isEqualTo(1); // the only entry that fitted
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(b.qp.query().terminateMessage().terminateControl()).isEqualTo(0x0207);
        List<WorkCompletion> atB = completions(b, 2);
        assertThat(atB).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS,
                WorkCompletionStatus.SUCCESS);
    }

    private Side sideWithCq(FpduLink l, int cqEntries) {
        Side s = new Side();
        s.rnic = SoftRnic.open(new RnicConfig().name("tx-stop-" + System.nanoTime()));
        s.rnic.setAsyncEventHandler((r, e) -> s.events.add(e));
        s.pd = s.rnic.allocatePd();
        s.cq = s.rnic.createCq(cqEntries, 0);
        s.qp = s.pd.createQueuePair(qpConfig(s));
        s.engine = new QpEngine(l);
        s.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(s.engine));
        sides.add(s);
        return s;
    }

    @Test
    void readResponseStopsBeforeASegmentWhoseMemoryVanished_V_TERM_9() {
        Side a = hookedRawPeer();
        Arena arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(SIZE, 4096);
        fill(memory, 5);
        byte[] expected = bytes(memory, 0, (long) STOP_AT * CHUNK);
        MemoryRegion mr = a.pd.registerMemory(memory, RIGHTS, 0x31, AddressType.VA_BASED, memory.address(), true);
        // the application frees the memory under the registered region while the response is sent
        hook.after(STOP_AT, n -> arena.close());

        raw.send(Wire.readRequest(1, 0x0000_7701, 0x1000, SIZE, mr.stag(), memory.address()));

        byte[] t = awaitRawTerminate(a, STOP_AT);
        // Verbs §6.4 #5: the Terminate instead of the rest; Figure 24 Local QP Catastrophic 0x0207
        assertBytes(t, Wire.TERMINATE_HEADER + " 02070000");
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC);
        assertResponses(STOP_AT, 0x0000_7701, 0x1000, expected);
    }

    @Test
    void readResponseStopsBeforeASegmentWhoseSourceStagWasInvalidated_V_TERM_9() throws Exception {
        Side a = hookedRawPeer();
        MemoryRegion mr = source(a);
        byte[] expected = bytes(a.memory(mr), 0, (long) STOP_AT * CHUNK);
        // a Read Request from the wire, validated and queued with its source STag: the response
        // re-checks the STag before each segment
        hook.after(STOP_AT, n -> mr.close()); // deregistered while the response is in progress
        raw.send(Wire.readRequest(1, 0x0000_7702, 0x2000, SIZE, mr.stag(), a.base(mr)));

        byte[] t = awaitRawTerminate(a, STOP_AT);
        // 0/1/0x00 Invalid STag, as the request would have got had it arrived now (RFC 5040 §7.2)
        assertBytes(t, Wire.TERMINATE_HEADER + " 01000000");
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_STAG);
        assertResponses(STOP_AT, 0x0000_7702, 0x2000, expected);
    }

    /**
     * The source STag of a Read Response in progress is Reregistered between two segments (Verbs
     * §7.3.2.3: same index and key, so the STag the peer named is still Valid): each segment after
     * that is checked against the new registration as the request would be if it arrived now (RFC
     * 5040 §7.2, V-TERM-9), and the first that fails is replaced by the Terminate with that error.
     */
    private void readResponseAfterReregister(int rights, boolean sameMemory, long vaShift, String terminateCode,
                                             AsyncEventType event) {
        Side a = hookedRawPeer();
        MemoryRegion mr = source(a);
        byte[] expected = bytes(a.memory(mr), 0, (long) STOP_AT * CHUNK);
        // other memory at the same page offset as the VA (Verbs §7.3.2.3 requires it)
        MemorySegment other = a.rnic.allocateMemory(SIZE + 4096, 4096).asSlice(a.base(mr) & 0xFFF, SIZE);
        hook.after(STOP_AT, n -> mr.reregister(a.pd, sameMemory ? mr.memory() : other, rights, mr.key(),
                AddressType.VA_BASED, a.base(mr) + vaShift, true));
        raw.send(Wire.readRequest(1, 0x0000_7703, 0x3000, SIZE, mr.stag(), a.base(mr)));

        byte[] t = awaitRawTerminate(a, STOP_AT);
        assertBytes(t, Wire.TERMINATE_HEADER + " " + terminateCode);
        assertThat(a.eventTypes()).containsExactly(event);
        assertResponses(STOP_AT, 0x0000_7703, 0x3000, expected);
    }

    @Test
    void readResponseStopsWhenItsSourceLostTheRemoteReadRight_V_TERM_9_R_ERR_031() {
        // 0/1/0x02 Access rights violation (RFC 5040 §7.2, Figure 24 IRRQ access rights)
        readResponseAfterReregister(RIGHTS & ~AccessRights.REMOTE_READ, true, 0, "01020000",
                AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void readResponseStopsWhenItsSourceNoLongerCoversTheRest_V_TERM_9_R_ERR_029() {
        // the same memory at a VA one region higher: the rest of the response lies below its base
        readResponseAfterReregister(RIGHTS, true, SIZE, "01010000", AsyncEventType.IRRQ_BASE_BOUNDS);
    }

    @Test
    void readResponseStopsWhenItsSourceStagNowMapsOtherMemory_V_TERM_9_R_ERR_027() {
        // same STag, same rights and range, other memory: not the buffer the request was validated on
        readResponseAfterReregister(RIGHTS, false, 0, "01000000", AsyncEventType.IRRQ_INVALID_STAG);
    }

    /** Waits for n data FPDUs and the Terminate at the raw peer, and for A's end (Terminate, then Error). */
    private byte[] awaitRawTerminate(Side a, int dataFpdus) {
        await(() -> raw.closure != null, "the LLP close after the Terminate");
        awaitState(a, QpState.ERROR);
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE); // graceful close after it
        assertThat(raw.received).hasSize(dataFpdus + 1);
        return raw.received.getLast();
    }

    /** The Read Response FPDUs at the raw peer: sink STag, advancing TO, L=0, the source bytes. */
    private void assertResponses(int n, int sinkStag, long sinkTo, byte[] expected) {
        for (int i = 0; i < n; i++) {
            byte[] r = raw.received.get(i);
            assertBytes(java.util.Arrays.copyOf(r, 14),
                    String.format("81 42 %08x %016x", sinkStag, sinkTo + (long) i * CHUNK));
            assertThat(java.util.Arrays.copyOfRange(r, 14, r.length))
                    .isEqualTo(java.util.Arrays.copyOfRange(expected, i * CHUNK, (i + 1) * CHUNK));
        }
    }

    @Test
    void linkFailureWhileFramingASegmentResetsWithoutTerminate_V_TERM_4() {
        Side[] p = hookedPair();
        Side a = p[0];
        Side b = p[1];
        MemoryRegion from = source(a);
        MemoryRegion to = b.region(SIZE, RIGHTS);
        hook.failAt = new IllegalStateException("Already closed");
        hook.hookAt = STOP_AT;

        a.qp.postSend(write(1, a, from, to, b));

        awaitState(b, QpState.ERROR);
        awaitState(a, QpState.ERROR);
        // Verbs §6.4 #1: stopped on the failing segment and the stream reset; no Terminate. The first
        // run's 16 FPDUs had been flushed; the ones queued after them died with the reset.
        assertThat(sentByA()).hasSize(STOP_AT - 1);
        assertThat(sentByA()).noneMatch(u -> (u[1] & 0x0F) == Wire.TERMINATE);
        assertPlacedSegments(a, from, b, to, QpEngine.FPDU_BUDGET);
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(1);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC);
        assertThat(a.qp.query().terminateMessage()).isNull();
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_RESET);
        assertThat(b.qp.query().terminateMessage()).isNull();
    }

    @Test
    void writeFromMemoryClosedBetweenSegmentsSendsTheTerminateInsteadOfTheSegment_V_TERM_8() {
        Side a = hookedRawPeer();
        Arena arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(SIZE, 4096);
        MemoryRegion mr = a.pd.registerMemory(memory, AccessRights.LOCAL_READ, 0x41, AddressType.VA_BASED,
                memory.address(), false);
        hook.after(3, n -> arena.close());

        a.qp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(mr.stag(), memory.address(), SIZE).remote(0x0000_4401, 0x1000));

        byte[] t = awaitRawTerminate(a, 3);
        // the fourth segment was not begun: the Terminate goes instead (Verbs §6.4 #4, 0/0/0)
        assertBytes(t, Wire.TERMINATE_HEADER + " 00000000");
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR);
    }
}
