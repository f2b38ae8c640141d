package io.jrnic.core.transport;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.SoftRnic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * RDMA stream initialization after the TCP connection was established and used in streaming mode
 * (Verbs §6.6.1, V-CM-2): both ULPs exchange raw bytes on plain java.nio sockets, the active side
 * then hands its socket to the connection manager with the last streaming-mode message (the
 * Stream Message Buffer, §6.2.1.2, V-QPS-14), the passive ULP reads that message and hands its
 * socket over as MPA Responder, and RDMA traffic flows on the same TCP connection.
 */
class AdoptedSocketTest {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final byte[] HELLO = "HELLO, CAN YOU DO IWARP?".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] YES = "YES".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LAST = "SWITCHING TO RDMA NOW".getBytes(StandardCharsets.US_ASCII);

    /** One RNIC with a PD, a CQ and an Idle QP. */
    private static final class Node {
        final Rnic rnic;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;

        Node() {
            rnic = SoftRnic.open(new RnicConfig().name("adopt-" + NAMES.incrementAndGet()));
            pd = rnic.allocatePd();
            cq = rnic.createCq(64, 0);
            qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(16, 16).sges(4, 4, 4, 64)
                    .readDepths(4, 4));
        }

        List<WorkCompletion> completions(int n) {
            List<WorkCompletion> out = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            RawInitiator.await(() -> {
                while (cq.poll(wc)) {
                    out.add(new WorkCompletion().copyFrom(wc));
                }
                return out.size() >= n;
            }, n + " completions on " + rnic);
            return out;
        }
    }

    private Node a;
    private Node b;
    private ServerSocketChannel server;
    private SocketChannel active;
    private SocketChannel passive;

    @BeforeEach
    void open() throws IOException {
        a = new Node();
        b = new Node();
        server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        active = SocketChannel.open(server.getLocalAddress());
        passive = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        a.rnic.close();
        b.rnic.close();
        active.close();
        passive.close();
        server.close();
    }

    private static void writeFully(SocketChannel ch, byte[] bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
    }

    private static byte[] readExactly(SocketChannel ch, int n) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(n);
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                throw new IOException("end of stream after " + buf.position() + " of " + n + " bytes");
            }
        }
        return buf.array();
    }

    /** The ULPs' own streaming-mode exchange (Verbs §6.6.1.1 step 2: a negotiation outside iWARP). */
    private void streamingModeExchange() throws IOException {
        writeFully(active, HELLO);
        assertThat(readExactly(passive, HELLO.length)).isEqualTo(HELLO);
        writeFully(passive, YES);
        assertThat(readExactly(active, YES.length)).isEqualTo(YES);
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Sends, Writes and Reads both ways on the adopted stream, checked byte for byte. */
    private void rdmaTrafficWorks() {
        int size = 100_000; // many FPDUs
        MemorySegment aMem = a.rnic.allocateMemory(size, 4096);
        MemorySegment bMem = b.rnic.allocateMemory(size, 4096);
        fill(aMem, 1);
        MemoryRegion aMr = a.pd.registerMemory(aMem, RawInitiator.RIGHTS);
        MemoryRegion bMr = b.pd.registerMemory(bMem, RawInitiator.RIGHTS);
        // Send A -> B into a posted receive
        b.qp.postReceive(new ReceiveWorkRequest().wrId(10).sge(bMr.stag(), bMem.address(), size));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).signaled(true)
                .sge(aMr.stag(), aMem.address(), 4096));
        assertThat(b.completions(1).getFirst().byteLength()).isEqualTo(4096);
        assertThat(a.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(bMem, 0, 4096)).isEqualTo(bytes(aMem, 0, 4096));
        // Write A -> B, then Read it back from B into A's second half
        a.qp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(aMr.stag(), aMem.address(), size / 2).remote(bMr.stag(), bMem.address() + size / 2));
        a.qp.postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(aMr.stag(), aMem.address() + size / 2, size / 2).remote(bMr.stag(), bMem.address() + size / 2));
        List<WorkCompletion> wcs = a.completions(2);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(2L, 3L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(bMem, size / 2, size / 2)).isEqualTo(bytes(aMem, 0, size / 2));
        assertThat(bytes(aMem, size / 2, size / 2)).isEqualTo(bytes(aMem, 0, size / 2));
    }

    @Test
    void streamingModeThenAdoptedSocketsCarryRdma_V_CM_2_V_QPS_14_V_QPS_16() throws Exception {
        streamingModeExchange();
        // Active side: QP to RTS with the LLP stream and the last streaming-mode message (§6.6.1.1 step 5)
        CompletionStage<Connection> ca = a.rnic.connectionManager().connect(a.qp, active, new ConnectionSettings(),
                "req".getBytes(StandardCharsets.US_ASCII), LAST);
        // Passive side: waits for that message in streaming mode (§6.6.1.2 step 3), then iWARP
        assertThat(readExactly(passive, LAST.length)).isEqualTo(LAST);
        ConnectionRequest request = await(b.rnic.connectionManager().awaitRequest(passive, new ConnectionSettings(),
                null));
        assertThat(request.privateData()).isEqualTo("req".getBytes(StandardCharsets.US_ASCII));
        Connection cb = await(request.accept(b.qp, "rep".getBytes(StandardCharsets.US_ASCII)));
        Connection conn = await(ca);
        assertThat(conn.peerPrivateData()).isEqualTo("rep".getBytes(StandardCharsets.US_ASCII));
        assertThat(conn.role()).isEqualTo(Connection.Role.INITIATOR);
        assertThat(cb.role()).isEqualTo(Connection.Role.RESPONDER);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
        // a java.nio socket runs on NIO whatever the RNIC's ioTransport (AUTO here: epoll on Linux)
        for (QueuePair qp : new QueuePair[] {a.qp, b.qp}) {
            FpduChannel link = (FpduChannel) ((io.jrnic.core.engine.QpEngine) qp.query().llpStream()).link;
            assertThat(link.ioTransport()).isEqualTo(io.jrnic.api.IoTransport.NIO);
        }
        rdmaTrafficWorks();
    }

    @Test
    void passiveUlpThatReadPastItsMessageHandsTheBytesOver_V_CM_2() throws Exception {
        streamingModeExchange();
        CompletionStage<Connection> ca = a.rnic.connectionManager().connect(a.qp, active, new ConnectionSettings(),
                null, LAST);
        // a buffered ULP reads 10 bytes too many: the start of the MPA Request ("MPA ID Req Frame")
        byte[] got = readExactly(passive, LAST.length + 10);
        assertThat(Arrays.copyOf(got, LAST.length)).isEqualTo(LAST);
        byte[] extra = Arrays.copyOfRange(got, LAST.length, got.length);
        assertThat(new String(extra, StandardCharsets.US_ASCII)).isEqualTo("MPA ID Req");
        ConnectionRequest request = await(b.rnic.connectionManager().awaitRequest(passive, new ConnectionSettings(),
                extra));
        await(request.accept(b.qp, null));
        await(ca);
        rdmaTrafficWorks();
    }

    @Test
    void withoutAStreamMessageTheRequestIsTheFirstByteAfterTheUlpsExchange_V_CM_2() throws Exception {
        streamingModeExchange();
        // the passive ULP turns first this time (either side may initiate, §6.6.1); no stream message
        CompletionStage<ConnectionRequest> cr = b.rnic.connectionManager().awaitRequest(passive,
                new ConnectionSettings(), null);
        CompletionStage<Connection> ca = a.rnic.connectionManager().connect(a.qp, active, new ConnectionSettings(),
                null, null);
        await(await(cr).accept(b.qp, null));
        await(ca);
        rdmaTrafficWorks();
    }

    @Test
    void streamingBytesThatAreNotAnMpaRequestFailTheSetup_V_CM_2() throws Exception {
        CompletionStage<ConnectionRequest> cr = b.rnic.connectionManager().awaitRequest(passive,
                new ConnectionSettings(), null);
        writeFully(active, HELLO); // still streaming mode: not an MPA Request (RFC 5044 §7.1.1 key)
        assertThatThrownBy(() -> await(cr)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ConnectionException.class)
                .extracting(e -> ((ConnectionException) e).reason())
                .isEqualTo(ConnectionException.Reason.INVALID_FRAME);
        assertThat(b.qp.state()).isEqualTo(QpState.IDLE);
    }

    @Test
    void anUnconnectedSocketIsRefused() throws Exception {
        try (SocketChannel loose = SocketChannel.open()) {
            assertThatThrownBy(() -> a.rnic.connectionManager().connect(a.qp, loose, new ConnectionSettings(), null,
                    null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not connected");
            assertThatThrownBy(() -> b.rnic.connectionManager().awaitRequest(loose, new ConnectionSettings(), null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not connected");
        }
        assertThat(a.qp.state()).isEqualTo(QpState.IDLE);
        // the QP was released again: a proper connection still works with it
        streamingModeExchange();
        CompletionStage<ConnectionRequest> cr = b.rnic.connectionManager().awaitRequest(passive,
                new ConnectionSettings(), null);
        CompletionStage<Connection> ca = a.rnic.connectionManager().connect(a.qp, active, new ConnectionSettings(),
                null, null);
        await(await(cr).accept(b.qp, null));
        await(ca);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    private static void fill(MemorySegment m, long seed) {
        byte[] b = new byte[(int) m.byteSize()];
        new Random(seed).nextBytes(b);
        MemorySegment.copy(b, 0, m, ValueLayout.JAVA_BYTE, 0, b.length);
    }

    private static byte[] bytes(MemorySegment m, long offset, long length) {
        return m.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }
}
