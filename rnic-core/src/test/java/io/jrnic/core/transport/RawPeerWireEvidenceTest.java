package io.jrnic.core.transport;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.mpa.FpduWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wire behaviour checked byte by byte against a raw TCP peer ({@link RawInitiator}: MPA revision 2,
 * CRC on, no markers): an RDMA Read is one Read Request and one Read Response message (R-READ-010);
 * after a Terminate, sent or received, every outstanding WR completes in error exactly once
 * (R-TERM-033); and a tagged FPDU whose CRC fails is never reported as good data, although
 * header-first placement may already have written its payload (issue 9 item 11, docs/engine.md).
 */
class RawPeerWireEvidenceTest {
    private static final int LAST = 0x40;
    private static final int READ_REQUEST = 1;
    private static final int READ_RESPONSE = 2;
    private static final int SEND = 3;
    private static final int TERMINATE = 7;

    private RawInitiator peer;
    private DataInputStream in;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    private void connect() throws Exception {
        peer = new RawInitiator(new ConnectionSettings().emss(ConnectionSettings.ETHERNET_EMSS)); // segmented responses
        peer.connect();
        in = new DataInputStream(peer.raw.getInputStream());
    }

    // ---- wire helpers (RFC 5044 §4: length, ULPDU, pad to 4, CRC32c; RFC 5041 §4 headers) -----

    /** One FPDU around the ULPDU, CRC on, no markers. */
    private static byte[] fpdu(byte[] ulpdu) {
        FpduWriter writer = new FpduWriter(false, true);
        byte[] out = new byte[writer.wireLength(ulpdu.length)];
        writer.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, MemorySegment.ofArray(out), 0);
        return out;
    }

    private static byte[] untagged(int opcode, int qn, int msn, byte[] payload) {
        return untagged(opcode, 0, qn, msn, payload);
    }

    private static byte[] untagged(int opcode, int invalidateStag, int qn, int msn, byte[] payload) {
        return ByteBuffer.allocate(18 + payload.length).put((byte) (0x01 | LAST)).put((byte) (0x40 | opcode))
                .putInt(invalidateStag).putInt(qn).putInt(msn).putInt(0).put(payload).array();
    }

    private static byte[] tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        return ByteBuffer.allocate(14 + payload.length).put((byte) (0x81 | (last ? LAST : 0)))
                .put((byte) (0x40 | opcode)).putInt(stag).putLong(to).put(payload).array();
    }

    private static byte[] readRequest(int msn, int sinkStag, long sinkTo, int size, int srcStag, long srcTo) {
        return untagged(READ_REQUEST, 1, msn, ByteBuffer.allocate(28).putInt(sinkStag).putLong(sinkTo).putInt(size)
                .putInt(srcStag).putLong(srcTo).array());
    }

    /** Reads the next FPDU from the RNIC and returns its ULPDU (the CRC is checked). */
    private byte[] nextUlpdu() throws IOException {
        int length = in.readUnsignedShort();
        byte[] ulpdu = in.readNBytes(length);
        int pad = (4 - (2 + length) % 4) % 4;
        byte[] rest = in.readNBytes(pad + 4);
        byte[] whole = ByteBuffer.allocate(2 + length + pad + 4).putShort((short) length).put(ulpdu).put(rest).array();
        assertThat(RawFrames.crcValid(whole)).as("CRC of the RNIC's FPDU").isTrue();
        return ulpdu;
    }

    private static int opcode(byte[] ulpdu) {
        return ulpdu[1] & 0x0F;
    }

    private static boolean last(byte[] ulpdu) {
        return (ulpdu[0] & LAST) != 0;
    }

    private static boolean isTagged(byte[] ulpdu) {
        return (ulpdu[0] & 0x80) != 0;
    }

    private static int int32(byte[] b, int at) {
        return ByteBuffer.wrap(b).getInt(at);
    }

    private static long int64(byte[] b, int at) {
        return ByteBuffer.wrap(b).getLong(at);
    }

    private final java.util.Map<Integer, MemorySegment> memories = new java.util.HashMap<>();

    private MemoryRegion region(int size) {
        MemorySegment m = peer.rnic.allocateMemory(size, 4096);
        MemoryRegion mr = peer.pd.registerMemory(m, RawInitiator.RIGHTS);
        memories.put(mr.stag(), m);
        return mr;
    }

    private MemorySegment memory(MemoryRegion mr) {
        return memories.get(mr.stag());
    }

    // ---- R-READ-010 ---------------------------------------------------------------------------

    /**
     * RFC 5040 §5.2: the RNIC answers one Read Request of 10000 bytes (more than one FPDU at an
     * MSS of 1460) with one Read Response message: tagged segments of the Read Response opcode at
     * consecutive TOs of the sink, only the final one with L set, 10000 bytes in all, and nothing
     * else; and it issues its own RDMA Read as exactly one Read Request, whose one Response message
     * completes it, the next FPDU being the Send posted after it.
     */
    @Test
    void anRdmaReadIsOneReadRequestAndOneReadResponseMessage_R_READ_010() throws Exception {
        connect();
        MemoryRegion source = region(16384);
        EngineFixtureBytes.fill(memory(source), 5);
        int sinkStag = 0x4455_6601;
        long sinkTo = 0x7f00_0000_1000L;
        peer.raw.getOutputStream().write(fpdu(readRequest(1, sinkStag, sinkTo, 10000, source.stag(),
                source.query().baseTo() + 100)));
        byte[] received = new byte[10000];
        int at = 0;
        int segments = 0;
        while (true) {
            byte[] u = nextUlpdu();
            assertThat(isTagged(u)).isTrue();
            assertThat(opcode(u)).isEqualTo(READ_RESPONSE);
            assertThat(int32(u, 2)).isEqualTo(sinkStag);
            assertThat(int64(u, 6)).as("TO of segment " + segments).isEqualTo(sinkTo + at);
            System.arraycopy(u, 14, received, at, u.length - 14);
            at += u.length - 14;
            segments++;
            if (last(u)) {
                break;
            }
        }
        assertThat(segments).isGreaterThan(1);
        assertThat(at).isEqualTo(10000);
        assertThat(received).isEqualTo(memory(source).asSlice(100, 10000).toArray(ValueLayout.JAVA_BYTE));

        // the other direction: the RNIC's own Read
        MemoryRegion sink = region(4096);
        peer.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.query().baseTo(),
                3000).remote(0x7788_9900, 0x1000));
        peer.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND));
        byte[] request = nextUlpdu();
        assertThat(isTagged(request)).isFalse();
        assertThat(opcode(request)).isEqualTo(READ_REQUEST);
        assertThat(last(request)).isTrue();
        assertThat(int32(request, 6)).as("QN").isEqualTo(1);
        assertThat(int32(request, 18 + 12)).as("RDMA Read message size").isEqualTo(3000);
        // the Send is not held back on the wire (only its completion waits for the Read's, R-ORD-017)
        byte[] next = nextUlpdu();
        assertThat(opcode(next)).as("the FPDU after the Read Request is the Send: one request only")
                .isEqualTo(SEND);
        byte[] data = new byte[3000];
        Arrays.fill(data, (byte) 0x3C);
        peer.raw.getOutputStream().write(RawFrames.concat(
                fpdu(tagged(READ_RESPONSE, false, sink.stag(), sink.query().baseTo(), Arrays.copyOf(data, 1000))),
                fpdu(tagged(READ_RESPONSE, true, sink.stag(), sink.query().baseTo() + 1000,
                        Arrays.copyOfRange(data, 1000, 3000)))));
        List<WorkCompletion> wcs = peer.completions(2);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(memory(sink).asSlice(0, 3000).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(data);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
    }

    // ---- V-DEF-16 -----------------------------------------------------------------------------

    /**
     * Verbs §4 (V-DEF-16): a remote RDMA Read is in process from the receipt of its Read Request
     * until its Read Response has been generated. A peer that asks for 32 MiB and reads nothing
     * keeps the Response from being handed over entirely (TCP flow control), so a Modify QP to
     * Closing finds the Read in process: Bad Close, the QP goes to Error (Verbs §6.2.4, V-QPS-31).
     * Once the whole Response was read, the same Modify is a normal close.
     */
    @Test
    void aReadIsInProcessUntilItsResponseIsGenerated_V_DEF_16() throws Exception {
        connect();
        MemoryRegion big = region(32 << 20);
        peer.raw.getOutputStream().write(fpdu(readRequest(1, 0x4455_6601, 0, 32 << 20, big.stag(),
                big.query().baseTo())));
        byte[] first = nextUlpdu(); // the Response is being generated, the rest waits for the peer
        assertThat(opcode(first)).isEqualTo(READ_RESPONSE);
        peer.qp.modify(new io.jrnic.api.QueuePairModification().nextState(QpState.CLOSING));
        peer.awaitEvent(AsyncEventType.BAD_CLOSE);
        peer.awaitState(QpState.ERROR);
    }

    @Test
    void aReadWhoseResponseWasGeneratedIsNoLongerInProcess_V_DEF_16() throws Exception {
        connect();
        MemoryRegion small = region(4096);
        peer.raw.getOutputStream().write(fpdu(readRequest(1, 0x4455_6601, 0, 4000, small.stag(),
                small.query().baseTo())));
        int bytes = 0;
        byte[] u;
        do {
            u = nextUlpdu();
            bytes += u.length - 14;
        } while (!last(u));
        assertThat(bytes).isEqualTo(4000);
        peer.qp.modify(new io.jrnic.api.QueuePairModification().nextState(QpState.CLOSING));
        assertThat(in.read()).as("our FIN: a normal close").isEqualTo(-1);
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.IDLE);
        assertThat(peer.eventTypes()).doesNotContain(AsyncEventType.BAD_CLOSE);
    }

    // ---- R-TERM-033 ---------------------------------------------------------------------------

    /** Posts two receives and an RDMA Read the raw peer never answers; returns the sink. */
    private MemoryRegion outstandingWork() throws IOException {
        MemoryRegion mr = region(4096);
        long base = mr.query().baseTo();
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(10).sge(mr.stag(), base, 64));
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(11).sge(mr.stag(), base + 64, 64));
        peer.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(mr.stag(), base + 1024, 64)
                .remote(0x4401, 0));
        assertThat(opcode(nextUlpdu())).isEqualTo(READ_REQUEST); // on the wire, never answered
        return mr;
    }

    /**
     * @param readStatus the status of the Read in progress: REMOTE_TERMINATION_ERROR when the peer
     *                   terminated (Verbs §6.6.2.4, docs/engine.md decision 10), FLUSHED otherwise
     */
    private void assertEveryOutstandingWorkRequestFlushedOnce(WorkCompletionStatus readStatus) throws IOException {
        peer.raw.shutdownOutput(); // the LLP close ends Terminate (Verbs §6.2.4)
        peer.awaitState(QpState.ERROR);
        List<WorkCompletion> wcs = peer.completions(3);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(1L, 10L, 11L);
        assertThat(wcs).filteredOn(wc -> wc.wrId() == 1).extracting(WorkCompletion::status).containsExactly(readStatus);
        assertThat(wcs).filteredOn(wc -> wc.wrId() != 1).extracting(WorkCompletion::status)
                .containsOnly(WorkCompletionStatus.FLUSHED);
        // exactly once: a Send posted now is flushed and is the only further completion
        peer.qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.SEND));
        List<WorkCompletion> more = peer.completions(1);
        assertThat(more).extracting(WorkCompletion::wrId).containsExactly(3L);
        assertThat(peer.cq.poll(new WorkCompletion())).isFalse();
    }

    @Test
    void afterAReceivedTerminateEveryOutstandingWorkRequestIsFlushed_R_TERM_033() throws Exception {
        connect();
        outstandingWork();
        peer.raw.getOutputStream().write(fpdu(untagged(TERMINATE, 2, 1, ByteBuffer.allocate(4).putInt(0x0100_0000)
                .array())));
        peer.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertEveryOutstandingWorkRequestFlushedOnce(WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        assertThat(peer.qp.query().terminateMessage().locallyGenerated()).isFalse();
    }

    @Test
    void afterASentTerminateEveryOutstandingWorkRequestIsFlushed_R_TERM_033() throws Exception {
        connect();
        MemoryRegion mr = outstandingWork();
        // a Write with a wrong key: 1/1/0x00 (RFC 5041 §7.1 check 1)
        peer.raw.getOutputStream().write(fpdu(tagged(0, true, mr.stag() ^ 0x01, mr.query().baseTo(), new byte[16])));
        byte[] t = nextUlpdu();
        assertThat(opcode(t)).isEqualTo(TERMINATE);
        assertThat(int32(t, 18) >>> 16).isEqualTo(0x1100);
        assertEveryOutstandingWorkRequestFlushedOnce(WorkCompletionStatus.FLUSHED);
        assertThat(peer.qp.query().terminateMessage().locallyGenerated()).isTrue();
    }

    // ---- issue 9 item 11: data placed before its CRC is checked ---------------------------------

    /**
     * A tagged FPDU whose CRC fails may already have been placed (header-first placement writes the
     * payload as it arrives, RFC 5040 §7.1 leaves the buffer indeterminate), so no completion may
     * ever report it: the RNIC sends the LLP Terminate 2/0/0x02 without headers (RFC 5044 §8), the
     * QP goes to Error, and the Send that followed the bad Write in the same TCP write, and the
     * receive it would have consumed, never complete as SUCCESS.
     */
    @Test
    void aWriteWithABadCrcIsNeverReportedAsGoodData() throws Exception {
        connect();
        MemoryRegion mr = region(65536);
        long base = mr.query().baseTo();
        peer.qp.postReceive(new ReceiveWorkRequest().wrId(10).sge(mr.stag(), base + 60000, 64));
        byte[] payload = new byte[40000];
        Arrays.fill(payload, (byte) 0x77);
        byte[] bad = fpdu(tagged(0, true, mr.stag(), base, payload));
        bad[bad.length - 1] ^= 0x01; // CRC32c no longer matches
        peer.raw.getOutputStream().write(RawFrames.concat(bad, fpdu(untagged(SEND, 0, 1, new byte[8]))));
        byte[] t = nextUlpdu();
        assertThat(opcode(t)).isEqualTo(TERMINATE);
        assertThat(t.length).as("no headers copied (R-TERM-014)").isEqualTo(22);
        assertThat(int32(t, 18)).as("2/0/0x02, M=D=R=0").isEqualTo(0x2002_0000);
        assertThat(in.read()).as("FIN after the Terminate").isEqualTo(-1);
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.ERROR);
        assertThat(peer.eventTypes()).containsExactly(AsyncEventType.LLP_INVALID_CRC);
        TerminateMessage sent = peer.qp.query().terminateMessage();
        assertThat(sent.terminateControl()).isEqualTo(0x2002);
        List<WorkCompletion> wcs = peer.completions(1);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(10L);
        assertThat(wcs).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.FLUSHED);
        assertThat(peer.cq.poll(new WorkCompletion())).isFalse();
    }

    /**
     * The Read path: a Read Response whose CRC fails completes the RDMA Read in error (FLUSHED), even
     * if its payload was already placed in the sink (indeterminate contents, never reported as good).
     */
    @Test
    void aReadResponseWithABadCrcNeverCompletesTheRead() throws Exception {
        connect();
        MemoryRegion sink = region(65536);
        long base = sink.query().baseTo();
        peer.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), base, 40000)
                .remote(0x7788_9900, 0x1000));
        assertThat(opcode(nextUlpdu())).isEqualTo(READ_REQUEST);
        byte[] payload = new byte[40000];
        Arrays.fill(payload, (byte) 0x55);
        byte[] bad = fpdu(tagged(READ_RESPONSE, true, sink.stag(), base, payload));
        bad[bad.length - 2] ^= 0x10;
        peer.raw.getOutputStream().write(bad);
        byte[] t = nextUlpdu();
        assertThat(int32(t, 18)).isEqualTo(0x2002_0000);
        peer.raw.shutdownOutput();
        peer.awaitState(QpState.ERROR);
        List<WorkCompletion> wcs = peer.completions(1);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L);
        assertThat(wcs.getFirst().status()).isNotEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(peer.cq.poll(new WorkCompletion())).isFalse();
    }

    // ---- commit draft: C-FLUSH-011, C-FLUSH-050 --------------------------------------------------

    private static final int FLUSH_REQUEST = 0xC;
    private static final int FLUSH_RESPONSE = 0xD;

    /**
     * Draft §3.1 (C-FLUSH-011, AMB-46): the Invalidate STag field of a request is never acted on. A
     * Flush Request naming a valid, remotely invalidatable region there is answered with its Flush
     * Response and the region stays Valid; a Send with Invalidate naming it would have invalidated it.
     */
    @Test
    void theInvalidateStagOfAFlushRequestIsNeverProcessed_C_FLUSH_011() throws Exception {
        connect();
        MemorySegment m = peer.rnic.allocateMemory(4096, 4096);
        MemoryRegion target = peer.pd.registerMemory(m, io.jrnic.api.AccessRights.LOCAL_READ
                | io.jrnic.api.AccessRights.LOCAL_WRITE | io.jrnic.api.AccessRights.REMOTE_WRITE
                | io.jrnic.api.AccessRights.FLUSHABLE_GLOBAL);
        byte[] flush = untagged(FLUSH_REQUEST, target.stag(), 1, 1, ByteBuffer.allocate(20).putInt(target.stag())
                .putInt(4096).putLong(m.address()).putInt(2 /* global visibility */).array());
        peer.raw.getOutputStream().write(fpdu(flush));
        byte[] response = nextUlpdu();
        assertThat(response[1]).as("RDMAP control: the Flush Response").isEqualTo((byte) (0x40 | FLUSH_RESPONSE));
        assertThat(int32(response, 6)).as("QN 3").isEqualTo(3);
        assertThat(target.query().state()).isEqualTo(io.jrnic.api.StagState.VALID);
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
        assertThat(peer.events).isEmpty();
    }

    /**
     * Draft §5.1 (1) (C-FLUSH-050): a local error while creating a request (an Atomic Write whose
     * target is STag 0, which is never remote) completes the WR in error and sends, instead of the
     * request, a Terminate with Layer/EType/Code 0/0/0 and no DDP or RDMAP header; it is the only
     * FPDU and is followed by the close.
     */
    @Test
    void aLocalErrorCreatingARequestSendsATerminateWithZeroHeaders_C_FLUSH_050() throws Exception {
        connect();
        peer.qp.postSend(new SendWorkRequest().wrId(5).atomicWrite(0, 0, 1));
        byte[] t = nextUlpdu();
        assertThat(t).isEqualTo(RawFrames.hex("41 47 00000000 00000002 00000001 00000000 00000000"));
        assertThat(in.read()).as("FIN after the Terminate").isEqualTo(-1);
        List<WorkCompletion> wcs = peer.completions(1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(5);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        TerminateMessage sent = peer.qp.query().terminateMessage();
        assertThat(sent.terminateControl()).isEqualTo(TerminateMessage.LOCAL_CATASTROPHIC);
        assertThat(sent.headers()).isEmpty();
    }

    /** Fills memory with a seeded pattern (as EngineFixture.fill, which lives in another package). */
    private static final class EngineFixtureBytes {
        static void fill(MemorySegment m, long seed) {
            java.util.Random r = new java.util.Random(seed);
            byte[] b = new byte[(int) m.byteSize()];
            r.nextBytes(b);
            MemorySegment.copy(b, 0, m, ValueLayout.JAVA_BYTE, 0, b.length);
        }
    }

}
