package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Flush to persistence forces its range on the RNIC's persistence threads, not on the QP's event
 * loop (docs/engine.md "Flush to persistence off the loop"), against a raw peer that sees the exact
 * bytes: while a slow force (held on a latch) runs, the same QP still places inbound Writes; the Flush
 * Response goes only after the force returned, followed by the Read queued behind it; a failed force
 * is the Terminate 0/2/0x07 with the Flush Request's DDP header and no response.
 */
class CommitDraftPersistenceTest extends EngineFixture {
    private static final int PERSISTENT = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE | AccessRights.FLUSHABLE_PERSISTENT | AccessRights.FLUSHABLE_GLOBAL;
    private static final String FLUSH_RESPONSE_1 = "41 4d 00000000 00000003 00000001 00000000";

    @TempDir
    Path dir;

    /** A file-mapped segment (a registration with FLUSHABLE_PERSISTENT needs one, C-ATTR-003). */
    private MemorySegment mapped(long size) throws IOException {
        try (FileChannel ch = FileChannel.open(dir.resolve("pmem-" + size + ".bin"), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, size, Arena.ofAuto());
        }
    }

    private static String header(byte[] ulpdu) {
        return hex(Arrays.copyOf(ulpdu, 18));
    }

    @Test
    void slowForceRunsOffTheLoopAndTheResponseFollowsIt_C_FLUSH_014_C_FLUSH_024_C_FLUSH_042_C_FLUSH_043()
            throws Exception {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemorySegment file = mapped(8192);
        MemoryRegion pmem = a.pd.registerMemory(file, PERSISTENT);
        long to = a.base(pmem);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> forcedOn = new CopyOnWriteArrayList<>();
        List<Long> forcedRanges = new CopyOnWriteArrayList<>();
        a.rnic.persistence.forcer(range -> {
            forcedOn.add(Thread.currentThread().getName());
            forcedRanges.add(range.address() - file.address());
            forcedRanges.add(range.byteSize());
            entered.countDown();
            try {
                if (!release.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the force");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            range.force();
        });
        assertThat(a.rnic.persistence.started()).isFalse(); // no thread before the first Flush P

        byte[] flush = CommitDraftEngineTest.flushRequest(1, pmem.stag(), 4096, to,
                FLUSH_PERSISTENCE | FLUSH_GLOBAL_VISIBILITY);
        byte[] read = Wire.readRequest(2, 0x0000_7701, 0x2000, 16, pmem.stag(), to + 100);
        raw.send(flush, read);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        // the force blocks a persistence thread, not the loop: a later Write of the same stream is
        // placed meanwhile (C-FLUSH-042), and nothing was answered (C-FLUSH-014, C-FLUSH-043)
        byte[] payload = hex("0102030405060708090a0b0c0d0e0f10");
        raw.send(Wire.tagged(0x0, true, pmem.stag(), to + 100, payload));
        await(() -> Arrays.equals(bytes(file, 100, 16), payload), "the Write placed during the force");
        link.settle();
        assertThat(raw.received).isEmpty();
        assertThat(a.engine.remoteReadsInProgress()).isTrue();

        release.countDown();
        await(() -> raw.received.size() == 2, "the Flush Response and the Read Response");
        assertBytes(raw.received.get(0), FLUSH_RESPONSE_1);
        // the Read behind the Flush answers after it, with the bytes placed during the force
        assertBytes(raw.received.get(1), "c1 42 00007701 0000000000002000 " + hex(payload));
        assertThat(forcedOn).singleElement().asString().startsWith("jrnic-persist-");
        assertThat(forcedRanges).containsExactly(0L, 4096L);
        assertThat(a.rnic.persistence.started()).isTrue();
        assertThat(a.qp.query().state()).isEqualTo(QpState.RTS);
        assertThat(a.events).isEmpty();
    }

    @Test
    void failedForceTerminatesWithCatastrophicLocalizedAndNoResponse_C_FLUSH_013_C_FLUSH_021_C_FLUSH_051()
            throws Exception {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion pmem = a.pd.registerMemory(mapped(4096), PERSISTENT);
        a.rnic.persistence.forcer(range -> {
            throw new UncheckedIOException(new IOException("the device under the file failed"));
        });
        byte[] flush = CommitDraftEngineTest.flushRequest(1, pmem.stag(), 64, a.base(pmem), FLUSH_PERSISTENCE);
        raw.send(flush);
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        assertThat(raw.received).hasSize(1); // no Flush Response (C-FLUSH-021)
        // 0/2/0x07 with the Flush Request's DDP header (M=1, D=1, R=0), no segment length
        assertBytes(raw.received.getFirst(), Wire.TERMINATE_HEADER + " 0207c000 0000 " + header(flush));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC);
    }

    @Test
    void globalVisibilityFlushNeverStartsThePersistenceThreads_C_FLUSH_020() throws Exception {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion pmem = a.pd.registerMemory(mapped(4096), PERSISTENT);
        raw.send(CommitDraftEngineTest.flushRequest(1, pmem.stag(), 64, a.base(pmem), FLUSH_GLOBAL_VISIBILITY),
                CommitDraftEngineTest.flushRequest(2, pmem.stag(), 0, a.base(pmem), FLUSH_PERSISTENCE));
        await(() -> raw.received.size() == 2, "two Flush Responses");
        assertBytes(raw.received.get(0), FLUSH_RESPONSE_1);
        assertBytes(raw.received.get(1), "41 4d 00000000 00000003 00000002 00000000");
        // a fence only, and a zero-length Flush P has nothing to force: both answered on the loop
        assertThat(a.rnic.persistence.started()).isFalse();
    }

    private static final int FLUSH_PERSISTENCE = io.jrnic.api.SendWorkRequest.FLUSH_PERSISTENCE;
    private static final int FLUSH_GLOBAL_VISIBILITY = io.jrnic.api.SendWorkRequest.FLUSH_GLOBAL_VISIBILITY;
}
