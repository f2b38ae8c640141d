package io.jrnic.core;

import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.StagState;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.jrnic.api.AccessRights.BIND_WINDOW;
import static io.jrnic.api.AccessRights.LOCAL_READ;
import static io.jrnic.api.AccessRights.LOCAL_WRITE;
import static io.jrnic.api.AccessRights.REMOTE_READ;
import static io.jrnic.api.AccessRights.REMOTE_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The remote access checks of the receive path (Verbs §7.4.2, §7.5.2, §7.10.6.2, §8.1.2.2 Figure
 * 21; RFC 5040 §7.2, RFC 5041 §7.1/§7.2, RFC 5042 §5) driven by real RDMA Writes and Reads between
 * two RNICs over loopback TCP: node a initiates, node b owns the target memory. Each refused access
 * is checked where it matters: the exact Terminate code the target stored and the initiator
 * received over the wire, the target's affiliated event, the QP leaving RTS, and the target memory
 * untouched. These replace the tests of {@code StagTable.checkRemote}, a copy of the checks that
 * no production code called (issue 9 item 9).
 */
class RemoteAccessLoopbackTest extends LoopbackFixture {
    private static final ConnectionSettings SETTINGS = new ConnectionSettings();
    private static final int LOCAL = LOCAL_READ | LOCAL_WRITE;

    private QueuePair qpB(boolean inboundRead, boolean inboundWrite, boolean bindWindows) {
        return b.pd.createQueuePair(new QueuePairConfig().cqs(b.cq, b.cq).depths(256, 256).sges(4, 4, 4, 64)
                .readDepths(4, 4).access(inboundRead, inboundWrite, bindWindows));
    }

    private Pair connect(QueuePair qpA, QueuePair qpB) throws Exception {
        return connect(SETTINGS, SETTINGS, qpA, qpB, null, null);
    }

    private static Buffer region(Node n, ProtectionDomain pd, long size, int rights) {
        MemorySegment m = n.rnic.allocateMemory(size, 4096);
        return new Buffer(pd.registerMemory(m, rights, 0, AddressType.VA_BASED, m.address(), true), m);
    }

    /** Writes length pattern bytes from node a to (stag, to) and returns the source. */
    private Buffer write(Pair p, long wrId, int stag, long to, int length) {
        Buffer src = a.buffer(Math.max(1, length));
        fill(src.memory(), wrId);
        p.qpA().postSend(new SendWorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), length)
                .remote(stag, to));
        return src;
    }

    /** A Send after earlier Writes: its receive completing at b proves they were placed (RFC 5040 §5.5). */
    private void fence(Pair p, long wrId) {
        Buffer note = b.buffer(16);
        p.qpB().postReceive(new ReceiveWorkRequest().wrId(wrId).sge(note.stag(), note.to(), 16));
        p.qpA().postSend(new SendWorkRequest().wrId(wrId).opcode(Opcode.SEND));
        WorkCompletion rx = b.completions(1).getFirst();
        assertThat(rx.wrId()).isEqualTo(wrId);
        assertThat(rx.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    /**
     * The side that found the error raised {@code event}, stored the Terminate {@code control} as
     * its own and left RTS; the other side received exactly that Terminate over TCP.
     */
    private static void assertTerminated(Node detector, QueuePair detecting, Node peer, QueuePair peerQp,
                                         int control, AsyncEventType event) {
        AsyncEvent e = detector.awaitEvent(event, detecting);
        assertThat(e.type()).isEqualTo(event);
        assertThat(detector.events.stream().filter(x -> x.resource() == detecting).map(AsyncEvent::type).toList())
                .as("the first event of the detecting QP").first().isEqualTo(event);
        TerminateMessage sent = detecting.query().terminateMessage();
        assertThat(sent.locallyGenerated()).isTrue();
        assertThat(sent.terminateControl()).as("Terminate sent").isEqualTo(control);
        assertThat(detecting.state()).isIn(QpState.TERMINATE, QpState.ERROR);
        peer.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, peerQp);
        TerminateMessage received = peerQp.query().terminateMessage();
        assertThat(received.locallyGenerated()).isFalse();
        assertThat(received.terminateControl()).as("Terminate received over TCP").isEqualTo(control);
    }

    private void writeRefused(Pair p, int stag, long to, int length, int control, AsyncEventType event) {
        write(p, 90, stag, to, length);
        assertTerminated(b, p.qpB(), a, p.qpA(), control, event);
    }

    private void readRefused(Pair p, int stag, long to, int length, int control, AsyncEventType event) {
        Buffer sink = a.buffer(length);
        p.qpA().postSend(new SendWorkRequest().wrId(91).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), length)
                .remote(stag, to));
        assertTerminated(b, p.qpB(), a, p.qpA(), control, event);
        assertThat(bytes(sink.memory(), 0, length)).containsOnly(0);
        List<WorkCompletion> wcs = a.completions(1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(91);
        assertThat(wcs.getFirst().status()).isNotEqualTo(WorkCompletionStatus.SUCCESS);
    }

    // ---- regions ------------------------------------------------------------------------------

    @Test
    void writeNeedsTheRegionsRemoteWriteRight_V_MR_80_V_MR_84_V_DEF_5_V_WR_21_V_SEC_12() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer writable = region(b, b.pd, 4096, LOCAL | REMOTE_WRITE);
        Buffer readable = region(b, b.pd, 4096, LOCAL | REMOTE_READ);
        Buffer src = write(p, 1, writable.stag(), writable.to() + 8, 64);
        fence(p, 2);
        assertThat(bytes(writable.memory(), 8, 64)).isEqualTo(bytes(src.memory(), 0, 64));
        // RFC 5041 §7.1 check 2 has no code of its own: 1/1/0x00 (AMB-16); Verbs names the cause
        writeRefused(p, readable.stag(), readable.to(), 64, 0x1100, AsyncEventType.TAGGED_ACCESS_RIGHTS);
        assertThat(bytes(readable.memory(), 0, 4096)).containsOnly(0); // no data transferred
    }

    @Test
    void writeNeedsTheQpsInboundWriteEnable_V_WR_19_V_WR_21() throws Exception {
        Pair p = connect(a.qp(), qpB(true, false, true));
        Buffer writable = region(b, b.pd, 4096, LOCAL | REMOTE_READ | REMOTE_WRITE);
        writeRefused(p, writable.stag(), writable.to(), 64, 0x1100, AsyncEventType.RDMA_WRITE_NOT_ENABLED);
        assertThat(bytes(writable.memory(), 0, 4096)).containsOnly(0);
    }

    @Test
    void writeToARegionOfAnotherPdIsNotAssociated_V_PD_2_V_SEC_12() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer foreign = region(b, b.rnic.allocatePd(), 4096, LOCAL | REMOTE_READ | REMOTE_WRITE);
        writeRefused(p, foreign.stag(), foreign.to(), 64, 0x1102, AsyncEventType.TAGGED_INVALID_PD);
        assertThat(bytes(foreign.memory(), 0, 4096)).containsOnly(0);
    }

    @Test
    void readNeedsTheSourcesRemoteReadRight_V_MR_81_V_MR_84_V_WR_22_V_DEF_5() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer readable = region(b, b.pd, 4096, LOCAL | REMOTE_READ);
        Buffer writable = region(b, b.pd, 4096, LOCAL | REMOTE_WRITE);
        fill(readable.memory(), 7);
        Buffer sink = a.buffer(128);
        p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), 128)
                .remote(readable.stag(), readable.to() + 16));
        assertThat(a.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(sink.memory(), 0, 128)).isEqualTo(bytes(readable.memory(), 16, 128));
        // RFC 5040 §7.2 0/1/0x02 for an untagged-addressed source (AMB-16, R-ERR-031)
        readRefused(p, writable.stag(), writable.to(), 64, 0x0102, AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void readNeedsTheQpsInboundReadEnable_V_WR_19_V_WR_22() throws Exception {
        Pair p = connect(a.qp(), qpB(false, true, true));
        Buffer readable = region(b, b.pd, 4096, LOCAL | REMOTE_READ | REMOTE_WRITE);
        readRefused(p, readable.stag(), readable.to(), 64, 0x0102, AsyncEventType.RDMA_READ_NOT_ENABLED);
    }

    @Test
    void readFromARegionOfAnotherPdIsNotAssociated_V_PD_2() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer foreign = region(b, b.rnic.allocatePd(), 4096, LOCAL | REMOTE_READ);
        readRefused(p, foreign.stag(), foreign.to(), 64, 0x0103, AsyncEventType.IRRQ_INVALID_PD);
    }

    // ---- the Read sink: Verbs §7.5.2, Figure 21 ------------------------------------------------

    @Test
    void readSinkNeedsRemoteWriteCheckedOnlyWhenTheResponseArrives_V_MR_82_V_MR_83_V_WR_23() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer source = region(b, b.pd, 4096, LOCAL | REMOTE_READ);
        fill(source.memory(), 11);
        Buffer remoteWritable = region(a, a.pd, 256, LOCAL_WRITE | REMOTE_WRITE);
        p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ)
                .sge(remoteWritable.stag(), remoteWritable.to(), 256).remote(source.stag(), source.to()));
        assertThat(a.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(remoteWritable.memory(), 0, 256)).isEqualTo(bytes(source.memory(), 0, 256));
        // Local Write alone is not enough; the post is accepted (V-MR-83: no local check at issue time)
        Buffer localOnly = region(a, a.pd, 256, LOCAL);
        p.qpA().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ)
                .sge(localOnly.stag(), localOnly.to(), 256).remote(source.stag(), source.to()));
        assertTerminated(a, p.qpA(), b, p.qpB(), 0x1100, AsyncEventType.TAGGED_ACCESS_RIGHTS);
        assertThat(bytes(localOnly.memory(), 0, 256)).containsOnly(0);
        assertThat(a.completions(1).getFirst().status()).isNotEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void readSinkNeedsTheRequestersInboundWriteEnable_V_WR_23() throws Exception {
        QueuePair noInboundWrite = a.pd.createQueuePair(new QueuePairConfig().cqs(a.cq, a.cq).depths(256, 256)
                .sges(4, 4, 4, 64).readDepths(4, 4).access(true, false, true));
        Pair p = connect(noInboundWrite, b.qp());
        Buffer source = region(b, b.pd, 4096, LOCAL | REMOTE_READ);
        Buffer sink = region(a, a.pd, 256, LOCAL | REMOTE_WRITE);
        p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), 256)
                .remote(source.stag(), source.to()));
        assertTerminated(a, p.qpA(), b, p.qpB(), 0x1100, AsyncEventType.RDMA_WRITE_NOT_ENABLED);
        assertThat(bytes(sink.memory(), 0, 256)).containsOnly(0);
    }

    @Test
    void aWindowBoundToTheRequesterIsAReadSink_V_WR_23_V_MW_40() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer source = region(b, b.pd, 4096, LOCAL | REMOTE_READ);
        fill(source.memory(), 13);
        Buffer backing = region(a, a.pd, 4096, LOCAL | BIND_WINDOW);
        MemoryWindow mw = bind(a, p.qpA(), backing, 512, 256, REMOTE_WRITE);
        p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(mw.stag(), backing.to() + 512, 256)
                .remote(source.stag(), source.to()));
        assertThat(a.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(backing.memory(), 512, 256)).isEqualTo(bytes(source.memory(), 0, 256));
    }

    // ---- windows: Verbs §7.10.2, §7.10.6.2 -----------------------------------------------------

    /** Binds a fresh window over [offset, offset + length) of the region to the QP (VA-based). */
    private static MemoryWindow bind(Node n, QueuePair qp, Buffer region, long offset, long length, int rights) {
        MemoryWindow mw = n.pd.allocateWindow();
        qp.postSend(new SendWorkRequest().wrId(77).bind(mw.stag(), region.stag(), region.to() + offset, length,
                AddressType.VA_BASED, rights));
        WorkCompletion wc = n.completions(1).getFirst();
        assertThat(wc.opcode()).isEqualTo(Opcode.BIND_MW);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(mw.query().state()).isEqualTo(StagState.VALID);
        return mw;
    }

    @Test
    void writeThroughAWindowUsesItsBoundsAndOnlyItsOwnRights_V_MW_40_V_MW_41_V_MW_43_V_WR_20() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        // the region grants no remote right: only the window's Remote Write counts (V-MW-41)
        Buffer backing = region(b, b.pd, 4096, LOCAL | BIND_WINDOW);
        MemoryWindow mw = bind(b, p.qpB(), backing, 100, 200, REMOTE_WRITE);
        Buffer src = write(p, 1, mw.stag(), backing.to() + 100, 200);
        fence(p, 2);
        assertThat(bytes(backing.memory(), 100, 200)).isEqualTo(bytes(src.memory(), 0, 200));
        byte[] before = bytes(backing.memory(), 0, 4096);
        // one byte past the window, though inside the region: byte-granular bounds (V-MW-40, V-MW-18)
        writeRefused(p, mw.stag(), backing.to() + 101, 200, 0x1101, AsyncEventType.TAGGED_BASE_BOUNDS);
        assertThat(bytes(backing.memory(), 0, 4096)).isEqualTo(before); // V-MW-43: no memory access
    }

    @Test
    void readThroughAWindowNeedsItsRemoteReadRight_V_MW_40_V_MW_43() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer backing = region(b, b.pd, 4096, LOCAL | REMOTE_READ | BIND_WINDOW);
        MemoryWindow mw = bind(b, p.qpB(), backing, 0, 4096, REMOTE_WRITE);
        readRefused(p, mw.stag(), backing.to(), 64, 0x0102, AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void writeThroughAWindowNeedsTheQpsInboundWriteEnable_V_MW_42() throws Exception {
        Pair p = connect(a.qp(), qpB(true, false, true));
        Buffer backing = region(b, b.pd, 4096, LOCAL | BIND_WINDOW);
        MemoryWindow mw = bind(b, p.qpB(), backing, 0, 4096, REMOTE_WRITE);
        writeRefused(p, mw.stag(), backing.to(), 64, 0x1100, AsyncEventType.RDMA_WRITE_NOT_ENABLED);
        assertThat(bytes(backing.memory(), 0, 4096)).containsOnly(0);
    }

    /**
     * A window bound to another QP of the same PD is not associated with this stream: 1/1/0x02 and
     * Tagged Invalid PD (RFC 5041 §7.2 "STag not associated with DDP Stream", Verbs §7.10.6.2: the
     * bound QP replaces the PD check; Figure 24 Invalid PD ID 0x1102; docs/verbs.md).
     */
    @Test
    void aWindowBoundToAnotherQpIsNotAssociatedButZeroLengthSkipsTheChecks_V_MW_18_V_MW_44() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer backing = region(b, b.pd, 4096, LOCAL | BIND_WINDOW);
        QueuePair other = b.qp();
        other.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(new FakeTransport()));
        MemoryWindow mw = bind(b, other, backing, 0, 4096, REMOTE_WRITE | REMOTE_READ);
        // V-MW-44: a zero-length Write and a zero-length Read are not checked at all
        write(p, 1, mw.stag(), backing.to(), 0);
        Buffer sink = a.buffer(1);
        p.qpA().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).sge(sink.stag(), sink.to(), 0)
                .remote(mw.stag(), backing.to()));
        assertThat(a.completions(2)).extracting(WorkCompletion::status)
                .containsOnly(WorkCompletionStatus.SUCCESS);
        fence(p, 3);
        writeRefused(p, mw.stag(), backing.to(), 64, 0x1102, AsyncEventType.TAGGED_INVALID_PD);
        assertThat(bytes(backing.memory(), 0, 4096)).containsOnly(0);
    }

    @Test
    void aReadThroughAWindowBoundToAnotherQpIsNotAssociated_V_MW_18() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer backing = region(b, b.pd, 4096, LOCAL | REMOTE_READ | BIND_WINDOW);
        QueuePair other = b.qp();
        other.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(new FakeTransport()));
        MemoryWindow mw = bind(b, other, backing, 0, 4096, REMOTE_READ);
        readRefused(p, mw.stag(), backing.to(), 64, 0x0103, AsyncEventType.IRRQ_INVALID_PD);
    }

    @Test
    void aZeroBasedWindowIsAddressedFromZero_V_MW_14() throws Exception {
        Pair p = connect(a.qp(), b.qp());
        Buffer backing = region(b, b.pd, 4096, LOCAL | BIND_WINDOW);
        MemoryWindow mw = b.pd.allocateWindow();
        p.qpB().postSend(new SendWorkRequest().wrId(77).bind(mw.stag(), backing.stag(), backing.to() + 100, 200,
                AddressType.ZERO_BASED, REMOTE_WRITE));
        assertThat(b.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        Buffer src = write(p, 1, mw.stag(), 10, 50); // TO 10 of the window = byte 110 of the region
        fence(p, 2);
        assertThat(bytes(backing.memory(), 110, 50)).isEqualTo(bytes(src.memory(), 0, 50));
        assertThat(bytes(backing.memory(), 0, 110)).containsOnly(0);
        writeRefused(p, mw.stag(), 150, 51, 0x1101, AsyncEventType.TAGGED_BASE_BOUNDS);
    }
}
