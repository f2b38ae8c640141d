package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Graceful receive overflow (Verbs §13.2, V-WRP-65/66): with the option on, a Send that finds no
 * receive WQE stops the receiver reading its LLP instead of terminating; nothing is lost, nothing
 * behind the Send is placed early, and posting receives resumes reception exactly where it
 * stopped. With the option off (the default) the RFC 5040 behaviour stays: a Terminate with
 * 1/2/0x02.
 */
class RxReceiveOverflowTest extends EngineFixture {
    private Side a;
    private Side b;
    private MemoryRegion source;
    private MemoryRegion sink;

    private void connect(MemoryLinkPair.Options options, boolean graceful) {
        MemoryLinkPair pair = new MemoryLinkPair(options);
        pair.b.gracefulOverflow = graceful;
        Side[] s = connect(pair);
        a = s[0];
        b = s[1];
        source = a.region(1 << 20, RIGHTS);
        fill(a.memory(source), 7);
        sink = b.region(1 << 20, RIGHTS);
    }

    private void send(long wrId, long offset, int length) {
        a.qp.postSend(new SendWorkRequest().wrId(wrId).opcode(Opcode.SEND).sge(source.stag(), a.base(source) + offset,
                length));
    }

    private void receive(long wrId, long offset, int length) {
        b.qp.postReceive(new ReceiveWorkRequest().wrId(wrId).sge(sink.stag(), b.base(sink) + offset, length));
    }

    private void awaitPaused() {
        await(() -> link.b.pauses == 1, "the receiver pausing its LLP");
        link.settle();
    }

    private void assertReceived(WorkCompletion wc, long wrId, int length, long sourceOffset, long sinkOffset) {
        assertThat(wc.wrId()).isEqualTo(wrId);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wc.byteLength()).isEqualTo(length);
        assertThat(bytes(b.memory(sink), sinkOffset, length)).isEqualTo(bytes(a.memory(source), sourceOffset, length));
    }

    @Test
    void withoutTheOptionASendWithoutReceiveTerminates_V_WRP_65() {
        connect(MemoryLinkPair.Options.defaults(), false);
        send(1, 0, 100);
        awaitState(b, QpState.ERROR);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
        assertThat(b.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1202); // RFC 5041 §7.2
        assertThat(link.b.pauses).isZero();
    }

    /** 0: whole FPDUs in big reads; 1: small reads, so the held Sends came header first. */
    @ParameterizedTest(name = "small reads: {0}")
    @ValueSource(booleans = {false, true})
    void heldSendsAreDeliveredByteExactOncePosted_V_WRP_65_V_WRP_66(boolean smallReads) {
        connect(MemoryLinkPair.Options.defaults().withMaxChunk(smallReads ? 500 : 65536), true);
        // one single-segment Send, one of 40 segments, one zero-length, then a Write behind them
        send(1, 0, 700);
        send(2, 1000, 57_000);
        send(3, 0, 0);
        a.qp.postSend(new SendWorkRequest().wrId(4).opcode(Opcode.RDMA_WRITE).sge(source.stag(), a.base(source) + 3, 900)
                .remote(sink.stag(), b.base(sink) + 500_000));
        awaitPaused();
        // the receiver holds: still RTS, no event, no completion, nothing placed (not even the Write)
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b.events).isEmpty();
        assertThat(completions(b, 0)).isEmpty();
        assertThat(bytes(b.memory(sink), 500_000, 900)).containsOnly(0);
        assertThat(b.engine.rx.receivePauses).isEqualTo(1);

        receive(10, 0, 700);
        List<WorkCompletion> wcs = completions(b, 1);
        assertReceived(wcs.get(0), 10, 700, 0, 0);
        link.settle();
        // the next Send finds no WQE either: held again (from the backlog, or after reading on)
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
        assertThat(completions(b, 1)).hasSize(1);
        assertThat(bytes(b.memory(sink), 500_000, 900)).containsOnly(0);

        receive(11, 100_000, 60_000);
        receive(12, 200_000, 0);
        wcs = completions(b, 3);
        assertReceived(wcs.get(1), 11, 57_000, 1000, 100_000);
        assertThat(wcs.get(2).wrId()).isEqualTo(12);
        assertThat(wcs.get(2).byteLength()).isZero();
        await(() -> Arrays.equals(bytes(b.memory(sink), 500_000, 900), bytes(a.memory(source), 3, 900)),
                "the Write held behind the Sends");
        assertThat(link.b.unreadBytes).isZero();
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b.events).isEmpty();

        // reception carries on normally after the overflow
        receive(13, 300_000, 5000);
        send(5, 9, 4321);
        assertReceived(completions(b, 4).get(3), 13, 4321, 9, 300_000);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void pausedReceiverHoldsBackTheRestOfTheStream_V_WRP_66() {
        connect(MemoryLinkPair.Options.defaults().withMaxChunk(300), true);
        for (int i = 0; i < 20; i++) {
            send(i, i * 1000L, 1000);
        }
        awaitPaused();
        // bytes behind the held Send stay unread in the link (the TCP window closes) ...
        assertThat(link.b.unreadBytes).isPositive();
        long unread = link.b.unreadBytes;
        link.settle();
        assertThat(link.b.unreadBytes).isEqualTo(unread);
        // ... and each posted receive lets exactly the next message through, in MSN order
        for (int i = 0; i < 20; i++) {
            receive(100 + i, i * 2000L, 1000);
            List<WorkCompletion> wcs = completions(b, i + 1);
            assertReceived(wcs.get(i), 100 + i, 1000, i * 1000L, i * 2000L);
        }
        link.settle();
        assertThat(link.b.unreadBytes).isZero();
        assertThat(b.events).isEmpty();
    }

    @Test
    void receivesPostedAheadAreUsedWithoutPausing_V_WRP_65() {
        connect(MemoryLinkPair.Options.defaults(), true);
        receive(10, 0, 2000);
        send(1, 0, 2000);
        assertReceived(completions(b, 1).getFirst(), 10, 2000, 0, 0);
        assertThat(link.b.pauses).isZero();
        assertThat(b.engine.rx.receivePauses).isZero();
    }

    @Test
    void errorBehindAHeldSendIsActedOnInStreamOrder_V_WRP_65() {
        connect(MemoryLinkPair.Options.defaults(), true);
        send(1, 0, 100);
        // a Write to an unknown STag behind the held Send: detected only once the Send went through
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).sge(source.stag(), a.base(source), 64)
                .remote(sink.stag() ^ 0x01, b.base(sink)));
        awaitPaused();
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
        receive(10, 0, 100);
        awaitState(b, QpState.ERROR);
        List<WorkCompletion> wcs = completions(b, 1);
        assertReceived(wcs.getFirst(), 10, 100, 0, 0);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
        assertThat(b.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1100);
    }

    @Test
    void sharedReceiveQueueWithoutTheOptionKeepsTheRfcBehaviour_V_WRP_65() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        link.b.gracefulOverflow = false; // with the option, S-RQ QPs hold: SrqReceiveOverflowTest
        a = side(link.a);
        b = new Side();
        b.rnic = SoftRnic.open(new io.jrnic.api.RnicConfig().name("rx-srq-side"));
        b.rnic.setAsyncEventHandler((r, e) -> b.events.add(e));
        b.pd = b.rnic.allocatePd();
        b.cq = b.rnic.createCq(64);
        io.jrnic.api.SharedReceiveQueue srq = b.pd.createSharedReceiveQueue(16, 2, 0);
        b.qp = b.pd.createQueuePair(new io.jrnic.api.QueuePairConfig().cqs(b.cq, b.cq).srq(srq, 0));
        b.engine = new QpEngine(link.b);
        b.qp.modify(new io.jrnic.api.QueuePairModification().nextState(QpState.RTS).llpStream(b.engine));
        sides.add(b);
        source = a.region(64, RIGHTS);
        // without the option an S-RQ QP does not pause either (RFC 5040 §5.3)
        send(1, 0, 10);
        awaitState(b, QpState.ERROR);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
        assertThat(link.b.pauses).isZero();
    }

    @Test
    void receivePostedWhileTheHeldSendIsStillArrivingIsNotMissed_V_WRP_65() {
        RxInboundErrorTest.ByteLink bytes = new RxInboundErrorTest.ByteLink(false, true);
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults()); // only for the fixture's teardown
        b = side(bytes);
        sink = b.region(8192, RIGHTS);
        byte[] payload = new byte[5000];
        Arrays.fill(payload, (byte) 0x77);
        byte[] ulpdu = Wire.send(1, payload);
        io.jrnic.mpa.FpduWriter writer = new io.jrnic.mpa.FpduWriter(false, true);
        byte[] wire = new byte[writer.wireLength(ulpdu.length)];
        writer.write(java.lang.foreign.MemorySegment.ofArray(ulpdu), 0, ulpdu.length,
                java.lang.foreign.MemorySegment.ofArray(wire), 0);
        // the header and part of the payload: the Send is deferred (no WQE) but not complete yet
        bytes.feed(Arrays.copyOfRange(wire, 0, 200));
        bytes.barrier();
        assertThat(b.engine.rx.receivePauses).isZero();
        receive(10, 0, 8192); // the retry runs now, before the Send is held
        bytes.barrier();
        bytes.feed(Arrays.copyOfRange(wire, 200, wire.length));
        RxInboundErrorTest.awaitOn(bytes, () -> b.cq.poll(new WorkCompletion()), "the Send's completion");
        assertThat(bytes(b.memory(sink), 0, 5000)).isEqualTo(payload);
        assertThat(b.engine.rx.receivePauses).isEqualTo(1);
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
    }
}
