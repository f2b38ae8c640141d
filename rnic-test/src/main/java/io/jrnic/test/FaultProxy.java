package io.jrnic.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-process TCP proxy on loopback that forwards every connection it accepts to a target (an
 * RNIC's listener) and injects one {@link Fault} into each: a cut (FIN or RST), a stall, a delay,
 * a slicing into 1-byte writes or a half-close, at a chosen byte offset of one direction of the
 * stream or at its close. TCP reorders nothing, so neither does the proxy: every byte it forwards
 * arrives in order, the faults only end, pause or fragment the stream.
 *
 * <p>The active RNIC connects to {@link #localAddress()} instead of the listener; the
 * {@link Direction} of a fault is named after the end that receives the bytes. A fault fires
 * before the proxy forwards byte number {@code offset} of its direction (offset 0: before the
 * first byte, i.e. during the MPA Request or Reply), or, with {@link Fault#AT_CLOSE}, when the
 * sending end closes its direction (its FIN), so that the fault hits the close handshake. A fault
 * whose offset lies beyond the bytes the connection carries never fires ({@link #fired()}).
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start(listener.localAddress(),
 *         FaultProxy.Fault.of(FaultProxy.Kind.RST, FaultProxy.Direction.TO_ACTIVE, 4096))) {
 *     cm.connect(qp, proxy.localAddress(), settings, null); // the Read Response is cut after 4 KiB
 *     ...
 * }
 * }</pre>
 *
 * <p>Each connection is served by two virtual threads (one per direction) that block on the
 * sockets; {@link #close()} resets whatever is still open and waits for them to end.
 *
 * <p>Thread safety: thread safe.
 */
public final class FaultProxy implements AutoCloseable {
    private static final int BUFFER = 64 << 10;
    private static final long JOIN_MILLIS = 10_000;

    /** Which end of the proxied connection receives the bytes a fault applies to. */
    public enum Direction {
        /** Bytes from the end that connected (the MPA Initiator) to the target (the Responder). */
        TO_PASSIVE,
        /** Bytes from the target (the MPA Responder) back to the end that connected. */
        TO_ACTIVE
    }

    /** What happens when a fault fires. */
    public enum Kind {
        /**
         * The connection is cut gracefully: both ends receive a FIN at the point they have reached
         * (neither sees another byte) and whatever they send afterwards is discarded.
         */
        FIN,
        /** The connection is cut abortively: both sockets are reset (SO_LINGER 0), both ends see RST. */
        RST,
        /**
         * The direction stops: nothing more is read from its sender (whose TCP send buffer fills)
         * until the proxy is closed; the other direction keeps flowing.
         */
        STALL,
        /** The direction pauses for {@link Fault#delay()}, then resumes unchanged. */
        DELAY,
        /**
         * The next {@link Fault#sliceBytes()} bytes of the direction are written one byte per
         * write (separate TCP segments: TCP_NODELAY), then forwarding resumes in large writes.
         */
        SLICE,
        /**
         * The direction is half-closed: its receiver gets a FIN, the bytes its sender still sends
         * are discarded, and the other direction keeps flowing (RFC 793 half-close).
         */
        HALF_CLOSE
    }

    /**
     * One fault: what, in which direction, where.
     *
     * @param kind       what happens
     * @param direction  the direction it applies to
     * @param offset     bytes of {@code direction} forwarded before it fires, at least 0, or
     *                   {@link #AT_CLOSE}
     * @param delay      how long a {@link Kind#DELAY} pauses (zero for other kinds)
     * @param sliceBytes how many bytes a {@link Kind#SLICE} fragments (0 for other kinds)
     */
    public record Fault(Kind kind, Direction direction, long offset, Duration delay, int sliceBytes) {
        /** {@link #offset()} of a fault that fires when the direction's sender closes it (FIN). */
        public static final long AT_CLOSE = -1;

        /**
         * Checks the fields.
         *
         * @throws NullPointerException     if a reference is null
         * @throws IllegalArgumentException for a negative offset other than {@link #AT_CLOSE}, a
         *                                  negative delay or slice length
         */
        public Fault {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(direction, "direction");
            Objects.requireNonNull(delay, "delay");
            if (offset < AT_CLOSE) {
                throw new IllegalArgumentException("offset " + offset);
            }
            if (delay.isNegative() || sliceBytes < 0) {
                throw new IllegalArgumentException("delay " + delay + ", sliceBytes " + sliceBytes);
            }
        }

        /**
         * A fault without parameters ({@link Kind#FIN}, {@link Kind#RST}, {@link Kind#STALL},
         * {@link Kind#HALF_CLOSE}); {@link Kind#DELAY} gets 100 ms, {@link Kind#SLICE} 4 KiB.
         *
         * @param kind      what happens
         * @param direction where
         * @param offset    bytes forwarded in {@code direction} before it fires, or {@link #AT_CLOSE}
         * @return the fault
         */
        public static Fault of(Kind kind, Direction direction, long offset) {
            return new Fault(kind, direction, offset,
                    kind == Kind.DELAY ? Duration.ofMillis(100) : Duration.ZERO, kind == Kind.SLICE ? 4096 : 0);
        }

        /**
         * Whether the fault fires at the close of its direction rather than at a byte offset.
         *
         * @return true for {@link #AT_CLOSE}
         */
        public boolean atClose() {
            return offset == AT_CLOSE;
        }

        /**
         * Whether the connection survives the fault: a delay or slicing changes timing and
         * segmentation only, so every operation must still succeed and the stream close normally.
         *
         * @return true for {@link Kind#DELAY} and {@link Kind#SLICE}
         */
        public boolean benign() {
            return kind == Kind.DELAY || kind == Kind.SLICE;
        }

        @Override
        public String toString() {
            String where = atClose() ? "at close" : "at byte " + offset;
            String extra = switch (kind) {
                case DELAY -> " for " + delay.toMillis() + " ms";
                case SLICE -> " for " + sliceBytes + " bytes";
                default -> "";
            };
            return kind + " " + direction + " " + where + extra;
        }
    }

    private final SocketAddress target;
    private final Fault fault;
    private final ServerSocket server;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    private final CountDownLatch firedLatch = new CountDownLatch(1);
    private final AtomicLong toPassive = new AtomicLong();
    private final AtomicLong toActive = new AtomicLong();
    private volatile boolean closed;

    private FaultProxy(SocketAddress target, Fault fault) throws IOException {
        this.target = target;
        this.fault = fault;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    /**
     * Starts a proxy on an ephemeral loopback port that forwards each accepted connection to
     * {@code target}, injecting {@code fault} into it.
     *
     * @param target where to forward (a listener's address)
     * @param fault  the fault of each connection
     * @return the running proxy
     * @throws IOException if the listening socket cannot be bound
     */
    public static FaultProxy start(SocketAddress target, Fault fault) throws IOException {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(fault, "fault");
        FaultProxy proxy = new FaultProxy(target, fault);
        proxy.spawn("accept", proxy::acceptLoop);
        return proxy;
    }

    /**
     * The address to connect to instead of the target.
     *
     * @return the proxy's loopback address
     */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    /**
     * The fault this proxy injects.
     *
     * @return the fault
     */
    public Fault fault() {
        return fault;
    }

    /**
     * Whether the fault has fired on some connection.
     *
     * @return true once it fired
     */
    public boolean fired() {
        return firedLatch.getCount() == 0;
    }

    /**
     * Waits until the fault has fired.
     *
     * @param timeout how long at most
     * @param unit    the unit of {@code timeout}
     * @return true when it fired, false when the time ran out first
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitFired(long timeout, TimeUnit unit) throws InterruptedException {
        return firedLatch.await(timeout, unit);
    }

    /**
     * Bytes forwarded so far in one direction, over every connection.
     *
     * @param direction the direction
     * @return bytes written to the receiving end
     */
    public long forwarded(Direction direction) {
        return (direction == Direction.TO_PASSIVE ? toPassive : toActive).get();
    }

    /**
     * Stops accepting, resets every connection still open (SO_LINGER 0) and waits until the
     * proxy's threads have ended. Idempotent.
     *
     * @throws IllegalStateException if a thread of the proxy did not end within 10 s
     */
    @Override
    public void close() {
        List<Thread> join;
        synchronized (this) {
            if (!closed) {
                closed = true;
                quietClose(server);
                for (Socket s : sockets) {
                    reset(s);
                }
                // only now release the stalled and delayed pumps: released first, a pump would
                // close its sockets normally and deliver the FIN it held back
                closedLatch.countDown();
            }
            join = List.copyOf(threads);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(JOIN_MILLIS);
        for (Thread t : join) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                    throw new IllegalStateException("proxy thread " + t + " did not end");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted closing the proxy", e);
            }
        }
    }

    @Override
    public String toString() {
        return "FaultProxy[" + localAddress() + " -> " + target + ", " + fault + "]";
    }

    private synchronized void spawn(String name, Runnable body) {
        if (closed && !name.equals("accept")) {
            return;
        }
        threads.add(Thread.ofVirtual().name("fault-proxy-" + name).start(body));
    }

    private void acceptLoop() {
        while (!closed) {
            Socket active;
            try {
                active = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket passive = new Socket();
            try {
                active.setTcpNoDelay(true);
                passive.setTcpNoDelay(true);
                passive.connect(target, (int) JOIN_MILLIS);
            } catch (IOException e) {
                reset(active);
                quietClose(passive);
                continue;
            }
            Link link = new Link(active, passive);
            synchronized (this) {
                if (closed) {
                    reset(active);
                    reset(passive);
                    return;
                }
                sockets.add(active);
                sockets.add(passive);
            }
            spawn("to-passive", () -> link.pump(Direction.TO_PASSIVE));
            spawn("to-active", () -> link.pump(Direction.TO_ACTIVE));
        }
    }

    /** One proxied connection: the socket of each end and the state shared by both pumps. */
    private final class Link {
        private final Socket active;
        private final Socket passive;
        private volatile boolean discarding; // cut with FIN: nothing more is forwarded
        private volatile boolean reset; // cut with RST (or a reset passed on)
        private int ended; // directions whose pump ended, guarded by this

        Link(Socket active, Socket passive) {
            this.active = active;
            this.passive = passive;
        }

        void pump(Direction direction) {
            Socket from = direction == Direction.TO_PASSIVE ? active : passive;
            Socket to = direction == Direction.TO_PASSIVE ? passive : active;
            AtomicLong counter = direction == Direction.TO_PASSIVE ? toPassive : toActive;
            byte[] buffer = new byte[BUFFER];
            long forwarded = 0;
            long sliceLeft = 0;
            boolean pending = fault.direction() == direction; // this direction's fault is yet to fire
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                while (true) {
                    if (pending && !fault.atClose() && forwarded == fault.offset()) {
                        pending = false;
                        fire();
                        switch (fault.kind()) {
                            case FIN -> cutGracefully();
                            case RST -> {
                                cutAbortively();
                                return;
                            }
                            case STALL -> {
                                closedLatch.await();
                                return;
                            }
                            case DELAY -> {
                                if (closedLatch.await(fault.delay().toNanos(), TimeUnit.NANOSECONDS)) {
                                    return;
                                }
                            }
                            case SLICE -> sliceLeft = fault.sliceBytes();
                            case HALF_CLOSE -> {
                                // RFC 793 half-close: the receiver sees the end of this direction,
                                // what the sender still sends has nowhere to go
                                to.shutdownOutput();
                                discard(in, buffer);
                                return;
                            }
                        }
                    }
                    int max = buffer.length;
                    if (pending && !fault.atClose()) {
                        max = (int) Math.min(max, fault.offset() - forwarded);
                    }
                    if (sliceLeft > 0) {
                        max = (int) Math.min(max, sliceLeft);
                    }
                    int n = in.read(buffer, 0, max);
                    if (n < 0) {
                        if (pending && !discarding) {
                            pending = false; // a fault at the close; one at an offset not reached never fires
                            if (fault.atClose()) {
                                fire();
                                switch (fault.kind()) {
                                    case RST -> {
                                        cutAbortively();
                                        return;
                                    }
                                    case STALL -> {
                                        closedLatch.await(); // the FIN is never delivered
                                        return;
                                    }
                                    case DELAY -> {
                                        if (closedLatch.await(fault.delay().toNanos(), TimeUnit.NANOSECONDS)) {
                                            return;
                                        }
                                    }
                                    case FIN -> cutGracefully();
                                    default -> {
                                        // SLICE and HALF_CLOSE at the close: the FIN goes on as it is
                                    }
                                }
                            }
                        }
                        if (!discarding) {
                            to.shutdownOutput(); // pass the FIN on
                        }
                        return;
                    }
                    if (discarding) {
                        continue; // cut: the bytes are dropped until the sender closes
                    }
                    if (sliceLeft > 0) {
                        for (int i = 0; i < n; i++) {
                            out.write(buffer[i]); // one segment per byte (TCP_NODELAY)
                        }
                        sliceLeft -= n;
                    } else {
                        out.write(buffer, 0, n);
                    }
                    forwarded += n;
                    counter.addAndGet(n);
                }
            } catch (IOException e) {
                // a reset (or a failed write) on one side is passed on as a reset to the other
                if (!reset && !closed) {
                    cutAbortively();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                ended();
            }
        }

        private void discard(InputStream in, byte[] buffer) throws IOException {
            while (in.read(buffer) >= 0) {
                // dropped
            }
        }

        /** Both ends get a FIN where they are; both pumps then read and drop until their sender closes. */
        private void cutGracefully() {
            discarding = true;
            for (Socket s : List.of(active, passive)) {
                try {
                    s.shutdownOutput();
                } catch (IOException e) {
                    // already closed or reset: nothing more to deliver
                }
            }
        }

        private void cutAbortively() {
            reset = true;
            reset(active);
            reset(passive);
        }

        private synchronized void ended() {
            if (++ended == 2 && !reset && !closed) {
                quietClose(active);
                quietClose(passive);
            }
        }
    }

    private void fire() {
        firedLatch.countDown();
    }

    private static void reset(Socket s) {
        try {
            if (!s.isClosed()) {
                s.setSoLinger(true, 0);
            }
        } catch (IOException e) {
            // closed meanwhile
        }
        quietClose(s);
    }

    private static void quietClose(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing is best effort here
        }
    }
}
