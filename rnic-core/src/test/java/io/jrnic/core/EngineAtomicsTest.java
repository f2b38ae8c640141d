package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.RemoteAtomics;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * RFC 7306 §5 atomics through two engines and against a raw peer: the exact Atomic Request and
 * Response bytes (wire-format.md §4.7), FetchAdd and CmpSwap plain and masked, the result written to
 * the requester's buffer, ORD/IRD shared with Reads, and every responder error with its exact
 * Terminate (RFC 7306 §8, checklist AMB-30).
 */
class EngineAtomicsTest extends EngineFixture {
    static final int ATOMIC = RIGHTS | AccessRights.REMOTE_ATOMIC;
    static final int ATOMIC_REQUEST = 0xA;
    static final int ATOMIC_RESPONSE = 0xB;
    static final long ONES = -1L;

    private Side a;
    private Side b;

    private void pairUp() {
        Side[] s = pair(MemoryLinkPair.Options.defaults());
        a = s[0];
        b = s[1];
    }

    private Side engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        return a;
    }

    /** An atomic target region at the responder, its first 8 bytes holding {@code initial}. */
    private static MemoryRegion counter(Side s, long initial) {
        MemoryRegion mr = s.region(64, ATOMIC);
        RemoteAtomics.writeResult(s.memory(mr), 0, initial);
        return mr;
    }

    private static long value(Side s, MemoryRegion mr, long offset) {
        return RemoteAtomics.read(s.memory(mr), offset);
    }

    /** Runs one atomic WR from a to b and returns the original value a received. */
    private long run(SendWorkRequest wr, MemoryRegion target, MemoryRegion result, int wrId) {
        a.qp.postSend(wr.wrId(wrId).remote(target.stag(), b.base(target)).sge(result.stag(), a.base(result), 8));
        List<WorkCompletion> wcs = completions(a, a.completions.size() + 1);
        WorkCompletion wc = wcs.getLast();
        assertThat(wc.wrId()).isEqualTo(wrId);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wc.opcode()).isEqualTo(wr.opcode());
        return value(a, result, 0);
    }

    // ---- end to end ---------------------------------------------------------------------------

    @Test
    void fetchAddReturnsTheOriginalAndAddsModulo2To64_A_ATOM_016_A_ATOM_017_A_ATOM_043() {
        pairUp();
        MemoryRegion target = counter(b, 0xFFFF_FFFF_FFFF_FFFEL);
        MemoryRegion result = a.region(64, RIGHTS);
        assertThat(run(new SendWorkRequest().fetchAdd(5), target, result, 1)).isEqualTo(0xFFFF_FFFF_FFFF_FFFEL);
        assertThat(value(b, target, 0)).isEqualTo(3L); // carry out of bit 63 discarded
        assertThat(run(new SendWorkRequest().fetchAdd(0), target, result, 2)).isEqualTo(3L); // side-effect free probe
        assertThat(value(b, target, 0)).isEqualTo(3L);
    }

    @Test
    void maskedFetchAddStopsTheCarryAtEachFieldMsb_A_ATOM_016_A_ATOM_017() {
        pairUp();
        MemoryRegion target = counter(b, 0x0000_0000_FFFF_FFFFL);
        MemoryRegion result = a.region(64, RIGHTS);
        assertThat(run(new SendWorkRequest().fetchAdd(1, 0x0000_0000_8000_0000L), target, result, 1))
                .isEqualTo(0x0000_0000_FFFF_FFFFL);
        assertThat(value(b, target, 0)).isEqualTo(0L); // the carry stops at bit 31 (checklist example)
        RemoteAtomics.writeResult(b.memory(target), 0, 0x00FF_00FF_00FF_00FFL);
        run(new SendWorkRequest().fetchAdd(0x0001_0001_0001_0001L, 0x8000_8000_8000_8000L), target, result, 2);
        assertThat(value(b, target, 0)).isEqualTo(0x0100_0100_0100_0100L);
    }

    @Test
    void compareSwapSwapsOnlyOnAMatch_A_ATOM_018_A_ATOM_019_A_ATOM_020() {
        pairUp();
        MemoryRegion target = counter(b, 42);
        MemoryRegion result = a.region(64, RIGHTS);
        assertThat(run(new SendWorkRequest().compareSwap(41, 7), target, result, 1)).isEqualTo(42L);
        assertThat(value(b, target, 0)).isEqualTo(42L); // mismatch: memory unchanged, original returned
        assertThat(run(new SendWorkRequest().compareSwap(42, 7), target, result, 2)).isEqualTo(42L);
        assertThat(value(b, target, 0)).isEqualTo(7L);
    }

    @Test
    void maskedCompareSwapComparesAndSwapsTheMaskedBits_A_ATOM_018_AMB_21_AMB_24() {
        pairUp();
        MemoryRegion target = counter(b, 0x1122_3344_5566_7788L);
        MemoryRegion result = a.region(64, RIGHTS);
        // compare the low 16 bits only, swap the high 32 bits only
        run(new SendWorkRequest().compareSwap(0xAAAA_AAAA_AAAA_7788L, 0xFFFFL, 0xDEAD_BEEF_0000_0000L,
                0xFFFF_FFFF_0000_0000L), target, result, 1);
        assertThat(value(b, target, 0)).isEqualTo(0xDEAD_BEEF_5566_7788L);
        // compare mask 0: an unconditional swap (AMB-21)
        run(new SendWorkRequest().compareSwap(0, 0, 99, ONES), target, result, 2);
        assertThat(value(b, target, 0)).isEqualTo(99L);
        assertThat(value(a, result, 0)).isEqualTo(0xDEAD_BEEF_5566_7788L);
        // swap mask 0: memory never changes
        run(new SendWorkRequest().compareSwap(99, ONES, 5, 0), target, result, 3);
        assertThat(value(b, target, 0)).isEqualTo(99L);
    }

    @Test
    void atomicsAndReadsShareOrdAndCompleteInRequestOrder_A_ATOM_062_A_ATOM_066_A_ATOM_081_AMB_25() {
        pairUp();
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).ord(2));
        MemoryRegion target = counter(b, 0);
        MemoryRegion result = a.region(8 * 16, RIGHTS);
        MemoryRegion sink = a.region(8 * 16, RIGHTS);
        // 16 WRs, Reads of the counter alternating with FetchAdds of 1: with ORD 2 the SQ stalls, and
        // each Read sees every FetchAdd posted before it (one responder FIFO, RFC 7306 §7)
        for (int i = 0; i < 16; i++) {
            SendWorkRequest wr = new SendWorkRequest().wrId(i);
            if (i % 2 == 0) {
                wr.fetchAdd(1).remote(target.stag(), b.base(target)).sge(result.stag(), a.base(result) + 8L * i, 8);
            } else {
                wr.opcode(Opcode.RDMA_READ).remote(target.stag(), b.base(target))
                        .sge(sink.stag(), a.base(sink) + 8L * i, 8);
            }
            a.qp.postSend(wr);
        }
        List<WorkCompletion> wcs = completions(a, 16);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L,
                11L, 12L, 13L, 14L, 15L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        for (int i = 0; i < 16; i += 2) {
            assertThat(value(a, result, 8L * i)).as("FetchAdd %d", i).isEqualTo(i / 2);
            assertThat(value(a, sink, 8L * (i + 1))).as("Read %d", i + 1).isEqualTo(i / 2 + 1);
        }
        assertThat(value(b, target, 0)).isEqualTo(8L);
    }

    @Test
    void atomicWithZeroOrdFailsLocally_A_ATOM_081() {
        pairUp();
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).ord(0));
        MemoryRegion target = counter(b, 0);
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(1).remote(target.stag(), b.base(target))
                .sge(result.stag(), a.base(result), 8));
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.ZERO_RDMA_READ_RESOURCES);
        assertThat(value(b, target, 0)).isZero();
    }

    @Test
    void anAtomicSeesTheWritePostedBeforeIt_A_ATOM_010_A_ATOM_065() {
        pairUp();
        MemoryRegion target = counter(b, 0);
        MemoryRegion source = a.region(64, RIGHTS);
        RemoteAtomics.writeResult(a.memory(source), 0, 100);
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(source.stag(), a.base(source), 8)
                .remote(target.stag(), b.base(target)));
        a.qp.postSend(new SendWorkRequest().wrId(2).fetchAdd(1).remote(target.stag(), b.base(target))
                .sge(result.stag(), a.base(result), 8));
        assertThat(completions(a, 2)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(value(a, result, 0)).isEqualTo(100L);
        assertThat(value(b, target, 0)).isEqualTo(101L);
    }

    @Test
    void atomicCompletesOnlyOnItsResponseAndFencesLaterSends_A_ATOM_047_A_ATOM_053_A_ATOM_061() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(1).remote(0x1234_5601, 0x1000)
                .sge(result.stag(), a.base(result), 8));
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).readFence(true)
                .sge(result.stag(), a.base(result) + 8, 4));
        await(() -> !raw.received.isEmpty(), "the Atomic Request");
        link.settle();
        assertThat(raw.received).hasSize(1); // the fenced Send waits for the atomic's response
        WorkCompletion wc = new WorkCompletion();
        assertThat(a.cq.poll(wc)).isFalse(); // not complete before its response was delivered
        raw.send(atomicResponse(1, 1, 9));
        await(() -> raw.received.size() == 2, "the fenced Send");
        assertBytes(Arrays.copyOf(raw.received.get(1), 2), "41 43");
        assertThat(completions(a, 2)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
        assertThat(value(a, result, 0)).isEqualTo(9L);
    }

    @Test
    void misalignedAtomicTerminatesBothSides_A_ATOM_015_AMB_29() {
        pairUp();
        MemoryRegion target = counter(b, 0x77);
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(1).remote(target.stag(), b.base(target) + 1)
                .sge(result.stag(), a.base(result), 8));
        awaitState(a, QpState.ERROR);
        awaitState(b, QpState.ERROR);
        // the responder surfaces the error locally and sends Terminate 0/2/0x07 (RFC 7306 §5.1.1, §8.2)
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(a.qp.query().terminateMessage().terminateControl()).isEqualTo(0x0207);
        assertThat(a.qp.query().terminateMessage().headers())
                .isEqualTo(b.qp.query().terminateMessage().headers()).hasSize(18);
        // the atomic in progress when the Terminate arrived (Verbs §6.6.2.4, Figure 36, V-ERR-46)
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        assertThat(value(b, target, 0)).isEqualTo(0x77L);
        assertThat(value(b, target, 8)).isZero();
        assertThat(value(a, result, 0)).isZero();
    }

    @Test
    void atomicWithoutTheRemoteAtomicRightTerminatesBothSides_A_ATOM_074() {
        pairUp();
        MemoryRegion target = b.region(64, RIGHTS);
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).compareSwap(0, 1).remote(target.stag(), b.base(target))
                .sge(result.stag(), a.base(result), 8));
        awaitState(a, QpState.ERROR);
        awaitState(b, QpState.ERROR);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.IRRQ_ACCESS_RIGHTS);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(a.qp.query().terminateMessage().terminateControl()).isEqualTo(0x0102);
        // the atomic in progress when the Terminate arrived (Verbs §6.6.2.4, Figure 36, V-ERR-46)
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        assertThat(value(b, target, 0)).isZero();
    }

    @Test
    void atomicToAnRnicWithoutAtomicsTerminatesBothSides_A_ATOM_003() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        a = side(link.a);
        extensions = EnumSet.of(RnicExtension.INLINE_DATA); // b offers RFC 5040 only
        b = side(link.b);
        MemoryRegion target = counter(b, 5);
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(0).remote(target.stag(), b.base(target))
                .sge(result.stag(), a.base(result), 8)); // the side-effect free probe of RFC 7306 §1.1
        awaitState(a, QpState.ERROR);
        awaitState(b, QpState.ERROR);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(a.qp.query().terminateMessage().terminateControl()).isEqualTo(0x0206);
        assertThat(a.qp.query().terminateMessage().headers())
                .isEqualTo(b.qp.query().terminateMessage().headers()).hasSize(18);
        // the atomic in progress when the Terminate arrived (Verbs §6.6.2.4, Figure 36, V-ERR-46)
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        assertThat(value(b, target, 0)).isEqualTo(5L);
    }

    // ---- posting --------------------------------------------------------------------------------

    @Test
    void postingChecksTheExtensionAndTheResultSge_A_ATOM_002() {
        extensions = EnumSet.of(RnicExtension.INLINE_DATA);
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        assertThatThrownBy(() -> a.qp.postSend(new SendWorkRequest().fetchAdd(1).remote(0x1201, 0)
                .sge(result.stag(), a.base(result), 8)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("ATOMICS")
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_OPERATION_TYPE);
        assertThatThrownBy(() -> a.qp.postSend(new SendWorkRequest().immediateData(1, false)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("IMMEDIATE_DATA");
    }

    @Test
    void anAtomicNeedsExactlyOneEightByteResultSge() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        assertThatThrownBy(() -> a.qp.postSend(new SendWorkRequest().fetchAdd(1).remote(0x1201, 0)
                .sge(result.stag(), a.base(result), 4)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("8-byte")
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_SGL_FORMAT);
        assertThatThrownBy(() -> a.qp.postSend(new SendWorkRequest().compareSwap(1, 2).remote(0x1201, 0)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("had 0 SGEs");
    }

    @Test
    void resultBufferWithoutLocalWriteFailsTheWrLocally() {
        engineWithRawPeer();
        MemoryRegion readOnly = a.region(64, AccessRights.LOCAL_READ);
        a.qp.postSend(new SendWorkRequest().wrId(3).fetchAdd(1).remote(0x1201, 0).sge(readOnly.stag(),
                a.base(readOnly), 8));
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION);
        awaitState(a, QpState.ERROR);
        await(() -> !raw.received.isEmpty(), "the Terminate");
        assertBytes(raw.received.getFirst(), Wire.TERMINATE_HEADER + " 00000000"); // no Atomic Request left
    }

    // ---- requester on the wire -----------------------------------------------------------------

    @Test
    void fetchAddRequestBytesAndResponseMatching_A_ATOM_022_A_ATOM_028_A_ATOM_030_A_ATOM_035_AMB_22() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(9).fetchAdd(0x0102_0304_0506_0708L, 0x8000_0000_0000_0000L)
                .remote(0x1234_5601, 0x1000).sge(result.stag(), a.base(result), 8));
        await(() -> !raw.received.isEmpty(), "the Atomic Request");
        // RFC 7306 §5.2.1 Figure 4: QN 1, MSN 1, AOpCode 0, Request Id 1, STag, TO, Add Data, Add Mask,
        // Compare Data 0 and Compare Mask all-ones for FetchAdd
        assertBytes(raw.received.getFirst(), "41 4a 00000000 00000001 00000001 00000000"
                + " 00000000 00000001 12345601 0000000000001000 0102030405060708 8000000000000000"
                + " 0000000000000000 ffffffffffffffff");
        raw.send(atomicResponse(1, 1, 0x1122_3344_5566_7788L));
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wc.opcode()).isEqualTo(Opcode.ATOMIC_FETCH_ADD);
        // A-ATOM-021: big-endian on the wire, memory byte order in the result buffer
        assertThat(a.memory(result).get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(RemoteAtomics.MEMORY_ORDER),
                0)).isEqualTo(0x1122_3344_5566_7788L);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void compareSwapRequestBytesShareTheReadRequestMsns_A_ATOM_023_A_ATOM_036() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).remote(0x1234_5601, 0x2000)
                .sge(result.stag(), a.base(result) + 8, 8));
        a.qp.postSend(new SendWorkRequest().wrId(2).compareSwap(5, 0xFF, 6, 0xF0).remote(0x1234_5601, 0x1008)
                .sge(result.stag(), a.base(result), 8));
        await(() -> raw.received.size() == 2, "the Read and Atomic Requests");
        assertBytes(raw.received.get(1), "41 4a 00000000 00000001 00000002 00000000"
                + " 00000002 00000001 12345601 0000000000001008 0000000000000006 00000000000000f0"
                + " 0000000000000005 00000000000000ff");
    }

    @Test
    void atomicResponseWithAnotherRequestIdIsUnexpectedOpcode_A_ATOM_044_AMB_36() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(1).remote(0x1234_5601, 0x1000)
                .sge(result.stag(), a.base(result), 8));
        await(() -> !raw.received.isEmpty(), "the Atomic Request");
        byte[] response = atomicResponse(1, 7, 5);
        raw.send(response);
        byte[] t = awaitTerminate(2);
        assertBytes(t, Wire.TERMINATE_HEADER + " 0206c000 0000 " + header(response, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        assertThat(value(a, result, 0)).isZero(); // nothing written for a response that did not match
    }

    @Test
    void atomicResponseWithNoAtomicOutstandingIsUnexpectedOpcode_A_ATOM_080() {
        engineWithRawPeer();
        byte[] response = atomicResponse(1, 1, 5);
        raw.send(response);
        assertBytes(awaitTerminate(1), Wire.TERMINATE_HEADER + " 0206c000 0000 " + header(response, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
    }

    @Test
    void readResponseWhileAnAtomicIsTheOrdHeadIsUnexpectedOpcode_A_ATOM_080() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(1).remote(0x1234_5601, 0x1000)
                .sge(result.stag(), a.base(result), 8));
        await(() -> !raw.received.isEmpty(), "the Atomic Request");
        byte[] rr = Wire.tagged(Wire.READ_RESPONSE, true, result.stag(), a.base(result), new byte[8]);
        raw.send(rr);
        assertBytes(awaitTerminate(2), Wire.TERMINATE_HEADER + " 0206c000 0008 " + header(rr, 14));
    }

    @Test
    void shortAtomicResponseIsUnspecified_AMB_20_AMB_30() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(1).remote(0x1234_5601, 0x1000)
                .sge(result.stag(), a.base(result), 8));
        await(() -> !raw.received.isEmpty(), "the Atomic Request");
        byte[] response = Wire.untagged(ATOMIC_RESPONSE, true, 0, 3, 1, 0, new byte[8]);
        raw.send(response);
        assertBytes(awaitTerminate(2), Wire.TERMINATE_HEADER + " 02ffc000 0000 " + header(response, 18));
    }

    @Test
    void atomicResponseLongerThanItsBufferIsMessageTooLong_AMB_20_A_ATOM_040() {
        engineWithRawPeer();
        MemoryRegion result = a.region(64, RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(1).fetchAdd(1).remote(0x1234_5601, 0x1000)
                .sge(result.stag(), a.base(result), 8));
        await(() -> !raw.received.isEmpty(), "the Atomic Request");
        // the RFC text's 32-byte header does not fit the 12-byte QN 3 buffer: DDP's check (RFC 5041 §7.2)
        byte[] response = Wire.untagged(ATOMIC_RESPONSE, true, 0, 3, 1, 0, new byte[32]);
        raw.send(response);
        assertBytes(awaitTerminate(2), Wire.TERMINATE_HEADER + " 1205c000 0020 " + header(response, 18));
    }

    // ---- responder on the wire -----------------------------------------------------------------

    @Test
    void responderExecutesAndAnswersOnQueue3_A_ATOM_024_A_ATOM_028_A_ATOM_033_A_ATOM_039_AMB_35() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0x7FFF_FFFF_FFFF_FFFFL);
        raw.send(fetchAdd(1, 0xCAFE_0001, target.stag(), a.base(target), 1, 0));
        await(() -> !raw.received.isEmpty(), "the Atomic Response");
        // RFC 7306 §5.2.2 Figure 6: QN 3, MSN 1, Original Request Id, Original Remote Data Value
        assertBytes(raw.received.getFirst(), "41 4b 00000000 00000003 00000001 00000000 cafe0001 7fffffffffffffff");
        assertThat(value(a, target, 0)).isEqualTo(0x8000_0000_0000_0000L);
        raw.send(compareSwap(2, 0xCAFE_0002, target.stag(), a.base(target), 0x8000_0000_0000_0000L, ONES, 3, ONES));
        await(() -> raw.received.size() == 2, "the second Atomic Response");
        assertBytes(raw.received.get(1), "41 4b 00000000 00000003 00000002 00000000 cafe0002 8000000000000000");
        assertThat(value(a, target, 0)).isEqualTo(3L);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
        assertThat(a.completions).isEmpty(); // A-ATOM-033: never delivered to the responder's ULP
    }

    @Test
    void readThenAtomicOnTheSameWordAnswersInRequestOrder_A_ATOM_054_A_ATOM_066() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 10);
        raw.send(Wire.readRequest(1, 0x1234_5601, 0x500, 8, target.stag(), a.base(target)),
                fetchAdd(2, 1, target.stag(), a.base(target), 5, 0),
                Wire.readRequest(3, 0x1234_5601, 0x600, 8, target.stag(), a.base(target)));
        await(() -> raw.received.size() == 3, "three responses");
        byte[] ten = ByteBuffer.allocate(8).order(RemoteAtomics.MEMORY_ORDER).putLong(10).array();
        byte[] fifteen = ByteBuffer.allocate(8).order(RemoteAtomics.MEMORY_ORDER).putLong(15).array();
        // the first Read sees the value before the FetchAdd, the second the value after it
        assertBytes(raw.received.get(0), "c1 42 12345601 0000000000000500 " + hex(ten));
        assertBytes(raw.received.get(1), "41 4b 00000000 00000003 00000001 00000000 00000001 000000000000000a");
        assertBytes(raw.received.get(2), "c1 42 12345601 0000000000000600 " + hex(fifteen));
    }

    @Test
    void invalidStagIsInvalidStag_A_ATOM_074() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        atomicFails(target.stag() ^ 0x01, a.base(target), 0x0100, AsyncEventType.IRRQ_INVALID_STAG);
    }

    @Test
    void regionOfAnotherPdIsNotAssociated_A_ATOM_074() {
        engineWithRawPeer();
        MemoryRegion other = a.rnic.allocatePd().registerMemory(a.rnic.allocateMemory(64, 8), ATOMIC);
        atomicFails(other.stag(), other.query().baseTo(), 0x0103, AsyncEventType.IRRQ_INVALID_PD);
    }

    @Test
    void regionWithoutRemoteAtomicIsAccessViolation_A_ATOM_074_AMB_30() {
        engineWithRawPeer();
        MemoryRegion noAtomic = a.region(64, RIGHTS); // Remote Read and Write are not enough
        atomicFails(noAtomic.stag(), a.base(noAtomic), 0x0102, AsyncEventType.IRRQ_ACCESS_RIGHTS);
        assertThat(value(a, noAtomic, 0)).isZero();
    }

    @Test
    void targetBeyondTheRegionIsBaseOrBounds_A_ATOM_074() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        atomicFails(target.stag(), a.base(target) + 64, 0x0101, AsyncEventType.IRRQ_BASE_BOUNDS);
    }

    @Test
    void targetThatWrapsIsToWrap_A_ATOM_074() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        atomicFails(target.stag(), 0xFFFF_FFFF_FFFF_FFF8L + 4, 0x0104, AsyncEventType.IRRQ_WRAP);
    }

    @Test
    void misalignedTargetIsCatastrophicLocalizedAndTouchesNothing_A_ATOM_015_A_ATOM_073_AMB_28_AMB_29() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        RemoteAtomics.writeResult(a.memory(target), 8, 0x5555_5555_5555_5555L);
        atomicFails(target.stag(), a.base(target) + 4, 0x0207, AsyncEventType.LOCAL_QP_CATASTROPHIC);
        assertThat(value(a, target, 0)).isZero();
        assertThat(value(a, target, 8)).isEqualTo(0x5555_5555_5555_5555L);
    }

    @Test
    void unsupportedAopcodeIsUnexpectedOpcode_A_ATOM_034_AMB_21() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        byte[] request = fetchAdd(1, 1, target.stag(), a.base(target), 1, 0);
        request[18 + 3] = 0x1; // AOpCode 0x1: Reserved
        raw.send(request);
        assertBytes(awaitTerminate(1), Wire.TERMINATE_HEADER + " 0206c000 0000 " + header(request, 18));
        assertThat(value(a, target, 0)).isZero();
    }

    @Test
    void rnicWithoutAtomicsAnswersUnexpectedOpcode_A_ATOM_003_AMB_33() {
        extensions = EnumSet.of(RnicExtension.INLINE_DATA);
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        byte[] request = fetchAdd(1, 1, target.stag(), a.base(target), 0, 0);
        raw.send(request);
        // RFC 5040 only: the opcode is unknown, so no RDMAP header is discounted from the length (52)
        assertBytes(awaitTerminate(1), Wire.TERMINATE_HEADER + " 0206c000 0034 " + header(request, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.UNEXPECTED_OPCODE);
    }

    @Test
    void rnicWithImmediateDataButNoAtomicsRejectsAtomics_A_ATOM_003() {
        extensions = EnumSet.of(RnicExtension.IMMEDIATE_DATA, RnicExtension.INLINE_DATA);
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        byte[] request = fetchAdd(1, 1, target.stag(), a.base(target), 1, 0);
        raw.send(request);
        assertBytes(awaitTerminate(1), Wire.TERMINATE_HEADER + " 0206c000 0000 " + header(request, 18));
        assertThat(value(a, target, 0)).isZero();
    }

    @Test
    void atomicsCountAgainstIrdWithReads_A_ATOM_041_AMB_11_AMB_25() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).ird(1));
        byte[] read = Wire.readRequest(1, 0x1234_5601, 0x1000, 8, target.stag(), a.base(target));
        byte[] atomic = fetchAdd(2, 1, target.stag(), a.base(target), 1, 0);
        raw.send(read, atomic); // the atomic arrives while the Read holds the only IRD slot
        // R=0: an Atomic Request's header is not echoed (A-ATOM-071)
        assertBytes(awaitTerminate(1), Wire.TERMINATE_HEADER + " 0207c000 0000 " + header(atomic, 18));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_TOO_MANY_READS);
        assertThat(value(a, target, 0)).isZero();
    }

    @Test
    void anIrdRaisedInRtsTakesThatManyRequestsAtOnceInOrder() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 10);
        // the fixture's QPs start with IRD 4, so the responder's ring holds 4; Modify QP raises the IRD
        a.qp.modify(new QueuePairModification().nextState(QpState.RTS).ird(12));
        byte[][] requests = new byte[12][];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = i == 5 ? fetchAdd(i + 1, 1, target.stag(), a.base(target), 5, 0)
                    : Wire.readRequest(i + 1, 0x1234_5601, 0x100L * i, 8, target.stag(), a.base(target));
        }
        raw.send(requests); // one burst: twelve outstanding at once, the ring grows to 8, then 16
        await(() -> raw.received.size() == 12, "twelve responses");
        byte[] ten = ByteBuffer.allocate(8).order(RemoteAtomics.MEMORY_ORDER).putLong(10).array();
        byte[] fifteen = ByteBuffer.allocate(8).order(RemoteAtomics.MEMORY_ORDER).putLong(15).array();
        for (int i = 0; i < requests.length; i++) {
            if (i == 5) {
                assertBytes(raw.received.get(i), "41 4b 00000000 00000003 00000001 00000000 00000001 000000000000000a");
            } else {
                assertBytes(raw.received.get(i), "c1 42 12345601 " + String.format("%016x", 0x100L * i) + " "
                        + hex(i < 5 ? ten : fifteen));
            }
        }
        assertThat(a.eventTypes()).isEmpty();
        assertThat(value(a, target, 0)).isEqualTo(15);
    }

    @Test
    void atomicRequestOfTheWrongLengthIsUnspecified_A_ATOM_072() {
        engineWithRawPeer();
        byte[] request = Wire.untagged(ATOMIC_REQUEST, true, 0, 1, 1, 0, new byte[44]);
        raw.send(request);
        assertBytes(awaitTerminate(1), Wire.TERMINATE_HEADER + " 02ffc000 0000 " + header(request, 18));
    }

    @Test
    void targetInvalidatedBeforeExecutionTerminatesInsteadOfAnswering_A_ATOM_070_A_ATOM_052() {
        engineWithRawPeer();
        MemoryRegion target = counter(a, 0);
        java.lang.foreign.MemorySegment memory = a.memory(target);
        MemoryRegion buffer = a.region(64, RIGHTS);
        a.qp.postReceive(new io.jrnic.api.ReceiveWorkRequest().wrId(7).sge(buffer.stag(), a.base(buffer), 64));
        // one burst: the Atomic Request is validated and queued, then a later Send with Invalidate
        // revokes its target before the atomic reaches the IRD head (RFC 7306 §5.4 rule 6 lets the
        // Send complete first)
        byte[] atomic = fetchAdd(1, 1, target.stag(), a.base(target), 1, 0);
        byte[] sendInv = Wire.untagged(Wire.SEND_INVALIDATE, true, target.stag(), 0, 1, 0, new byte[4]);
        raw.send(atomic, sendInv);
        // RFC 7306 §8.1 case 1: the Terminate goes instead of the Atomic Response, M=D=R=0
        assertBytes(awaitTerminate(1), Wire.TERMINATE_HEADER + " 01000000");
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.IRRQ_INVALID_STAG);
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(7L);
        assertThat(wc.invalidatedStag()).isEqualTo(target.stag());
        assertThat(RemoteAtomics.read(memory, 0)).isZero(); // never executed
    }

    // ---- helpers --------------------------------------------------------------------------------

    private static boolean isAtomicResponse(byte[] u) {
        return u.length == 30 && (u[1] & 0xF) == ATOMIC_RESPONSE;
    }

    private void atomicFails(int stag, long to, int control, AsyncEventType event) {
        byte[] request = fetchAdd(1, 1, stag, to, 1, 0);
        raw.send(request);
        byte[] t = awaitTerminate(1);
        // RFC 7306 §8.1 case 2: the DDP header is copied, the RDMA header is not (R=0, A-ATOM-071)
        assertBytes(t, Wire.TERMINATE_HEADER + String.format(" %04xc000 0000 ", control) + header(request, 18));
        assertThat(a.eventTypes()).containsExactly(event);
        TerminateMessage m = a.qp.query().terminateMessage();
        assertThat(m.terminateControl()).isEqualTo(control);
        assertThat(m.headers()).isEqualTo(Arrays.copyOf(request, 18));
    }

    private byte[] awaitTerminate(int fpdus) {
        await(() -> raw.received.size() >= fpdus, "the Terminate");
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the LLP close");
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        assertThat(raw.received).hasSize(fpdus); // the Terminate is the last FPDU
        return raw.received.getLast();
    }

    private static String header(byte[] ulpdu, int length) {
        return hex(Arrays.copyOf(ulpdu, length));
    }

    static byte[] fetchAdd(int msn, int id, int stag, long to, long add, long mask) {
        return atomicRequest(msn, 0x0, id, stag, to, add, mask, 0, ONES);
    }

    static byte[] compareSwap(int msn, int id, int stag, long to, long compare, long compareMask, long swap,
                              long swapMask) {
        return atomicRequest(msn, 0x2, id, stag, to, swap, swapMask, compare, compareMask);
    }

    static byte[] atomicRequest(int msn, int aopcode, int id, int stag, long to, long addSwap, long addSwapMask,
                                long compare, long compareMask) {
        ByteBuffer h = ByteBuffer.allocate(52);
        h.putInt(aopcode).putInt(id).putInt(stag).putLong(to).putLong(addSwap).putLong(addSwapMask).putLong(compare)
                .putLong(compareMask);
        return Wire.untagged(ATOMIC_REQUEST, true, 0, 1, msn, 0, h.array());
    }

    static byte[] atomicResponse(int msn, int id, long original) {
        return Wire.untagged(ATOMIC_RESPONSE, true, 0, 3, msn, 0, ByteBuffer.allocate(12).putInt(id)
                .putLong(original).array());
    }

}
