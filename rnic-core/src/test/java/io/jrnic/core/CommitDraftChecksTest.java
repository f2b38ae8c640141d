package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerifyHash;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.CommitDraft;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The responder's checks of the commit draft's requests that the other commit tests leave open
 * (issue 13, the engine's mutation score), against a raw peer for the exact Terminate: which right
 * each request needs at Delivery and again at execution (C-ATTR-002/004/006, RFC 5040 §7.2 order),
 * the QP's inbound-write enable for an Atomic Write only, the length checks before the STag
 * (AMB-45), a zero-length Verify against the default hash (AMB-49), the target checked again at
 * the IRD head after a Reregister (V-TERM-9 by analogy), a Flush to persistence after the RNIC's
 * persistence threads stopped (C-FLUSH-021), and the requester's largest Verify Response.
 */
class CommitDraftChecksTest extends EngineFixture {
    private static final int FLUSHABLE = EngineFixture.RIGHTS | AccessRights.FLUSHABLE_GLOBAL | AccessRights.VERIFIABLE;
    private static final String FLUSH_RESPONSE_1 = "41 4d 00000000 00000003 00000001 00000000";
    private static final String AW_RESPONSE_1 = "41 51 00000000 00000003 00000001 00000000";

    private Side a;
    private boolean inboundWrite = true;

    @Override
    QueuePairConfig qpConfig(Side s) {
        return super.qpConfig(s).access(true, inboundWrite, true);
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

    private void requestFails(byte[] request, String codeAndHdrct, String segmentLength, AsyncEventType event) {
        raw.send(request);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " " + codeAndHdrct + " " + segmentLength + " "
                + header(request));
        assertThat(a.eventTypes()).containsExactly(event);
    }

    private void answered(String response) {
        await(() -> raw.received.size() == 1, "the response");
        assertBytes(raw.received.getFirst(), response);
        assertThat(a.qp.query().state()).isEqualTo(QpState.RTS);
        assertThat(a.events).isEmpty();
    }

    // ---- rights at Delivery -------------------------------------------------------------------

    @Test
    void atomicWriteOnAQpWithoutInboundWriteIsWriteNotEnabled_C_ATTR_006_V_TERM_9() {
        inboundWrite = false;
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = a.region(64, FLUSHABLE);
        requestFails(CommitDraftEngineTest.atomicWriteRequest(1, mr.stag(), 8, a.base(mr), -1L), "0102c000", "0000",
                AsyncEventType.RDMA_WRITE_NOT_ENABLED);
        assertThat(bytes(a.memory(mr), 0, 64)).containsOnly(0);
    }

    @Test
    void flushAndVerifyDoNotNeedTheQpsInboundWrite_C_FLUSH_055() {
        inboundWrite = false; // the enable is for what writes the target: RDMA Write, Atomic Write
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = a.region(4096, FLUSHABLE);
        raw.send(CommitDraftEngineTest.flushRequest(1, mr.stag(), 64, a.base(mr), 0x02),
                CommitDraftEngineTest.verifyRequest(2, mr.stag(), 64, a.base(mr), new byte[0]));
        await(() -> raw.received.size() == 2, "two responses");
        assertBytes(raw.received.get(0), FLUSH_RESPONSE_1);
        assertBytes(raw.received.get(1), "41 4f 00000000 00000003 00000002 00000000 "
                + hex(CommitDraft.hash(new byte[64])));
        assertThat(a.events).isEmpty();
    }

    @Test
    void atomicWriteNeedsRemoteWriteAndNoFlushableRight_C_ATTR_006() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = a.region(64, EngineFixture.RIGHTS); // Remote Write, nothing of the draft's
        raw.send(CommitDraftEngineTest.atomicWriteRequest(1, mr.stag(), 8, a.base(mr) + 8, 0x0A0B_0C0DL));
        answered(AW_RESPONSE_1);
        assertThat(a.memory(mr).get(ValueLayout.JAVA_LONG, 8)).isEqualTo(0x0A0B_0C0DL);
    }

    @Test
    void globalVisibilityFlushNeedsFlushableGlobalAndNoRemoteWrite_C_ATTR_002() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = a.region(4096, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE
                | AccessRights.REMOTE_READ | AccessRights.FLUSHABLE_GLOBAL);
        raw.send(CommitDraftEngineTest.flushRequest(1, mr.stag(), 64, a.base(mr), 0x02));
        answered(FLUSH_RESPONSE_1);
    }

    @Test
    void globalVisibilityFlushWithOnlyTheOtherFlushableRightIsAccessViolation_C_ATTR_002() throws Exception {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        // a barrier (flags 0) would do with either right; global visibility needs its own (AMB-56):
        // the region has Flushable Persistent (file-mapped memory, which that right needs) but not
        // Flushable Global
        java.nio.file.Path file = java.nio.file.Files.createTempFile("jrnic-commit-checks", ".bin");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            MemorySegment mapped = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 4096,
                    java.lang.foreign.Arena.ofAuto());
            MemoryRegion mr = a.pd.registerMemory(mapped,
                    EngineFixture.RIGHTS | AccessRights.VERIFIABLE | AccessRights.FLUSHABLE_PERSISTENT);
            requestFails(CommitDraftEngineTest.flushRequest(1, mr.stag(), 64, a.base(mr), 0x02), "0102c000",
                    "0000", AsyncEventType.IRRQ_ACCESS_RIGHTS);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    // ---- alignment of an Atomic Write ------------------------------------------------------------

    @Test
    void atomicWriteIsPlacedWhereverTheEffectiveAddressIsAligned_C_AW_017_C_AW_019() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemorySegment block = a.rnic.allocateMemory(4096, 16);
        // memory starting at an odd multiple of 8 (8-byte but not 16-byte aligned), and memory
        // starting 2 bytes past a boundary, whose 8-byte aligned targets are at offsets 6, 14, ...
        MemoryRegion eight = a.pd.registerMemory(block.asSlice(8, 64), FLUSHABLE);
        MemoryRegion two = a.pd.registerMemory(block.asSlice(2 + 128, 64), FLUSHABLE);
        raw.send(CommitDraftEngineTest.atomicWriteRequest(1, eight.stag(), 8, a.base(eight), 0x1111L),
                CommitDraftEngineTest.atomicWriteRequest(2, two.stag(), 8, a.base(two) + 6, 0x2222L));
        await(() -> raw.received.size() == 2, "two Atomic Write Responses");
        assertBytes(raw.received.get(0), AW_RESPONSE_1);
        assertThat(block.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(0x1111L);
        assertThat(block.get(ValueLayout.JAVA_LONG, 136)).isEqualTo(0x2222L);
        assertThat(a.events).isEmpty();
    }

    @Test
    void atomicWriteToATargetOffTheEightByteGridIsCatastrophic_C_AW_019() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemorySegment block = a.rnic.allocateMemory(4096, 16);
        MemoryRegion two = a.pd.registerMemory(block.asSlice(2, 64), FLUSHABLE);
        // TO base + 2 is offset 2 of the region: 4 bytes past an 8-byte boundary
        requestFails(CommitDraftEngineTest.atomicWriteRequest(1, two.stag(), 8, a.base(two) + 2, -1L), "0207c000",
                "0000", AsyncEventType.LOCAL_QP_CATASTROPHIC);
        assertThat(bytes(block, 0, 80)).containsOnly(0);
    }

    // ---- lengths and hashes at Delivery -------------------------------------------------------

    @Test
    void verifyWithAnOverlongHashIsRefusedForItsLengthBeforeItsStag_AMB_45() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        byte[] request = CommitDraftEngineTest.verifyRequest(1, 0x0BAD_0001, 64, 0,
                new byte[SendWorkRequest.MAX_HASH_LENGTH + 1]);
        requestFails(request, "02ffc000", "0041", AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void zeroLengthVerifyIsCheckedAgainstTheDefaultHash_C_FLUSH_056_AMB_49() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        // no region is looked at: the expected hash must be SHA-256's 32 bytes
        requestFails(CommitDraftEngineTest.verifyRequest(1, 0x0BAD_0001, 0, 0, new byte[20]), "02ffc000", "0014",
                AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void zeroLengthVerifyWithTheHashOfNothingIsAnswered_C_FLUSH_056() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        byte[] empty = CommitDraft.hash(new byte[0]);
        raw.send(CommitDraftEngineTest.verifyRequest(1, 0x0BAD_0001, 0, 0, empty));
        answered("41 4f 00000000 00000003 00000001 00000000 " + hex(empty));
    }

    // ---- the target again at the IRD head -------------------------------------------------------

    private TxStopPointTest.HookLink hooked() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        TxStopPointTest.HookLink hook = new TxStopPointTest.HookLink(link.a);
        a = side(hook);
        return hook;
    }

    @Test
    void verifyWhoseTargetLostVerifiableBehindAReadIsAccessViolation_C_ATTR_004_V_TERM_9() {
        TxStopPointTest.HookLink hook = hooked();
        MemoryRegion source = a.region(64 * 1024, EngineFixture.RIGHTS);
        MemorySegment m = a.rnic.allocateMemory(4096, 8);
        MemoryRegion target = a.pd.registerMemory(m, FLUSHABLE);
        int key = target.stag() & 0xFF;
        byte[] verify = CommitDraftEngineTest.verifyRequest(2, target.stag(), 64, m.address(), new byte[0]);
        // same memory, same key, same range: only the Verifiable right is gone at execution
        hook.after(2, n -> target.reregister(a.pd, m, EngineFixture.RIGHTS, key, AddressType.VA_BASED, m.address(),
                true));
        behindARead(source, verify, "0102c000", AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void atomicWriteWhoseTargetLostRemoteWriteBehindAReadIsAccessViolation_C_ATTR_006_V_TERM_9() {
        TxStopPointTest.HookLink hook = hooked();
        MemoryRegion source = a.region(64 * 1024, EngineFixture.RIGHTS);
        MemorySegment m = a.rnic.allocateMemory(4096, 8);
        MemoryRegion target = a.pd.registerMemory(m, FLUSHABLE);
        int key = target.stag() & 0xFF;
        byte[] aw = CommitDraftEngineTest.atomicWriteRequest(2, target.stag(), 8, m.address(), -1L);
        hook.after(2, n -> target.reregister(a.pd, m, FLUSHABLE & ~AccessRights.REMOTE_WRITE, key,
                AddressType.VA_BASED, m.address(), true));
        behindARead(source, aw, "0102c000", AsyncEventType.IRRQ_ACCESS_RIGHTS);
        assertThat(bytes(m, 0, 8)).containsOnly(0); // never placed
    }

    @Test
    void flushWhoseTargetMovedBehindAReadIsBaseOrBounds_V_TERM_9() {
        TxStopPointTest.HookLink hook = hooked();
        MemoryRegion source = a.region(64 * 1024, EngineFixture.RIGHTS);
        MemorySegment m = a.rnic.allocateMemory(4096, 8);
        MemoryRegion target = a.pd.registerMemory(m, FLUSHABLE);
        int key = target.stag() & 0xFF;
        byte[] flush = CommitDraftEngineTest.flushRequest(2, target.stag(), 64, m.address(), 0x02);
        // same memory and rights, another base VA: the request's TO is no longer inside the region
        hook.after(2, n -> target.reregister(a.pd, m, FLUSHABLE, key, AddressType.VA_BASED, m.address() + 0x10000,
                true));
        behindARead(source, flush, "0101c000", AsyncEventType.IRRQ_BASE_BOUNDS);
    }

    @Test
    void flushWhoseTargetMemoryWasFreedBehindAReadIsCatastrophic_C_FLUSH_021() {
        TxStopPointTest.HookLink hook = hooked();
        MemoryRegion source = a.region(64 * 1024, EngineFixture.RIGHTS);
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        MemorySegment m = arena.allocate(4096, 8);
        MemoryRegion target = a.pd.registerMemory(m, FLUSHABLE);
        byte[] flush = CommitDraftEngineTest.flushRequest(2, target.stag(), 64, m.address(), 0x02);
        // the application frees the memory under a registered region: it cannot be flushed any more
        hook.after(2, n -> arena.close());
        behindARead(source, flush, "0207c000", AsyncEventType.LOCAL_QP_CATASTROPHIC);
    }

    /**
     * A 64 KiB Read ahead of the request keeps it waiting at the IRD head while the hook (after the
     * second Read Response segment) reregisters its target; the whole Read Response still goes out
     * (request order), then the Terminate for the request, with its DDP header.
     */
    private void behindARead(MemoryRegion source, byte[] request, String code, AsyncEventType event) {
        raw.send(Wire.readRequest(1, 0x0000_7701, 0x1000, 64 * 1024, source.stag(), a.base(source)), request);
        await(() -> raw.closure != null, "the LLP close after the Terminate");
        awaitState(a, QpState.ERROR);
        int responses = (64 * 1024 + 1433) / 1434; // the whole Read Response goes first (request order)
        assertThat(raw.received).hasSize(responses + 1);
        assertBytes(raw.received.getLast(), Wire.TERMINATE_HEADER + " " + code + " 0000 " + header(request));
        assertThat(a.eventTypes()).containsExactly(event);
    }

    // ---- persistence ----------------------------------------------------------------------------

    @Test
    void flushToPersistenceAfterThePersistenceThreadsStoppedIsCatastrophic_C_FLUSH_021() throws Exception {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        java.nio.file.Path file = java.nio.file.Files.createTempFile("jrnic-commit-checks", ".bin");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            MemorySegment mapped = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 4096,
                    java.lang.foreign.Arena.ofAuto());
            MemoryRegion pmem = a.pd.registerMemory(mapped, FLUSHABLE | AccessRights.FLUSHABLE_PERSISTENT);
            a.rnic.persistence.close(); // the RNIC is closing: nothing can be forced any more
            byte[] flush = CommitDraftEngineTest.flushRequest(1, pmem.stag(), 64, a.base(pmem), 0x01);
            requestFails(flush, "0207c000", "0000", AsyncEventType.LOCAL_QP_CATASTROPHIC);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    // ---- requester ------------------------------------------------------------------------------

    @Test
    void requesterAcceptsAVerifyResponseOfTheLargestHash_C_VERIFY_002() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion sink = a.region(128, EngineFixture.RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(3).verify(0x0000_0301, 0, 64, null)
                .sge(sink.stag(), a.base(sink), 128));
        await(() -> raw.received.size() == 1, "the Verify Request");
        byte[] hash = new byte[SendWorkRequest.MAX_HASH_LENGTH]; // a SHA-512 region at the peer
        Arrays.fill(hash, (byte) 0x5A);
        raw.send(Wire.untagged(0xF, true, 0, 3, 1, 0, hash));
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(a.memory(sink), 0, 64)).isEqualTo(hash);
        assertThat(bytes(a.memory(sink), 64, 64)).containsOnly(0);
    }

    @Test
    void requesterAcceptsAVerifyResponseOfTheShortestHash_C_VERIFY_002() {
        // the algorithm is the peer region's: a scrub's response may carry a hash of a single byte
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion sink = a.region(8, EngineFixture.RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(4).verify(0x0000_0301, 0, 64, null)
                .sge(sink.stag(), a.base(sink), 8));
        await(() -> raw.received.size() == 1, "the Verify Request");
        raw.send(Wire.untagged(0xF, true, 0, 3, 1, 0, new byte[] {(byte) 0x5A}));
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(4);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(a.memory(sink), 0, 8)).isEqualTo(new byte[] {0x5A, 0, 0, 0, 0, 0, 0, 0});
    }

    // ---- hash cache -----------------------------------------------------------------------------

    @Test
    void moreDistinctHashesThanTheCacheHoldsStillVerify_C_VERIFY_002() throws Exception {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        int regions = 20; // more than CommitDraft.MAX_HASHERS (16): the cache is reused round robin
        byte[] data = "the same bytes under twenty keys".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < regions; i++) {
            byte[] key = ("key " + i).getBytes(StandardCharsets.US_ASCII);
            MemorySegment m = a.rnic.allocateMemory(64, 8);
            MemorySegment.copy(data, 0, m, ValueLayout.JAVA_BYTE, 0, data.length);
            MemoryRegion mr = a.pd.registerMemory(m, FLUSHABLE, 0, AddressType.VA_BASED, m.address(), true,
                    VerifyHash.of("HmacSHA256", key));
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
            byte[] expected = mac.doFinal(data);
            raw.send(CommitDraftEngineTest.verifyRequest(i + 1, mr.stag(), data.length, m.address(), expected));
            int n = i + 1;
            await(() -> raw.received.size() == n, "Verify Response " + n);
            assertBytes(raw.received.get(i), String.format("41 4f 00000000 00000003 %08x 00000000 ", n)
                    + hex(expected));
        }
        assertThat(a.events).isEmpty();
    }
}
