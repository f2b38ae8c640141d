package io.jrnic.core.transport;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.Wire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Exhaustion over real loopback TCP against a raw MPA peer (issue 13, docs/reliability.md
 * "Exhaustion"): a resource running out gives the spec's behaviour, never a hang or a silent loss.
 * Each test checks the bytes the peer receives (the Terminate's Layer/Type/Code and copied header,
 * then the FIN), the QP state and events, and that every work request posted completes exactly once.
 * The in-memory engine tests (EngineErrorTest) check the same Terminates without TCP.
 */
class RawPeerExhaustionTest {
    private static final byte[] PAYLOAD = new byte[16];

    private RawInitiator peer;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    private InputStream in() throws Exception {
        return peer.raw.getInputStream();
    }

    private static String hex(String spaced) {
        return spaced.replace(" ", "").toLowerCase();
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** Our Terminate (QN 2, MSN 1), its control word and segment length, and the header it copies. */
    private static String terminate(String controlAndLength, byte[] copied) {
        return hex(Wire.TERMINATE_HEADER + " " + controlAndLength) + hex(copied);
    }

    /**
     * The Terminate is the last FPDU and the FIN follows it (RFC 5040 §5.4, R-TERM-026); the raw
     * peer then closes its half and the QP ends in Error.
     */
    private void assertTheFinFollowsAndFinish() throws Exception {
        assertThat(in().read()).as("our FIN right after the Terminate").isEqualTo(-1);
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.ERROR);
    }

    /** All completions until n arrived, then checks that no further one follows (exactly once). */
    private List<WorkCompletion> exactly(int n) {
        List<WorkCompletion> wcs = peer.completions(n);
        assertThat(wcs).hasSize(n);
        assertThat(peer.cq.poll(new WorkCompletion())).as("no completion beyond the %d WRs", n).isFalse();
        return wcs;
    }

    private MemoryRegion region(int size) {
        return peer.pd.registerMemory(peer.rnic.allocateMemory(size, 4096), RawInitiator.RIGHTS);
    }

    private void postRead(long wrId, MemoryRegion sink, int length) {
        peer.qp.postSend(new SendWorkRequest().wrId(wrId).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), sink.query().baseTo(), length).remote(0x4201, 0x9000));
    }

    /** Reads the next Read Request off the wire and answers it in full (one Read Response of 0x5A bytes). */
    private int answerNextRead(int expectedMsn) throws Exception {
        byte[] request = RawFpdus.receive(in());
        assertThat(request[1] & 0x0F).as("a Read Request").isEqualTo(Wire.READ_REQUEST);
        ByteBuffer rr = ByteBuffer.wrap(request);
        assertThat(rr.getInt(10)).as("QN 1, MSN (RFC 5040 §5.2)").isEqualTo(expectedMsn);
        int sinkStag = rr.getInt(18); // RFC 5040 §4.4: sink STag, TO, size
        long sinkTo = rr.getLong(22);
        int size = rr.getInt(30);
        byte[] payload = new byte[size];
        Arrays.fill(payload, (byte) 0x5A);
        RawFpdus.send(peer.raw.getOutputStream(), Wire.tagged(Wire.READ_RESPONSE, true, sinkStag, sinkTo, payload));
        return size;
    }

    /**
     * RQ empty (RFC 5040 §5.3, RFC 5041 §7.2: DDP 1/2/0x02 "no buffer available"; Verbs §8.1.2.1
     * V-WR-7: the stream is terminated unless graceful receive overflow is on, which
     * GracefulOverflowConnectionTest covers): the Terminate copies the Send's DDP header, the QP
     * reports RQ Invalid MSN Range and goes to Error, the Read outstanding is flushed once.
     */
    @Test
    void sendWithNoReceivePostedIsTerminatedNoBufferAvailable_R_SEND_011_V_WR_7_V_EV_24() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.connect();
        postRead(1, region(4096), 64);
        assertThat(RawFpdus.receive(in())[1] & 0x0F).as("the Read Request").isEqualTo(Wire.READ_REQUEST);

        byte[] send = Wire.send(1, PAYLOAD);
        RawFpdus.send(peer.raw.getOutputStream(), send);
        assertThat(hex(RawFpdus.receive(in()))).isEqualTo(terminate("1202c000 0010", Arrays.copyOf(send, 18)));
        assertTheFinFollowsAndFinish();

        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
        assertThat(peer.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1202);
        List<WorkCompletion> wcs = exactly(1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(1L);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    /**
     * A Send longer than the receive it lands in (RFC 5040 §5.3 R-SEND-013; RFC 5041 §7.2: DDP
     * 1/2/0x05 "DDP Message too long for available buffer", the Send's DDP header copied; Verbs
     * §8.1.2.1 V-WR-10: the receive completes in error, BASE AND BOUNDS VIOLATION "including length
     * errors", Verbs §9.5.2 Figure 36 V-ERR-48): nothing is placed, not even the 8 octets that fit;
     * the receive completes once with its error, the receive behind it is flushed, the QP goes
     * Terminate → Error after our FIN.
     */
    @Test
    void sendLongerThanItsReceiveBufferIsTerminatedMessageTooLong_R_SEND_013_V_WR_10() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        MemorySegment memory = peer.rnic.allocateMemory(4096, 4096);
        MemoryRegion sink = peer.pd.registerMemory(memory, RawInitiator.RIGHTS);
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(sink.stag(), sink.query().baseTo(), 8));
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(4).sge(sink.stag(), sink.query().baseTo() + 64, 64));
        peer.connect();

        byte[] send = Wire.send(1, PAYLOAD); // 16 octets into 8
        RawFpdus.send(peer.raw.getOutputStream(), send);
        assertThat(hex(RawFpdus.receive(in()))).isEqualTo(terminate("1205c000 0010", Arrays.copyOf(send, 18)));
        assertTheFinFollowsAndFinish();

        assertThat(peer.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1205);
        List<WorkCompletion> wcs = exactly(2);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(3L, 4L);
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(
                WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION, WorkCompletionStatus.FLUSHED);
        assertThat(memory.toArray(ValueLayout.JAVA_BYTE)).as("nothing placed").containsOnly(0);
        // the engine's event for it (QpRxEngine.eventFor: Figure 24 has no row for a Send too long)
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC);
    }

    /**
     * S-RQ empty (Verbs §6.3.5 V-SRQ-25 with RFC 5040 §5.3): as an empty RQ, 1/2/0x02; before it,
     * the S-RQ Limit event when the available WQEs drop below the limit (V-SRQ-37), which by itself
     * disturbs nothing (V-SRQ-38). The receive the first Send consumed completes once, successfully.
     */
    @Test
    void sendFindingTheSharedReceiveQueueEmptyIsTerminatedAfterTheLimitEvent_V_SRQ_25_V_SRQ_37() throws Exception {
        AtomicReference<SharedReceiveQueue> srq = new AtomicReference<>();
        peer = new RawInitiator(new ConnectionSettings(), null,
                (pd, config) -> config.srq(srq.updateAndGet(s -> pd.createSharedReceiveQueue(8, 1, 1)), 0));
        MemoryRegion sink = region(4096);
        srq.get().postReceive(new ReceiveWorkRequest().wrId(5).sge(sink.stag(), sink.query().baseTo(), 64));
        peer.connect();

        byte[] first = Wire.send(1, PAYLOAD);
        byte[] second = Wire.send(2, PAYLOAD);
        RawFpdus.send(peer.raw.getOutputStream(), first);
        List<WorkCompletion> received = peer.completions(1);
        assertThat(received.getFirst().wrId()).isEqualTo(5L);
        assertThat(received.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(received.getFirst().byteLength()).isEqualTo(PAYLOAD.length);
        peer.awaitEvent(AsyncEventType.SRQ_LIMIT_REACHED);
        assertThat(peer.qp.state()).as("the limit event alone changes nothing").isEqualTo(QpState.RTS);

        RawFpdus.send(peer.raw.getOutputStream(), second);
        assertThat(hex(RawFpdus.receive(in()))).isEqualTo(terminate("1202c000 0010", Arrays.copyOf(second, 18)));
        assertTheFinFollowsAndFinish();

        assertThat(peer.events).extracting(AsyncEvent::type)
                .containsExactly(AsyncEventType.SRQ_LIMIT_REACHED, AsyncEventType.RQ_INVALID_MSN_RANGE);
        assertThat(peer.events.getFirst().resource()).isSameAs(srq.get());
        assertThat(peer.cq.poll(new WorkCompletion())).as("the one receive completed once").isFalse();
    }

    /**
     * IRD exceeded (RFC 5040 §6.1 R-READ-044, checklist AMB-11: 0/2/0x07 "catastrophic error,
     * localized to the RDMAP stream", as Linux siw; Verbs §9.5.3 V-EV-26): a peer that ignores the
     * negotiated IRD and sends IRD + 1 Read Requests in one burst gets the Terminate at once, as the
     * last FPDU: the response in progress stops at a segment boundary (R-TERM-026) and the requests
     * queued behind it are never answered. A posted receive is flushed once.
     */
    @Test
    void readRequestsBeyondTheIrdAreTerminatedCatastrophicLocalized_R_READ_044_AMB_11_V_EV_26() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(7).sge(0, 0, 0));
        peer.connect();
        int ird = peer.qp.query().ird();
        assertThat(ird).isPositive();
        int big = 16 << 20; // the first response is still going out when the last request arrives
        MemoryRegion source = region(big);
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        byte[] last = null;
        for (int i = 1; i <= ird + 1; i++) {
            last = Wire.readRequest(i, 0x5500 + i, 0, i == 1 ? big : 64, source.stag(), source.query().baseTo());
            burst.writeBytes(frame(last));
        }
        peer.raw.getOutputStream().write(burst.toByteArray());

        // Read Responses of the first request only (in order, R-READ-029), then the Terminate
        long responseBytes = 0;
        byte[] ulpdu;
        while (((ulpdu = RawFpdus.receive(in()))[1] & 0x0F) == Wire.READ_RESPONSE) {
            assertThat(ByteBuffer.wrap(ulpdu).getInt(2)).as("the head request's sink STag").isEqualTo(0x5501);
            responseBytes += ulpdu.length - 14;
        }
        assertThat(responseBytes).as("the first response was cut short").isLessThan(big);
        assertThat(hex(ulpdu)).isEqualTo(terminate("0207c000 0000", Arrays.copyOf(last, 18)));
        assertTheFinFollowsAndFinish();

        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.IRRQ_TOO_MANY_READS);
        assertThat(peer.qp.query().terminateMessage().terminateControl()).isEqualTo(0x0207);
        List<WorkCompletion> wcs = exactly(1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(7L);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    private static byte[] frame(byte[] ulpdu) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RawFpdus.send(out, ulpdu);
        return out.toByteArray();
    }

    /**
     * ORD zero (Verbs §9.5.2 Figure 36, V-ERR-53): a Read posted while the QP's ORD is 0 (lowered in
     * RTS, V-IRD-13) is not an immediate error but a completion error, ZERO RDMA READ RESOURCES;
     * the QP enters Terminate, nothing of the Read reaches the wire but our Terminate (a local
     * error: 0/0/0x00 with no headers, RFC 5040 §4.8), and the receive is flushed, each once
     * (V-ERR-59).
     */
    @Test
    void readPostedWithOrdZeroCompletesWithZeroReadResources_V_ERR_53_V_ERR_59() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(7).sge(0, 0, 0));
        peer.connect();
        peer.qp.modify(new QueuePairModification().nextState(QpState.RTS).ord(0));
        assertThat(peer.qp.query().ord()).isZero();
        MemoryRegion mr = region(4096);
        postRead(1, mr, 64);
        // the error is found as the post processes the WR: the QP is in Terminate at once, and a
        // later post is an immediate error (V-QPS-49), not a lost WR
        assertThatThrownBy(() -> peer.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE)
                .signaled(true).sge(mr.stag(), mr.query().baseTo(), 64).remote(0x4201, 0)))
                .isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_STATE));

        assertThat(hex(RawFpdus.receive(in()))).as("no Read Request: the Terminate")
                .isEqualTo(hex(Wire.TERMINATE_HEADER + " 00000000"));
        assertTheFinFollowsAndFinish();

        List<WorkCompletion> wcs = exactly(2);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 7L);
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(
                WorkCompletionStatus.ZERO_RDMA_READ_RESOURCES, WorkCompletionStatus.FLUSHED);
        assertThat(peer.qp.query().terminateMessage().terminateControl()).isZero();
    }

    /**
     * ORD exceeded locally (Verbs §6.5 V-IRD-7/8/9, RFC 5040 §6.1 R-READ-043): more Reads than ORD
     * may be posted; no more than ORD Read Requests are on the wire, the rest wait in SQ order
     * (with the Write behind them) until a response completes one; nothing fails.
     */
    @Test
    void readsBeyondTheOrdWaitInOrderAndAllComplete_V_IRD_7_V_IRD_8_V_IRD_9_R_READ_043() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.connect();
        int ord = peer.qp.query().ord();
        assertThat(ord).isPositive();
        MemoryRegion sink = region(4096);
        int reads = ord + 2;
        for (int i = 1; i <= reads; i++) {
            postRead(i, sink, 64);
        }
        peer.qp.postSend(new SendWorkRequest().wrId(reads + 1).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(sink.stag(), sink.query().baseTo(), 8).remote(0x4201, 0));

        List<byte[]> requests = new java.util.ArrayList<>();
        for (int i = 0; i < ord; i++) {
            requests.add(RawFpdus.receive(in()));
        }
        assertThat(requests).allSatisfy(r -> assertThat(r[1] & 0x0F).isEqualTo(Wire.READ_REQUEST));
        // nothing more on the wire while ORD requests are outstanding (a bounded look: 300 ms)
        peer.raw.setSoTimeout(300);
        assertThatThrownBy(() -> in().read()).isInstanceOf(SocketTimeoutException.class);
        peer.raw.setSoTimeout(10_000);
        for (byte[] r : requests) {
            ByteBuffer rr = ByteBuffer.wrap(r);
            byte[] payload = new byte[rr.getInt(30)];
            RawFpdus.send(peer.raw.getOutputStream(),
                    Wire.tagged(Wire.READ_RESPONSE, true, rr.getInt(18), rr.getLong(22), payload));
        }
        // each response frees one ORD slot: the waiting Reads follow, in order, then the Write
        for (int msn = ord + 1; msn <= reads; msn++) {
            answerNextRead(msn);
        }
        assertThat(RawFpdus.receive(in())[1] & 0x0F).as("the Write, last").isEqualTo(Wire.WRITE);

        List<WorkCompletion> wcs = exactly(reads + 1);
        assertThat(wcs).extracting(WorkCompletion::wrId)
                .containsExactly(LongStream.rangeClosed(1, reads + 1).boxed().toArray(Long[]::new));
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
        assertThat(peer.eventTypes()).isEmpty();
    }

    /**
     * SQ full (Verbs §9.3.1.1 V-VERB-PostSQ-10, §8.2.1 V-WRP-7/8): a post beyond the SQ depth is an
     * immediate error naming the problem, TOO MANY WRS POSTED, and changes nothing: the QP stays in
     * RTS, the WRs already posted all complete, and the slot is free again once one is reaped.
     */
    @Test
    void postBeyondTheSqDepthIsRefusedAndNothingIsLost_V_VERB_PostSQ_10_V_WRP_7() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.connect();
        int depth = peer.qp.query().sqDepth();
        MemoryRegion sink = region(4096);
        for (int i = 1; i <= depth; i++) {
            postRead(i, sink, 64); // the peer answers none yet: every WR stays outstanding
        }
        assertThatThrownBy(() -> postRead(depth + 1, sink, 64)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.status()).isEqualTo(VerbsStatus.TOO_MANY_WRS_POSTED));
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);

        for (int msn = 1; msn <= depth; msn++) {
            answerNextRead(msn);
        }
        List<WorkCompletion> wcs = exactly(depth);
        assertThat(wcs).extracting(WorkCompletion::wrId)
                .containsExactly(LongStream.rangeClosed(1, depth).boxed().toArray(Long[]::new));
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        postRead(depth + 1, sink, 64); // reaped: room again
        answerNextRead(depth + 1);
        assertThat(exactly(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(peer.eventTypes()).isEmpty();
    }

    /**
     * Our own FPDUs at the largest EMSS allowed (RFC 5044 §4.1: "The range of MULPDU values MUST
     * be between 128 octets and 64768 octets, inclusive. The sending DDP MUST NOT post a ULPDU
     * larger than 64768 octets to MPA"): an RDMA Write and a Read Response of 1 MiB + 100 go out in
     * ULPDUs of exactly 64768 octets but the last, never the ULPDU_Length field's 65535 that the
     * EMSS formula alone would give (RFC 5044 §4.5). Each ULPDU is read off the raw socket.
     */
    @Test
    void atTheLargestEmssNoUlpduWeSendExceeds64768Octets_RFC5044_4_1() throws Exception {
        peer = new RawInitiator(new ConnectionSettings().emss(ConnectionSettings.MAX_EMSS));
        peer.connect();
        int length = (1 << 20) + 100;
        MemoryRegion source = region(length);
        peer.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(source.stag(), source.query().baseTo(), length).remote(0x4201, 0));
        assertUlpdusWithin64768(Wire.WRITE, length);

        RawFpdus.send(peer.raw.getOutputStream(),
                Wire.readRequest(1, 0x5501, 0, length, source.stag(), source.query().baseTo()));
        assertUlpdusWithin64768(Wire.READ_RESPONSE, length);
        assertThat(peer.connection.mulpdu()).isEqualTo(64768);
        assertThat(exactly(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
    }

    /** Reads one tagged message of {@code length} payload octets off the wire, segment by segment. */
    private void assertUlpdusWithin64768(int opcode, int length) throws Exception {
        long payload = 0;
        int full = 0;
        byte[] ulpdu;
        do {
            ulpdu = RawFpdus.receive(in());
            assertThat(ulpdu[1] & 0x0F).isEqualTo(opcode);
            assertThat(ulpdu.length).as("a ULPDU we send (RFC 5044 §4.1)").isLessThanOrEqualTo(64768);
            full += ulpdu.length == 64768 ? 1 : 0;
            payload += ulpdu.length - 14;
        } while ((ulpdu[0] & 0x40) == 0); // DDP L bit (RFC 5041 §4.2)
        assertThat(payload).isEqualTo(length);
        assertThat(full).as("segments as large as allowed (RFC 5044 §4.5 SHOULD)").isEqualTo(length / (64768 - 14));
    }

    /**
     * An FPDU longer than our MULPDU (RFC 5044 §4.5: what a sender should use; §4.1: a sender must
     * not exceed 64768), up to the ULPDU_Length field's 65535: MPA need not support it (RFC 5044
     * §4.1) but Linux siw accepts larger FPDUs than it sends, and so do we (docs/reliability.md
     * "Exhaustion"): a 65535-octet ULPDU is placed whole; only a ULPDU_Length below a DDP header
     * is an error (FirstFpduFaultTest, 1/0/0x00).
     */
    @Test
    void fpduBeyondOurMulpduUpToTheFieldMaximumIsPlaced() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(7).sge(0, 0, 0));
        peer.connect();
        assertThat(peer.connection.mulpdu()).isLessThan(64768);
        MemorySegment memory = peer.rnic.allocateMemory(1 << 16, 4096);
        MemoryRegion target = peer.pd.registerMemory(memory, RawInitiator.RIGHTS);
        byte[] payload = new byte[65535 - 14];
        new java.util.Random(13).nextBytes(payload);
        byte[] write = Wire.tagged(Wire.WRITE, true, target.stag(), target.query().baseTo(), payload);
        assertThat(write).hasSize(65535);
        RawFpdus.send(peer.raw.getOutputStream(), write);
        RawFpdus.send(peer.raw.getOutputStream(), Wire.send(1, new byte[0])); // placed after the Write (RFC 5040 §5.5)

        List<WorkCompletion> wcs = exactly(1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        byte[] got = new byte[payload.length];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, 0, got, 0, got.length);
        assertThat(got).isEqualTo(payload);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
        assertThat(peer.eventTypes()).isEmpty();
    }
}
