package io.jrnic.core.transport;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionEventHandler;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionRequestHandler;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.WorkCompletion;
import io.jrnic.core.SoftRnic;
import io.jrnic.mpa.RtrForm;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A jrnic RNIC listening through its connection manager, and a raw TCP socket playing the MPA
 * Initiator byte by byte (revision 2, peer-to-peer, CRC, a zero-length Write RTR): after
 * {@link #connect()} the RNIC's queue pair is in RTS and the test owns the other end of the wire.
 *
 * <p>Thread safety: used by one test thread; the event lists are concurrent.
 */
final class RawInitiator implements AutoCloseable {
    static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    final Rnic rnic;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final List<AsyncEvent> events = new CopyOnWriteArrayList<>();
    private final ConnectionManager.Listener listener;
    private final BlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
    Socket raw;
    Connection connection;
    /** The MPA Reply the RNIC sent. */
    byte[] reply;
    /** SO_RCVBUF of the raw socket, set before it connects when positive (a small window: a slow reader). */
    int rawReceiveBuffer;

    RawInitiator(ConnectionSettings settings) throws IOException {
        this(settings, null);
    }

    /** As {@link #RawInitiator(ConnectionSettings)}, with a Completion Event Handler on the CQ (or null). */
    RawInitiator(ConnectionSettings settings, CompletionEventHandler completionHandler) throws IOException {
        this(settings, completionHandler, (pd, config) -> config);
    }

    /**
     * As {@link #RawInitiator(ConnectionSettings, CompletionEventHandler)}, the queue pair's
     * configuration (CQs, depths 16/16, IRD/ORD 4/4) first passed through {@code qpConfig} with the
     * PD (e.g. to attach an S-RQ created in it).
     */
    RawInitiator(ConnectionSettings settings, CompletionEventHandler completionHandler,
                 java.util.function.BiFunction<ProtectionDomain, QueuePairConfig, QueuePairConfig> qpConfig)
            throws IOException {
        rnic = SoftRnic.open(new RnicConfig().name("raw-initiator-" + NAMES.incrementAndGet()));
        rnic.setAsyncEventHandler((r, e) -> events.add(e));
        pd = rnic.allocatePd();
        cq = rnic.createCq(256, completionHandler == null ? 0 : rnic.setCompletionEventHandler(0, completionHandler));
        qp = pd.createQueuePair(qpConfig.apply(pd,
                new QueuePairConfig().cqs(cq, cq).depths(16, 16).sges(4, 4, 4, 64).readDepths(4, 4)));
        listener = rnic.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), settings,
                new ConnectionRequestHandler() {
                    @Override
                    public void onRequest(ConnectionRequest request) {
                        requests.add(request);
                    }

                    @Override
                    public void onSetupFailed(SocketAddress remote, ConnectionException failure) {
                    }
                });
    }

    /** Runs MPA setup from the raw socket and returns when the queue pair is in RTS. */
    Connection connect() throws Exception {
        return connect(RawFrames.request(RtrForm.ALL, true), RawFrames.WRITE_RTR_FPDU);
    }

    /**
     * Runs MPA setup from the raw socket with this Request, then sends {@code rtr} (null in
     * client/server mode, where the QP is in RTS right after the Reply), and returns when the
     * queue pair is in RTS.
     */
    Connection connect(byte[] mpaRequest, byte[] rtr) throws Exception {
        raw = new Socket();
        if (rawReceiveBuffer > 0) {
            raw.setReceiveBufferSize(rawReceiveBuffer);
        }
        raw.connect(listener.localAddress());
        raw.setSoTimeout(10_000);
        raw.getOutputStream().write(mpaRequest);
        ConnectionRequest request = requests.poll(10, TimeUnit.SECONDS);
        assertThat(request).as("the MPA Request at the listener").isNotNull();
        var accepted = request.accept(qp, null);
        byte[] header = raw.getInputStream().readNBytes(20);
        assertThat(header[16] & 0x20).as("R: accepted").isZero();
        reply = RawFrames.concat(header, raw.getInputStream().readNBytes((header[18] & 0xFF) << 8 | header[19] & 0xFF));
        if (rtr != null) {
            raw.getOutputStream().write(rtr);
        }
        connection = accepted.toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(qp.state()).isEqualTo(QpState.RTS);
        return connection;
    }

    /** Waits (bounded, sleep-free) until the condition holds. */
    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.onSpinWait();
        }
    }

    /** Waits (bounded) for an async event of this type (events are raised after the state change). */
    void awaitEvent(AsyncEventType type) {
        await(() -> eventTypes().contains(type), type.toString());
    }

    void awaitState(QpState state) {
        await(() -> qp.state() == state, qp + " reaching " + state);
    }

    List<AsyncEventType> eventTypes() {
        return events.stream().map(AsyncEvent::type).toList();
    }

    /** Polls n completions (bounded wait). */
    List<WorkCompletion> completions(int n) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        await(() -> {
            while (cq.poll(wc)) {
                out.add(new WorkCompletion().copyFrom(wc));
            }
            return out.size() >= n;
        }, n + " completions");
        return out;
    }

    @Override
    public void close() throws Exception {
        if (raw != null) {
            raw.close();
        }
        listener.close();
        rnic.close();
    }
}
