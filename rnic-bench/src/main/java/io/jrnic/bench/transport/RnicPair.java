package io.jrnic.bench.transport;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.IoTransport;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.Rnic;
import io.jrnic.api.IoMode;
import io.jrnic.api.RnicConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two software RNICs ({@link Rnic#open}) in this JVM, each with one protection domain, one completion queue and one
 * queue pair, connected over loopback TCP by their connection managers: the fixture under the RNIC
 * transports. The {@linkplain #active() active} side is the benchmark thread's, the
 * {@linkplain #passive() passive} side the consumer's or echo's.
 *
 * <p>Setup in three steps, as an application would: {@link #open} creates both sides with Idle
 * queue pairs; the caller registers memory and pre-posts receives ({@link Side#register}); then
 * {@link #connect} runs MPA setup, each side advertising one region (STag, TO, length) in its MPA
 * private data (the Request's and the Reply's, RFC 5044 §7.1) so that the peer learns the target of
 * its RDMA Writes the way a real ULP would. {@link #close()} closes both RNICs, which frees their
 * memory.
 *
 * <p>Connection settings: CRC {@link CrcMode#REQUIRED} on both sides when {@code crc}, else
 * {@link CrcMode#OFF} on both (checked after setup); markers off; EMSS
 * {@link ConnectionSettings#MAX_EMSS} (65544), the loopback interface's 64 KiB MTU, so that a
 * 64 KiB message is one FPDU as it is one {@code write} for the raw-TCP baseline.
 *
 * <p>Thread safety: set up and close from one thread; after {@link #connect} each side's objects
 * are used by the thread that owns that side (the RNIC objects themselves are thread safe).
 */
public final class RnicPair implements AutoCloseable {

    /** Bound on the MPA setup. */
    static final long SETUP_TIMEOUT_SECONDS = 10;

    /** Every data right: both sides' regions serve as Write sinks and Send sources. */
    static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;

    /** Inline data capacity of the queue pairs: room for the 8-byte credit messages. */
    static final int MAX_INLINE = 64;

    private static final AtomicInteger NAMES = new AtomicInteger();
    /**
     * The I/O mode of the pairs opened from now on: {@code -Djrnic.bench.ioMode=POLLING} (JMH:
     * {@code -jvmArgsPrepend}), else event-loop mode, until {@link #ioMode(IoMode)} changes it (the
     * perftest commands' {@code --mode}); docs/benchmarks.md "Polling mode".
     */
    private static volatile IoMode ioMode = IoMode.valueOf(System.getProperty("jrnic.bench.ioMode", "EVENT_LOOP"));
    /** RnicConfig.pollingTakeover in microseconds: {@code -Djrnic.bench.pollingTakeoverMicros}, default 1000. */
    static final Duration POLLING_TAKEOVER = Duration.ofNanos(1000
            * Long.getLong("jrnic.bench.pollingTakeoverMicros", 1000));
    /**
     * RnicConfig.callerTransmit (event-loop mode on epoll): {@code -Djrnic.bench.callerTransmit=false}
     * hands every post to the I/O thread, as before 2026-11-29 (docs/benchmarks.md); default true.
     */
    static final boolean CALLER_TRANSMIT = Boolean.parseBoolean(System.getProperty("jrnic.bench.callerTransmit", "true"));
    /**
     * RnicConfig.pollingSpin of the pairs opened from now on: {@code -Djrnic.bench.pollingSpinMicros}
     * (microseconds, default 50) until {@link #pollingSpin(Duration)} changes it (the perftest
     * commands' {@code --polling-spin-us}).
     */
    private static volatile Duration pollingSpin =
            Duration.ofNanos(1000 * Long.getLong("jrnic.bench.pollingSpinMicros", 50));

    private final boolean crc;
    private final Side active;
    private final Side passive;
    private ConnectionManager.Listener listener;

    private RnicPair(boolean crc, Side active, Side passive) {
        this.crc = crc;
        this.active = active;
        this.passive = passive;
    }

    /**
     * Opens both RNICs and creates their queue pairs, Idle.
     *
     * @param crc            whether the connection runs MPA with CRC (REQUIRED both sides) or without (OFF)
     * @param activeDepths   SQ and RQ depth of the active side's queue pair
     * @param passiveDepths  SQ and RQ depth of the passive side's queue pair
     * @return the unconnected pair
     */
    public static RnicPair open(boolean crc, Depths activeDepths, Depths passiveDepths) {
        IoMode mode = ioMode;
        Duration spin = pollingSpin;
        int n = NAMES.incrementAndGet();
        Side active = new Side("bench-a-" + n, activeDepths, mode, spin);
        try {
            Side passive = new Side("bench-b-" + n, passiveDepths, mode, spin);
            return new RnicPair(crc, active, passive);
        } catch (RuntimeException | Error e) {
            active.rnic.close();
            throw e;
        }
    }

    /**
     * Sets the I/O mode of the pairs opened from now on in this JVM (a command-line tool's choice;
     * pairs already open keep theirs).
     *
     * @param mode the mode
     */
    public static void ioMode(IoMode mode) {
        if (mode == null) {
            throw new IllegalArgumentException("mode must not be null");
        }
        ioMode = mode;
    }

    /** {@return the I/O mode of the pairs opened from now on} */
    public static IoMode ioMode() {
        return ioMode;
    }

    /**
     * Sets how long the I/O threads of the pairs opened from now on in this JVM spin after work in
     * polling mode ({@code RnicConfig.pollingSpin}; docs/transport.md "Polling mode").
     *
     * @param spin zero or positive
     * @throws IllegalArgumentException if spin is null or negative
     */
    public static void pollingSpin(Duration spin) {
        if (spin == null || spin.isNegative()) {
            throw new IllegalArgumentException("pollingSpin must not be negative: " + spin);
        }
        pollingSpin = spin;
    }

    /** {@return the polling-mode spin of the pairs opened from now on} */
    public static Duration pollingSpin() {
        return pollingSpin;
    }

    /** {@return the side of the benchmark thread (MPA Initiator)} */
    public Side active() {
        return active;
    }

    /** {@return the side of the consumer or echo thread (MPA Responder)} */
    public Side passive() {
        return passive;
    }

    /**
     * Connects the two queue pairs: the passive side listens on an ephemeral loopback port and
     * accepts, the active side connects. Each side's advertised region travels in its MPA private
     * data and becomes the other side's {@link Side#peer()}.
     *
     * @param activeAdvertised  the region the passive side may write into (or null for none)
     * @param passiveAdvertised the region the active side may write into (or null for none)
     * @throws IOException if setup failed or did not finish within {@value #SETUP_TIMEOUT_SECONDS} s,
     *                     or negotiated another CRC mode than requested
     */
    public void connect(Region activeAdvertised, Region passiveAdvertised) throws IOException {
        ConnectionSettings settings = new ConnectionSettings().crc(crc ? CrcMode.REQUIRED : CrcMode.OFF)
                .markers(false, false).emss(ConnectionSettings.MAX_EMSS);
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        byte[] reply = Advertisement.encode(passiveAdvertised);
        listener = passive.rnic.connectionManager().listen(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), settings,
                request -> request.accept(passive.qp, reply).whenComplete((c, failure) -> {
                    if (failure != null) {
                        accepted.completeExceptionally(failure);
                    } else {
                        accepted.complete(c);
                    }
                }));
        CompletableFuture<Connection> connected = active.rnic.connectionManager()
                .connect(active.qp, listener.localAddress(), settings, Advertisement.encode(activeAdvertised))
                .toCompletableFuture();
        active.connection = await(connected, "connect");
        passive.connection = await(accepted, "accept");
        if (active.connection.parameters().crc() != crc || passive.connection.parameters().crc() != crc) {
            throw new IOException("negotiated CRC " + active.connection.parameters().crc() + " but asked for " + crc);
        }
        active.peer = Advertisement.decode(active.connection.peerPrivateData());
        passive.peer = Advertisement.decode(passive.connection.peerPrivateData());
    }

    private static Connection await(CompletableFuture<Connection> stage, String what) throws IOException {
        try {
            return stage.get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IOException(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(what + " did not finish within " + SETUP_TIMEOUT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " interrupted", e);
        }
    }

    /** Closes the listener and both RNICs (connections, queue pairs, memory). Idempotent. */
    @Override
    public void close() {
        try {
            if (listener != null) {
                listener.close();
            }
        } finally {
            try {
                active.rnic.close();
            } finally {
                passive.rnic.close();
            }
        }
    }

    /**
     * Queue depths of one side.
     *
     * @param sq    send queue depth (outstanding send work requests)
     * @param rq    receive queue depth (posted receives)
     * @param reads IRD and ORD of the queue pair (outstanding RDMA Reads and atomics each way)
     */
    public record Depths(int sq, int rq, int reads) {

        /**
         * Depths with IRD = ORD = 1 (one outstanding Read or atomic, all the round trips need).
         *
         * @param sq send queue depth (outstanding send work requests)
         * @param rq receive queue depth (posted receives)
         */
        public Depths(int sq, int rq) {
            this(sq, rq, 1);
        }
    }

    /**
     * A registered region and its memory, VA-based: the TO of a byte is its address.
     *
     * @param mr     the region
     * @param memory its native memory
     */
    public record Region(MemoryRegion mr, MemorySegment memory) {

        /** {@return the region's STag} */
        public int stag() {
            return mr.stag();
        }

        /** {@return the TO of the first byte} */
        public long to() {
            return memory.address();
        }
    }

    /**
     * A peer's region as advertised in MPA private data.
     *
     * @param stag   STag
     * @param to     TO of the first byte
     * @param length bytes
     */
    public record Remote(int stag, long to, long length) {
    }

    /**
     * The RNICs' socket implementation: the system property {@code jrnic.bench.ioTransport} (NIO,
     * EPOLL or AUTO; AUTO when unset), for measuring NIO against epoll (docs/benchmarks.md, issue 11).
     *
     * @return the configured choice
     * @throws IllegalArgumentException if the property names no {@link IoTransport}
     */
    public static IoTransport ioTransport() {
        return IoTransport.valueOf(System.getProperty("jrnic.bench.ioTransport", "AUTO").trim().toUpperCase(
                java.util.Locale.ROOT));
    }

    /** One RNIC with its PD, CQ (both queues of the QP complete into it) and Idle queue pair. */
    public static final class Side {
        private final Rnic rnic;
        private final ProtectionDomain pd;
        private final CompletionQueue cq;
        private final QueuePair qp;
        private volatile AsyncEvent lastEvent;
        private Connection connection;
        private Remote peer;

        Side(String name, Depths depths, IoMode mode, Duration spin) {
            rnic = Rnic.open(new RnicConfig().name(name).ioMode(mode).pollingTakeover(POLLING_TAKEOVER)
                    .pollingSpin(spin).callerTransmit(CALLER_TRANSMIT).ioTransport(ioTransport()));
            try {
                rnic.setAsyncEventHandler((r, event) -> lastEvent = event);
                pd = rnic.allocatePd();
                cq = rnic.createCq(depths.sq() + depths.rq() + 16);
                qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(depths.sq(), depths.rq())
                        .sges(1, 1, 1, MAX_INLINE).readDepths(depths.reads(), depths.reads()).signalAll(false));
            } catch (RuntimeException | Error e) {
                rnic.close();
                throw e;
            }
        }

        /**
         * Allocates and registers zeroed RNIC memory with every data right.
         *
         * @param size bytes, at least 1
         * @return the region
         */
        public Region register(long size) {
            return register(size, RIGHTS);
        }

        /**
         * Allocates and registers zeroed RNIC memory with the given rights (the one-sided round trips
         * need the extension rights: {@link AccessRights#REMOTE_ATOMIC}, {@link AccessRights#FLUSHABLE_GLOBAL},
         * {@link AccessRights#VERIFIABLE}).
         *
         * @param size         bytes, at least 1
         * @param accessRights the {@link AccessRights} bits of the region
         * @return the region
         */
        public Region register(long size, int accessRights) {
            MemorySegment memory = rnic.allocateMemory(size, 4096);
            return new Region(pd.registerMemory(memory, accessRights), memory);
        }

        /** {@return the completion queue of both work queues} */
        public CompletionQueue cq() {
            return cq;
        }

        /** {@return the queue pair} */
        public QueuePair qp() {
            return qp;
        }

        /**
         * {@return the peer's advertised region (after {@link RnicPair#connect}), or null if it
         * advertised none}
         */
        public Remote peer() {
            return peer;
        }

        /** {@return the established connection (after {@link RnicPair#connect})} */
        public Connection connection() {
            return connection;
        }

        /** {@return the last asynchronous event of this RNIC (for failure messages), or null} */
        public AsyncEvent lastEvent() {
            return lastEvent;
        }

        @Override
        public String toString() {
            return rnic + " qp " + qp + (lastEvent == null ? "" : ", last event " + lastEvent);
        }
    }

    /**
     * The 16-byte advertisement in MPA private data: STag (4), length (4, at most 4 GiB - 1), TO (8),
     * big-endian; empty private data advertises nothing.
     */
    static final class Advertisement {
        static final int LENGTH = 16;
        private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

        private Advertisement() {
        }

        static byte[] encode(Region region) {
            if (region == null) {
                return new byte[0];
            }
            byte[] out = new byte[LENGTH];
            MemorySegment s = MemorySegment.ofArray(out);
            s.set(INT, 0, region.stag());
            s.set(INT, 4, (int) region.memory().byteSize());
            s.set(LONG, 8, region.to());
            return out;
        }

        static Remote decode(byte[] privateData) throws IOException {
            if (privateData == null || privateData.length == 0) {
                return null;
            }
            if (privateData.length != LENGTH) {
                throw new IOException("peer advertised " + privateData.length + " bytes, expected " + LENGTH);
            }
            MemorySegment s = MemorySegment.ofArray(privateData);
            return new Remote(s.get(INT, 0), s.get(LONG, 8), Integer.toUnsignedLong(s.get(INT, 4)));
        }
    }
}
