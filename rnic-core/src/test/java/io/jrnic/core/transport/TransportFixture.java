package io.jrnic.core.transport;

import io.jrnic.core.link.FpduLink;
import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.PlacementHandler;
import io.jrnic.mpa.PlacementTarget;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** Shared helpers of the transport tests: loopback setup, a data pump and a byte-exact sink. */
final class TransportFixture {

    /** Upper bound of every wait; a passing test never waits that long. */
    static final long WAIT_SECONDS = 20;
    static final SocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);

    private TransportFixture() {
    }

    static TransportConfig.Builder config() {
        return TransportConfig.builder().eventLoopThreads(2).setupTimeout(Duration.ofSeconds(10))
                .ioTransport(TestIoTransport.CHOICE);
    }

    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no result within " + WAIT_SECONDS + " s", e);
        }
    }

    /** Runs a task on the channel's event loop and waits for it. */
    static void onLoop(FpduChannel channel, Runnable task) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        channel.executor().execute(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        await(done);
    }

    /** A {@link ConnectCallback} as two futures. */
    static final class Setup implements ConnectCallback {
        final CompletableFuture<FpduChannel> established = new CompletableFuture<>();
        final CompletableFuture<SetupFailure> failed = new CompletableFuture<>();
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public void onEstablished(FpduChannel channel) {
            calls.add("established");
            established.complete(channel);
        }

        @Override
        public void onFailed(SetupFailure failure) {
            calls.add("failed");
            failed.complete(failure);
        }

        FpduChannel channel() {
            return await(established);
        }

        SetupFailure failure() {
            return await(failed);
        }
    }

    /** A request handler that answers with a configurable action. */
    static final class Responder implements MpaRequestHandler {
        final CompletableFuture<MpaRequest> request = new CompletableFuture<>();
        final CompletableFuture<SetupFailure> setupFailed = new CompletableFuture<>();
        final Setup accepted = new Setup();
        volatile Consumer<MpaRequest> action;

        Responder(Consumer<MpaRequest> action) {
            this.action = action;
        }

        static Responder accepting(byte[] replyData) {
            Responder r = new Responder(null);
            r.action = req -> req.accept(replyData, r.accepted);
            return r;
        }

        @Override
        public void onRequest(MpaRequest req) {
            request.complete(req);
            if (action != null) {
                action.accept(req);
            }
        }

        @Override
        public void onSetupFailed(SocketAddress remote, SetupFailure failure) {
            setupFailed.complete(failure);
        }
    }

    /** An established pair. */
    record Pair(FpduChannel initiator, FpduChannel responder, MpaRequest request) {
    }

    static Pair connect(IwarpTransport transport, MpaSettings initiator, MpaSettings responder) throws Exception {
        Responder r = Responder.accepting(new byte[0]);
        try (MpaListener listener = transport.listen(LOOPBACK, responder, r)) {
            Setup s = new Setup();
            transport.connect(listener.localAddress(), initiator, null, s);
            FpduChannel i = s.channel();
            FpduChannel p = r.accepted.channel();
            return new Pair(i, p, await(r.request));
        }
    }

    /**
     * One end of a data test: sends a list of messages as RDMA Writes (tagged header, TO = offset in
     * the stream of all messages) and writes what it receives at the TO into {@link #received}. The
     * TX pump pauses when the channel is not writable and resumes on {@link #onWritable()}.
     */
    static class Endpoint implements FpduHandler, FpduLink.Listener {
        final RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.RFC_5040);
        final MemorySegment header = Arena.ofAuto().allocate(64);
        final MemorySegment received;
        final long expectedBytes;
        final long expectedFpdus;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final CompletableFuture<FpduLink.Closure> closed = new CompletableFuture<>();
        final CompletableFuture<DeframeFault> fault = new CompletableFuture<>();
        final TaggedHeaderFlyweight tagged = new TaggedHeaderFlyweight();
        volatile int closedCalls;
        long bytes;
        long fpdus;
        long payloadViaUlpdu;
        FpduChannel channel;
        // TX state
        MemorySegment data;
        int[] messageSizes;
        int message;
        long messageStart;
        long sent;
        boolean sentAny;
        int pauses;
        final CompletableFuture<Void> allSent = new CompletableFuture<>();

        Endpoint(long expectedBytes, long expectedFpdus) {
            this(expectedBytes, expectedFpdus, Arena.ofAuto().allocate(Math.max(1, expectedBytes)));
        }

        Endpoint(long expectedBytes, long expectedFpdus, MemorySegment received) {
            this.received = received;
            this.expectedBytes = expectedBytes;
            this.expectedFpdus = expectedFpdus;
            if (expectedFpdus == 0) {
                done.complete(null);
            }
        }

        void start(FpduChannel ch) {
            channel = ch;
            onLoop(ch, () -> ch.start(this, this));
        }

        /** Starts sending the messages (runs on the loop). */
        void send(MemorySegment source, int[] sizes) {
            onLoop(channel, () -> {
                data = source;
                messageSizes = sizes;
                pump();
            });
        }

        void pump() {
            int maxPayload = channel.mulpdu() - TaggedHeaderFlyweight.HEADER_LENGTH;
            while (message < messageSizes.length) {
                int size = messageSizes[message];
                long inMessage = sent - messageStart;
                int n = (int) Math.min(maxPayload, size - inMessage);
                boolean last = inMessage + n == size;
                int h = encoder.taggedHeader(header, 0, RdmapOpcode.RDMA_WRITE, last, 0x1234, sent);
                boolean writable = channel.send(header, 0, h, data, sent, n);
                sentAny = true;
                sent += n;
                if (last) {
                    message++;
                    messageStart = sent;
                }
                if (!writable) {
                    pauses++;
                    channel.flush();
                    return;                    // resumed by onWritable
                }
            }
            channel.flush();
            allSent.complete(null);
        }

        @Override
        public void onWritable() {
            if (messageSizes != null && message < messageSizes.length) {
                pump();
            }
        }

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            assertThat(DdpHeaderFlyweight.isTagged(segment.get(ValueLayout.JAVA_BYTE, offset) & 0xFF)).isTrue();
            long to = tagged.wrap(segment, offset).taggedOffset();
            int payload = length - TaggedHeaderFlyweight.HEADER_LENGTH;
            MemorySegment.copy(segment, offset + TaggedHeaderFlyweight.HEADER_LENGTH, received, to, payload);
            payloadViaUlpdu += payload;
            count(payload);
        }

        void count(int payload) {
            bytes += payload;
            fpdus++;
            if (fpdus == expectedFpdus) {
                done.complete(null);
            }
        }

        @Override
        public void onError(DeframeFault f) {
            fault.complete(f);
        }

        @Override
        public void onClosed(FpduLink.Closure closure) {
            closedCalls++;
            closed.complete(closure);
        }
    }

    /** An endpoint that also records each received FPDU's tagged offset, in arrival order (stream order tests). */
    static class ArrivalEndpoint extends Endpoint {
        final java.util.List<Long> arrivals = new java.util.concurrent.CopyOnWriteArrayList<>();

        ArrivalEndpoint(long expectedBytes, long expectedFpdus) {
            super(expectedBytes, expectedFpdus);
        }

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            arrivals.add(tagged.wrap(segment, offset).taggedOffset());
            super.onUlpdu(segment, offset, length);
        }
    }

    /** An endpoint that lets the transport place payload straight into {@link #received}. */
    static final class PlacingEndpoint extends Endpoint implements PlacementHandler {
        long payloadPlaced;

        PlacingEndpoint(long expectedBytes, long expectedFpdus) {
            this(expectedBytes, expectedFpdus, false);
        }

        /**
         * @param heap whether to place into heap memory; otherwise into RNIC-like (trusted) native
         *             memory, which epoll reads into by address (docs/transport.md "Socket kinds")
         */
        PlacingEndpoint(long expectedBytes, long expectedFpdus, boolean heap) {
            super(expectedBytes, expectedFpdus, heap ? MemorySegment.ofArray(new byte[(int) Math.max(1, expectedBytes)])
                    : TestIoTransport.stableMemory(expectedBytes));
        }

        @Override
        public int prefixLength(int firstByte, int ulpduLength) {
            return DdpHeaderFlyweight.isTagged(firstByte) ? TaggedHeaderFlyweight.HEADER_LENGTH : 0;
        }

        @Override
        public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                       PlacementTarget target) {
            target.set(received, tagged.wrap(prefix, offset).taggedOffset());
            return true;
        }

        @Override
        public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
            payloadPlaced += ulpduLength - prefixLength;
            count(ulpduLength - prefixLength);
        }
    }

    /** FPDUs needed for the messages at this MULPDU (a zero-length message still takes one). */
    static long fpduCount(int[] sizes, int mulpdu) {
        int max = mulpdu - TaggedHeaderFlyweight.HEADER_LENGTH;
        long n = 0;
        for (int size : sizes) {
            n += size == 0 ? 1 : (size + max - 1) / max;
        }
        return n;
    }

    static long total(int[] sizes) {
        long t = 0;
        for (int s : sizes) {
            t += s;
        }
        return t;
    }

    /** A native segment of pseudo-random bytes. */
    static MemorySegment pattern(long length, long seed) {
        return fill(Arena.ofAuto().allocate(Math.max(1, length)), length, seed);
    }

    /** A heap segment (over a byte[]) of pseudo-random bytes. */
    static MemorySegment heapPattern(int length, long seed) {
        return fill(MemorySegment.ofArray(new byte[Math.max(1, length)]), length, seed);
    }

    static MemorySegment fill(MemorySegment s, long length, long seed) {
        java.util.Random random = new java.util.Random(seed);
        for (long i = 0; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        return s;
    }

    /** Byte-for-byte comparison with the first differing offset in the message. */
    static void assertSameBytes(MemorySegment actual, MemorySegment expected, long length) {
        long mismatch = actual.asSlice(0, length).mismatch(expected.asSlice(0, length));
        assertThat(mismatch).as("first differing byte").isEqualTo(-1L);
    }
}
