package io.jrnic.core.transport;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.Wire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Remote termination over loopback TCP against a raw peer (issue 9 items 3, 5, 6): a Terminate is
 * never answered, valid or not (RFC 5040 §5.4, §7.1; R-TERM-024, R-TERM-048), the WR in progress
 * completes with Remote Termination Error and the rest are flushed (Verbs §6.6.2.4, Figure 36,
 * V-ERR-46), and a reset in Closing is LLP Connection Lost (Verbs §6.2.5 Figure 11, V-QPS-83).
 * "Nothing but the close follows" is checked on the socket itself: the next read is the end of
 * the stream, with no byte before it.
 */
class RawPeerTerminateTest {
    /** The Terminate header of a tagged invalid-STag error with M and D set, 16 payload bytes. */
    private static final byte[] INVALID_STAG_TERMINATE = RawFrames.hex("11 00 c0 00 00 10");
    private static final byte[] COPIED_HEADER = Arrays.copyOf(Wire.tagged(Wire.WRITE, true, 0x77, 0, new byte[0]), 14);

    private RawInitiator peer;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    /** Connects with a receive posted and one 64-byte RDMA Read outstanding (its request read off the wire). */
    private void connectWithReadOutstanding() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(7).sge(0, 0, 0));
        peer.connect();
        MemoryRegion sink = peer.pd.registerMemory(peer.rnic.allocateMemory(4096, 4096), RawInitiator.RIGHTS);
        peer.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), sink.query().baseTo(), 64).remote(0x4201, 0x9000));
        byte[] request = RawFpdus.receive(peer.raw.getInputStream());
        assertThat(request[1] & 0x0F).as("a Read Request").isEqualTo(Wire.READ_REQUEST);
    }

    private void sendUlpdu(byte[] ulpdu) throws Exception {
        RawFpdus.send(peer.raw.getOutputStream(), ulpdu);
    }

    /** Our side sends nothing but its FIN; then the raw peer closes its half and the QP reaches Error. */
    private void assertOnlyTheCloseFollowsAndFinish() throws Exception {
        assertThat(peer.raw.getInputStream().read()).as("our FIN, with no Terminate before it").isEqualTo(-1);
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.ERROR);
    }

    @Test
    void terminateWithAnMsnOutOfRangeIsNotAnswered_R_TERM_024_R_TERM_048() throws Exception {
        connectWithReadOutstanding();
        // queue 2 expects MSN 1: MSN 2 fails DDP's check 5 (1/2/0x03), but it is still the peer's Terminate
        sendUlpdu(Wire.concat(Wire.untagged(Wire.TERMINATE, true, 0, 2, 2, 0, INVALID_STAG_TERMINATE), COPIED_HEADER));

        assertOnlyTheCloseFollowsAndFinish();
        // the error found in it is what the application is told (RFC 5040 §5.4 "an error is surfaced")
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.RQ_INVALID_MSN_RANGE);
        TerminateMessage kept = peer.qp.query().terminateMessage();
        assertThat(kept.locallyGenerated()).isFalse();
        assertThat(kept.terminateControl()).isEqualTo(0x1100); // what the peer reported, decoded leniently
        assertThat(kept.headers()).isEqualTo(COPIED_HEADER);
        List<WorkCompletion> wcs = peer.completions(2);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 7L);
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(
                WorkCompletionStatus.REMOTE_TERMINATION_ERROR, WorkCompletionStatus.FLUSHED);
    }

    @Test
    void terminateWithoutTheLastFlagIsNotAnswered_R_TERM_024_R_TERM_048() throws Exception {
        connectWithReadOutstanding();
        // L=0: a Terminate is a single segment (RDMAP 0/2/0xFF, Verbs "no L bit")
        sendUlpdu(Wire.concat(Wire.untagged(Wire.TERMINATE, false, 0, 2, 1, 0, INVALID_STAG_TERMINATE), COPIED_HEADER));

        assertOnlyTheCloseFollowsAndFinish();
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.NO_L_BIT);
        assertThat(peer.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1100);
        assertThat(peer.completions(2)).extracting(WorkCompletion::status).containsExactly(
                WorkCompletionStatus.REMOTE_TERMINATION_ERROR, WorkCompletionStatus.FLUSHED);
    }

    @Test
    void aFramingFaultBehindAReceivedTerminateIsIgnored_R_TERM_021_R_TERM_048() throws Exception {
        connectWithReadOutstanding();
        // one TCP write: a valid Terminate, then an FPDU whose ULPDU_Length (5) is below any DDP header
        // (on its own 1/0/0x00, Verbs §8.3.3); found by EngineReceiveFuzzTest's long run
        java.io.ByteArrayOutputStream both = new java.io.ByteArrayOutputStream();
        RawFpdus.send(both, Wire.concat(Wire.untagged(Wire.TERMINATE, true, 0, 2, 1, 0, INVALID_STAG_TERMINATE),
                COPIED_HEADER));
        RawFpdus.send(both, new byte[] {(byte) 0xC1, 0x43, 0, 0, 0});
        peer.raw.getOutputStream().write(both.toByteArray());

        // RFC 5040 §5.4: the stream ended with the Terminate; nothing behind it is reported or answered
        assertOnlyTheCloseFollowsAndFinish();
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(peer.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1100);
    }

    /**
     * As above with a corrupt FPDU behind the Terminate (RFC 5044 §8 code 2 on its own: Terminate
     * 0x2002, LLP Invalid CRC). Here the fix is visible over TCP: a framing fault that reached the
     * QP after the Terminate was counted as a CRC error (Counters.crcErrors, io.jrnic.CrcError)
     * before the QP, already in Terminate, ignored it; with the fix nothing behind the Terminate is
     * looked at (RFC 5040 §5.4, R-TERM-021), so nothing is counted. (The short FPDU of the test
     * above leaves no trace either way: EngineReceiveFuzzTest's fake QP is its guard.)
     */
    @Test
    void aCorruptFpduBehindAReceivedTerminateIsNeitherAnsweredNorCounted_R_TERM_021_R_TERM_048() throws Exception {
        connectWithReadOutstanding();
        java.io.ByteArrayOutputStream both = new java.io.ByteArrayOutputStream();
        RawFpdus.send(both, Wire.concat(Wire.untagged(Wire.TERMINATE, true, 0, 2, 1, 0, INVALID_STAG_TERMINATE),
                COPIED_HEADER));
        int corruptAt = both.size();
        RawFpdus.send(both, Wire.send(1, new byte[16]));
        byte[] bytes = both.toByteArray();
        bytes[bytes.length - 1] ^= 0x01; // the CRC's last octet (RFC 5044 §4.4)
        assertThat(RawFrames.crcValid(java.util.Arrays.copyOfRange(bytes, corruptAt, bytes.length))).isFalse();
        peer.raw.getOutputStream().write(bytes); // one TCP write: both FPDUs in one read

        assertOnlyTheCloseFollowsAndFinish();
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(peer.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1100);
        assertThat(peer.qp.counters().terminatesReceived()).isEqualTo(1);
        assertThat(peer.qp.counters().crcErrors()).as("nothing behind the Terminate is looked at").isZero();
        assertThat(peer.completions(2)).extracting(WorkCompletion::status).containsExactly(
                WorkCompletionStatus.REMOTE_TERMINATION_ERROR, WorkCompletionStatus.FLUSHED);
    }

    @Test
    void terminateCompletesTheWorkInProgressWithRemoteTerminationError_V_ERR_46_V_CM_14() throws Exception {
        connectWithReadOutstanding();
        MemoryRegion sink = peer.pd.registerMemory(peer.rnic.allocateMemory(4096, 4096), RawInitiator.RIGHTS);
        peer.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), sink.query().baseTo(), 64).remote(0x4201, 0x9000));
        assertThat(RawFpdus.receive(peer.raw.getInputStream())[1] & 0x0F).isEqualTo(Wire.READ_REQUEST);
        sendUlpdu(Wire.concat(Wire.untagged(Wire.TERMINATE, true, 0, 2, 1, 0, INVALID_STAG_TERMINATE), COPIED_HEADER));

        peer.awaitState(QpState.TERMINATE);
        // Verbs §6.2.2.3: the WR the termination ended completes at once, before Error
        List<WorkCompletion> first = peer.completions(1);
        assertThat(first.getFirst().wrId()).isEqualTo(1L);
        assertThat(first.getFirst().status()).isEqualTo(WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        assertOnlyTheCloseFollowsAndFinish();
        // the rest are flushed on Error (§6.6.2.4): the second Read, then the receive
        List<WorkCompletion> rest = peer.completions(2);
        assertThat(rest).extracting(WorkCompletion::wrId).containsExactly(2L, 7L);
        assertThat(rest).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.FLUSHED);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        TerminateMessage kept = peer.qp.query().terminateMessage();
        assertThat(kept.layerName()).isEqualTo("DDP");
        assertThat(kept.errorTypeName()).isEqualTo("Tagged Buffer Error");
        assertThat(kept.errorCodeName()).isEqualTo("Invalid STag");
        assertThat(kept).hasToString("TerminateMessage[DDP 1/1/0x00 Tagged Buffer Error: Invalid STag, remote, "
                + "14 header bytes]");
    }

    @Test
    void peerResetWhileClosingIsConnectionLost_V_QPS_83() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(5).sge(0, 0, 0));
        peer.connect();
        peer.qp.modify(new QueuePairModification().nextState(QpState.CLOSING));
        assertThat(peer.raw.getInputStream().read()).as("our FIN").isEqualTo(-1);
        assertThat(peer.qp.state()).isEqualTo(QpState.CLOSING);

        peer.raw.setSoLinger(true, 0);
        peer.raw.close(); // RST instead of the FIN our close waits for

        peer.awaitState(QpState.ERROR);
        peer.awaitEvent(AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.LLP_CONNECTION_LOST);
        assertThat(peer.completions(1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED);
    }
}
