package io.jrnic.core.transport;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionRequestHandler;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.RnicConfig;
import io.jrnic.core.SoftRnic;
import io.jrnic.mpa.RtrForm;
import io.jrnic.mpa.FpduWriter;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STag 0 from the wire (Verbs §7.2.1, V-MR-16, V-MR-23: "any remote access referencing STag 0 is a
 * protection error"), over real loopback TCP from a raw peer, since no jrnic sender puts STag 0 in
 * a Write or Read Request (V-WR-50). The RNIC's physical memory is STag 0's memory, and the TO the
 * peer names lies inside it, so only the STag-0 rule stands between the peer and that memory.
 */
class StagZeroWireTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private Arena arena;
    private SoftRnic rnic;
    private QueuePair qp;
    private ConnectionManager.Listener listener;
    private Socket raw;
    private final List<AsyncEventType> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        if (raw != null) {
            raw.close();
        }
        if (listener != null) {
            listener.close();
        }
        if (rnic != null) {
            rnic.close();
        }
        if (arena != null) {
            arena.close();
        }
    }

    /**
     * An RNIC whose STag 0 covers 4 KiB of physical memory filled with 0x77, listening; a raw socket
     * plays the MPA Initiator (revision 2, CRC, zero-length Write RTR, as {@link RawInitiator}) and
     * the RNIC's privileged QP ends in RTS.
     */
    private MemorySegment connectWithPhysicalMemory() throws Exception {
        arena = Arena.ofShared();
        MemorySegment phys = arena.allocate(4096, 4096);
        phys.fill((byte) 0x77);
        rnic = SoftRnic.open(new RnicConfig().name("stag-zero-wire").physicalMemory(phys));
        rnic.setAsyncEventHandler((r, e) -> events.add(e.type()));
        CompletionQueue cq = rnic.createCq(16, 0);
        qp = rnic.allocatePd().createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(4, 4).readDepths(4, 4)
                .privileged(true));
        BlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
        listener = rnic.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), new ConnectionSettings(),
                new ConnectionRequestHandler() {
                    @Override
                    public void onRequest(ConnectionRequest request) {
                        requests.add(request);
                    }

                    @Override
                    public void onSetupFailed(SocketAddress remote, ConnectionException failure) {
                    }
                });
        raw = new Socket();
        raw.connect(listener.localAddress());
        raw.setSoTimeout(10_000);
        raw.getOutputStream().write(RawFrames.request(RtrForm.ALL, true));
        ConnectionRequest request = requests.poll(10, TimeUnit.SECONDS);
        assertThat(request).as("the MPA Request at the listener").isNotNull();
        var accepted = request.accept(qp, null);
        byte[] header = raw.getInputStream().readNBytes(20);
        raw.getInputStream().readNBytes((header[18] & 0xFF) << 8 | header[19] & 0xFF); // the Reply's private data
        raw.getOutputStream().write(RawFrames.WRITE_RTR_FPDU);
        accepted.toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(qp.state()).isEqualTo(QpState.RTS);
        return phys;
    }

    /** Waits (bounded, sleep-free) until the condition holds. */
    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.onSpinWait();
        }
    }

    private static byte[] fpdu(MemorySegment ulpdu, int length) {
        FpduWriter writer = new FpduWriter(false, true);
        byte[] fpdu = new byte[writer.wireLength(length)];
        writer.write(ulpdu, 0, length, MemorySegment.ofArray(fpdu), 0);
        return fpdu;
    }

    /** The Terminate the RNIC sends: its Terminate Control (layer, type, code) at ULPDU bytes 18..20. */
    private int terminateControl() throws Exception {
        byte[] head = raw.getInputStream().readNBytes(24);
        assertThat(head.length).isEqualTo(24);
        assertThat(Arrays.copyOfRange(head, 2, 4)).as("DDP untagged L=1, RDMAP Terminate")
                .isEqualTo(RawFrames.hex("41 47"));
        assertThat(head[11]).as("QN 2").isEqualTo((byte) 2);
        raw.shutdownOutput(); // our FIN: the RNIC's graceful close after its Terminate can finish
        return (head[20] & 0xFF) << 8 | head[21] & 0xFF;
    }

    @Test
    void writeToStagZeroIsInvalidStagAndPlacesNothing_V_MR_16_V_MR_23() throws Exception {
        MemorySegment phys = connectWithPhysicalMemory();
        byte[] payload = new byte[64];
        MemorySegment ulpdu = MemorySegment.ofArray(new byte[14 + 64]);
        new RdmapMessageEncoder(RdmapFeatures.RFC_5040).taggedHeader(ulpdu, 0, RdmapOpcode.RDMA_WRITE, true, 0,
                phys.address());
        MemorySegment.copy(payload, 0, ulpdu, ValueLayout.JAVA_BYTE, 14, 64);
        raw.getOutputStream().write(fpdu(ulpdu, 14 + 64));

        // RFC 5041 §7.2: DDP, tagged buffer error, invalid STag
        assertThat(terminateControl()).isEqualTo(0x1100);
        await(() -> events.contains(AsyncEventType.TAGGED_INVALID_STAG), "TAGGED_INVALID_STAG");
        await(() -> qp.state() == QpState.ERROR, "QP in Error");
        assertThat(events).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
        assertThat(phys.toArray(ValueLayout.JAVA_BYTE)).as("physical memory untouched").containsOnly((byte) 0x77);
    }

    @Test
    void readRequestFromStagZeroIsInvalidStagAndSendsNothing_V_MR_16_V_MR_23() throws Exception {
        MemorySegment phys = connectWithPhysicalMemory();
        MemorySegment ulpdu = MemorySegment.ofArray(new byte[46]);
        int n = new RdmapMessageEncoder(RdmapFeatures.RFC_5040).readRequest(ulpdu, 0, 1, 0x1234_5600, 0, 64, 0,
                phys.address());
        raw.getOutputStream().write(fpdu(ulpdu, n));

        // RFC 5040 §7.4: RDMAP, remote protection error, invalid STag -- and no Read Response first
        assertThat(terminateControl()).isEqualTo(0x0100);
        await(() -> events.contains(AsyncEventType.IRRQ_INVALID_STAG), "IRRQ_INVALID_STAG");
        await(() -> qp.state() == QpState.ERROR, "QP in Error");
        assertThat(events).containsExactly(AsyncEventType.IRRQ_INVALID_STAG);
    }
}
