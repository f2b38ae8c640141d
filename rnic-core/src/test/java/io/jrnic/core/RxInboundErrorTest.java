package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.Crc32c;
import io.jrnic.mpa.FpduDeframer;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.FpduWriter;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Inbound errors of the RX engine end to end (Verbs §8.3.3 Figure 24, §9.5.3 Figure 37, Figure 12
 * inbound rows): the Terminate on the wire with its RFC 5040/5041/5044 code, the event, the QP
 * states, and what is (not) consumed. MPA marker errors need bytes no writer produces, so they run
 * over {@link ByteLink}, a link whose receive side is a real {@link FpduDeframer} fed with
 * hand-made bytes.
 */
class RxInboundErrorTest extends EngineFixture {
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final byte[] PAYLOAD = new byte[32];

    static {
        Arrays.fill(PAYLOAD, (byte) 0x3C);
    }

    // ---- V-EV-8: MPA marker and ULPDU_Length disagree -------------------------------------------

    /**
     * An {@link FpduLink} whose peer is the test: received bytes go through a real deframer with
     * markers and CRC (RFC 5044 §4.3, §4.4), sent ULPDUs are recorded.
     */
    static final class ByteLink implements FpduLink {
        final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "byte-link");
            t.setDaemon(true);
            return t;
        });
        final List<byte[]> sent = new CopyOnWriteArrayList<>();
        volatile Closure closure;
        private final boolean markers;
        private final boolean graceful;
        private FpduDeframer deframer;
        private Listener listener;

        /** A link with markers and CRC that terminates on receive overflow. */
        ByteLink() {
            this(true, false);
        }

        ByteLink(boolean markers, boolean graceful) {
            this.markers = markers;
            this.graceful = graceful;
        }

        @Override
        public boolean gracefulReceiveOverflow() {
            return graceful;
        }

        @Override
        public java.util.concurrent.Executor executor() {
            return executor;
        }

        @Override
        public int mulpdu() {
            return 1448;
        }

        @Override
        public void start(FpduHandler handler, Listener l) {
            listener = l;
            deframer = new FpduDeframer(markers, true, FpduDeframer.DEFAULT_MIN_ULPDU_LENGTH, 65535, 0, handler);
        }

        void feed(byte[] wire) {
            executor.execute(() -> deframer.consume(MemorySegment.ofArray(wire), 0, wire.length));
        }

        @Override
        public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength) {
            byte[] u = new byte[headerLength + payloadLength];
            MemorySegment.copy(header, headerOffset, MemorySegment.ofArray(u), 0, headerLength);
            if (payloadLength > 0) {
                MemorySegment.copy(payload, payloadOffset, MemorySegment.ofArray(u), headerLength, payloadLength);
            }
            sent.add(u);
            return true;
        }

        @Override
        public boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength, long token) {
            boolean more = send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
            executor.execute(() -> listener.onSent(token));
            return more;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            executor.execute(() -> closed(Closure.LOCAL_CLOSE));
        }

        @Override
        public void abort() {
            executor.execute(() -> closed(Closure.LOCAL_ABORT));
        }

        private void closed(Closure c) {
            if (closure == null) {
                closure = c;
                listener.onClosed(c);
            }
        }

        void barrier() {
            try {
                executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("byte link did not settle", e);
            }
        }
    }

    private ByteLink byteLink;

    static void awaitOn(ByteLink l, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            l.barrier();
            Thread.onSpinWait();
        }
    }

    /** The FPDU of a Send at stream position 0 with markers and CRC: a marker leads it (RFC 5044 §4.3). */
    private static byte[] markedSendFpdu(int fpduPtr) {
        byte[] ulpdu = Wire.send(1, PAYLOAD);
        FpduWriter writer = new FpduWriter(true, true);
        byte[] wire = new byte[writer.wireLength(ulpdu.length)];
        int n = writer.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, MemorySegment.ofArray(wire), 0);
        assertThat(n).isEqualTo(wire.length);
        MemorySegment w = MemorySegment.ofArray(wire);
        assertThat(w.get(BE_INT, 0)).isZero(); // the leading marker: reserved 0, FPDUPTR 0
        w.set(BE_INT, 0, fpduPtr);
        // a valid CRC over the corrupted marker: RFC 5044 §8 reports a marker error only then
        w.set(BE_INT, n - 4, Crc32c.toWire(Crc32c.compute(w, 0, n - 4)));
        return wire;
    }

    private Side byteLinkSide() {
        byteLink = new ByteLink();
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults()); // only for the fixture's teardown
        Side s = side(byteLink);
        MemoryRegion mr = s.region(4096, RIGHTS);
        s.qp.postReceive(new ReceiveWorkRequest().wrId(5).sge(mr.stag(), s.base(mr), 64));
        return s;
    }

    @Test
    void markedFpduWithItsRightPointerIsDelivered_V_EV_8() {
        Side s = byteLinkSide();
        byteLink.feed(markedSendFpdu(0));
        awaitOn(byteLink, () -> s.cq.poll(new WorkCompletion()), "the Send's completion");
        assertThat(s.qp.state()).isEqualTo(QpState.RTS);
        assertThat(byteLink.sent).isEmpty();
    }

    @Test
    void markerPointingElsewhereIsBadFpdu_V_EV_8() {
        Side s = byteLinkSide();
        byteLink.feed(markedSendFpdu(0x10)); // FPDUPTR 16: the marker disagrees with ULPDU_Length
        awaitOn(byteLink, () -> s.qp.state() == QpState.ERROR, "the QP leaving RTS");
        byteLink.barrier();
        // RFC 5044 §8 / Verbs Figure 24: MPA layer, code 3 (marker), no headers (M=D=R=0)
        assertThat(byteLink.sent).hasSize(1);
        assertBytes(byteLink.sent.getFirst(), Wire.TERMINATE_HEADER + " 20030000");
        assertThat(s.eventTypes()).containsExactly(AsyncEventType.LLP_BAD_FPDU);
        assertThat(AsyncEventType.LLP_BAD_FPDU.terminateCode()).isEqualTo(0x0203);
        TerminateMessage t = s.qp.query().terminateMessage();
        assertThat(t.terminateControl()).isEqualTo(0x2003);
        assertThat(t.locallyGenerated()).isTrue();
        assertThat(byteLink.closure).isEqualTo(FpduLink.Closure.LOCAL_CLOSE); // R-TERM-034
        WorkCompletion wc = new WorkCompletion();
        assertThat(s.cq.poll(wc)).isTrue();
        assertThat(wc.wrId()).isEqualTo(5);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.FLUSHED); // nothing delivered
    }

    // ---- V-EV-21: TO wrap ------------------------------------------------------------------------

    @Test
    void writeWrappingTheTaggedOffsetIsWrapError_V_EV_21() {
        Side[] s = pair(MemoryLinkPair.Options.defaults());
        Side a = s[0];
        Side b = s[1];
        // a region ending exactly at 2^64: legal (Verbs §7.6.1.1), and a TO near its end can wrap
        MemorySegment top = b.rnic.allocateMemory(8192, 4096);
        long va = -8192L;
        MemoryRegion sink = b.pd.registerMemory(top, RIGHTS, 0, AddressType.VA_BASED, va, true);
        MemoryRegion rq = b.region(4096, RIGHTS);
        b.qp.postReceive(new ReceiveWorkRequest().wrId(7).sge(rq.stag(), b.base(rq), 64));
        MemoryRegion source = a.region(4096, RIGHTS);
        a.memory(source).fill((byte) 0x5A);
        long to = -16L; // 16 bytes before 2^64: in bounds, but TO + 32 wraps
        // one list: posted one by one, the Terminate could come back before the Send is posted
        SendWorkRequest[] list = {
                new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(source.stag(), a.base(source), 32)
                        .remote(sink.stag(), to),
                new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(source.stag(), a.base(source), 8)};
        assertThat(a.qp.postSend(list, 0, list.length)).isEqualTo(2);
        awaitState(b, QpState.ERROR);
        awaitState(a, QpState.ERROR);
        // on the wire: RFC 5041 §7.2 1/1/0x03 with the Write's DDP header (M=1, D=1)
        byte[] write = link.a.sentUlpdus.getFirst();
        byte[] terminate = link.b.sentUlpdus.getLast();
        assertBytes(terminate, Wire.TERMINATE_HEADER + " 1103c000 0020 " + hex(Arrays.copyOf(write, 14)));
        assertBytes(Arrays.copyOf(write, 14), String.format("c1 40 %08x ffffffff fffffff0", sink.stag()));
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TAGGED_WRAP);
        assertThat(AsyncEventType.TAGGED_WRAP.terminateCode()).isEqualTo(0x1103);
        assertThat(bytes(top, 8192 - 16, 16)).containsOnly(0); // nothing placed
        // the writer received it; its Send behind the Write never completed successfully
        assertThat(a.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1103);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        List<WorkCompletion> bw = completions(b, 1);
        assertThat(bw.getFirst().wrId()).isEqualTo(7);
        assertThat(bw.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    // ---- MSN checks: V-EV-27, V-SEC-27/28/30 ---------------------------------------------------

    private Side engineWithRawPeer() {
        return withRawPeer(MemoryLinkPair.Options.defaults());
    }

    private byte[] awaitTerminate(Side a) {
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        assertThat(raw.received).hasSize(1); // the Terminate is the only FPDU: no Read Response
        return raw.received.getFirst();
    }

    @Test
    void readRequestSkippingAnMsnBehindAnOutstandingOneIsAnIrrqGap_V_EV_27() {
        Side a = engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        assertThat(a.qp.query().ird()).isEqualTo(4);
        // MSN 1 occupies an IRRQ slot, MSN 2 is skipped, MSN 3 would fit the free slots: a hole
        // in the IRRQ's request sequence (both arrive before the first Read Response goes out)
        byte[] first = Wire.readRequest(1, 0x0A0B_0C01, 0x100, 16, mr.stag(), a.base(mr));
        byte[] gap = Wire.readRequest(3, 0x0A0B_0C01, 0x200, 16, mr.stag(), a.base(mr));
        raw.send(first, gap);
        byte[] t = awaitTerminate(a);
        // RFC 5041 §7.2 1/2/0x03 (Verbs 0x1203) with the skipping request's DDP header, length 28;
        // the Terminate is the only FPDU: the first request is never answered (R-TERM-026)
        assertBytes(Arrays.copyOf(t, 42), Wire.TERMINATE_HEADER + " 1203c000 001c " + hex(Arrays.copyOf(gap, 18)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_MSN_GAP);
        assertThat(AsyncEventType.IRRQ_INVALID_MSN_GAP.terminateCode()).isEqualTo(0x1203);
    }

    @Test
    void readRequestSkippingBeyondTheFreeIrrqSlotsIsOutOfRange_V_EV_27_V_EV_28() {
        Side a = engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        // MSN 1 outstanding leaves 3 free slots (MSN 2..4): MSN 5 could never be held
        byte[] first = Wire.readRequest(1, 0x0A0B_0C01, 0x100, 16, mr.stag(), a.base(mr));
        byte[] far = Wire.readRequest(5, 0x0A0B_0C01, 0x200, 16, mr.stag(), a.base(mr));
        raw.send(first, far);
        byte[] t = awaitTerminate(a);
        assertBytes(Arrays.copyOf(t, 42), Wire.TERMINATE_HEADER + " 1203c000 001c " + hex(Arrays.copyOf(far, 18)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_MSN_RANGE);
    }

    @Test
    void sendMsnThatCannotFitTheWindowConsumesNoReceive_V_SEC_28() {
        Side a = engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(mr.stag(), a.base(mr), 64));
        a.qp.postReceive(new ReceiveWorkRequest().wrId(2).sge(mr.stag(), a.base(mr), 64));
        // 2^30 messages ahead: far more than minimum-size Sends that fit any TCP window
        byte[] s = Wire.send(0x4000_0001, PAYLOAD);
        raw.send(s);
        byte[] t = awaitTerminate(a);
        assertBytes(t, Wire.TERMINATE_HEADER + " 1203c000 0020 " + hex(Arrays.copyOf(s, 18)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
        // the MSN check comes before the buffer lookup: both receives are flushed, none consumed
        List<WorkCompletion> wcs = completions(a, 2);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.FLUSHED);
        assertThat(bytes(a.memory(mr), 0, 64)).containsOnly(0);
    }

    @Test
    void readRequestMsnThatCannotFitTheWindowTakesNoIrrqSlot_V_SEC_28() {
        Side a = engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        byte[] r = Wire.readRequest(0x7FFF_FFFF, 0x0A0B_0C01, 0x100, 16, mr.stag(), a.base(mr));
        raw.send(r);
        byte[] t = awaitTerminate(a);
        assertBytes(Arrays.copyOf(t, 42), Wire.TERMINATE_HEADER + " 1203c000 001c " + hex(Arrays.copyOf(r, 18)));
        assertThat(a.engine.tx.ird.size()).isZero();
    }

    @Test
    void skippedSendOnASharedReceiveQueueTakesNoWqe_V_SEC_27_V_SEC_30() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        Side a = new Side();
        a.rnic = SoftRnic.open(new RnicConfig().name("rx-srq-attack"));
        a.rnic.setAsyncEventHandler((r, e) -> a.events.add(e));
        a.pd = a.rnic.allocatePd();
        a.cq = a.rnic.createCq(64);
        SharedReceiveQueue srq = a.pd.createSharedReceiveQueue(16, 1, 0);
        a.qp = a.pd.createQueuePair(new QueuePairConfig().cqs(a.cq, a.cq).srq(srq, 0));
        a.engine = new QpEngine(link.a);
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(a.engine));
        sides.add(a);
        MemoryRegion mr = a.region(4096, AccessRights.LOCAL_WRITE | AccessRights.LOCAL_READ);
        for (int i = 0; i < 8; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(i).sge(mr.stag(), a.base(mr) + 64L * i, 64));
        }
        // the attack of Verbs §10.4.2: skip MSN 1 and send 2, 3, ... to pull WQEs that never complete
        raw.send(Wire.send(2, PAYLOAD), Wire.send(3, PAYLOAD), Wire.send(4, PAYLOAD));
        byte[] t = awaitTerminate(a);
        assertThat(hex(Arrays.copyOfRange(t, 18, 22))).isEqualTo("12 03 c0 00");
        // in-order placement: the first out-of-order Send ends the stream before any WQE is taken
        assertThat(srq.query().available()).isEqualTo(8);
        assertThat(completions(a, 0)).isEmpty();
    }

    // ---- Figure 12, inbound rows ----------------------------------------------------------------

    @Test
    void llpFailureSendsNoTerminate_V_TERM_15() {
        Side a = engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        link.lose();
        awaitState(a, QpState.ERROR);
        link.settle();
        // Figure 12: "LLP failure preventing the Terminate" -> none sent; the QP goes to Error
        assertThat(raw.received).isEmpty();
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }
}
