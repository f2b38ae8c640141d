package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every receive-path error against a raw peer: the exact Terminate bytes on the wire (RFC 5040
 * §4.8, wire-format.md §4.5), the event, the QP state and the stored Terminate message.
 */
class EngineErrorTest extends EngineFixture {
    private static final byte[] PAYLOAD = new byte[16];

    static {
        Arrays.fill(PAYLOAD, (byte) 0x5A);
    }

    private Side a;

    private Side engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        return a;
    }

    private byte[] awaitTerminate() {
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the LLP close");
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE); // R-TERM-034: graceful close
        assertThat(raw.received).hasSize(1); // the Terminate is the last (and only) FPDU
        return raw.received.getFirst();
    }

    private static String header(byte[] ulpdu, int length) {
        return hex(Arrays.copyOf(ulpdu, length));
    }

    private void assertStoredTerminate(int control, byte[] headers) {
        TerminateMessage t = a.qp.query().terminateMessage();
        assertThat(t.terminateControl()).isEqualTo(control);
        assertThat(t.locallyGenerated()).isTrue();
        assertThat(t.headers()).isEqualTo(headers);
    }

    private void writeFails(int stag, long to, int control, AsyncEventType event) {
        byte[] w = Wire.tagged(Wire.WRITE, true, stag, to, PAYLOAD);
        raw.send(w);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + String.format(" %04xc000 0010 ", control) + header(w, 14));
        assertThat(a.eventTypes()).containsExactly(event);
        assertStoredTerminate(control, Arrays.copyOf(w, 14));
    }

    @Test
    void writeWithUnknownStagIsTerminated_R_ERR_032_R_TERM_013_V_ERR_23() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        writeFails(mr.stag() ^ 0x01, a.base(mr), 0x1100, AsyncEventType.TAGGED_INVALID_STAG);
        assertThat(bytes(a.memory(mr), 0, 16)).containsOnly(0); // nothing placed
    }

    @Test
    void writeToRegionOfAnotherPdIsNotAssociated_R_SEC_011_R_ERR_032() {
        engineWithRawPeer();
        ProtectionDomain other = a.rnic.allocatePd();
        MemoryRegion mr = other.registerMemory(a.rnic.allocateMemory(4096, 8), RIGHTS);
        writeFails(mr.stag(), mr.query().baseTo(), 0x1102, AsyncEventType.TAGGED_INVALID_PD);
    }

    @Test
    void writeWithoutRemoteWriteRightIsInvalidStag_R_SEC_015_AMB_16_V_EV_19() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ);
        writeFails(mr.stag(), a.base(mr), 0x1100, AsyncEventType.TAGGED_ACCESS_RIGHTS);
    }

    @Test
    void wrongDdpVersionIsInvalidVersion_R_ERR_020_V_EV_9() {
        engineWithRawPeer();
        byte[] s = Wire.send(1, PAYLOAD);
        s[0] = 0x42; // DV = 2
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 1206c000 0010 " + header(s, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.INVALID_DDP_VERSION);
    }

    @Test
    void unknownQueueNumberIsInvalidQn_R_HDR_002_V_EV_12() {
        engineWithRawPeer();
        byte[] s = Wire.untagged(Wire.SEND, true, 0, 5, 1, 0, PAYLOAD);
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 1201c000 0010 " + header(s, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.INVALID_DDP_QUEUE_NUMBER);
    }

    @Test
    void middleSegmentAtTheWrongOffsetIsInvalidMo_R_ERR_020_V_EV_25() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        byte[] first = Wire.untagged(Wire.SEND, false, 0, 0, 1, 0, PAYLOAD);
        byte[] gap = Wire.untagged(Wire.SEND, true, 0, 0, 1, 32, PAYLOAD);
        raw.send(first, gap);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 1204c000 0010 " + header(gap, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_GAP);
    }

    @Test
    void writeOutOfBoundsIsRejectedBeforePlacement_R_SEC_013_R_ERR_032() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        writeFails(mr.stag(), a.base(mr) + 4090, 0x1101, AsyncEventType.TAGGED_BASE_BOUNDS);
        assertThat(bytes(a.memory(mr), 4080, 16)).containsOnly(0);
    }

    @Test
    void writeToWindowBoundToAnotherQpIsNotAssociated_R_SEC_012_V_MW_18() {
        engineWithRawPeer();
        MemoryRegion mr = a.pd.registerMemory(a.rnic.allocateMemory(4096, 8), RIGHTS | AccessRights.BIND_WINDOW);
        MemoryWindow mw = a.pd.allocateWindow();
        QueuePair other = a.pd.createQueuePair(qpConfig(a));
        FakeTransport ft = new FakeTransport();
        other.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(ft));
        other.postSend(new SendWorkRequest().wrId(9).bind(mw.stag(), mr.stag(), a.base(mr), 4096,
                AddressType.VA_BASED, AccessRights.REMOTE_WRITE));
        assertThat(mw.query().state()).isEqualTo(io.jrnic.api.StagState.VALID);
        writeFails(mw.stag(), a.base(mr), 0x1102, AsyncEventType.TAGGED_INVALID_PD);
    }

    @Test
    void sendWithoutPostedReceiveIsNoBuffer_R_SEND_011_AMB_17() {
        engineWithRawPeer();
        byte[] s = Wire.send(1, PAYLOAD);
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 1202c000 0010 " + header(s, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
        assertStoredTerminate(0x1202, Arrays.copyOf(s, 18));
    }

    @Test
    void sendLongerThanTheReceiveBufferIsTooLong_R_SEND_013_V_WR_10() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 8));
        byte[] s = Wire.send(1, PAYLOAD);
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 1205c000 0010 " + header(s, 18));
        assertThat(bytes(a.memory(mr), 0, 16)).containsOnly(0); // nothing outside the SGE, nothing at all
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(3);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        link.settle();
        assertThat(completions(a, 1)).hasSize(1); // completed once, not flushed again
    }

    @Test
    void sendWithWrongMsnIsMsnRange_R_ERR_020_V_ERR_25() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        byte[] s = Wire.send(2, PAYLOAD);
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 1203c000 0010 " + header(s, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
    }

    @Test
    void readResponseWithoutOutstandingReadIsUnexpectedOpcode_R_ERR_021() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        byte[] r = Wire.tagged(Wire.READ_RESPONSE, true, mr.stag(), a.base(mr), PAYLOAD);
        raw.send(r);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 0206c000 0010 " + header(r, 14));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
        assertThat(bytes(a.memory(mr), 0, 16)).containsOnly(0);
    }

    @Test
    void reservedOpcodeIsUnexpectedOpcode_R_HDR_027_R_ERR_021() {
        extensions = java.util.EnumSet.of(io.jrnic.api.RnicExtension.INLINE_DATA); // no RFC 7306
        engineWithRawPeer();
        byte[] s = Wire.untagged(0x8, true, 0, 0, 1, 0, PAYLOAD); // Immediate Data: not enabled
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 0206c000 0010 " + header(s, 18));
    }

    @Test
    void wrongRdmapVersionIsInvalidVersion_R_ERR_022() {
        engineWithRawPeer();
        byte[] s = Wire.send(1, PAYLOAD);
        s[1] = (byte) 0x83; // RV = 2
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 0205c000 0010 " + header(s, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.INVALID_RDMA_VERSION);
    }

    private void readFails(int srcStag, long srcTo, int size, int control, AsyncEventType event, boolean rEcho) {
        byte[] rr = Wire.readRequest(1, 0x1234_5601, 0x1000, size, srcStag, srcTo);
        raw.send(rr);
        byte[] t = awaitTerminate();
        String hdrct = rEcho ? "e000" : "c000";
        assertBytes(t, Wire.TERMINATE_HEADER + String.format(" %04x", control) + hdrct + " 0000 " + header(rr, 18)
                + (rEcho ? " " + hex(Arrays.copyOfRange(rr, 18, 46)) : ""));
        assertThat(a.eventTypes()).containsExactly(event);
        assertStoredTerminate(control, Arrays.copyOf(rr, rEcho ? 46 : 18));
    }

    @Test
    void readRequestWithInvalidSourceStagEchoesTheReadHeader_R_ERR_027_R_TERM_046() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        readFails(mr.stag() ^ 0x02, a.base(mr), 64, 0x0100, AsyncEventType.IRRQ_INVALID_STAG, true);
    }

    @Test
    void readRequestFromAnotherPdIsNotAssociated_R_ERR_028() {
        engineWithRawPeer();
        MemoryRegion mr = a.rnic.allocatePd().registerMemory(a.rnic.allocateMemory(4096, 8), RIGHTS);
        readFails(mr.stag(), mr.query().baseTo(), 64, 0x0103, AsyncEventType.IRRQ_INVALID_PD, true);
    }

    @Test
    void readRequestWithoutRemoteReadIsAccessViolation_R_ERR_031_AMB_10() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE);
        readFails(mr.stag(), a.base(mr), 64, 0x0102, AsyncEventType.IRRQ_ACCESS_RIGHTS, true);
    }

    @Test
    void readRequestBeyondTheRegionIsBaseOrBounds_R_ERR_029_AMB_05() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        readFails(mr.stag(), a.base(mr) + 4000, 97, 0x0101, AsyncEventType.IRRQ_BASE_BOUNDS, true);
    }

    @Test
    void readRequestWhoseSourceWrapsIsToWrap_R_ERR_030() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        readFails(mr.stag(), 0xFFFF_FFFF_FFFF_FFF0L, 0x100, 0x0104, AsyncEventType.IRRQ_WRAP, true);
    }

    @Test
    void readRequestBeyondIrdIsCatastrophicLocalized_R_READ_044_AMB_11_V_IRD_1() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).ird(1));
        // two requests in one burst: the second arrives while the first still holds the only IRD slot
        byte[] first = Wire.readRequest(1, 0x1234_5601, 0x1000, 64, mr.stag(), a.base(mr));
        byte[] second = Wire.readRequest(2, 0x1234_5601, 0x2000, 64, mr.stag(), a.base(mr));
        raw.send(first, second);
        // the Terminate goes out at once and is the last FPDU: the first request is never answered
        // (R-TERM-045, R-TERM-026)
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 0207c000 0000 " + header(second, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_TOO_MANY_READS);
    }

    @Test
    void readRequestOnTheSendQueueIsUnexpectedOpcode_R_ERR_021() {
        engineWithRawPeer();
        byte[] s = Wire.untagged(Wire.READ_REQUEST, true, 0, 0, 1, 0, new byte[28]);
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 0206c000 001c " + header(s, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
    }

    @Test
    void zeroLengthReadNeedsNoSourceStag_R_READ_023() {
        engineWithRawPeer();
        raw.send(Wire.readRequest(1, 0x1234_5601, 0x77, 0, 0xDEAD_BEEF, 0));
        await(() -> !raw.received.isEmpty(), "the Read Response");
        assertBytes(raw.received.getFirst(), "c1 42 12345601 0000000000000077");
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void readResponseCarriesTheSourceBytes_R_READ_005_R_READ_025() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        fill(a.memory(mr), 5);
        raw.send(Wire.readRequest(1, 0x0A0B_0C01, 0x100, 32, mr.stag(), a.base(mr) + 8));
        await(() -> !raw.received.isEmpty(), "the Read Response");
        assertBytes(raw.received.getFirst(), "c1 42 0a0b0c01 0000000000000100 " + hex(bytes(a.memory(mr), 8, 32)));
    }

    @Test
    void sendWithInvalidateOfUnknownStagFailsTheReceive_R_ERR_023_R_SEND_022_V_ERR_8() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        byte[] s = Wire.untagged(Wire.SEND_INVALIDATE, true, 0x00AB_CD00, 0, 1, 0, PAYLOAD);
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 0100c000 0010 " + header(s, 18)); // AMB-07: R=0 for a Send
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertThat(bytes(a.memory(mr), 0, 16)).isEqualTo(PAYLOAD); // placed before the invalidation failed
    }

    @Test
    void sendWithInvalidateOfRegionWithBoundWindowFails_V_ERR_8_R_ERR_024_AMB_06() {
        engineWithRawPeer();
        MemoryRegion mr = a.pd.registerMemory(a.rnic.allocateMemory(4096, 8), RIGHTS | AccessRights.BIND_WINDOW);
        MemoryWindow mw = a.pd.allocateWindow();
        a.qp.postSend(new SendWorkRequest().wrId(9).bind(mw.stag(), mr.stag(), a.base(mr), 4096,
                AddressType.VA_BASED, AccessRights.REMOTE_WRITE));
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        byte[] s = Wire.untagged(Wire.SEND_INVALIDATE, true, mr.stag(), 0, 1, 0, PAYLOAD);
        raw.send(s);
        byte[] t = awaitTerminate();
        // AMB-06: the region's state (windows bound) forbids it: Remote Operation, 0/2/0x09
        assertBytes(t, Wire.TERMINATE_HEADER + " 0209c000 0010 " + header(s, 18));
        assertThat(mr.query().state()).isEqualTo(io.jrnic.api.StagState.VALID);
    }

    @Test
    void sendWithInvalidateOfBoundWindowInvalidatesIt_R_SEND_021_V_WRP_31() {
        engineWithRawPeer();
        MemoryRegion mr = a.pd.registerMemory(a.rnic.allocateMemory(4096, 8), RIGHTS | AccessRights.BIND_WINDOW);
        MemoryWindow mw = a.pd.allocateWindow();
        a.qp.postSend(new SendWorkRequest().wrId(9).bind(mw.stag(), mr.stag(), a.base(mr), 4096,
                AddressType.VA_BASED, AccessRights.REMOTE_WRITE));
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        raw.send(Wire.untagged(Wire.SEND_INVALIDATE, true, mw.stag(), 0, 1, 0, PAYLOAD));
        List<WorkCompletion> wcs = completions(a, 2);
        assertThat(wcs.get(1).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wcs.get(1).stagInvalidated()).isTrue();
        assertThat(wcs.get(1).invalidatedStag()).isEqualTo(mw.stag());
        assertThat(mw.query().state()).isEqualTo(io.jrnic.api.StagState.INVALID);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void crcErrorIsAnLlpTerminateWithoutHeaders_R_TERM_014_V_ERR_21() {
        engineWithRawPeer();
        raw.endpoint.injectCorrupted(Wire.send(1, PAYLOAD));
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 20020000");
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_INVALID_CRC);
    }

    @Test
    void receivedTerminateIsReportedAndNeverAnswered_R_TERM_023_R_TERM_048_V_QPS_38() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        byte[] ddp = Arrays.copyOf(Wire.tagged(Wire.WRITE, true, 0x77, 0, new byte[0]), 14);
        byte[] term = Wire.concat(Wire.untagged(Wire.TERMINATE, true, 0, 2, 1, 0, hex("1100c000 0010")), ddp);
        raw.send(term);
        awaitState(a, QpState.ERROR);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        TerminateMessage m = a.qp.query().terminateMessage();
        assertThat(m.terminateControl()).isEqualTo(0x1100);
        assertThat(m.locallyGenerated()).isFalse();
        assertThat(m.headers()).isEqualTo(ddp);
        await(() -> raw.closure != null, "the close");
        assertThat(raw.received).isEmpty(); // no Terminate back
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void invalidTerminateIsSurfacedAndNeverAnswered_R_TERM_024_R_TERM_048() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        byte[] ddp = Arrays.copyOf(Wire.tagged(Wire.WRITE, true, 0x77, 0, new byte[0]), 14);
        // MSN 5 on queue 2, which expects 1: DDP's check 5 fails (1/2/0x03) on the peer's Terminate
        raw.send(Wire.concat(Wire.untagged(Wire.TERMINATE, true, 0, 2, 5, 0, hex("1100c000 0010")), ddp));
        awaitState(a, QpState.ERROR);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
        TerminateMessage m = a.qp.query().terminateMessage();
        assertThat(m.terminateControl()).isEqualTo(0x1100);
        assertThat(m.locallyGenerated()).isFalse();
        await(() -> raw.closure != null, "the close");
        assertThat(raw.received).isEmpty(); // no Terminate back
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void terminateIsTheLastFpduAndLaterWorkIsFlushed_R_TERM_026_V_TERM_2() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        raw.send(Wire.tagged(Wire.WRITE, true, mr.stag() ^ 1, a.base(mr), PAYLOAD));
        awaitState(a, QpState.ERROR);
        a.qp.postSend(new SendWorkRequest().wrId(5).opcode(Opcode.SEND).sge(mr.stag(), a.base(mr), 8));
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        link.settle();
        assertThat(raw.received).hasSize(1);
        assertThat(raw.received.getFirst()[1] & 0x0F).isEqualTo(Wire.TERMINATE);
    }

    @Test
    void linkLossFlushesEveryOutstandingWorkRequestOnce_R_TERM_033_V_ERR_20() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(10).sge(mr.stag(), a.base(mr), 64));
        a.qp.postReceive(new ReceiveWorkRequest().wrId(11).sge(mr.stag(), a.base(mr), 64));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(mr.stag(), a.base(mr), 64)
                .remote(0x4401, 0)); // never answered by the raw peer
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(mr.stag(), a.base(mr), 8));
        await(() -> raw.received.size() == 2, "read request and send on the wire");
        List<WorkCompletion> none = completions(a, 0);
        assertThat(none).isEmpty(); // the send waits behind the read (completion order, R-ORD-017)
        link.lose();
        awaitState(a, QpState.ERROR);
        List<WorkCompletion> wcs = completions(a, 4);
        link.settle();
        completions(a, 4);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 10L, 11L);
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED,
                WorkCompletionStatus.SUCCESS, WorkCompletionStatus.FLUSHED, WorkCompletionStatus.FLUSHED);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
    }
}
