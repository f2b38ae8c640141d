package io.jrnic.core.transport;

import io.jrnic.core.link.FpduLink;
import io.jrnic.core.transport.TransportFixture.Responder;
import io.jrnic.core.transport.TransportFixture.Setup;
import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.PlacementHandler;
import io.jrnic.mpa.PlacementTarget;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicLong;

import static io.jrnic.core.transport.TransportFixture.LOOPBACK;
import static io.jrnic.core.transport.TransportFixture.await;
import static io.jrnic.core.transport.TransportFixture.onLoop;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The steady-state RX path allocates nothing: netty's read loop, the receive buffers
 * ({@link PlacementRecvAllocator}: direct reads into the placement target and staging reads), the
 * deframer and the dispatch to the handler, measured with the receiving event loop thread's own
 * allocation counter over many FPDUs after a warm-up. Sender and receiver run on two transports, so
 * the receiver's loop thread does nothing else.
 */
class RxAllocationTest {

    private static final int WARMUP_BURSTS = 3_000;
    /** HashMap.Node + HashMap.KeyIterator of the JDK's selected-key set, per readiness event. */
    private static final long JDK_SELECTOR_BYTES_PER_EVENT = 64;
    private static final int MEASURED_BURSTS = 1_000;

    private IwarpTransport sender;
    private IwarpTransport receiver;

    @AfterEach
    void close() {
        if (sender != null) {
            sender.close();
        }
        if (receiver != null) {
            receiver.close();
        }
    }

    /** Counts what arrives; places tagged payload at offset 0 of one target when placing. */
    private static final class Sink implements PlacementHandler, FpduLink.Listener {
        final AtomicLong bytes = new AtomicLong();
        final MemorySegment target;
        volatile DeframeFault fault;

        Sink(MemorySegment target) {
            this.target = target;
        }

        @Override
        public int prefixLength(int firstByte, int ulpduLength) {
            return target != null && DdpHeaderFlyweight.isTagged(firstByte) ? TaggedHeaderFlyweight.HEADER_LENGTH : 0;
        }

        @Override
        public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                       PlacementTarget t) {
            t.set(target, 0);
            return true;
        }

        @Override
        public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
            bytes.addAndGet(ulpduLength - prefixLength);
        }

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            bytes.addAndGet(length - TaggedHeaderFlyweight.HEADER_LENGTH);
        }

        @Override
        public void onError(DeframeFault f) {
            fault = f;
        }

        @Override
        public void onClosed(FpduLink.Closure closure) {
        }
    }

    /** A plain handler (no placement): everything is staged. */
    private static final class StagedSink implements FpduHandler, FpduLink.Listener {
        final Sink counter;

        StagedSink(Sink counter) {
            this.counter = counter;
        }

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            counter.onUlpdu(segment, offset, length);
        }

        @Override
        public void onError(DeframeFault f) {
            counter.onError(f);
        }

        @Override
        public void onClosed(FpduLink.Closure closure) {
        }
    }

    private static final MethodHandle THREAD_ALLOCATED;

    static {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Class<?> type = Class.forName("com.sun.management.ThreadMXBean");
            THREAD_ALLOCATED = MethodHandles.publicLookup().findVirtual(type, "getCurrentThreadAllocatedBytes",
                    MethodType.methodType(long.class)).bindTo(bean);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static long allocated() {
        try {
            return (long) THREAD_ALLOCATED.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    @ParameterizedTest(name = "emss={0}, crc={1}, placement={2}")
    @CsvSource({"65544, REQUIRED, true", "65544, OFF, true", "1460, REQUIRED, false", "1460, REQUIRED, true",
            "65544, REQUIRED, false"})
    void steadyStateReceiveAllocatesNothing(int emss, CrcPolicy crc, boolean placement) throws Exception {
        sender = new IwarpTransport(TransportFixture.config().eventLoopThreads(1).emss(emss).build());
        receiver = new IwarpTransport(TransportFixture.config().eventLoopThreads(1).emss(emss).build());
        MpaSettings settings = MpaSettings.builder().crcPolicy(crc).build();
        Responder r = Responder.accepting(new byte[0]);
        FpduChannel tx;
        FpduChannel rx;
        try (MpaListener listener = receiver.listen(LOOPBACK, settings, r)) {
            Setup s = new Setup();
            sender.connect(listener.localAddress(), settings, null, s);
            tx = s.channel();
            rx = r.accepted.channel();
        }
        int payloadLength = tx.mulpdu() - TaggedHeaderFlyweight.HEADER_LENGTH;
        // RNIC-like (trusted) memory: epoll places into it by address (docs/transport.md "Socket kinds")
        Sink sink = new Sink(TestIoTransport.stableMemory(payloadLength));
        if (placement) {
            onLoop(rx, () -> rx.start(sink, sink));
        } else {
            StagedSink staged = new StagedSink(sink);
            onLoop(rx, () -> rx.start(staged, staged));
        }
        StagedSink ignore = new StagedSink(new Sink(null));
        onLoop(tx, () -> tx.start(ignore, ignore));

        int burst = Math.max(1, Math.min(64, 512 * 1024 / tx.mulpdu()));
        MemorySegment payload = Arena.ofAuto().allocate(payloadLength);
        MemorySegment header = Arena.ofAuto().allocate(TaggedHeaderFlyweight.HEADER_LENGTH);
        new RdmapMessageEncoder(RdmapFeatures.RFC_5040).taggedHeader(header, 0, RdmapOpcode.RDMA_WRITE, true, 1, 0);
        Runnable send = () -> {
            for (int i = 0; i < burst; i++) {
                tx.send(header, 0, TaggedHeaderFlyweight.HEADER_LENGTH, payload, 0, payloadLength);
            }
            tx.flush();
        };
        long[] mark = new long[2];
        long expected = 0;
        long[] stats = new long[2];
        long[] events = new long[2];
        for (int b = 0; b < WARMUP_BURSTS + MEASURED_BURSTS; b++) {
            if (b == WARMUP_BURSTS) {
                onLoop(rx, () -> {
                    mark[0] = allocated();
                    stats[0] = rx.bytesPlacedDirect();
                    events[0] = rx.readEvents();
                });
            }
            onLoop(tx, send);
            expected += (long) burst * payloadLength;
            long deadline = System.nanoTime() + TransportFixture.WAIT_SECONDS * 1_000_000_000L;
            while (sink.bytes.get() < expected) {
                assertThat(System.nanoTime()).as("peer received the burst").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
        onLoop(rx, () -> {
            mark[1] = allocated();
            stats[1] = rx.bytesPlacedDirect();
            events[1] = rx.readEvents();
        });
        long fpdus = (long) MEASURED_BURSTS * burst;
        long bytes = mark[1] - mark[0];
        long readEvents = events[1] - events[0];
        System.out.printf("RX allocation (emss %d, crc %s, placement %s): %d bytes over %d FPDUs (%.3f B/FPDU),"
                        + " %d read events (%.3f B/event), %d bytes placed direct%n", emss, crc, placement, bytes,
                fpdus, (double) bytes / fpdus, readEvents, (double) bytes / Math.max(1, readEvents),
                stats[1] - stats[0]);
        assertThat(sink.fault).isNull();
        if (placement && emss > 8192) {
            assertThat(stats[1] - stats[0]).as("direct placement in use").isGreaterThan(fpdus * payloadLength / 2);
        }
        // Our code (netty's read loop, PlacementRecvAllocator, RxWindow, the deframer, the dispatch)
        // allocates nothing. What remains is the JDK selector's, once per read-readiness event, unless
        // netty can install its array-backed selected-key set (it needs
        // --add-opens java.base/sun.nio.ch=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true on
        // JDK 25; then this measures 0): sun.nio.ch.SelectorImpl adds the key to a HashSet (a 32-byte
        // HashMap.Node) and netty iterates it (a 32-byte HashMap.KeyIterator).
        // Slack: the two measuring tasks and a stray runtime allocation on the loop thread.
        long slack = 8192;
        assertThat(bytes).as("bytes allocated by the receiving loop over %d FPDUs, %d read events", fpdus, readEvents)
                .isLessThanOrEqualTo(JDK_SELECTOR_BYTES_PER_EVENT * readEvents + slack);
    }
}
