package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flush to persistence on the deterministic single-threaded loop ({@link LoopLinkPair}), with the
 * responder's persistence executor replaced by a queue the test runs by hand: a force that has not
 * run yet is a "slow msync" without any timing. While it is pending, another QP on the same loop
 * completes Writes and Reads, the Flushing QP keeps sending its own SQ and placing later inbound
 * Writes and Sends, and nothing behind the Flush in the IRD is answered; the response follows the
 * force. A reset while the force is pending sends nothing and drops the late completion.
 */
class CommitDraftPersistenceLoopTest extends LoopEngineFixture {
    private static final int PERSISTENT = EngineFixture.RIGHTS | AccessRights.FLUSHABLE_PERSISTENT
            | AccessRights.FLUSHABLE_GLOBAL;

    @TempDir
    Path dir;

    /** Force tasks the responder handed off, run when the test says so. */
    private final ArrayDeque<Runnable> held = new ArrayDeque<>();
    /** (offset in the file, length) of every range forced. */
    private final List<Long> forced = new ArrayList<>();

    private MemorySegment mapped(long size) throws IOException {
        try (FileChannel ch = FileChannel.open(dir.resolve("pmem.bin"), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, size, Arena.ofAuto());
        }
    }

    /** The responder's forces are held until {@link #held} is run, and recorded. */
    private void holdForces(EngineFixture.Side responder, MemorySegment file) {
        responder.rnic.persistence.executor(held::add);
        responder.rnic.persistence.forcer(range -> {
            forced.add(range.address() - file.address());
            forced.add(range.byteSize());
            range.force();
        });
    }

    private static List<WorkCompletion> poll(EngineFixture.Side s) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (s.cq.poll(wc)) {
            out.add(new WorkCompletion().copyFrom(wc));
        }
        return out;
    }

    @Test
    void pendingForceStallsNeitherTheLoopNorTheSqAndTheResponseFollowsIt_C_FLUSH_014_C_FLUSH_043_C_FLUSH_045()
            throws IOException {
        LoopLinkPair first = new LoopLinkPair(loop, 1448, LoopLinkPair.newLog());
        LoopLinkPair second = new LoopLinkPair(loop, 1448, LoopLinkPair.newLog());
        EngineFixture.Side a1 = side(first.a);
        EngineFixture.Side b1 = side(first.b);
        EngineFixture.Side a2 = side(second.a);
        EngineFixture.Side b2 = side(second.b);
        MemorySegment file = mapped(8192);
        MemoryRegion pmem = b1.pd.registerMemory(file, PERSISTENT);
        long to = b1.base(pmem);
        holdForces(b1, file);
        MemoryRegion src = a1.region(8192, EngineFixture.RIGHTS);
        EngineFixture.fill(a1.memory(src), 5);
        long sa = a1.base(src);

        a1.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src.stag(), sa, 4096)
                .remote(pmem.stag(), to));
        a1.qp.postSend(new SendWorkRequest().wrId(2).flush(pmem.stag(), to, 4096, SendWorkRequest.FLUSH_PERSISTENCE));
        a1.qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_READ).sge(src.stag(), sa + 4096, 4096)
                .remote(pmem.stag(), to));
        loop.runAll();
        assertThat(held).hasSize(1); // the force was handed off; it has not run
        assertThat(forced).isEmpty();
        assertThat(b1.engine.commit.persisting()).isTrue();
        assertThat(poll(a1)).extracting(WorkCompletion::wrId).containsExactly(1L); // no Flush, no Read yet

        // another QP on the same loop: its Writes and Reads complete meanwhile
        MemoryRegion x = a2.region(65536, EngineFixture.RIGHTS);
        MemoryRegion y = b2.region(65536, EngineFixture.RIGHTS);
        EngineFixture.fill(a2.memory(x), 9);
        a2.qp.postSend(new SendWorkRequest().wrId(10).opcode(Opcode.RDMA_WRITE).sge(x.stag(), a2.base(x), 32768)
                .remote(y.stag(), b2.base(y)));
        a2.qp.postSend(new SendWorkRequest().wrId(11).opcode(Opcode.RDMA_READ)
                .sge(x.stag(), a2.base(x) + 32768, 32768).remote(y.stag(), b2.base(y)));
        // the Flushing QP's own SQ (RFC 5040 §5.5: independent of its Read/Flush responses) and a Send
        // and a Write of its peer after the Flush (C-FLUSH-042, C-FLUSH-045: placed and delivered now)
        a1.qp.postReceive(new ReceiveWorkRequest().wrId(20).sge(src.stag(), sa + 8000, 64));
        b1.qp.postReceive(new ReceiveWorkRequest().wrId(21).sge(0, 0, 0));
        b1.qp.postSend(new SendWorkRequest().wrId(22).opcode(Opcode.SEND));
        a1.qp.postSend(new SendWorkRequest().wrId(4).opcode(Opcode.SEND));
        a1.qp.postSend(new SendWorkRequest().wrId(5).opcode(Opcode.RDMA_WRITE).sge(src.stag(), sa + 100, 8)
                .remote(pmem.stag(), to + 6000));
        loop.runAll();
        assertThat(poll(a2)).extracting(WorkCompletion::wrId, WorkCompletion::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(10L, WorkCompletionStatus.SUCCESS),
                org.assertj.core.groups.Tuple.tuple(11L, WorkCompletionStatus.SUCCESS));
        assertThat(EngineFixture.bytes(a2.memory(x), 32768, 32768))
                .isEqualTo(EngineFixture.bytes(a2.memory(x), 0, 32768));
        assertThat(poll(b1)).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(21L, 22L);
        assertThat(EngineFixture.bytes(file, 6000, 8)).isEqualTo(EngineFixture.bytes(a1.memory(src), 100, 8));
        // a1: its Receive completed; the Send and Write wait behind the Read in SQ completion order
        assertThat(poll(a1)).extracting(WorkCompletion::wrId).containsExactly(20L);
        assertThat(held).hasSize(1);
        assertThat(b1.engine.commit.persisting()).isTrue();

        // the force completes: only now the Flush Response, then the Read queued behind it
        held.poll().run();
        assertThat(forced).containsExactly(0L, 4096L);
        loop.runAll();
        List<WorkCompletion> wcs = poll(a1);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(2L, 3L, 4L, 5L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(wcs.getFirst().opcode()).isEqualTo(Opcode.RDMA_FLUSH);
        assertThat(EngineFixture.bytes(a1.memory(src), 4096, 4096)).isEqualTo(EngineFixture.bytes(file, 0, 4096));
        assertThat(b1.engine.commit.persisting()).isFalse();
        assertThat(b1.qp.query().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void resetWhileTheForceRunsSendsNoResponseAndDropsItsCompletion_C_FLUSH_014() throws IOException {
        List<String> log = LoopLinkPair.newLog();
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, log);
        EngineFixture.Side a = side(pair.a);
        EngineFixture.Side b = side(pair.b);
        MemorySegment file = mapped(4096);
        MemoryRegion pmem = b.pd.registerMemory(file, PERSISTENT);
        holdForces(b, file);
        pair.b.logging = true;
        a.qp.postSend(new SendWorkRequest().wrId(1).flush(pmem.stag(), b.base(pmem), 4096,
                SendWorkRequest.FLUSH_PERSISTENCE));
        MemoryRegion sink = a.region(64, EngineFixture.RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).sge(sink.stag(), a.base(sink), 64)
                .remote(pmem.stag(), b.base(pmem)));
        loop.runAll();
        assertThat(held).hasSize(1);
        assertThat(log).isEmpty(); // B sent nothing: the Flush waits for its force, the Read behind it

        b.qp.modify(new QueuePairModification().nextState(QpState.ERROR));
        loop.runAll();
        assertThat(b.qp.query().state()).isEqualTo(QpState.ERROR);
        assertThat(b.engine.commit.persisting()).isFalse(); // cancelled with the IRD: nothing left over

        // the msync finishes after the QP left RTS: its report is dropped, nothing goes on the wire
        held.poll().run();
        assertThat(forced).containsExactly(0L, 4096L);
        assertThat(loop.runAll()).isEqualTo(1); // the report itself, and nothing it scheduled
        assertThat(log).isEmpty();
        assertThat(poll(a)).isEmpty(); // the requester never saw a response
        assertThat(b.engine.commit.persisting()).isFalse();
        assertThat(b.qp.query().state()).isEqualTo(QpState.ERROR);
    }
}
