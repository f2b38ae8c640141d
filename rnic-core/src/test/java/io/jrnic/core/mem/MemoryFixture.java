package io.jrnic.core.mem;

import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ResourceQuota;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import org.junit.jupiter.api.AfterEach;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory classes on their own, without an RNIC or a QP (issue 10: memory is the lowest layer
 * and knows the RNIC only as a {@link MemoryOwner} / {@link ProtectionDomainOwner}, a QP only as a
 * {@link QpMemoryView}): a {@link StagTable} and {@link MemoryManager} over a fake owner, PDs made
 * directly, and fake QPs. The same world is available without JUnit as {@link FakeRnic}, for the
 * engine's tests (a real STag table and PDs under a fake QP context).
 */
public abstract class MemoryFixture {
    public static final long PAGE = 4096;

    final FakeRnic rnic = new FakeRnic();
    final Arena arena = rnic.arena;
    final Owner owner = rnic.owner;
    final StagTable table = rnic.table;
    final MemoryManager manager = rnic.manager;

    @AfterEach
    void closeArena() {
        rnic.close();
    }

    MemoryManager manager(ResourceQuota quota) {
        return rnic.manager(quota);
    }

    SoftProtectionDomain pd() {
        return rnic.pd();
    }

    /** Page-aligned memory of {@code pages} pages. */
    MemorySegment memory(int pages) {
        return rnic.memory(pages);
    }

    /**
     * The memory side of one RNIC: a shared arena, the fake owner, a real {@link StagTable} (64
     * entries, no physical address space) and a real {@link MemoryManager} over them. Close it to
     * free the arena.
     */
    public static final class FakeRnic implements AutoCloseable {
        public final Arena arena = Arena.ofShared();
        public final Owner owner = new Owner(arena);
        public final StagTable table = new StagTable(64, MemorySegment.NULL);
        public final MemoryManager manager = manager(ResourceQuota.UNLIMITED);
        private int nextPd = 1;

        /** A manager over this table with a quota. */
        public MemoryManager manager(ResourceQuota quota) {
            return new MemoryManager(owner, table, PAGE, 16, 32, 32, quota);
        }

        /** A new PD (numbered from 1). */
        public SoftProtectionDomain pd() {
            return new SoftProtectionDomain(manager, owner, nextPd++);
        }

        /** Page-aligned memory of {@code pages} pages. */
        public MemorySegment memory(int pages) {
            return arena.allocate(pages * PAGE, PAGE);
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /** The RNIC as the memory classes see it: an open flag, an arena, and what the PDs hand up. */
    public static final class Owner implements MemoryOwner, ProtectionDomainOwner {
        private final Arena arena;
        public boolean open = true;
        public final List<String> calls = new ArrayList<>();

        Owner(Arena arena) {
            this.arena = arena;
        }

        @Override
        public void checkOpen() {
            if (!open) {
                throw new VerbsException(VerbsStatus.INVALID_RNIC_HANDLE, "closed");
            }
        }

        @Override
        public MemorySegment allocateMemory(long byteSize, long alignment) {
            calls.add("allocate " + byteSize + " align " + alignment);
            return arena.allocate(byteSize, alignment);
        }

        @Override
        public QueuePair createQueuePair(SoftProtectionDomain pd, QueuePairConfig config) {
            calls.add("qp in " + pd);
            return null;
        }

        @Override
        public SharedReceiveQueue createSharedReceiveQueue(SoftProtectionDomain pd, int maxWrs, int maxSge,
                                                           int limit) {
            calls.add("srq in " + pd + " " + maxWrs + "/" + maxSge + "/" + limit);
            return null;
        }

        @Override
        public void deallocate(SoftProtectionDomain pd) {
            calls.add("deallocate " + pd);
        }
    }

    /** A QP as memory sees it: PD, number, enables, bound window count. */
    static final class FakeQp implements QpMemoryView {
        final SoftProtectionDomain pd;
        final int id;
        boolean privileged;
        boolean bindWindows;
        boolean inboundRead;
        boolean inboundWrite;
        int boundWindows;

        FakeQp(SoftProtectionDomain pd, int id) {
            this.pd = pd;
            this.id = id;
        }

        FakeQp enables(boolean privileged, boolean bindWindows, boolean inboundRead, boolean inboundWrite) {
            this.privileged = privileged;
            this.bindWindows = bindWindows;
            this.inboundRead = inboundRead;
            this.inboundWrite = inboundWrite;
            return this;
        }

        @Override
        public SoftProtectionDomain pd() {
            return pd;
        }

        @Override
        public int id() {
            return id;
        }

        @Override
        public boolean privileged() {
            return privileged;
        }

        @Override
        public boolean bindWindows() {
            return bindWindows;
        }

        @Override
        public boolean inboundRead() {
            return inboundRead;
        }

        @Override
        public boolean inboundWrite() {
            return inboundWrite;
        }

        @Override
        public void addBoundWindows(int delta) {
            boundWindows += delta;
        }
    }
}
