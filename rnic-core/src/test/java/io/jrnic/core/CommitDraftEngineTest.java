package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.CommitDraft;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * RDMA Flush, RDMA Verify and Atomic Write (draft-talpey-rdma-commit-01) through two engines over
 * the memory link, and against a raw peer for the exact bytes of requests, responses and every
 * Terminate (M=1, D=1, R=0 with the request's DDP header, C-FLUSH-051).
 */
class CommitDraftEngineTest extends EngineFixture {
    private static final int FLUSHABLE = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE | AccessRights.FLUSHABLE_GLOBAL | AccessRights.VERIFIABLE;
    private static final String FLUSH_RESPONSE_1 = "41 4d 00000000 00000003 00000001 00000000";

    private Side a;

    private Side engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        return a;
    }

    private byte[] awaitTerminate() {
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        assertThat(raw.received).hasSize(1); // the Terminate is the only FPDU: nothing was answered
        return raw.received.getFirst();
    }

    private static String header(byte[] ulpdu) {
        return hex(Arrays.copyOf(ulpdu, 18));
    }

    static byte[] flushRequest(int msn, int stag, int length, long to, int flags) {
        ByteBuffer b = ByteBuffer.allocate(20).putInt(stag).putInt(length).putLong(to).putInt(flags);
        return Wire.untagged(0xC, true, 0, 1, msn, 0, b.array());
    }

    static byte[] verifyRequest(int msn, int stag, int length, long to, byte[] hash) {
        ByteBuffer b = ByteBuffer.allocate(16 + hash.length).putInt(stag).putInt(length).putLong(to).put(hash);
        return Wire.untagged(0xE, true, 0, 1, msn, 0, b.array());
    }

    static byte[] atomicWriteRequest(int msn, int stag, int length, long to, long data) {
        ByteBuffer b = ByteBuffer.allocate(24).putInt(stag).putInt(length).putLong(to).putLong(data);
        return Wire.untagged(0x10, true, 0, 1, msn, 0, b.array());
    }

    private static String hex8(long v) {
        return String.format("%08x", v & 0xFFFF_FFFFL);
    }

    private static String hex16(long v) {
        return String.format("%016x", v);
    }

    private void requestFails(byte[] request, String codeAndHdrct, String segmentLength, AsyncEventType event) {
        raw.send(request);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " " + codeAndHdrct + " " + segmentLength + " "
                + header(request));
        assertThat(a.eventTypes()).containsExactly(event);
    }

    // ---- requester: exact request bytes, completion on the response ---------------------------

    @Test
    void flushRequestOnQueueOneCompletesOnItsResponse_C_FLUSH_010_C_FLUSH_016_C_FLUSH_019_C_AW_045() {
        engineWithRawPeer();
        a.qp.postSend(new SendWorkRequest().wrId(7).flush(0x1234_5601, 0x1000, 4096,
                SendWorkRequest.FLUSH_PERSISTENCE | SendWorkRequest.FLUSH_GLOBAL_VISIBILITY));
        await(() -> !raw.received.isEmpty(), "the Flush Request");
        // draft §3.1.1.1, wire-format §4.8: 41 4C, QN 1, MSN 1, then STag, Length, TO, flags
        assertBytes(raw.received.getFirst(), "41 4c 00000000 00000001 00000001 00000000 12345601 00001000"
                + " 0000000000001000 00000003");
        assertThat(a.qp.query().state()).isEqualTo(QpState.RTS);
        raw.send(hex(FLUSH_RESPONSE_1));
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(7);
        assertThat(wcs.getFirst().opcode()).isEqualTo(Opcode.RDMA_FLUSH);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void verifyAndAtomicWriteRequestsShareTheReadRequestMsns_C_VERIFY_012_C_AW_013_C_FLUSH_004() {
        engineWithRawPeer();
        MemoryRegion sink = a.region(64, EngineFixture.RIGHTS);
        byte[] expected = new byte[32];
        Arrays.fill(expected, (byte) 0xAB);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), a.base(sink), 8)
                .remote(0x0000_0201, 0x40));
        a.qp.postSend(new SendWorkRequest().wrId(2).verify(0x0000_0301, 0x80, 512, expected)
                .sge(sink.stag(), a.base(sink) + 32, 32));
        a.qp.postSend(new SendWorkRequest().wrId(3).atomicWrite(0x0000_0401, 0x88, 0x0102_0304_0506_0708L));
        await(() -> raw.received.size() == 3, "three queue-1 requests");
        assertThat(hex(raw.received.get(0))).startsWith("41 41 00 00 00 00 00 00 00 01 00 00 00 01");
        assertBytes(raw.received.get(1), "41 4e 00000000 00000001 00000002 00000000 00000301 00000200"
                + " 0000000000000080 " + "ab".repeat(32));
        assertBytes(raw.received.get(2), "41 50 00000000 00000001 00000003 00000000 00000401 00000008"
                + " 0000000000000088 0102030405060708");
        // responses in request order: the Read Response (tagged), then queue 3 MSN 1 and 2
        byte[] hash = new byte[32];
        Arrays.fill(hash, (byte) 0x3C);
        raw.send(Wire.tagged(Wire.READ_RESPONSE, true, sink.stag(), a.base(sink), new byte[8]),
                Wire.untagged(0xF, true, 0, 3, 1, 0, hash), Wire.untagged(0x11, true, 0, 3, 2, 0, new byte[0]));
        List<WorkCompletion> wcs = completions(a, 3);
        assertThat(wcs).extracting(WorkCompletion::opcode)
                .containsExactly(Opcode.RDMA_READ, Opcode.RDMA_VERIFY, Opcode.ATOMIC_WRITE);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(a.memory(sink), 32, 32)).isEqualTo(hash); // the Verify's hash sink
    }

    @Test
    void verifyResponseWhoseHashSinkWasDeregisteredFailsTheWorkRequest_C_FLUSH_050() {
        engineWithRawPeer();
        MemoryRegion sink = a.region(64, EngineFixture.RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(4).verify(0x0000_0301, 0, 64, null).sge(sink.stag(), a.base(sink), 32));
        await(() -> raw.received.size() == 1, "the Verify Request");
        raw.received.clear();
        sink.close(); // the local hash sink goes away while the request is outstanding
        raw.send(Wire.untagged(0xF, true, 0, 3, 1, 0, new byte[32]));
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(4);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        // a local error: Terminate 0/0/0 with no headers (C-FLUSH-050, V-TERM-8)
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 00000000");
    }

    @Test
    void responseWithoutItsRequestIsUnexpectedOpcode_C_AW_045_R_ERR_021() {
        engineWithRawPeer();
        byte[] response = hex(FLUSH_RESPONSE_1);
        requestFails(response, "0206c000", "0000", AsyncEventType.UNEXPECTED_OPCODE);
    }

    @Test
    void responseOfTheWrongKindIsUnexpectedOpcode_C_AW_045() {
        engineWithRawPeer();
        a.qp.postSend(new SendWorkRequest().wrId(9).flush(0x1234_5601, 0, 8, SendWorkRequest.FLUSH_GLOBAL_VISIBILITY));
        await(() -> raw.received.size() == 1, "the Flush Request");
        raw.received.clear();
        byte[] wrong = Wire.untagged(0x11, true, 0, 3, 1, 0, new byte[0]); // an Atomic Write Response
        requestFails(wrong, "0206c000", "0000", AsyncEventType.UNEXPECTED_OPCODE);
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(9);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    // ---- responder: exact response bytes, execution -------------------------------------------

    @Test
    void flushRequestIsAnsweredOnQueueThree_C_FLUSH_019_C_FLUSH_020_AMB_56() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        raw.send(flushRequest(1, mr.stag(), 4096, a.base(mr), 0x02),
                flushRequest(2, mr.stag(), 16, a.base(mr), 0xF0)); // unknown flag bits: a barrier
        await(() -> raw.received.size() == 2, "two Flush Responses");
        assertBytes(raw.received.get(0), FLUSH_RESPONSE_1);
        assertBytes(raw.received.get(1), "41 4d 00000000 00000003 00000002 00000000");
        assertThat(a.qp.query().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void zeroLengthFlushAndVerifyNeedNoStag_C_FLUSH_056_AMB_57() {
        engineWithRawPeer();
        raw.send(flushRequest(1, 0xDEAD_BEEF, 0, 0, 0x03), verifyRequest(2, 0xDEAD_BEEF, 0, 0, new byte[0]));
        await(() -> raw.received.size() == 2, "two responses");
        assertBytes(raw.received.get(0), FLUSH_RESPONSE_1);
        assertBytes(raw.received.get(1), "41 4f 00000000 00000003 00000002 00000000 "
                + hex(CommitDraft.hash(new byte[0])));
    }

    @Test
    void verifyReturnsTheSha256OfTheRange_C_VERIFY_001_C_VERIFY_010_C_VERIFY_015() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        fill(a.memory(mr), 11);
        byte[] range = bytes(a.memory(mr), 100, 3000);
        byte[] hash = CommitDraft.hash(range);
        raw.send(verifyRequest(1, mr.stag(), 3000, a.base(mr) + 100, new byte[0]),
                verifyRequest(2, mr.stag(), 3000, a.base(mr) + 100, hash));
        await(() -> raw.received.size() == 2, "two Verify Responses");
        assertBytes(raw.received.get(0), "41 4f 00000000 00000003 00000001 00000000 " + hex(hash));
        assertBytes(raw.received.get(1), "41 4f 00000000 00000003 00000002 00000000 " + hex(hash));
    }

    @Test
    void atomicWriteStoresEightBytesAtomically_C_AW_010_C_AW_012_C_AW_016_C_AW_020() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(64, FLUSHABLE);
        raw.send(atomicWriteRequest(1, mr.stag(), 8, a.base(mr) + 16, 0x1122_3344_5566_7788L));
        await(() -> raw.received.size() == 1, "the Atomic Write Response");
        assertBytes(raw.received.getFirst(), "41 51 00000000 00000003 00000001 00000000");
        // wire big-endian, memory in the native order (AMB-27)
        assertThat(a.memory(mr).get(ValueLayout.JAVA_LONG, 16)).isEqualTo(0x1122_3344_5566_7788L);
        assertThat(bytes(a.memory(mr), 8, 8)).containsOnly(0);
        assertThat(bytes(a.memory(mr), 24, 8)).containsOnly(0);
    }

    // ---- responder errors: exact Terminate bytes ----------------------------------------------

    @Test
    void flushWithInvalidStagIsInvalidStag_C_FLUSH_055_C_FLUSH_051() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        requestFails(flushRequest(1, mr.stag() ^ 0x02, 64, a.base(mr), 0x02), "0100c000", "0000",
                AsyncEventType.IRRQ_INVALID_STAG);
    }

    @Test
    void flushOfAnotherPdIsNotAssociated_C_FLUSH_055() {
        engineWithRawPeer();
        MemoryRegion mr = a.rnic.allocatePd().registerMemory(a.rnic.allocateMemory(4096, 8), FLUSHABLE);
        requestFails(flushRequest(1, mr.stag(), 64, mr.query().baseTo(), 0x02), "0103c000", "0000",
                AsyncEventType.IRRQ_INVALID_PD);
    }

    @Test
    void flushToPersistenceWithoutTheRightIsAccessViolation_C_ATTR_002_C_FLUSH_055() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE); // Flushable-Global only
        requestFails(flushRequest(1, mr.stag(), 64, a.base(mr), 0x01), "0102c000", "0000",
                AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void flushBarrierWithoutAnyFlushableRightIsAccessViolation_C_ATTR_002_AMB_56() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, EngineFixture.RIGHTS);
        requestFails(flushRequest(1, mr.stag(), 64, a.base(mr), 0), "0102c000", "0000",
                AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void flushBeyondTheRegionIsBaseOrBounds_C_FLUSH_055() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        requestFails(flushRequest(1, mr.stag(), 97, a.base(mr) + 4000, 0x02), "0101c000", "0000",
                AsyncEventType.IRRQ_BASE_BOUNDS);
    }

    @Test
    void flushWhoseRangeWrapsIsToWrap_C_FLUSH_055() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        requestFails(flushRequest(1, mr.stag(), 0x100, 0xFFFF_FFFF_FFFF_FFF0L, 0x02), "0104c000", "0000",
                AsyncEventType.IRRQ_WRAP);
    }

    @Test
    void flushOfTheWrongLengthIsUnspecified_C_FLUSH_053_AMB_45() {
        engineWithRawPeer();
        byte[] r = Wire.untagged(0xC, true, 0, 1, 1, 0, new byte[16]);
        requestFails(r, "02ffc000", "0000", AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void verifyWithoutTheVerifiableRightIsAccessViolation_C_ATTR_004() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, EngineFixture.RIGHTS);
        requestFails(verifyRequest(1, mr.stag(), 64, a.base(mr), new byte[0]), "0102c000", "0000",
                AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void verifyMismatchTerminatesWithoutAResponse_C_VERIFY_011_C_VERIFY_014_C_VERIFY_016() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        byte[] wrong = new byte[32];
        requestFails(verifyRequest(1, mr.stag(), 64, a.base(mr), wrong), "02ffc000", "0020",
                AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void verifyWithAHashOfAnotherLengthIsUnspecified_C_VERIFY_013_AMB_49() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        requestFails(verifyRequest(1, mr.stag(), 64, a.base(mr), new byte[20]), "02ffc000", "0014",
                AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void misalignedAtomicWriteIsCatastrophicAndLeavesMemoryAlone_C_AW_015_C_AW_019() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(64, FLUSHABLE);
        requestFails(atomicWriteRequest(1, mr.stag(), 8, a.base(mr) + 4, -1L), "0207c000", "0000",
                AsyncEventType.LOCAL_QP_CATASTROPHIC);
        assertThat(bytes(a.memory(mr), 0, 64)).containsOnly(0);
    }

    @Test
    void atomicWriteOfAnotherLengthIsCatastrophic_C_AW_014() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(64, FLUSHABLE);
        requestFails(atomicWriteRequest(1, mr.stag(), 16, a.base(mr), -1L), "0207c000", "0000",
                AsyncEventType.LOCAL_QP_CATASTROPHIC);
        assertThat(bytes(a.memory(mr), 0, 64)).containsOnly(0);
    }

    @Test
    void atomicWriteWithoutRemoteWriteIsAccessViolation_C_ATTR_006() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(64, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ);
        requestFails(atomicWriteRequest(1, mr.stag(), 8, a.base(mr), -1L), "0102c000", "0000",
                AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void commitRequestsBeyondIrdAreCatastrophicLocalized_R_READ_044_AMB_11_C_FLUSH_004() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).ird(1));
        byte[] first = Wire.readRequest(1, 0x1234_5601, 0x1000, 64, mr.stag(), a.base(mr));
        byte[] second = flushRequest(2, mr.stag(), 64, a.base(mr), 0x02);
        raw.send(first, second); // the Flush arrives while the Read holds the only IRD slot
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 0207c000 0000 " + header(second));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_TOO_MANY_READS);
    }

    @Test
    void flushWhoseStagWasDeregisteredBehindAReadTerminatesWithItsHeader_C_FLUSH_021_C_FLUSH_052() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        TxStopPointTest.HookLink hook = new TxStopPointTest.HookLink(link.a);
        a = side(hook);
        MemoryRegion source = a.region(64 * 1024, EngineFixture.RIGHTS);
        MemoryRegion target = a.region(4096, FLUSHABLE);
        byte[] flush = flushRequest(2, target.stag(), 64, a.base(target), 0x02);
        // validated at Delivery, executed at the IRD head: the target is checked again there
        hook.after(2, n -> target.close());
        raw.send(Wire.readRequest(1, 0x0000_7701, 0x1000, 64 * 1024, source.stag(), a.base(source)), flush);
        await(() -> raw.closure != null, "the LLP close after the Terminate");
        awaitState(a, QpState.ERROR);
        int responses = (64 * 1024 + 1433) / 1434; // the whole Read Response goes first (request order)
        assertThat(raw.received).hasSize(responses + 1);
        assertBytes(raw.received.getLast(), Wire.TERMINATE_HEADER + " 0100c000 0000 " + header(flush));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_STAG);
    }

    @Test
    void rnicWithoutTheExtensionAnswersUnexpectedOpcode_C_FLUSH_031() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        a = sideWith(link.a, EnumSet.of(RnicExtension.RDMA_VERIFY, RnicExtension.INLINE_DATA));
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        requestFails(flushRequest(1, mr.stag(), 64, a.base(mr), 0x02), "0206c000", "0014",
                AsyncEventType.UNEXPECTED_OPCODE);
        assertThatThrownBy(() -> a.qp.postSend(new SendWorkRequest().flush(mr.stag(), 0, 8, 0)))
                .isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_OPERATION_TYPE))
                .hasMessageContaining("RDMA_FLUSH");
    }

    @Test
    void rnicWithoutAnyDraftExtensionReadsFourBitOpcodes_C_FLUSH_031_AMB_40() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        a = sideWith(link.a, EnumSet.of(RnicExtension.INLINE_DATA));
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        requestFails(flushRequest(1, mr.stag(), 64, a.base(mr), 0x02), "0206c000", "0014",
                AsyncEventType.UNEXPECTED_OPCODE);
    }

    private Side sideWith(FpduLink l, EnumSet<RnicExtension> extensions) {
        Side s = new Side();
        s.rnic = SoftRnic.open(new RnicConfig().name("commit-" + System.nanoTime()).extensions(extensions));
        s.rnic.setAsyncEventHandler((r, e) -> s.events.add(e));
        s.pd = s.rnic.allocatePd();
        s.cq = s.rnic.createCq(1024, s.rnic.setCompletionEventHandler(0, (r, cq) -> { }));
        s.qp = s.pd.createQueuePair(qpConfig(s));
        s.engine = new QpEngine(l);
        s.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(s.engine));
        sides.add(s);
        return s;
    }

    // ---- two engines ----------------------------------------------------------------------------

    @Test
    void writeFlushVerifyAtomicWritePipeline_C_VERIFY_003_C_FLUSH_040_C_AW_042_C_VERIFY_041() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side req = p[0];
        Side rsp = p[1];
        MemoryRegion src = req.region(8192, EngineFixture.RIGHTS);
        MemoryRegion hashSink = req.region(32, EngineFixture.RIGHTS);
        MemoryRegion dst = rsp.region(8192, FLUSHABLE);
        fill(req.memory(src), 5);
        byte[] data = bytes(req.memory(src), 0, 8000);
        long to = rsp.base(dst);
        req.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src.stag(), req.base(src), 8000)
                .remote(dst.stag(), to));
        req.qp.postSend(new SendWorkRequest().wrId(2).flush(dst.stag(), to, 8000,
                SendWorkRequest.FLUSH_GLOBAL_VISIBILITY));
        req.qp.postSend(new SendWorkRequest().wrId(3).verify(dst.stag(), to, 8000, CommitDraft.hash(data))
                .sge(hashSink.stag(), req.base(hashSink), 32));
        req.qp.postSend(new SendWorkRequest().wrId(4).atomicWrite(dst.stag(), to + 8000, 0x0BAD_CAFE_F00DL));
        List<WorkCompletion> wcs = completions(req, 4);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L, 4L);
        assertThat(wcs).extracting(WorkCompletion::opcode).containsExactly(Opcode.RDMA_WRITE, Opcode.RDMA_FLUSH,
                Opcode.RDMA_VERIFY, Opcode.ATOMIC_WRITE);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(rsp.memory(dst), 0, 8000)).isEqualTo(data);
        assertThat(bytes(req.memory(hashSink), 0, 32)).isEqualTo(CommitDraft.hash(data));
        assertThat(rsp.memory(dst).get(ValueLayout.JAVA_LONG_UNALIGNED, 8000)).isEqualTo(0x0BAD_CAFE_F00DL);
        assertThat(req.qp.query().state()).isEqualTo(QpState.RTS);
        assertThat(rsp.qp.query().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void failedVerifyKeepsTheLaterAtomicWriteFromBeingPlaced_C_AW_041_C_AW_042_C_FLUSH_052() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side req = p[0];
        Side rsp = p[1];
        MemoryRegion dst = rsp.region(4096, FLUSHABLE);
        long to = rsp.base(dst);
        // one post list: the Verify's Terminate could otherwise reach the requester before the
        // second post, which would then be refused (PostSQ in Terminate, V-QPS-49)
        req.qp.postSend(new SendWorkRequest[] {
            new SendWorkRequest().wrId(1).verify(dst.stag(), to, 64, new byte[32]),
            new SendWorkRequest().wrId(2).atomicWrite(dst.stag(), to + 64, -1L)}, 0, 2);
        awaitState(rsp, QpState.ERROR);
        awaitState(req, QpState.ERROR);
        List<WorkCompletion> wcs = completions(req, 2);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
        // C-FLUSH-052: the requester learns it from the Terminate: the Verify it ended completes with
        // Remote Termination Error (V-ERR-46), every operation queued behind it is flushed
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(
                WorkCompletionStatus.REMOTE_TERMINATION_ERROR, WorkCompletionStatus.FLUSHED);
        assertThat(bytes(rsp.memory(dst), 0, 4096)).containsOnly(0); // the Atomic Write was never placed
        assertThat(rsp.eventTypes()).containsExactly(AsyncEventType.INVALID_READ_REQUEST);
        assertThat(req.eventTypes()).contains(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(req.qp.query().terminateMessage().terminateControl()).isEqualTo(0x02FF);
    }

    @Test
    void readBeforeAnAtomicWriteSeesTheOldValue_C_FLUSH_043_C_AW_046() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side req = p[0];
        Side rsp = p[1];
        MemoryRegion sink = req.region(8, EngineFixture.RIGHTS);
        MemoryRegion dst = rsp.region(64, FLUSHABLE);
        rsp.memory(dst).set(ValueLayout.JAVA_LONG, 0, 42L);
        req.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), req.base(sink), 8)
                .remote(dst.stag(), rsp.base(dst)));
        req.qp.postSend(new SendWorkRequest().wrId(2).atomicWrite(dst.stag(), rsp.base(dst), 43L));
        List<WorkCompletion> wcs = completions(req, 2);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(req.memory(sink).get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
        assertThat(rsp.memory(dst).get(ValueLayout.JAVA_LONG, 0)).isEqualTo(43L);
    }

    @Test
    void commitRequestsCountAgainstOrd_C_FLUSH_004_V_IRD_9() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side req = p[0];
        Side rsp = p[1];
        MemoryRegion dst = rsp.region(4096, FLUSHABLE);
        req.qp.modify(new QueuePairModification().nextState(QpState.RTS).ord(1));
        for (int i = 0; i < 6; i++) {
            req.qp.postSend(new SendWorkRequest().wrId(i).atomicWrite(dst.stag(), rsp.base(dst) + 8L * i, i + 100));
        }
        List<WorkCompletion> wcs = completions(req, 6);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        for (int i = 0; i < 6; i++) {
            assertThat(rsp.memory(dst).get(ValueLayout.JAVA_LONG, 8L * i)).isEqualTo(i + 100L);
        }
    }

    @Test
    void postingChecksArgumentsAndLocalState_C_FLUSH_050() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side req = p[0];
        MemoryRegion mr = req.region(64, EngineFixture.RIGHTS);
        assertThatThrownBy(() -> req.qp.postSend(new SendWorkRequest().flush(1, 0, 8, 0)
                .sge(mr.stag(), req.base(mr), 8))).isInstanceOf(VerbsException.class)
                .hasMessageContaining("RDMA_FLUSH takes at most 0 SGEs");
        req.qp.postSend(new SendWorkRequest().wrId(5).atomicWrite(0, 0, 1)); // STag 0: a local error
        List<WorkCompletion> wcs = completions(req, 1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        awaitState(req, QpState.ERROR);
    }

    @Test
    void hexOfTheEmptyHashIsTheSha256OfNothing() {
        assertThat(HexFormat.of().formatHex(CommitDraft.hash(new byte[0])))
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
