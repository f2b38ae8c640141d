package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.StagState;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STags that were once good, over real loopback TCP between two RNICs: a peer that still holds an
 * STag after its window was rebound with a new key, invalidated or deallocated, or that names an
 * index beyond the STag table, gets the RFC 5041 §7.2 invalid-STag Terminate (Verbs §7.4, §7.10,
 * V-MR-117: any access through an Invalid STag fails) and places nothing. The first access through
 * the good STag of each test succeeds, so the failure is the STag's, not the setup's.
 */
class StaleStagLoopbackTest extends LoopbackFixture {
    private static final int SIZE = 64;

    /** Node b's window over a region of its own, VA-based, bound through b's QP. */
    private record Target(MemoryRegion region, MemorySegment memory, MemoryWindow window) {
        long to() {
            return memory.address();
        }
    }

    private Pair pair;

    private Target boundWindow(int key) throws Exception {
        pair = connect(new ConnectionSettings());
        MemorySegment m = b.rnic.allocateMemory(4096, 4096);
        MemoryRegion region = b.pd.registerMemory(m, RIGHTS | AccessRights.BIND_WINDOW);
        MemoryWindow mw = b.pd.allocateWindow();
        bind(mw, region, m, key);
        return new Target(region, m, mw);
    }

    private void bind(MemoryWindow mw, MemoryRegion region, MemorySegment m, int key) {
        pair.qpB().postSend(new SendWorkRequest().wrId(100 + key).bind(mw.stag() & ~0xFF | key, region.stag(),
                m.address(), SIZE, AddressType.VA_BASED, AccessRights.REMOTE_WRITE | AccessRights.REMOTE_READ));
        assertThat(b.completions(1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
    }

    /** Node a writes SIZE bytes of 0x5A to (stag, to) and waits for its completion. */
    private WorkCompletionStatus write(int wrId, int stag, long to) {
        Buffer src = a.buffer(SIZE);
        src.memory().fill((byte) 0x5A);
        pair.qpA().postSend(new SendWorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), SIZE)
                .remote(stag, to));
        return a.completions(1).getFirst().status();
    }

    /** A good Write lands, so the window works: the next test step's failure is its STag's. */
    private void goodWrite(Target t) {
        assertThat(write(1, t.window().stag(), t.to())).isEqualTo(WorkCompletionStatus.SUCCESS);
        // the Write completed when handed to the LLP (RFC 5040 §5.3); a Read through the same STag
        // comes back after it was placed (RFC 5040 §5.5 ordering) and brings its bytes
        Buffer sink = a.buffer(SIZE);
        pair.qpA().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), SIZE)
                .remote(t.window().stag(), t.to()));
        assertThat(a.completions(1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(t.memory(), 0, SIZE)).containsOnly((byte) 0x5A);
        assertThat(bytes(sink.memory(), 0, SIZE)).containsOnly((byte) 0x5A);
        t.memory().fill((byte) 0);
    }

    /**
     * Node a's Write to the STag ends in node b's invalid-STag Terminate: RFC 5041 §7.2 layer DDP,
     * tagged buffer error, invalid STag (0x1100), Verbs Figure 24 event TAGGED_INVALID_STAG, nothing
     * placed, both QPs in Error.
     */
    private void writeIsRefusedAsInvalidStag(int stag, MemorySegment target, long to) {
        write(3, stag, to); // completes when handed to the LLP (RFC 5040 §5.3), whatever the peer does
        b.awaitEvent(AsyncEventType.TAGGED_INVALID_STAG, pair.qpB());
        a.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, pair.qpA());
        awaitState(pair.qpB(), QpState.ERROR);
        awaitState(pair.qpA(), QpState.ERROR);
        assertThat(pair.qpB().query().terminateMessage().terminateControl()).isEqualTo(0x1100);
        assertThat(pair.qpA().query().terminateMessage().terminateControl()).isEqualTo(0x1100);
        if (target != null) {
            assertThat(bytes(target, 0, SIZE)).as("nothing placed").containsOnly((byte) 0);
        }
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
    }

    @Test
    void writeWithTheKeyOfAnEarlierBindIsInvalidStag_V_MW_25_V_MR_15() throws Exception {
        Target t = boundWindow(4);
        int oldStag = t.window().stag();
        pair.qpB().postSend(new SendWorkRequest().wrId(7).opcode(Opcode.INVALIDATE_LOCAL_STAG).invalidateStag(oldStag));
        assertThat(b.completions(1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
        bind(t.window(), t.region(), t.memory(), 5);
        assertThat(t.window().stag() & 0xFF).isEqualTo(5);
        goodWrite(t);
        // same index, the key of the earlier bind (Verbs §7.4: all 32 bits validated)
        writeIsRefusedAsInvalidStag(oldStag, t.memory(), t.to());
    }

    @Test
    void writeThroughAnInvalidatedWindowIsInvalidStag_V_MW_34_V_DEF_17_V_MR_117() throws Exception {
        Target t = boundWindow(4);
        goodWrite(t);
        pair.qpB().postSend(new SendWorkRequest().wrId(7).opcode(Opcode.INVALIDATE_LOCAL_STAG)
                .invalidateStag(t.window().stag()));
        assertThat(b.completions(1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
        assertThat(t.window().query().state()).isEqualTo(StagState.INVALID);
        writeIsRefusedAsInvalidStag(t.window().stag(), t.memory(), t.to());
    }

    @Test
    void readThroughAnInvalidatedWindowIsInvalidStag_V_MW_34_V_DEF_17_V_MR_117() throws Exception {
        Target t = boundWindow(4);
        goodWrite(t);
        t.memory().fill((byte) 0x33);
        pair.qpB().postSend(new SendWorkRequest().wrId(7).opcode(Opcode.INVALIDATE_LOCAL_STAG)
                .invalidateStag(t.window().stag()));
        assertThat(b.completions(1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
        Buffer sink = a.buffer(SIZE);
        pair.qpA().postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), SIZE)
                .remote(t.window().stag(), t.to()));
        // RFC 5040 §7.4: RDMAP remote protection error, invalid STag (0x0100); Figure 24 IRRQ event
        b.awaitEvent(AsyncEventType.IRRQ_INVALID_STAG, pair.qpB());
        a.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, pair.qpA());
        assertThat(a.completions(1)).extracting(WorkCompletion::status).doesNotContain(WorkCompletionStatus.SUCCESS);
        awaitState(pair.qpB(), QpState.ERROR);
        assertThat(pair.qpB().query().terminateMessage().terminateControl()).isEqualTo(0x0100);
        assertThat(bytes(sink.memory(), 0, SIZE)).as("no source byte left node b").containsOnly((byte) 0);
    }

    @Test
    void writeThroughADeallocatedWindowIsInvalidStag_V_MW_35() throws Exception {
        Target t = boundWindow(4);
        goodWrite(t);
        int stag = t.window().stag();
        t.window().close(); // Deallocate of a bound window unbinds it (V-MW-38)
        writeIsRefusedAsInvalidStag(stag, t.memory(), t.to());
    }

    /** A region of node b: a good Write through it, then it is revoked, then a Write is refused. */
    private void regionRevokedThenWritten(boolean deallocate) throws Exception {
        pair = connect(new ConnectionSettings());
        Buffer target = b.buffer(SIZE);
        assertThat(write(1, target.stag(), target.to())).isEqualTo(WorkCompletionStatus.SUCCESS);
        Buffer sink = a.buffer(SIZE);
        pair.qpA().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), SIZE)
                .remote(target.stag(), target.to()));
        assertThat(a.completions(1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(target.memory(), 0, SIZE)).containsOnly((byte) 0x5A);
        target.memory().fill((byte) 0);
        if (deallocate) {
            target.mr().close();
        } else {
            pair.qpB().postSend(new SendWorkRequest().wrId(7).opcode(Opcode.INVALIDATE_LOCAL_STAG)
                    .invalidateStag(target.stag()));
            assertThat(b.completions(1)).extracting(WorkCompletion::status)
                    .containsExactly(WorkCompletionStatus.SUCCESS);
            assertThat(target.mr().query().state()).isEqualTo(StagState.INVALID);
        }
        writeIsRefusedAsInvalidStag(target.stag(), target.memory(), target.to());
    }

    @Test
    void writeToAnInvalidatedRegionIsInvalidStag_V_MR_28_V_MR_117() throws Exception {
        regionRevokedThenWritten(false);
    }

    @Test
    void writeToADeallocatedRegionIsInvalidStag_V_MR_33_V_MR_125() throws Exception {
        regionRevokedThenWritten(true);
    }

    @Test
    void writeToAnIndexJustBeyondTheStagTableIsInvalidStag_V_MR_73() throws Exception {
        pair = connect(new ConnectionSettings());
        // the default table holds maxMrs + maxMws = 2^17 entries in slots 1..2^17; slot 2^17 + 1 is the
        // first index past its end that the slot mask still lets through (StagTable.lookup)
        int slot = (b.rnic.config().maxMrs() + b.rnic.config().maxMws()) + 1;
        writeIsRefusedAsInvalidStag(slot << 8 | 0x42, null, 0x1000);
    }

    /** Waits (bounded) for a QP state reached asynchronously. */
    private static void awaitState(QueuePair qp, QpState state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (qp.state() != state) {
            assertThat(System.nanoTime()).as(qp + " reaching " + state + ", now " + qp.state()).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
