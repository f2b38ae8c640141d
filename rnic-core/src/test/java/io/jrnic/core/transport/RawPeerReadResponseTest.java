package io.jrnic.core.transport;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.Wire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Data Sink's Read Response check over loopback TCP against a raw responder (RFC 5040 §5.2.2,
 * R-READ-030, issue 9 item 7): each segment must continue at the next expected TO, so that
 * segments which overlap cannot complete a Read whose sink was not written in full.
 */
class RawPeerReadResponseTest {
    private static final int READ_SIZE = 64;

    private RawInitiator peer;
    private MemorySegment memory;
    private int sinkStag;
    private long sinkTo;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    /** Posts a 64-byte Read and takes the sink STag and TO from its Read Request on the wire. */
    private void readOutstanding() throws Exception {
        peer = new RawInitiator(new ConnectionSettings());
        peer.connect();
        memory = peer.rnic.allocateMemory(4096, 4096);
        MemoryRegion sink = peer.pd.registerMemory(memory, RawInitiator.RIGHTS);
        peer.qp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(sink.stag(), sink.query().baseTo() + 128, READ_SIZE).remote(0x4201, 0x9000));
        byte[] request = RawFpdus.receive(peer.raw.getInputStream());
        assertThat(request[1] & 0x0F).as("a Read Request").isEqualTo(Wire.READ_REQUEST);
        ByteBuffer rr = ByteBuffer.wrap(request, 18, 28); // RFC 5040 §4.4: sink STag, sink TO, size, ...
        sinkStag = rr.getInt();
        sinkTo = rr.getLong();
        assertThat(rr.getInt()).isEqualTo(READ_SIZE);
    }

    private void respond(boolean last, long to, int length) throws Exception {
        byte[] payload = new byte[length];
        Arrays.fill(payload, (byte) 0x3C);
        RawFpdus.send(peer.raw.getOutputStream(), Wire.tagged(Wire.READ_RESPONSE, last, sinkStag, to, payload));
    }

    @Test
    void segmentThatDoesNotContinueAtTheNextToIsBaseOrBounds_R_READ_030_R_READ_046() throws Exception {
        readOutstanding();
        // 40 bytes at the sink's start, then the last 24 bytes at the start again: 64 bytes counted,
        // sink bytes 40..63 never written
        respond(false, sinkTo, 40);
        respond(true, sinkTo, 24);

        byte[] terminate = RawFpdus.receive(peer.raw.getInputStream());
        // our Terminate (QN 2, MSN 1), DDP 1/1/0x01 with M and D, segment length 24, the segment's header
        byte[] expected = Wire.concat(RawFrames.hex(Wire.TERMINATE_HEADER + " 11 01 c0 00 00 18"),
                Arrays.copyOf(Wire.tagged(Wire.READ_RESPONSE, true, sinkStag, sinkTo, new byte[0]), 14));
        assertThat(terminate).isEqualTo(expected);
        assertThat(peer.raw.getInputStream().read()).as("our FIN after the Terminate").isEqualTo(-1);
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.ERROR);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.TAGGED_BASE_BOUNDS);
        List<WorkCompletion> wcs = peer.completions(1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(9L);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    /**
     * A Read Response when no Read is outstanding (RFC 5040 §7.2 R-ERR-021: RDMAP 0/2/0x06
     * Unexpected OpCode; Verbs §8.3.3 Figure 24 "Unexpected Opcode" 0x0206, QP → Terminate): a peer
     * ignoring ORD/IRD answers the Read twice. The first response completes the Read; the second
     * finds the ORD queue empty and gets our Terminate, its DDP header copied, then the FIN; nothing
     * of it is placed and the receive is flushed once.
     */
    @Test
    void readResponseWithNoReadOutstandingIsUnexpectedOpcode_R_ERR_021() throws Exception {
        readOutstanding();
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(7).sge(0, 0, 0));
        respond(true, sinkTo, READ_SIZE);
        List<WorkCompletion> read = peer.completions(1);
        assertThat(read.getFirst().wrId()).isEqualTo(9L);
        assertThat(read.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        memory.fill((byte) 0);

        byte[] spurious = Wire.tagged(Wire.READ_RESPONSE, true, sinkStag, sinkTo, new byte[16]);
        Arrays.fill(spurious, 14, spurious.length, (byte) 0x3C);
        RawFpdus.send(peer.raw.getOutputStream(), spurious);
        byte[] terminate = RawFpdus.receive(peer.raw.getInputStream());
        // our Terminate (QN 2, MSN 1), RDMAP 0/2/0x06 with M and D, segment length 16, the DDP header
        assertThat(terminate).isEqualTo(Wire.concat(RawFrames.hex(Wire.TERMINATE_HEADER + " 02 06 c0 00 00 10"),
                Arrays.copyOf(spurious, 14)));
        assertThat(peer.raw.getInputStream().read()).as("our FIN after the Terminate").isEqualTo(-1);
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.ERROR);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
        assertThat(peer.qp.query().terminateMessage().terminateControl()).isEqualTo(0x0206);
        assertThat(memory.toArray(ValueLayout.JAVA_BYTE)).as("nothing of it placed").containsOnly(0);
        List<WorkCompletion> flushed = peer.completions(1);
        assertThat(flushed).extracting(WorkCompletion::wrId).containsExactly(7L);
        assertThat(flushed.getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        assertThat(peer.cq.poll(new WorkCompletion())).as("each WR completed once").isFalse();
    }

    @Test
    void segmentsInToOrderCompleteTheRead_R_READ_030() throws Exception {
        readOutstanding();
        respond(false, sinkTo, 40);
        respond(true, sinkTo + 40, 24);

        List<WorkCompletion> wcs = peer.completions(1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(memory.asSlice(128, READ_SIZE).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0x3C);
        assertThat(memory.asSlice(128 + READ_SIZE, 8).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
    }
}
