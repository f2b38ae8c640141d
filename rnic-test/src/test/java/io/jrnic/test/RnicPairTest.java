package io.jrnic.test;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.Connection;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RemoteBuffer;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The test kit used as an application would: a pair injected per test over real loopback TCP, a
 * Write, a Read, a Send, a remote access error, the annotation's settings on the wire and the
 * injection of the connections.
 */
@RnicTest
class RnicPairTest {
    private RnicPair fromBeforeEach;

    @BeforeEach
    void remember(RnicPair pair) {
        fromBeforeEach = pair;
    }

    @Test
    void theTestGetsTheSamePairAsItsBeforeEachMethod(RnicPair pair) {
        assertThat(pair).isSameAs(fromBeforeEach);
        assertThat(pair.link()).isEqualTo(Link.LOOPBACK);
        assertThat(pair.active().qp().state()).isEqualTo(QpState.RTS);
        assertThat(pair.passive().qp().state()).isEqualTo(QpState.RTS);
        assertThat(pair.active().rnic().name()).isNotEqualTo(pair.passive().rnic().name());
    }

    @Test
    void anRdmaWriteLandsInThePeersRegion(RnicPair pair) {
        int n = 64 << 10;
        MemoryRegion target = pair.passive().allocate(n + 4096);
        MemoryRegion source = pair.active().allocate(n);
        fill(source.memory(), 1);
        pair.active().qp().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE)
                .sge(source.stag(), source.memory().address(), n)
                .remote(RemoteBuffer.of(target).slice(4096, n)));
        WorkCompletion wc = pair.active().awaitSuccess(1);
        assertThat(wc.opcode()).isEqualTo(Opcode.RDMA_WRITE);
        // the Write's completion does not mean it was placed (RFC 5040 §5.5 rule 9); a Read of the same
        // region is answered after it (rule 12): read it back, then look
        MemoryRegion back = pair.active().allocate(n);
        pair.active().qp().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ)
                .sge(back.stag(), back.memory().address(), n).remote(RemoteBuffer.of(target).slice(4096, n)));
        pair.active().awaitSuccess(2);
        assertThat(target.memory().asSlice(4096, n).mismatch(source.memory())).isEqualTo(-1);
        assertThat(back.memory().mismatch(source.memory())).isEqualTo(-1);
        assertThat(target.memory().get(ValueLayout.JAVA_BYTE, 4095)).isZero();
    }

    @Test
    void anRdmaReadFetchesThePeersBytes(RnicPair pair) {
        MemoryRegion source = pair.passive().allocate(8192);
        fill(source.memory(), 2);
        MemoryRegion sink = pair.active().allocate(8192);
        pair.active().qp().postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_READ)
                .sge(sink.stag(), sink.memory().address(), 8192).remote(RemoteBuffer.of(source)));
        assertThat(pair.active().awaitSuccess(9).opcode()).isEqualTo(Opcode.RDMA_READ);
        assertThat(sink.memory().mismatch(source.memory())).isEqualTo(-1);
    }

    @Test
    void aSendFillsAPostedReceive(RnicPair pair) {
        MemoryRegion sink = pair.passive().allocate(256);
        pair.passive().qp().postReceive(new ReceiveWorkRequest().wrId(7).sge(sink.stag(), sink.memory().address(), 256));
        MemoryRegion source = pair.active().allocate(100);
        fill(source.memory(), 3);
        pair.active().qp().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND)
                .sge(source.stag(), source.memory().address(), 100));
        pair.active().awaitSuccess(1);
        WorkCompletion received = pair.passive().awaitSuccess(7);
        assertThat(received.byteLength()).isEqualTo(100);
        assertThat(received.opcode()).isEqualTo(Opcode.RECEIVE);
        assertThat(sink.memory().asSlice(0, 100).mismatch(source.memory())).isEqualTo(-1);
    }

    @Test
    void aReadBeyondThePeersRegionEndsInATerminateAndAnErrorCompletion(RnicPair pair) {
        MemoryRegion source = pair.passive().allocate(4096);
        MemoryRegion sink = pair.active().allocate(64);
        // 32 bytes past the end of the region: the peer refuses it (RFC 5040 §7.2, Terminate 0x0101)
        pair.active().qp().postSend(new SendWorkRequest().wrId(5).opcode(Opcode.RDMA_READ)
                .sge(sink.stag(), sink.memory().address(), 64).remote(source.stag(), source.memory().address() + 4096 - 32));
        assertThat(pair.passive().awaitEvent(AsyncEventType.IRRQ_BASE_BOUNDS).resource())
                .isSameAs(pair.passive().qp());
        assertThat(pair.active().awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED).resource())
                .isSameAs(pair.active().qp());
        WorkCompletion wc = pair.active().await();
        assertThat(wc.wrId()).isEqualTo(5);
        assertThat(wc.status()).isNotEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(pair.active().qp().query().terminateMessage().terminateControl()).isEqualTo(0x0101);
        // the failed queue pair makes the kit's wait report it at once instead of timing out
        assertThatThrownBy(() -> pair.active().await()).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_STATE));
        assertThat(pair.active().events()).extracting(e -> e.type()).contains(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
    }

    @Test
    void theDefaultsNegotiateCrcWithoutMarkers(RnicPair pair) {
        for (Connection c : new Connection[]{pair.active().connection(), pair.passive().connection()}) {
            assertThat(c.parameters().crc()).isTrue();
            assertThat(c.parameters().markersOnSend()).isFalse();
            assertThat(c.parameters().markersOnReceive()).isFalse();
            assertThat(c.parameters().ird()).isEqualTo(4);
            assertThat(c.parameters().ord()).isEqualTo(4);
        }
        assertThat(pair.active().rnic().query().extensions()).containsExactlyInAnyOrder(RnicExtension.values());
    }

    @Test
    @RnicTest(crc = false, markers = true, ird = 8, ord = 2, extensions = RnicExtension.ATOMICS, sqDepth = 16,
            rqDepth = 8)
    void theMethodsAnnotationConfiguresItsPair(RnicPair pair) {
        for (Connection c : new Connection[]{pair.active().connection(), pair.passive().connection()}) {
            assertThat(c.parameters().crc()).as("CRC").isFalse();
            assertThat(c.parameters().markersOnSend()).as("markers sent").isTrue();
            assertThat(c.parameters().markersOnReceive()).as("markers received").isTrue();
        }
        // RFC 6581 §9.1: each end's ORD is limited by the peer's IRD
        assertThat(pair.active().connection().parameters().ord()).isEqualTo(2);
        assertThat(pair.active().qp().query().sqDepth()).isGreaterThanOrEqualTo(16).isLessThan(256);
        assertThat(pair.active().rnic().query().extensions()).containsExactly(RnicExtension.ATOMICS);
        // and data still flows through CRC-less, marked FPDUs
        MemoryRegion source = pair.passive().allocate(3000);
        fill(source.memory(), 4);
        MemoryRegion sink = pair.active().allocate(3000);
        pair.active().qp().postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_READ)
                .sge(sink.stag(), sink.memory().address(), 3000).remote(RemoteBuffer.of(source)));
        pair.active().awaitSuccess(3);
        assertThat(sink.memory().mismatch(source.memory())).isEqualTo(-1);
    }

    @Test
    void theConnectionsAreInjectedActiveFirst(Connection active, RnicPair pair, Connection passive) {
        assertThat(active).isSameAs(pair.active().connection());
        assertThat(passive).isSameAs(pair.passive().connection());
        assertThat(active.role()).isEqualTo(Connection.Role.INITIATOR);
        assertThat(passive.role()).isEqualTo(Connection.Role.RESPONDER);
        assertThat(active.queuePair()).isSameAs(pair.active().qp());
        assertThat(active.remoteAddress()).isEqualTo(passive.localAddress());
    }

    static void fill(MemorySegment m, long seed) {
        byte[] bytes = new byte[(int) m.byteSize()];
        new Random(seed).nextBytes(bytes);
        MemorySegment.copy(bytes, 0, m, ValueLayout.JAVA_BYTE, 0, bytes.length);
    }
}
