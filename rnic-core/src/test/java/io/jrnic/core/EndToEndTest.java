package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.NotifyType;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.StagState;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every RFC 5040 operation end to end between two {@link SoftRnic}s over real loopback TCP, set up by
 * the connection managers: Send (with Solicited Event and with Invalidate), RDMA Write and RDMA Read
 * at sizes 0, 1, 64 KiB and several MiB, with CRC and markers on and off, data checked byte for
 * byte; and a remote protection error, which ends in a Terminate with error completions and QP
 * states checked on both sides.
 */
class EndToEndTest extends LoopbackFixture {
    static final int MIB = 1 << 20;

    /** The MPA framing variants: CRC and markers, each on and off (RFC 5044 §4.4, §5). */
    enum Framing {
        PLAIN(false, false), CRC(true, false), MARKERS(false, true), CRC_AND_MARKERS(true, true);

        final boolean crc;
        final boolean markers;

        Framing(boolean crc, boolean markers) {
            this.crc = crc;
            this.markers = markers;
        }

        ConnectionSettings settings() {
            return new ConnectionSettings().crc(crc ? CrcMode.OPTIONAL : CrcMode.OFF).markers(markers, true);
        }
    }

    static Stream<Arguments> sizesAndFramings() {
        List<Arguments> out = new ArrayList<>();
        for (int size : new int[] {0, 1, 64 * 1024, 3 * MIB + 17}) {
            for (Framing f : Framing.values()) {
                out.add(Arguments.of(size, f));
            }
        }
        return out.stream();
    }

    Pair connected(Framing framing) throws Exception {
        Pair p = connect(framing.settings(), framing.settings(), a.qp(), b.qp(), null, null);
        assertThat(p.active().parameters().crc()).isEqualTo(framing.crc);
        assertThat(p.active().parameters().markersOnReceive()).isEqualTo(framing.markers);
        assertThat(p.passive().parameters().markersOnReceive()).isEqualTo(framing.markers);
        return p;
    }

    @ParameterizedTest(name = "{0} bytes, {1}")
    @MethodSource("sizesAndFramings")
    void sendIsPlacedIntoThePostedReceive_R_SEND_011_R_SEND_012_R_SEND_019(int size, Framing framing) throws Exception {
        Pair p = connected(framing);
        Buffer src = a.buffer(size);
        Buffer dst = b.buffer(size + 64L);
        fill(src.memory(), size);
        p.qpB().postReceive(new ReceiveWorkRequest().wrId(7).sge(dst.stag(), dst.to(), size + 64));
        p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(src.stag(), src.to(), size));

        WorkCompletion rx = b.completions(1).getFirst();
        assertThat(rx.wrId()).isEqualTo(7);
        assertThat(rx.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(rx.opcode()).isEqualTo(Opcode.RECEIVE);
        assertThat(rx.byteLength()).isEqualTo(size);
        assertThat(Arrays.equals(bytes(dst.memory(), 0, size), bytes(src.memory(), 0, size))).isTrue();
        WorkCompletion tx = a.completions(1).getFirst();
        assertThat(tx.wrId()).isEqualTo(1);
        assertThat(tx.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(tx.opcode()).isEqualTo(Opcode.SEND);
    }

    @ParameterizedTest(name = "{0} bytes, {1}")
    @MethodSource("sizesAndFramings")
    void rdmaWritePlacesIntoTheRemoteRegion_R_WRITE_011_R_WRITE_013_R_WRITE_017_R_WRITE_019(int size, Framing framing) throws Exception {
        Pair p = connected(framing);
        Buffer src = a.buffer(size);
        Buffer sink = b.buffer(size + 128L);
        fill(src.memory(), size + 1);
        fill(sink.memory(), 99);
        byte[] before = bytes(sink.memory(), 0, size + 128L);
        // Write at an offset of 64 into the sink, then a Send: RFC 5040 §5.5 orders the Send after the Write
        Buffer note = b.buffer(16);
        p.qpB().postReceive(new ReceiveWorkRequest().wrId(70).sge(note.stag(), note.to(), 16));
        SendWorkRequest wr = new SendWorkRequest();
        p.qpA().postSend(wr.reset().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), size)
                .remote(sink.stag(), sink.to() + 64));
        p.qpA().postSend(wr.reset().wrId(2).opcode(Opcode.SEND));

        assertThat(b.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        byte[] after = bytes(sink.memory(), 0, size + 128L);
        assertThat(Arrays.equals(after, 64, 64 + size, bytes(src.memory(), 0, size), 0, size)).isTrue();
        assertThat(Arrays.equals(after, 0, 64, before, 0, 64)).isTrue(); // nothing outside the target
        assertThat(Arrays.equals(after, 64 + size, size + 128, before, 64 + size, size + 128)).isTrue();
        assertThat(a.completions(2)).extracting(WorkCompletion::wrId, WorkCompletion::opcode, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, Opcode.RDMA_WRITE, WorkCompletionStatus.SUCCESS),
                        org.assertj.core.groups.Tuple.tuple(2L, Opcode.SEND, WorkCompletionStatus.SUCCESS));
    }

    @ParameterizedTest(name = "{0} bytes, {1}")
    @MethodSource("sizesAndFramings")
    void rdmaReadFetchesTheRemoteRegion_R_READ_002_R_READ_006_R_READ_010(int size, Framing framing) throws Exception {
        Pair p = connected(framing);
        Buffer source = b.buffer(size + 32L);
        Buffer sink = a.buffer(size);
        fill(source.memory(), size + 2);
        p.qpA().postSend(new SendWorkRequest().wrId(5).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), size)
                .remote(source.stag(), source.to() + 32));

        WorkCompletion wc = a.completions(1).getFirst();
        assertThat(wc.wrId()).isEqualTo(5);
        assertThat(wc.opcode()).isEqualTo(Opcode.RDMA_READ);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(Arrays.equals(bytes(sink.memory(), 0, size), bytes(source.memory(), 32, size))).isTrue();
        assertThat(b.drain()).isEmpty(); // a Read consumes nothing at the data source (RFC 5040 §5.2)
    }

    @Test
    void largeFpdusArePlacedDirectlyIntoRegisteredMemory() throws Exception {
        ConnectionSettings big = new ConnectionSettings().emss(ConnectionSettings.MAX_EMSS);
        Pair p = connect(big, big, a.qp(), b.qp(), null, null);
        int size = 8 * MIB;
        Buffer src = a.buffer(size);
        Buffer sink = b.buffer(size);
        fill(src.memory(), 8);
        Buffer note = b.buffer(16);
        p.qpB().postReceive(new ReceiveWorkRequest().wrId(1).sge(note.stag(), note.to(), 16));
        SendWorkRequest wr = new SendWorkRequest();
        p.qpA().postSend(wr.reset().wrId(2).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), size)
                .remote(sink.stag(), sink.to()));
        p.qpA().postSend(wr.reset().wrId(3).opcode(Opcode.SEND));
        assertThat(b.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(Arrays.equals(bytes(sink.memory(), 0, size), bytes(src.memory(), 0, size))).isTrue();
        QpEngine engine = (QpEngine) p.qpB().query().llpStream();
        // read on the event loop: the counters are loop-confined
        long[] counts = new long[2];
        java.util.concurrent.CompletableFuture.runAsync(() -> {
            counts[0] = engine.bytesPlacedDirect();
            counts[1] = engine.bytesCopied();
        }, engine.executor).get(WAIT_SECONDS, TimeUnit.SECONDS);
        System.out.printf("8 MiB RDMA Write over loopback (EMSS %d): %d bytes placed directly, %d copied%n",
                ConnectionSettings.MAX_EMSS, counts[0], counts[1]);
        assertThat(counts[0]).isGreaterThan(size / 2);
        assertThat(counts[0] + counts[1]).isGreaterThanOrEqualTo(size);
    }

    @Test
    void solicitedEventSendWakesAConsumerArmedForSolicitedOnly_R_SEND_015() throws Exception {
        Pair p = connected(Framing.CRC);
        Buffer dst = b.buffer(64);
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        p.qpB().postReceive(rr.reset().wrId(1).sge(dst.stag(), dst.to(), 32));
        p.qpB().postReceive(rr.reset().wrId(2).sge(dst.stag(), dst.to() + 32, 32));
        b.cq.requestNotification(NotifyType.SOLICITED); // Verbs §8.2.5: only a solicited completion notifies

        SendWorkRequest wr = new SendWorkRequest();
        p.qpA().postSend(wr.reset().wrId(10).opcode(Opcode.SEND));
        // wait until the unsolicited Send has completed at b, by polling (bounded)
        List<WorkCompletion> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        WorkCompletion wc = new WorkCompletion();
        while (got.isEmpty()) {
            if (b.cq.poll(wc)) {
                got.add(new WorkCompletion().copyFrom(wc));
            }
            assertThat(System.nanoTime()).as("first receive completion").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(got.getFirst().wrId()).isEqualTo(1);
        assertThat(b.completionEvents.availablePermits()).isZero();

        p.qpA().postSend(wr.reset().wrId(11).opcode(Opcode.SEND_SE));
        assertThat(b.completionEvents.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        WorkCompletion second = b.drain().getFirst();
        assertThat(second.wrId()).isEqualTo(2);
        assertThat(second.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(a.completions(2)).extracting(WorkCompletion::opcode).containsExactly(Opcode.SEND, Opcode.SEND_SE);
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = Opcode.class, names = {"SEND_INVALIDATE", "SEND_SE_INVALIDATE"})
    void sendWithInvalidateInvalidatesTheNamedStagAtTheReceiver_R_SEND_001_R_SEND_002(Opcode opcode) throws Exception {
        Pair p = connected(Framing.CRC);
        Buffer exposed = b.buffer(4096); // the region b advertised to a (remote access)
        Buffer dst = b.buffer(64);
        Buffer src = a.buffer(64);
        fill(src.memory(), 3);
        p.qpB().postReceive(new ReceiveWorkRequest().wrId(1).sge(dst.stag(), dst.to(), 64));
        p.qpA().postSend(new SendWorkRequest().wrId(2).opcode(opcode).sge(src.stag(), src.to(), 64)
                .invalidateStag(exposed.stag()));

        WorkCompletion rx = b.completions(1).getFirst();
        assertThat(rx.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(rx.byteLength()).isEqualTo(64);
        assertThat(rx.stagInvalidated()).isTrue();
        assertThat(rx.invalidatedStag()).isEqualTo(exposed.stag());
        assertThat(exposed.mr().query().state()).isEqualTo(StagState.INVALID);
        assertThat(Arrays.equals(bytes(dst.memory(), 0, 64), bytes(src.memory(), 0, 64))).isTrue();
        assertThat(a.completions(1).getFirst().opcode()).isEqualTo(opcode);

        // the STag is invalid now: a Write to it is a remote protection error
        p.qpA().postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), 8)
                .remote(exposed.stag(), exposed.to()));
        b.awaitEvent(AsyncEventType.TAGGED_INVALID_STAG, p.qpB());
        a.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, p.qpA());
    }

    @Test
    void writeToABadStagEndsInATerminateOnBothSides_R_WRITE_003_V_CM_14_V_CM_15_V_CM_17() throws Exception {
        Pair p = connected(Framing.CRC);
        Buffer src = a.buffer(256);
        Buffer rcvA = a.buffer(64);
        Buffer rcvB = b.buffer(64);
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        p.qpA().postReceive(rr.reset().wrId(30).sge(rcvA.stag(), rcvA.to(), 64));
        p.qpB().postReceive(rr.reset().wrId(40).sge(rcvB.stag(), rcvB.to(), 64));
        int badStag = 0x00BAD0_00 | 0x42;
        p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), 256)
                .remote(badStag, 0x1000));

        // the data sink detects it (RFC 5041 §7.2: tagged buffer error, invalid STag), raises the Verbs
        // event, sends a Terminate and ends in Error with its receive flushed
        b.awaitEvent(AsyncEventType.TAGGED_INVALID_STAG, p.qpB());
        a.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, p.qpA());
        assertThat(b.completions(1)).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(40L, WorkCompletionStatus.FLUSHED));
        List<WorkCompletion> atA = a.completions(2);
        assertThat(atA).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(1L, 30L);
        assertThat(atA).filteredOn(wc -> wc.wrId() == 30L).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.FLUSHED);
        // the Write completed when it was handed to the LLP (RFC 5040 §5.3), before the Terminate came
        assertThat(atA).filteredOn(wc -> wc.wrId() == 1L).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.SUCCESS);
        awaitState(p.qpA(), QpState.ERROR);
        awaitState(p.qpB(), QpState.ERROR);

        TerminateMessage sent = p.qpB().query().terminateMessage();
        TerminateMessage received = p.qpA().query().terminateMessage();
        assertThat(sent.locallyGenerated()).isTrue();
        assertThat(received.locallyGenerated()).isFalse();
        // Layer DDP (1), EType tagged buffer error (1), code invalid STag (0): RFC 5041 §7.2
        assertThat(sent.terminateControl()).isEqualTo(0x1100);
        assertThat(received.terminateControl()).isEqualTo(0x1100);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
    }

    @Test
    void readFromABadStagFailsTheReadWithATerminate_R_READ_003_V_CM_14_V_CM_15() throws Exception {
        Pair p = connected(Framing.CRC);
        Buffer sink = a.buffer(256);
        int badStag = 0x00BAD1_00 | 0x17;
        // one post list: posted apart, the Terminate could come back before the second post, which
        // the QP in Terminate then refuses (seen once in a full run, 2026-11-28)
        SendWorkRequest[] list = {
                new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), 256)
                        .remote(badStag, 0x2000),
                new SendWorkRequest().wrId(2).opcode(Opcode.SEND)}; // queued behind the failing Read
        assertThat(p.qpA().postSend(list, 0, 2)).isEqualTo(2);

        b.awaitEvent(AsyncEventType.IRRQ_INVALID_STAG, p.qpB());
        a.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, p.qpA());
        List<WorkCompletion> atA = a.completions(2);
        assertThat(atA).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
        // the Read never got its data: it was in progress when the Terminate arrived, so it completes
        // with Remote Termination Error (Verbs §6.6.2.4, Figure 36, V-ERR-46); the Send behind it
        // carries no fence: it completed if it reached the LLP before the Terminate arrived, else TX
        // stopped before it (Verbs §6.4 #3, V-TERM-7) and it is flushed -- which one depends on thread
        // timing; either way in SQ order and exactly once
        assertThat(atA.get(0).status()).isEqualTo(WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        assertThat(atA.get(1).status()).isIn(WorkCompletionStatus.SUCCESS, WorkCompletionStatus.FLUSHED);
        awaitState(p.qpA(), QpState.ERROR);
        awaitState(p.qpB(), QpState.ERROR);
        // Layer RDMAP (0), EType remote protection error (1), code invalid STag (0): RFC 5040 §7.4
        assertThat(p.qpB().query().terminateMessage().terminateControl()).isEqualTo(0x0100);
        assertThat(p.qpA().query().terminateMessage().terminateControl()).isEqualTo(0x0100);
        assertThat(p.qpA().query().terminateMessage().locallyGenerated()).isFalse();
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_STAG);
    }

    /** Waits (bounded) for a QP state reached asynchronously, by re-checking on each async event. */
    void awaitState(io.jrnic.api.QueuePair qp, QpState state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (qp.state() != state) {
            assertThat(System.nanoTime()).as(qp + " reaching " + state + ", now " + qp.state()).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
