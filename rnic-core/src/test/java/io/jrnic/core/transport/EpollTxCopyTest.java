package io.jrnic.core.transport;

import io.jrnic.api.IoTransport;
import io.jrnic.core.transport.TransportFixture.Endpoint;
import io.jrnic.core.transport.TransportFixture.Responder;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.RtrForm;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;

import static io.jrnic.core.transport.TransportFixture.LOOPBACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The epoll transmit path over loopback TCP (docs/transport.md "Socket kinds"): netty's epoll code
 * hands the kernel bare addresses when it writes, possibly long after the FPDU was queued, so payload
 * in heap memory (no address) or in an arena the application may close is copied when the FPDU is
 * queued. Each test queues its FPDU behind 16 MiB that a raw peer does not read yet, so the FPDU is
 * still in netty's outbound buffer when its source memory goes away, then reads every FPDU back with
 * its CRC checked.
 *
 * <p>Verbs §7 (SGL): a source buffer is in the RI's scope from the post until the completion, so an
 * application that frees it earlier gets undefined data at the sink; but the RI must never read
 * memory that has been freed (a JVM does not crash or leak other memory on the wire for it).
 */
class EpollTxCopyTest {
    private static final int FILL = 16 << 20;
    private IwarpTransport transport;
    private MpaListener listener;
    private Responder responder;
    private Socket raw;

    @BeforeEach
    void open() throws Exception {
        assumeTrue(Epoll.isAvailable(), "netty's native epoll transport loads here");
        transport = new IwarpTransport(TransportFixture.config().ioTransport(IoTransport.EPOLL).build());
        responder = Responder.accepting(null);
        listener = transport.listen(LOOPBACK, MpaSettings.defaults(), responder);
        raw = new Socket();
        raw.connect(listener.localAddress());
        raw.setSoTimeout(10_000);
        raw.getOutputStream().write(RawFrames.request(RtrForm.ALL, true));
        assertThat(raw.getInputStream().readNBytes(24)[17]).as("Rev").isEqualTo((byte) 2);
        raw.getOutputStream().write(RawFrames.WRITE_RTR_FPDU);
    }

    @AfterEach
    void close() throws Exception {
        if (transport == null) {
            return;
        }
        raw.close();
        listener.close();
        transport.close();
    }

    @Test
    void anFpduFromAnArenaClosedWhileItWaitsInTheQueueCarriesTheBytesOfPostTime() throws Exception {
        FpduChannel channel = started();
        int payload = channel.mulpdu() - 14;
        Arena arena = Arena.ofShared();
        MemorySegment doomed = arena.allocate(payload);
        MemorySegment expected = TransportFixture.pattern(payload, 7);
        doomed.copyFrom(expected);
        long queued = queueBehindFill(channel, doomed, payload);
        arena.close(); // the application's fault (before the completion), but not a crash nor garbage
        // malloc hands the freed block to the next allocations (this one, the JVM's own): an FPDU
        // that kept its address would carry their bytes (seen: class names) and a stale CRC
        try (Arena next = Arena.ofConfined()) {
            MemorySegment reuse = next.allocate(payload);
            reuse.copyFrom(TransportFixture.pattern(payload, 8));
            assertReceivesAll(channel, queued, expected, payload);
        }
    }

    @Test
    void anFpduFromHeapMemoryQueuedBehindAFullSocketArrivesWhole() throws Exception {
        FpduChannel channel = started();
        int payload = channel.mulpdu() - 14;
        assertThat(payload).as("larger than the small heap pieces every socket kind copies")
                .isGreaterThan(TxFpdu.HEAP_COPY_LIMIT);
        MemorySegment heap = TransportFixture.heapPattern(payload, 11);
        MemorySegment expected = TransportFixture.heapPattern(payload, 11);
        long queued = queueBehindFill(channel, heap, payload);
        assertReceivesAll(channel, queued, expected, payload);
    }

    private FpduChannel started() {
        FpduChannel channel = responder.accepted.channel();
        assertThat(channel.ioTransport()).isEqualTo(IoTransport.EPOLL);
        new Endpoint(0, 0).start(channel);
        return channel;
    }

    /**
     * Queues 16 MiB of FPDUs from stable memory, then one FPDU of {@code payload} bytes of
     * {@code source}, flushes, and checks that the last one is still queued (TCP did not take it).
     *
     * @return the number of FPDUs queued
     */
    private static long queueBehindFill(FpduChannel channel, MemorySegment source, int payload) {
        int mulpdu = channel.mulpdu();
        MemorySegment header = MemorySegment.ofArray(new byte[14]);
        MemorySegment filler = TestIoTransport.stableMemory(mulpdu);
        long fills = FILL / mulpdu;
        AtomicLong sentBefore = new AtomicLong();
        AtomicLong sentAfter = new AtomicLong();
        TransportFixture.onLoop(channel, () -> {
            sentBefore.set(channel.fpdusWritten());
            for (long i = 0; i < fills; i++) {
                channel.send(header, 0, 14, filler, 0, mulpdu - 14);
            }
            channel.send(header, 0, 14, source, 0, payload);
            channel.flush();
            sentAfter.set(channel.fpdusWritten());
        });
        assertThat(sentAfter.get() - sentBefore.get()).as("FPDUs TCP took at once").isLessThan(fills);
        return fills + 1;
    }

    private void assertReceivesAll(FpduChannel channel, long count, MemorySegment expected, int payload)
            throws Exception {
        byte[] last = null;
        for (long i = 0; i < count; i++) {
            last = RawFpdus.receive(raw.getInputStream()); // CRC checked
        }
        assertThat(last).hasSize(14 + payload);
        TransportFixture.assertSameBytes(MemorySegment.ofArray(last).asSlice(14), expected, payload);
        assertThat(channel.isOpen()).isTrue();
    }
}
