package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
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
}
