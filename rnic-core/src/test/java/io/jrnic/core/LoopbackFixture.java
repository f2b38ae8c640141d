package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.NotifyType;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.WorkCompletion;
import io.jrnic.core.transport.TestIoTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two {@link SoftRnic}s in one JVM connected over real loopback TCP through their connection
 * managers: node {@code a} is the active side, node {@code b} listens. Every wait is bounded (ten
 * seconds) and sleep-free: completions through the CQ's completion event handler, events and
 * requests through blocking queues, setups through their stages.
 */
abstract class LoopbackFixture {
    static final long WAIT_SECONDS = 10;
    static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;
    private static final AtomicInteger NAMES = new AtomicInteger();

    Node a;
    Node b;
    ConnectionManager.Listener listener;
    /** Requests that reached node b's listener, when the test answers them itself. */
    final BlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
    /** Setup failures node b's listener reported. */
    final BlockingQueue<ConnectionException> passiveFailures = new LinkedBlockingQueue<>();

    /** One RNIC with a PD, a CQ with a completion handler, and its async events. */
    static final class Node {
        final SoftRnic rnic;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final Semaphore completionEvents = new Semaphore(0);
        final List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        final BlockingQueue<AsyncEvent> eventQueue = new LinkedBlockingQueue<>();

        Node(String name) {
            this(TestIoMode.config(name));
        }

        Node(RnicConfig config) {
            rnic = SoftRnic.open(config);
            rnic.setAsyncEventHandler((r, e) -> {
                events.add(e);
                eventQueue.add(e);
            });
            pd = rnic.allocatePd();
            int handler = rnic.setCompletionEventHandler(0, (r, q) -> completionEvents.release());
            cq = rnic.createCq(4096, handler);
        }

        QueuePair qp(int ird, int ord) {
            return pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(256, 256).sges(4, 4, 4, 64)
                    .readDepths(ird, ord));
        }

        QueuePair qp() {
            return qp(4, 4);
        }

        /** Registers size bytes (at least one) of fresh RNIC memory, VA-based, with every data right. */
        Buffer buffer(long size) {
            MemorySegment m = rnic.allocateMemory(Math.max(1, size), 4096);
            return new Buffer(pd.registerMemory(m, RIGHTS), m);
        }

        /** Polls n completions, waiting (bounded) on the CQ's completion events between polls. */
        List<WorkCompletion> completions(int n) {
            List<WorkCompletion> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            WorkCompletion wc = new WorkCompletion();
            while (out.size() < n) {
                if (cq.poll(wc)) {
                    out.add(copy(wc));
                    continue;
                }
                cq.requestNotification(NotifyType.NEXT_COMPLETION);
                if (cq.poll(wc)) { // arrived before arming
                    out.add(copy(wc));
                    continue;
                }
                long left = deadline - System.nanoTime();
                try {
                    if (left <= 0 || !completionEvents.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                        throw new AssertionError("timed out after " + out.size() + " of " + n + " completions on "
                                + rnic + ": " + out);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
            return out;
        }

        /** Whatever is in the CQ now (no waiting). */
        List<WorkCompletion> drain() {
            List<WorkCompletion> out = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            while (cq.poll(wc)) {
                out.add(copy(wc));
            }
            return out;
        }

        /** Waits for the affiliated event of the given type on the given QP. */
        AsyncEvent awaitEvent(AsyncEventType type, QueuePair qp) {
            for (AsyncEvent e : events) {
                if (e.type() == type && e.resource() == qp) {
                    return e;
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            try {
                while (true) {
                    long left = deadline - System.nanoTime();
                    AsyncEvent e = left <= 0 ? null : eventQueue.poll(left, TimeUnit.NANOSECONDS);
                    if (e == null) {
                        throw new AssertionError("timed out waiting for " + type + " on " + qp + "; events: " + events);
                    }
                    if (e.type() == type && e.resource() == qp) {
                        return e;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        List<AsyncEventType> eventTypes() {
            return events.stream().map(AsyncEvent::type).toList();
        }

        private static WorkCompletion copy(WorkCompletion wc) {
            return new WorkCompletion().copyFrom(wc);
        }
    }

    @BeforeEach
    void openNodes() {
        int n = NAMES.incrementAndGet();
        a = new Node(nodeConfig("loop-a-" + n));
        b = new Node(nodeConfig("loop-b-" + n));
    }

    /** The configuration of a node's RNIC; a test class may add to it. */
    RnicConfig nodeConfig(String name) {
        return TestIoMode.config(name);
    }

    @AfterEach
    void closeNodes() {
        if (listener != null) {
            listener.close();
        }
        a.rnic.close();
        b.rnic.close();
    }

    /** Node b listens; requests go to {@link #requests}, failures to {@link #passiveFailures}. */
    void listen(ConnectionSettings settings) throws Exception {
        listener = b.rnic.connectionManager().listen(LOOPBACK, settings, new io.jrnic.api.ConnectionRequestHandler() {
            @Override
            public void onRequest(ConnectionRequest request) {
                requests.add(request);
            }

            @Override
            public void onSetupFailed(java.net.SocketAddress remote, ConnectionException failure) {
                passiveFailures.add(failure);
            }
        });
    }

    ConnectionRequest nextRequest() {
        try {
            ConnectionRequest r = requests.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(r).as("connection request at the listener").isNotNull();
            return r;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    ConnectionException nextPassiveFailure() {
        try {
            ConnectionException f = passiveFailures.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(f).as("setup failure at the listener").isNotNull();
            return f;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * A posting thread's loop: {@code writes} inline 8-byte RDMA Writes of 0, 1, 2, ... from
     * {@code node} on {@code qp} into 8-byte slot {@code slot} of {@code remote}, keeping at most
     * {@code window} of them uncompleted ({@code completed.get(slot)} counts the completed ones, kept
     * by the caller's completion thread). Stops at the first failure anywhere, recording its own in
     * {@code failure}.
     */
    static void postWindowedWrites(Node node, io.jrnic.api.QueuePair qp, Buffer remote, int slot, int writes, int window,
                                   java.util.concurrent.atomic.AtomicLongArray completed,
                                   java.util.concurrent.atomic.AtomicReference<Throwable> failure) {
        io.jrnic.api.SendWorkRequest wr = new io.jrnic.api.SendWorkRequest();
        Buffer value = node.buffer(8);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        try {
            for (int i = 0; i < writes && failure.get() == null; i++) {
                while (i - completed.get(slot) >= window) {
                    assertThat(System.nanoTime()).as("QP %d's window opens", slot).isLessThan(deadline);
                    Thread.yield();
                }
                value.memory().set(ValueLayout.JAVA_LONG, 0, i);
                qp.postSend(wr.reset().wrId(i).opcode(io.jrnic.api.Opcode.RDMA_WRITE).inline(true)
                        .sge(value.stag(), value.to(), 8).remote(remote.stag(), remote.to() + slot * 8L));
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    /**
     * Waits up to {@link #WAIT_SECONDS} for the 8-byte slot {@code slot} of {@code sink} to hold
     * {@code value}, then asserts it: a Write completes when it is sent, and the peer's I/O thread
     * places it afterwards.
     */
    static void awaitSlot(Buffer sink, int slot, long value, String what) {
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (sink.memory().get(ValueLayout.JAVA_LONG, slot * 8L) != value && System.nanoTime() < waitUntil) {
            Thread.onSpinWait();
        }
        assertThat(sink.memory().get(ValueLayout.JAVA_LONG, slot * 8L)).as(what).isEqualTo(value);
    }

    /** A registered region and its memory (VA-based: the TO of a byte is its address). */
    record Buffer(MemoryRegion mr, MemorySegment memory) {
        int stag() {
            return mr.stag();
        }

        long to() {
            return memory.address();
        }
    }

    /** The two ends of one established connection. */
    record Pair(Connection active, Connection passive) {
        QueuePair qpA() {
            return active.queuePair();
        }

        QueuePair qpB() {
            return passive.queuePair();
        }
    }

    /**
     * Connects a fresh QP of node a to a fresh QP of node b, after letting the test prepare both
     * (post receives) while they are Idle.
     */
    Pair connect(ConnectionSettings active, ConnectionSettings passive, QueuePair qpA, QueuePair qpB,
                 byte[] requestData, byte[] replyData) throws Exception {
        if (listener == null) {
            listen(passive);
        }
        CompletionStage<Connection> ca = a.rnic.connectionManager().connect(qpA, listener.localAddress(), active,
                requestData);
        ConnectionRequest request = nextRequest();
        CompletionStage<Connection> cb = request.accept(qpB, replyData);
        return new Pair(await(ca), await(cb));
    }

    Pair connect(ConnectionSettings settings) throws Exception {
        return connect(settings, settings, a.qp(), b.qp(), null, null);
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError("setup did not finish within " + WAIT_SECONDS + " s", e);
        }
    }

    /** The failure a stage completes with (it must fail). */
    static ConnectionException failureOf(CompletionStage<?> stage) throws Exception {
        CompletableFuture<?> f = stage.toCompletableFuture();
        try {
            Object value = f.get(WAIT_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("expected a failed setup, got " + value);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ConnectionException.class);
            return (ConnectionException) e.getCause();
        }
    }

    static void fill(MemorySegment m, long seed) {
        Random r = new Random(seed);
        byte[] chunk = new byte[(int) Math.min(m.byteSize(), 1 << 16)];
        for (long at = 0; at < m.byteSize(); at += chunk.length) {
            r.nextBytes(chunk);
            int len = (int) Math.min(chunk.length, m.byteSize() - at);
            MemorySegment.copy(chunk, 0, m, ValueLayout.JAVA_BYTE, at, len);
        }
    }

    static byte[] bytes(MemorySegment m, long offset, long length) {
        return m.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    static byte[] pattern(int length, int seed) {
        byte[] out = new byte[length];
        new Random(seed).nextBytes(out);
        return out;
    }

    static <T, R> List<R> map(List<T> in, Function<T, R> f) {
        return in.stream().map(f).toList();
    }
}
