package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.CommitDraft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commit draft over real TCP between two RNICs: an RDMA Write into a file-mapped region, a
 * Flush to persistence ({@code MemorySegment.force()}, AMB-62), then an Atomic Write of a validity
 * flag and a Verify, and the file read back through a second, independent mapping.
 */
class CommitDraftLoopbackTest extends LoopbackFixture {
    private static final int SIZE = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    void writeThenFlushToPersistenceReachesTheFile_C_FLUSH_002_C_FLUSH_024_C_FLUSH_040_AMB_62() throws Exception {
        Path file = dir.resolve("pmem.bin");
        try (Arena arena = Arena.ofShared();
             FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                     StandardOpenOption.WRITE)) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE + 8, arena);
            MemoryRegion pmem = b.pd.registerMemory(mapped, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE
                    | AccessRights.REMOTE_WRITE | AccessRights.FLUSHABLE_PERSISTENT | AccessRights.FLUSHABLE_GLOBAL
                    | AccessRights.VERIFIABLE);
            long to = mapped.address(); // VA-based
            Pair p = connect(new ConnectionSettings());
            Buffer src = a.buffer(SIZE);
            Buffer hashSink = a.buffer(32);
            EngineFixture.fill(src.memory(), 17);
            byte[] data = src.memory().toArray(ValueLayout.JAVA_BYTE);

            p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), SIZE)
                    .remote(pmem.stag(), to));
            p.qpA().postSend(new SendWorkRequest().wrId(2).flush(pmem.stag(), to, SIZE,
                    SendWorkRequest.FLUSH_PERSISTENCE | SendWorkRequest.FLUSH_GLOBAL_VISIBILITY));
            p.qpA().postSend(new SendWorkRequest().wrId(3).atomicWrite(pmem.stag(), to + SIZE, 0x0101_0101_0101_0101L));
            p.qpA().postSend(new SendWorkRequest().wrId(4).flush(pmem.stag(), to + SIZE, 8,
                    SendWorkRequest.FLUSH_PERSISTENCE));
            p.qpA().postSend(new SendWorkRequest().wrId(5).verify(pmem.stag(), to, SIZE, CommitDraft.hash(data))
                    .sge(hashSink.stag(), hashSink.to(), 32));
            List<WorkCompletion> wcs = a.completions(5);
            assertThat(wcs).extracting(WorkCompletion::opcode).containsExactly(Opcode.RDMA_WRITE, Opcode.RDMA_FLUSH,
                    Opcode.ATOMIC_WRITE, Opcode.RDMA_FLUSH, Opcode.RDMA_VERIFY);
            assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
            assertThat(hashSink.memory().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(CommitDraft.hash(data));

            // the file through another mapping (another arena, another channel)
            try (Arena other = Arena.ofConfined();
                 FileChannel again = FileChannel.open(file, StandardOpenOption.READ)) {
                MemorySegment view = again.map(FileChannel.MapMode.READ_ONLY, 0, SIZE + 8, other);
                assertThat(view.asSlice(0, SIZE).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(data);
                assertThat(view.get(ValueLayout.JAVA_LONG_UNALIGNED, SIZE)).isEqualTo(0x0101_0101_0101_0101L);
            }
            assertThat(p.qpA().query().state()).isEqualTo(QpState.RTS);
            assertThat(p.qpB().query().state()).isEqualTo(QpState.RTS);
            assertThat(a.events).isEmpty();
            assertThat(b.events).isEmpty();
            pmem.close();
        }
    }

    /**
     * C-FLUSH-002 over TCP through the persistence seam: the Flush to persistence forces exactly
     * the requested range of the file mapping, and its Flush Response is sent only after the force
     * returned: while the force is held, the requester's Flush stays incomplete. A read-back of the
     * file cannot show this (it reads the same page cache with or without an msync).
     */
    @Test
    void flushToPersistenceForcesTheRangeBeforeItsResponse_C_FLUSH_002_C_FLUSH_024() throws Exception {
        Path file = dir.resolve("pmem-forced.bin");
        try (Arena arena = Arena.ofShared();
             FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                     StandardOpenOption.WRITE)) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE, arena);
            MemoryRegion pmem = b.pd.registerMemory(mapped, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE
                    | AccessRights.REMOTE_WRITE | AccessRights.FLUSHABLE_PERSISTENT);
            java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            List<long[]> forced = new java.util.concurrent.CopyOnWriteArrayList<>();
            b.rnic.persistence.forcer(range -> {
                forced.add(new long[] {range.address() - mapped.address(), range.byteSize()});
                entered.countDown();
                try {
                    if (!release.await(WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never released the force");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                range.force(); // the real msync after the hold
            });
            Pair p = connect(new ConnectionSettings());
            p.qpA().postReceive(new io.jrnic.api.ReceiveWorkRequest().wrId(8).sge(0, 0, 0));
            Buffer src = a.buffer(8192);
            EngineFixture.fill(src.memory(), 23);
            long to = mapped.address() + 4096; // VA-based
            p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), 8192)
                    .remote(pmem.stag(), to));
            p.qpA().postSend(new SendWorkRequest().wrId(2).flush(pmem.stag(), to, 8192,
                    SendWorkRequest.FLUSH_PERSISTENCE));
            assertThat(a.completions(1)).extracting(WorkCompletion::wrId).containsExactly(1L);
            assertThat(entered.await(WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS))
                    .as("the Flush to persistence called force").isTrue();
            // while the force is held b sends a message: a response sent before the force would be
            // ahead of it on the stream and complete a's Flush first (one CQ, arrival order)
            p.qpB().postSend(new SendWorkRequest().wrId(9).opcode(Opcode.SEND));
            WorkCompletion rx = a.completions(1).getFirst();
            assertThat(rx.opcode()).as("the Send, not the Flush Response, arrives first").isEqualTo(Opcode.RECEIVE);
            assertThat(a.drain()).isEmpty();
            release.countDown();
            List<WorkCompletion> wcs = a.completions(1);
            assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(2L);
            assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
            assertThat(forced).hasSize(1);
            assertThat(forced.getFirst()).containsExactly(4096L, 8192L); // exactly the requested range
            pmem.close();
        }
    }
}
