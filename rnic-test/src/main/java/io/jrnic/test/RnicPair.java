package io.jrnic.test;

import io.jrnic.api.Access;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionRequestHandler;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Two open RNICs in one JVM whose queue pairs are connected to each other over loopback TCP, the
 * way jrnic tests itself: the {@linkplain #active() active} end connected (MPA Initiator), the
 * {@linkplain #passive() passive} end listened and accepted (MPA Responder). Each end has its own
 * RNIC, protection domain, completion queue (for both its send and receive queue) and queue pair in
 * RTS, with helpers to register memory and to wait, bounded, for completions and events.
 *
 * <p>{@link RnicPairExtension} (through {@link RnicTest}) opens a pair for a test, configured by the
 * annotation, and closes it afterwards: the queue pairs are connected before the test method runs,
 * with no receive posted, so a test posts its receives before it makes the peer send. The
 * application may use every resource as it likes (post, modify, create more queue pairs on the
 * same RNICs) except close the RNICs; {@link #close()} releases everything.
 *
 * <pre>{@code
 * @RnicTest
 * class SendTest {
 *     @Test
 *     void sendReachesAPostedReceive(RnicPair pair) {
 *         MemoryRegion sink = pair.passive().allocate(64);
 *         pair.passive().qp().postReceive(new ReceiveWorkRequest().wrId(7)
 *                 .sge(sink.stag(), sink.memory().address(), 64));
 *         MemoryRegion source = pair.active().allocate(64);
 *         pair.active().qp().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND)
 *                 .sge(source.stag(), source.memory().address(), 64));
 *         pair.active().awaitSuccess(1);
 *         assertEquals(64, pair.passive().awaitSuccess(7).byteLength());
 *     }
 * }
 * }</pre>
 *
 * <p>Thread safety: thread safe; the completion and event waits must not be called from a callback
 * of the RNIC (they block).
 */
public final class RnicPair implements AutoCloseable {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private final long timeoutNanos;
    private final Link link;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private ConnectionManager.Listener listener;
    private Endpoint active;
    private Endpoint passive;
    private boolean closed;

    private RnicPair(RnicTest settings) {
        this.timeoutNanos = TimeUnit.SECONDS.toNanos(settings.timeoutSeconds());
        this.link = settings.link();
    }

    /**
     * Opens two RNICs and connects a queue pair of each, as {@code settings} says; on any failure
     * everything opened so far is closed again.
     *
     * @param settings the configuration
     * @return the connected pair
     * @throws Exception when opening or connecting fails or times out
     */
    static RnicPair open(RnicTest settings) throws Exception {
        RnicPair pair = new RnicPair(settings);
        try {
            pair.connect(settings);
            return pair;
        } catch (Throwable t) {
            try {
                pair.close();
            } catch (RuntimeException e) {
                t.addSuppressed(e);
            }
            throw t;
        }
    }

    private void connect(RnicTest settings) throws Exception {
        EnumSet<RnicExtension> extensions = extensions(settings.extensions());
        // a queue pair may only ask for inline data when the RNIC offers it (Verbs §9.2.5.1)
        boolean inline = extensions.contains(RnicExtension.INLINE_DATA);
        RnicConfig rnicConfig = new RnicConfig().extensions(extensions);
        // jrnic's per-QP read limits must cover what the test asks for (Verbs §6.5)
        rnicConfig.readLimits(Math.max(rnicConfig.maxIrd(), settings.ird()), Math.max(rnicConfig.maxOrd(), settings.ord()));
        ConnectionSettings connection = new ConnectionSettings()
                .crc(settings.crc() ? CrcMode.OPTIONAL : CrcMode.OFF)
                .markers(settings.markers(), true);
        QueuePairConfig qpConfig = new QueuePairConfig().depths(settings.sqDepth(), settings.rqDepth())
                .sges(4, 4, 4, inline ? settings.maxInlineData() : 0).readDepths(settings.ird(), settings.ord());

        Node a = node(rnicConfig, settings.cqDepth(), qpConfig);
        Node b = node(rnicConfig, settings.cqDepth(), qpConfig);

        BlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
        List<ConnectionException> passiveFailures = new CopyOnWriteArrayList<>();
        listener = b.rnic.connectionManager().listen(LOOPBACK, connection, new ConnectionRequestHandler() {
            @Override
            public void onRequest(ConnectionRequest request) {
                requests.add(request);
            }

            @Override
            public void onSetupFailed(SocketAddress remote, ConnectionException failure) {
                passiveFailures.add(failure);
            }
        });
        CompletionStage<Connection> activeSetup = a.rnic.connectionManager()
                .connect(a.qp, target(listener.localAddress()), connection, null);
        ConnectionRequest request = requests.poll(timeoutNanos, TimeUnit.NANOSECONDS);
        if (request == null) {
            // the active stage knows why when setup failed before the Request reached the listener
            await(activeSetup, "connection request at the passive end (setup failures there: " + passiveFailures + ")");
            fail("no connection request reached the passive end within " + seconds());
        }
        CompletionStage<Connection> passiveSetup = request.accept(b.qp, null);
        active = new Endpoint(this, "active", a, await(activeSetup, "active connection setup"));
        passive = new Endpoint(this, "passive", b, await(passiveSetup, "passive connection setup"));
    }

    /**
     * The address the active end connects to. Loopback connects to the listener itself; a proxying
     * link would start its proxy toward the listener here, register it in {@link #resources} and
     * return the proxy's address.
     */
    private SocketAddress target(SocketAddress listenerAddress) {
        return switch (link) {
            case LOOPBACK -> listenerAddress;
        };
    }

    private Node node(RnicConfig config, int cqDepth, QueuePairConfig qpConfig) {
        Rnic rnic = Rnic.open(config);
        resources.add(rnic);
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        rnic.setAsyncEventHandler((r, e) -> events.add(e));
        ProtectionDomain pd = rnic.allocatePd();
        CompletionQueue cq = rnic.createCq(cqDepth);
        QueuePair qp = pd.createQueuePair(qpConfig.cqs(cq, cq));
        return new Node(rnic, pd, cq, qp, events);
    }

    private static EnumSet<RnicExtension> extensions(RnicExtension[] extensions) {
        EnumSet<RnicExtension> set = EnumSet.noneOf(RnicExtension.class);
        set.addAll(Arrays.asList(extensions));
        return set;
    }

    private <T> T await(CompletionStage<T> stage, String what) throws Exception {
        try {
            return stage.toCompletableFuture().get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        } catch (TimeoutException e) {
            return fail(what + " did not finish within " + seconds(), e);
        }
    }

    private String seconds() {
        return TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s";
    }

    /** What one end is made of before its connection exists. */
    private record Node(Rnic rnic, ProtectionDomain pd, CompletionQueue cq, QueuePair qp,
                        BlockingQueue<AsyncEvent> events) {
    }

    /**
     * The end that connected (the MPA Initiator).
     *
     * @return the active end
     */
    public Endpoint active() {
        return active;
    }

    /**
     * The end that listened and accepted (the MPA Responder).
     *
     * @return the passive end
     */
    public Endpoint passive() {
        return passive;
    }

    /**
     * The link between the ends.
     *
     * @return the link
     */
    public Link link() {
        return link;
    }

    /**
     * Ends both connections gracefully and returns the completions the test left: Connection close
     * (Verbs §6.6.2.1) waits until the stream has closed, and by then every work request posted
     * before has its completion in the CQ (a Send or Read still outstanding turns the close into a
     * Bad Close, which flushes it), so the result does not depend on timing. Receives flushed by the
     * close (or earlier) are not counted: posting more receives than a test consumes is normal.
     *
     * @return the completions, removed from the CQs, the active end's first; empty when every
     *         completion was reaped
     */
    List<WorkCompletion> settle() {
        active.connection().close();
        passive.connection().close();
        List<WorkCompletion> out = new ArrayList<>();
        for (Endpoint end : List.of(active, passive)) {
            for (WorkCompletion wc : end.drain()) {
                if (wc.opcode() != Opcode.RECEIVE || wc.status() != WorkCompletionStatus.FLUSHED) {
                    out.add(wc);
                }
            }
        }
        return out;
    }

    /**
     * Stops listening and closes both RNICs, which ends the connection and frees every resource
     * and every RNIC-allocated segment (Verbs §9.2.1.3); returns when the RNICs' event loops have
     * terminated. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        List<AutoCloseable> order = new ArrayList<>();
        if (listener != null) {
            order.add(listener);
        }
        order.addAll(resources.reversed()); // a proxy before the RNICs, the passive RNIC before the active
        for (AutoCloseable resource : order) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing the RNIC pair failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "RnicPair[" + (active == null ? "connecting" : active.rnic().name() + " -> " + passive.rnic().name())
                + ", " + link + "]";
    }

    /**
     * One end of the pair: an open RNIC with a protection domain, a completion queue and a queue
     * pair in RTS on an established {@link Connection}, with bounded waits. The waits fail the test
     * (an {@link AssertionError}) when nothing comes within {@link RnicTest#timeoutSeconds()}.
     *
     * <p>The RNIC's asynchronous event handler is the endpoint's ({@link #awaitEvent}); replacing
     * it is allowed but ends {@link #awaitEvent} and {@link #events()}.
     *
     * <p>Thread safety: thread safe.
     */
    public static final class Endpoint {
        private final RnicPair pair;
        private final String role;
        private final Node node;
        private final Connection connection;
        private final List<AsyncEvent> seen = new CopyOnWriteArrayList<>();

        private Endpoint(RnicPair pair, String role, Node node, Connection connection) {
            this.pair = pair;
            this.role = role;
            this.node = node;
            this.connection = connection;
        }

        /**
         * The RNIC of this end (closed by the pair: do not close it).
         *
         * @return the RNIC
         */
        public Rnic rnic() {
            return node.rnic;
        }

        /**
         * The protection domain of the queue pair.
         *
         * @return the PD
         */
        public ProtectionDomain pd() {
            return node.pd;
        }

        /**
         * The completion queue of both the send and the receive queue of {@link #qp()}.
         *
         * @return the CQ
         */
        public CompletionQueue cq() {
            return node.cq;
        }

        /**
         * The queue pair, in RTS on {@link #connection()} when the test starts.
         *
         * @return the queue pair
         */
        public QueuePair qp() {
            return node.qp;
        }

        /**
         * The established connection of {@link #qp()}: negotiated parameters, teardown.
         *
         * @return the connection
         */
        public Connection connection() {
            return connection;
        }

        /**
         * Allocates {@code size} bytes of zeroed RNIC memory and registers them VA-based (the Tagged
         * Offset of a byte is its address) with Local Read, Local Write, Remote Read and Remote
         * Write; {@code RemoteBuffer.of(region)} describes it to the peer.
         *
         * @param size bytes, at least 1
         * @return the region; {@link MemoryRegion#memory()} is its memory
         */
        public MemoryRegion allocate(long size) {
            return allocate(size, Access.LOCAL_READ, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        }

        /**
         * Allocates {@code size} bytes of zeroed RNIC memory and registers them VA-based with the
         * given rights (for instance {@link Access#REMOTE_ATOMIC} for an atomics target).
         *
         * @param size   bytes, at least 1
         * @param rights the access rights (Verbs Figure 18 combination rules apply)
         * @return the region
         */
        public MemoryRegion allocate(long size, Access... rights) {
            MemorySegment memory = node.rnic.allocateMemory(size, 4096);
            return node.pd.registration(memory).access(rights).register();
        }

        /**
         * Waits for the next completion on {@link #cq()}.
         *
         * @return a copy of the completion
         * @throws AssertionError                when none comes within the timeout
         * @throws io.jrnic.api.VerbsException INVALID_QP_STATE when a queue pair of the CQ has failed
         *                                       and the CQ is empty (see {@link CompletionQueue#poll(WorkCompletion, long, TimeUnit)})
         */
        public WorkCompletion await() {
            WorkCompletion wc = new WorkCompletion();
            try {
                if (!node.cq.poll(wc, pair.timeoutNanos, TimeUnit.NANOSECONDS)) {
                    fail("no completion on the " + role + " end (" + node.rnic.name() + ") within " + pair.seconds());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for a completion", e);
            }
            return wc;
        }

        /**
         * Waits for the next {@code n} completions on {@link #cq()}.
         *
         * @param n how many
         * @return copies of them, in CQ order
         * @throws AssertionError when they do not all come within the timeout (each wait is bounded)
         */
        public List<WorkCompletion> await(int n) {
            List<WorkCompletion> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(await());
            }
            return out;
        }

        /**
         * Waits for the next completion and checks that it is the successful completion of work
         * request {@code wrId}.
         *
         * @param wrId the expected work request identifier
         * @return a copy of the completion
         * @throws AssertionError when none comes in time, or it has another identifier or status
         */
        public WorkCompletion awaitSuccess(long wrId) {
            WorkCompletion wc = await();
            if (wc.wrId() != wrId || wc.status() != WorkCompletionStatus.SUCCESS) {
                fail("expected the successful completion of work request " + wrId + " on the " + role
                        + " end, got " + wc);
            }
            return wc;
        }

        /**
         * Removes and returns whatever is in {@link #cq()} now, without waiting (to discard
         * completions a test does not check, see {@link RnicTest#requireReaped()}).
         *
         * @return copies of the completions
         */
        public List<WorkCompletion> drain() {
            List<WorkCompletion> out = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            while (node.cq.poll(wc)) {
                out.add(new WorkCompletion().copyFrom(wc));
            }
            return out;
        }

        /**
         * Waits for an asynchronous event of the given type on this end's RNIC (an affiliated event
         * of any resource, or an unaffiliated one), for instance
         * {@link AsyncEventType#TERMINATE_MESSAGE_RECEIVED}. Events that came earlier count.
         *
         * @param type the event type
         * @return the event
         * @throws AssertionError when none comes within the timeout
         */
        public AsyncEvent awaitEvent(AsyncEventType type) {
            long deadline = System.nanoTime() + pair.timeoutNanos;
            while (true) {
                collectEvents();
                for (AsyncEvent e : seen) {
                    if (e.type() == type) {
                        return e;
                    }
                }
                long left = deadline - System.nanoTime();
                AsyncEvent next;
                try {
                    next = left <= 0 ? null : node.events.poll(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted waiting for " + type, e);
                }
                if (next == null) {
                    fail("no " + type + " on the " + role + " end (" + node.rnic.name() + ") within "
                            + pair.seconds() + "; events: " + events());
                }
                synchronized (seen) {
                    seen.add(next);
                }
            }
        }

        /**
         * The asynchronous events this end's RNIC reported so far, oldest first.
         *
         * @return a snapshot
         */
        public List<AsyncEvent> events() {
            collectEvents();
            return List.copyOf(seen);
        }

        private void collectEvents() {
            synchronized (seen) {
                node.events.drainTo(seen);
            }
        }

        @Override
        public String toString() {
            return role + " end " + node.rnic.name() + ", " + node.qp;
        }
    }
}
