package io.jrnic.core;

import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.StagState;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.mem.StagTable;
import io.jrnic.core.qp.SoftQueuePair;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static io.jrnic.api.AccessRights.BIND_WINDOW;
import static io.jrnic.api.AccessRights.LOCAL_READ;
import static io.jrnic.api.AccessRights.LOCAL_WRITE;
import static io.jrnic.api.AccessRights.REMOTE_READ;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Edges of the memory work requests and SGE checks that the conformance walk of issue 9 found
 * untested (mutants of MemoryManager and StagTable that no test killed): the STag key on Invalidate
 * Local STag, the unbinding an invalidation implies, Fast-Register's VA checks, Bind's wrap and
 * zero-length windows, and STag 0's bounds at both ends of physical memory.
 */
class MemoryWorkRequestEdgeTest extends VerbsFixture {
    private MemorySegment mem;
    private MemoryRegion mr;

    @BeforeEach
    void setUp() {
        mem = rnic.allocateMemory(8192, 4096);
        mr = pd.registerMemory(mem, LOCAL_READ | LOCAL_WRITE | BIND_WINDOW, 1, AddressType.VA_BASED, mem.address(),
                false);
    }

    /** Posts on a fresh QP and returns the one completion status; an error terminates that QP. */
    private WorkCompletionStatus postOnFreshQp(SendWorkRequest wr) {
        QueuePair q = pd.createQueuePair(qpConfig().privileged(true));
        toRts(q);
        drain(cq);
        q.postSend(wr);
        List<WorkCompletion> wcs = drain(cq);
        assertThat(wcs).hasSize(1);
        if (wcs.getFirst().status() != WorkCompletionStatus.SUCCESS) {
            assertThat(q.state()).isEqualTo(QpState.TERMINATE); // Verbs §8.3.2 Figure 23
        }
        return wcs.getFirst().status();
    }

    /** Posts on a fresh QP and returns the one completion status, checking that nothing was sent. */
    private WorkCompletionStatus postOnFreshQpSendsNothing(SendWorkRequest wr) {
        QueuePair q = pd.createQueuePair(qpConfig().privileged(true));
        FakeTransport t = toRts(q);
        drain(cq);
        q.postSend(wr);
        assertThat(t.transmitted).isEmpty();
        List<WorkCompletion> wcs = drain(cq);
        assertThat(wcs).hasSize(1);
        return wcs.getFirst().status();
    }

    private static SendWorkRequest invalidate(int stag) {
        return new SendWorkRequest().wrId(5).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(stag);
    }

    private SendWorkRequest bind(MemoryWindow mw, int key, MemoryRegion region, long va, long len) {
        return new SendWorkRequest().wrId(7).bind(mw.stagIndex() << 8 | key, region.stag(), va, len,
                AddressType.VA_BASED, REMOTE_READ);
    }

    @Test
    void invalidateLocalWithAnotherKeyIsInvalidStagAndLeavesTheStagValid_V_MR_73_V_MR_121_V_MW_45() {
        // Verbs §7.2: while an STag is Valid all 32 bits name it; the key of another registration fails
        int wrongKey = mr.stag() & ~0xFF | 2;
        assertThat(postOnFreshQp(invalidate(wrongKey))).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertThat(mr.query().state()).isEqualTo(StagState.VALID);
        assertThat(postOnFreshQp(invalidate(mr.stag()))).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(mr.query().state()).isEqualTo(StagState.INVALID);

        // the same for a window bound on the QP that invalidates it
        MemoryWindow mw = pd.allocateWindow();
        QueuePair owner = pd.createQueuePair(qpConfig());
        toRts(owner);
        MemoryRegion region = pd.registerMemory(mem, LOCAL_READ | BIND_WINDOW, 3, AddressType.VA_BASED,
                mem.address(), false);
        owner.postSend(bind(mw, 4, region, mem.address(), 64));
        owner.postSend(invalidate(mw.stagIndex() << 8 | 5));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS,
                WorkCompletionStatus.INVALID_STAG);
        assertThat(mw.query().state()).isEqualTo(StagState.VALID);
    }

    @Test
    void invalidatingAWindowUnbindsItFromItsRegionAndQp_V_MW_32_V_MR_31_V_MW_46() {
        MemoryWindow mw = pd.allocateWindow();
        QueuePair owner = pd.createQueuePair(qpConfig());
        toRts(owner);
        owner.postSend(bind(mw, 4, mr, mem.address(), 64));
        assertThat(mr.query().boundWindows()).isEqualTo(1);
        owner.postSend(invalidate(mw.stag()));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        // Verbs §7.10.6.3, V-MW-32: the window goes back to the PD; the region leaves its "Valid Parent
        // Region" sub-state (V-MR-31), so deregistration and Destroy QP are allowed again (V-MW-46)
        assertThat(mr.query().boundWindows()).isZero();
        mr.close();
        owner.close();
        assertThat(mw.query().state()).isEqualTo(StagState.INVALID);
    }

    @Test
    void fastRegisterChecksTheVirtualAddressPageOffsetAndWrap_V_MR_98_V_MR_104_V_ERR_56() {
        MemorySegment m = rnic.allocateMemory(2 * 4096, 4096);
        MemoryRegion s = pd.allocateRegionStag(3, false);
        int stag = s.stagIndex() << 8 | 9;
        // VA-based with any VA whose offset in its page is the memory's (Verbs §7.5.2 FBO rule)
        long va = 0x7000_0000_0000L + 100;
        assertThat(postOnFreshQp(new SendWorkRequest().wrId(1).fastRegister(stag, m.asSlice(100, 200), LOCAL_READ,
                AddressType.VA_BASED, va))).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(s.query().baseTo()).isEqualTo(va);
        assertThat(s.query().length()).isEqualTo(200);
        assertThat(postOnFreshQp(invalidate(stag))).isEqualTo(WorkCompletionStatus.SUCCESS);
        // page offset 164 against the memory's 100
        assertThat(postOnFreshQp(new SendWorkRequest().wrId(2).fastRegister(stag, m.asSlice(100, 200), LOCAL_READ,
                AddressType.VA_BASED, va + 64))).isEqualTo(WorkCompletionStatus.INVALID_VIRTUAL_ADDRESS);
        // right page offset, but the range would run past 2^64
        MemorySegment tail = m.asSlice(4090, 100);
        assertThat(postOnFreshQp(new SendWorkRequest().wrId(3).fastRegister(stag, tail, LOCAL_READ,
                AddressType.VA_BASED, -6L))).isEqualTo(WorkCompletionStatus.INVALID_VIRTUAL_ADDRESS);
        assertThat(s.query().state()).isEqualTo(StagState.INVALID);
    }

    @Test
    void bindChecksWrapAndAllowsZeroLengthWindowsUpToTheRegionEnd_V_MW_13_V_MW_39_V_ERR_51() {
        MemoryWindow mw = pd.allocateWindow();
        // a region whose VA range ends exactly at 2^64
        MemoryRegion high = pd.registerMemory(mem, LOCAL_READ | BIND_WINDOW, 2, AddressType.VA_BASED,
                -mem.byteSize(), false);
        assertThat(postOnFreshQp(bind(mw, 0, high, -16, 32))).isEqualTo(WorkCompletionStatus.WRAP_ERROR);
        assertThat(postOnFreshQp(bind(mw, 0, high, -16, 16))).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(mw.query().state()).isEqualTo(StagState.VALID);
        // zero-length windows: inside [base, base + length], nowhere else
        MemoryWindow zero = pd.allocateWindow();
        long end = mem.address() + mem.byteSize();
        assertThat(postOnFreshQp(bind(zero, 0, mr, end + 1, 0)))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(postOnFreshQp(bind(zero, 0, mr, mem.address() - 1, 0)))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(zero.query().state()).isEqualTo(StagState.INVALID);
        assertThat(postOnFreshQp(bind(zero, 0, mr, end, 0))).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(zero.query().length()).isZero();
    }

    @Test
    void stagZeroReachesExactlyThePhysicalMemory_V_MR_18_V_SEC_16() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment phys = arena.allocate(4096);
            try (SoftRnic r = SoftRnic.open(config().physicalMemory(phys))) {
                ProtectionDomain p = r.allocatePd();
                io.jrnic.api.CompletionQueue c = r.createCq(8);
                SoftQueuePair priv = (SoftQueuePair) p.createQueuePair(new QueuePairConfig().cqs(c, c).privileged(true));
                StagTable t = r.stags;
                long base = phys.address();
                // Verbs §7.2.1: the TO is the physical address; byte-granular bounds (V-SEC-16) at both ends
                assertThat(t.checkLocal(0, base, 4096, priv.pd(), true, LOCAL_READ)).isNull();
                assertThat(t.checkLocal(0, base + 4095, 1, priv.pd(), true, LOCAL_WRITE)).isNull();
                assertThat(t.checkLocal(0, base + 1, 4096, priv.pd(), true, LOCAL_READ))
                        .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
                assertThat(t.checkLocal(0, base - 1, 1, priv.pd(), true, LOCAL_READ))
                        .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
                assertThat(t.checkLocal(0, base + 4096, 1, priv.pd(), true, LOCAL_READ))
                        .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
            }
        }
    }

    @Test
    void sglLongerThanTheLargestRdmapMessageIsTotalLengthTooBig_V_WR_41_V_ERR_58(@TempDir Path dir) throws IOException {
        // 2 GiB of address space from a sparse file: registered, never touched
        try (Arena arena = Arena.ofShared();
             FileChannel f = FileChannel.open(dir.resolve("sparse"), StandardOpenOption.CREATE_NEW,
                     StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.SPARSE)) {
            MemorySegment big = f.map(FileChannel.MapMode.READ_WRITE, 0, 1L << 31, arena);
            MemoryRegion region = pd.registerMemory(big, LOCAL_READ);
            int max = Integer.MAX_VALUE;
            long to = big.address();
            // Verbs §8.1.3.2, RFC 5040 §1.1: one message carries at most 2^32 - 1 bytes
            for (Opcode op : new Opcode[] {Opcode.SEND, Opcode.RDMA_WRITE}) {
                SendWorkRequest over = new SendWorkRequest().wrId(1).opcode(op).sge(region.stag(), to, max)
                        .sge(region.stag(), to, max).sge(region.stag(), to, 2);
                if (op == Opcode.RDMA_WRITE) {
                    over.remote(0x1234_5600, 0);
                }
                assertThat(postOnFreshQpSendsNothing(over)).as(op.toString())
                        .isEqualTo(WorkCompletionStatus.TOTAL_LENGTH_TOO_BIG);
            }
            // exactly 2^32 - 1 bytes is a legal message (it is handed to the link)
            QueuePair q = pd.createQueuePair(qpConfig());
            FakeTransport t = toRts(q);
            q.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(region.stag(), to, max)
                    .sge(region.stag(), to, max).sge(region.stag(), to, 1));
            assertThat(t.transmittedIds).containsExactly(2L);
        }
    }

    @Test
    void fastRegisterOfMoreThanTheRnicRegionSizeIsInvalidLength_V_ERR_56() {
        // 4 pages per region at most: 16 KiB
        try (SoftRnic r = SoftRnic.open(config().memoryLimits(4, 16, 16, 4))) {
            ProtectionDomain p = r.allocatePd();
            io.jrnic.api.CompletionQueue c = r.createCq(8);
            MemoryRegion s = p.allocateRegionStag(4, false);
            MemorySegment m = r.allocateMemory(5 * 4096, 4096);
            for (long size : new long[] {4 * 4096 + 1, 4 * 4096}) {
                QueuePair q = p.createQueuePair(new QueuePairConfig().cqs(c, c).privileged(true));
                toRts(q);
                q.postSend(new SendWorkRequest().wrId(size).fastRegister(s.stagIndex() << 8, m.asSlice(0, size),
                        LOCAL_READ, AddressType.ZERO_BASED, 0));
                assertThat(drain(c)).extracting(WorkCompletion::status).containsExactly(size > 4 * 4096
                        ? WorkCompletionStatus.INVALID_LENGTH : WorkCompletionStatus.SUCCESS);
            }
        }
    }

    @Test
    void boundWindowInAnSgeIsAnAccessViolation_V_WR_40() {
        MemoryWindow mw = pd.allocateWindow();
        QueuePair owner = pd.createQueuePair(qpConfig());
        toRts(owner);
        owner.postSend(bind(mw, 4, mr, mem.address(), 64));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
        // Verbs §8.1.3.2: a window has no local rights, so even Valid and bound to this very QP it is
        // never a local buffer
        owner.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.SEND).sge(mw.stag(), mem.address(), 8));
        assertThat(drain(cq)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.ACCESS_VIOLATION);
        assertThat(owner.state()).isEqualTo(QpState.TERMINATE);
    }
}
