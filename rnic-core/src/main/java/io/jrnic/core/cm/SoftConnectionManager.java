package io.jrnic.core.cm;

import io.jrnic.api.Connection;
import io.jrnic.api.IoTransport;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionParameters;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionRequestHandler;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairAttributes;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RtrType;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.core.engine.JfrEvents;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.qp.RnicResources;
import io.jrnic.core.qp.SoftQueuePair;
import io.jrnic.core.transport.ConnectCallback;
import io.jrnic.core.transport.ConnectionInfo;
import io.jrnic.core.transport.FpduChannel;
import io.jrnic.core.transport.IwarpTransport;
import io.jrnic.core.transport.MpaListener;
import io.jrnic.core.transport.MpaRequest;
import io.jrnic.core.transport.MpaRequestHandler;
import io.jrnic.core.transport.PacketCapture;
import io.jrnic.core.transport.SetupFailure;
import io.jrnic.core.transport.TransportConfig;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.EnhancedSetup;
import io.jrnic.mpa.MpaParameters;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.RtrForm;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connection manager of a {@link SoftRnic} (Verbs 1.0 §6.6): MPA setup through the netty
 * transport ({@link IwarpTransport}), then Modify QP Idle to RTS with a {@link QpEngine} over the
 * established {@link FpduChannel} (the engine's FPDU link) and the negotiated IRD/ORD (RFC 6581 §9.1).
 *
 * <pre>
 *  connect(qp) ─► IwarpTransport.connect ─► MPA Request/Reply (+RTR) ─► onEstablished(FpduChannel)
 *  listen()    ─► IwarpTransport.listen  ─► MpaRequest ─► ConnectionRequest.accept(qp) ─► onEstablished
 *                                                                      │ (connection's event loop)
 *            qp.modify(RTS, llpStream = new QpEngine(channel), IRD, ORD)
 *                                                                      ▼
 *                                                        stage completes with the Connection
 * </pre>
 *
 * <p>Transports: a few settings (setup timeout, first-FPDU delay, EMSS) are properties of an
 * {@link IwarpTransport} rather than of one connection, so the manager keeps one transport per
 * distinct combination, created on first use. Usually there is one. {@link #close()} closes them
 * all, which ends every connection and waits for the event loops to terminate; {@link SoftRnic}
 * does that first on Close RNIC, so no event loop touches RNIC memory once it is freed.
 *
 * <p>Thread safety: thread safe. Transport creation and closing synchronize on the manager; a queue
 * pair is handed to at most one setup at a time ({@link #busy}).
 */
public final class SoftConnectionManager implements ConnectionManager {
    private final RnicResources rnic;
    /** Transports by configuration (guarded by this). */
    private final Map<TransportConfig, IwarpTransport> transports = new LinkedHashMap<>();
    /** Queue pairs between connect/accept and the end of their setup. */
    private final Set<SoftQueuePair> busy = ConcurrentHashMap.newKeySet();
    private boolean closed; // guarded by this
    /** Every transport created, kept after close(): a callback still running on a loop must be recognized. */
    private final List<IwarpTransport> everCreated = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The RNIC's packet capture (RnicConfig.packetCapture), opened with the first transport (guarded by this). */
    private PacketCapture capture;

    public SoftConnectionManager(RnicResources rnic) {
        this.rnic = rnic;
    }

    @Override
    public Listener listen(SocketAddress address, ConnectionSettings settings, ConnectionRequestHandler handler)
            throws IOException {
        if (address == null || settings == null || handler == null) {
            throw new IllegalArgumentException("address, settings and handler must not be null");
        }
        // The Reply is decided when the Request arrives, before the ULP names a queue pair: announce
        // up to the RNIC's limits and fit the queue pair at accept time (see acceptReadDepths).
        MpaSettings mpa = mpaSettings(settings, irdCap(), wireDepth(rnic.config().maxOrd()), irdCap());
        MpaListener listener = transport(settings).listen(address, mpa, new RequestBridge(handler, settings));
        return new CmListener(listener);
    }

    @Override
    public CompletionStage<Connection> connect(QueuePair qp, SocketAddress address, ConnectionSettings settings,
                                               byte[] privateData) {
        if (qp == null || address == null || settings == null) {
            throw new IllegalArgumentException("queue pair, address and settings must not be null");
        }
        return initiate(qp, settings, privateData, false,
                (transport, mpa, data, establishment) -> transport.connect(address, mpa, data, establishment));
    }

    @Override
    public CompletionStage<Connection> connect(QueuePair qp, SocketChannel connected, ConnectionSettings settings,
                                               byte[] privateData, byte[] streamMessage) {
        if (qp == null || connected == null || settings == null) {
            throw new IllegalArgumentException("queue pair, socket and settings must not be null");
        }
        return initiate(qp, settings, privateData, true, (transport, mpa, data, establishment) ->
                transport.adoptInitiator(connected, mpa, data, streamMessage, establishment));
    }

    /** How the active side reaches its peer: a new TCP connection, or an adopted one. */
    private interface Initiation {
        void start(IwarpTransport transport, MpaSettings mpa, byte[] privateData, Establishment establishment);
    }

    /** The active side of both connects: reserve the QP, start the MPA Request from its IRD/ORD. */
    private CompletionStage<Connection> initiate(QueuePair qp, ConnectionSettings settings, byte[] privateData,
                                                 boolean adopted, Initiation initiation) {
        byte[] data = privateData == null ? new byte[0] : privateData.clone();
        checkPrivateData("request", data.length, settings.maxUlpPrivateData());
        SoftQueuePair q = reserve(qp);
        try {
            QueuePairAttributes a = q.query();
            MpaSettings mpa = mpaSettings(settings, Math.min(a.ird(), irdCap()), wireDepth(a.ord()), irdCap());
            CompletableFuture<Connection> result = new CompletableFuture<>();
            initiation.start(adopted ? adoptingTransport(settings) : transport(settings), mpa, data,
                    new Establishment(q, result, null, settings.gracefulReceiveOverflow(), settings.closeTimeout(),
                            settings.progressTimeout()));
            return result.minimalCompletionStage();
        } catch (RuntimeException e) {
            busy.remove(q);
            throw e;
        }
    }

    @Override
    public CompletionStage<ConnectionRequest> awaitRequest(SocketChannel connected, ConnectionSettings settings,
                                                         byte[] alreadyRead) {
        if (connected == null || settings == null) {
            throw new IllegalArgumentException("socket and settings must not be null");
        }
        CompletableFuture<ConnectionRequest> result = new CompletableFuture<>();
        // as listen(): the Reply is decided when the Request arrives, before a queue pair is named
        MpaSettings mpa = mpaSettings(settings, irdCap(), wireDepth(rnic.config().maxOrd()), irdCap());
        adoptingTransport(settings).adoptResponder(connected, mpa, alreadyRead,
                new MpaRequestHandler() {
                    @Override
                    public void onRequest(MpaRequest request) {
                        result.complete(new Request(request, settings.gracefulReceiveOverflow(), settings.closeTimeout(),
                                settings.progressTimeout()));
                    }

                    @Override
                    public void onSetupFailed(SocketAddress remote, SetupFailure failure) {
                        result.completeExceptionally(failure(failure));
                    }
                });
        return result.minimalCompletionStage();
    }

    /**
     * Closes every transport: listeners stop, connections end ({@code TRANSPORT_CLOSED}, which their
     * queue pairs see as a lost LLP), setups in progress fail with {@code CLOSED}, and the event loops
     * terminate before this returns. Idempotent.
     *
     * @throws IllegalStateException if called on one of the transports' event loops
     */
    public void close() {
        List<IwarpTransport> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(transports.values());
            transports.clear();
        }
        for (IwarpTransport t : all) {
            t.close();
        }
        PacketCapture written;
        synchronized (this) {
            written = capture;
            capture = null;
        }
        if (written != null) {
            written.close(); // after the event loops ended: no connection writes to it any more
        }
    }

    /**
     * Whether the calling thread is an event loop of one of this RNIC's transports (a callback):
     * nothing that waits for the loops may run there.
     */
    public boolean onEventLoop() {
        for (int i = 0; i < everCreated.size(); i++) { // no iterator: blocking polls ask this
            if (everCreated.get(i).isEventLoopThread()) {
                return true;
            }
        }
        return false;
    }

    /** The transport for these settings, created on first use. */
    private IwarpTransport transport(ConnectionSettings s) {
        return transport(s, rnic.config().ioTransport());
    }

    /**
     * The transport for sockets the ULP connected itself: always NIO, whatever the RNIC's
     * ioTransport, since a java.nio socket cannot be moved to an epoll loop (the JDK does not hand
     * out its file descriptor; docs/transport.md, "Socket kinds").
     */
    private IwarpTransport adoptingTransport(ConnectionSettings s) {
        return transport(s, IoTransport.NIO);
    }

    private synchronized IwarpTransport transport(ConnectionSettings s, IoTransport ioTransport) {
        if (closed) {
            throw new VerbsException(VerbsStatus.INVALID_RNIC_HANDLE, "RNIC " + rnic.config().name() + " is closed");
        }
        rnic.checkOpen();
        TransportConfig config = TransportConfig.builder().setupTimeout(s.setupTimeout())
                .connectTimeout(s.setupTimeout()).closeTimeout(s.closeTimeout()).firstFpduDelay(s.firstFpduDelay())
                .emss(s.emss()).ioMode(rnic.config().ioMode()).ioTransport(ioTransport)
                .pollingTakeover(rnic.config().pollingTakeover())
                .pollingSpin(rnic.config().pollingSpin()).callerTransmit(rnic.config().callerTransmit())
                .eventLoopThreads(rnic.config().ioThreads()).build();
        if (capture == null && rnic.config().packetCapture() != null) {
            capture = PacketCapture.open(rnic.config().packetCapture(), rnic.name());
        }
        return transports.computeIfAbsent(config, c -> {
            IwarpTransport t = new IwarpTransport(c, capture);
            everCreated.add(t);
            return t;
        });
    }

    /** Number of transports (event-loop groups) created so far; for tests. */
    public synchronized int transportCount() {
        return transports.size();
    }

    private int irdCap() {
        return wireDepth(rnic.config().maxIrd());
    }

    /** A depth as the 14-bit IRD/ORD fields can carry it (0x3FFF means "no negotiation", RFC 6581 §9.1). */
    private static int wireDepth(int depth) {
        return Math.min(depth, EnhancedSetup.NO_NEGOTIATION - 1);
    }

    /** Checks that the queue pair is an Idle QP of this RNIC and marks it as being connected. */
    private SoftQueuePair reserve(QueuePair qp) {
        if (!(qp instanceof SoftQueuePair q) || q.rnic() != rnic) {
            throw new VerbsException(VerbsStatus.INVALID_QP_HANDLE, "queue pair " + qp + " does not belong to " + rnic);
        }
        QpState state = q.query().state(); // INVALID_QP_HANDLE when destroyed
        if (state != QpState.IDLE) {
            throw new VerbsException(VerbsStatus.INVALID_QP_STATE, "QP " + q.id() + " is " + state
                    + "; a connection needs an Idle queue pair (Verbs §6.6.1)");
        }
        if (!busy.add(q)) {
            throw new VerbsException(VerbsStatus.INVALID_QP_STATE, "QP " + q.id() + " is already being connected");
        }
        return q;
    }

    private static void checkPrivateData(String frame, int length, int limit) {
        if (length > limit) {
            throw new IllegalArgumentException(frame + " private data of " + length + " bytes exceeds the limit of "
                    + limit + " bytes (RFC 5044 §7.1.1 PD_Length, minus the RFC 6581 IRD/ORD word in revision 2)");
        }
    }

    // ---- mapping between the API and the MPA / transport types --------------------------------

    /** The MPA settings of a connection: the API settings plus the IRD/ORD to announce and the IRD cap. */
    static MpaSettings mpaSettings(ConnectionSettings s, int ird, int ord, int irdCap) {
        return MpaSettings.builder()
                .crcPolicy(crcPolicy(s.crc()))
                .requestMarkers(s.requestMarkers())
                .acceptMarkerRequests(s.acceptMarkerRequests())
                .revision(s.revision())
                .peerToPeer(s.peerToPeer())
                .rtrForms(rtrForms(s.rtrTypes()))
                .ird(ird)
                .ord(ord)
                .irdCap(irdCap)
                .negotiateIrdOrd(s.negotiateReadDepths())
                .privateDataLimit(s.privateDataLimit())
                .build();
    }

    /** The MPA policy behind an API CRC mode (the two enums mirror each other). */
    public static CrcPolicy crcPolicy(CrcMode mode) {
        return switch (mode) {
            case REQUIRED -> CrcPolicy.REQUIRED;
            case OPTIONAL -> CrcPolicy.OPTIONAL;
            case OFF -> CrcPolicy.OFF;
        };
    }

    /** The MPA RTR form of an API RTR type. */
    public static RtrForm rtrForm(RtrType type) {
        return switch (type) {
            case WRITE -> RtrForm.WRITE;
            case READ -> RtrForm.READ;
            case SEND -> RtrForm.SEND;
        };
    }

    /** The API RTR type of an MPA RTR form, or null for none. */
    public static RtrType rtrType(RtrForm form) {
        return form == null ? null : switch (form) {
            case WRITE -> RtrType.WRITE;
            case READ -> RtrType.READ;
            case SEND -> RtrType.SEND;
        };
    }

    private static RtrForm[] rtrForms(Set<RtrType> types) {
        return types.stream().map(SoftConnectionManager::rtrForm).toArray(RtrForm[]::new);
    }

    /** The API RTR types of an RTR flag set ({@link RtrForm#flag()} bits). */
    public static Set<RtrType> rtrTypes(int flags) {
        EnumSet<RtrType> set = EnumSet.noneOf(RtrType.class);
        for (RtrType t : RtrType.values()) {
            if ((flags & rtrForm(t).flag()) != 0) {
                set.add(t);
            }
        }
        return set;
    }

    /** What the API reports of a negotiation, with the IRD/ORD actually applied. */
    static ConnectionParameters parameters(MpaParameters p, int ird, int ord, RtrForm rtr) {
        return new ConnectionParameters(p.revision(), p.enhanced(), p.crc(), p.markersOnSend(), p.markersOnReceive(),
                ird, ord, p.peerIrd(), p.peerOrd(), p.peerToPeer(), rtrTypes(p.rtrFlags()), rtrType(rtr));
    }

    /** The API failure of a transport setup failure: same category, message naming the MPA reason. */
    public static ConnectionException failure(SetupFailure f) {
        ConnectionException.Reason reason = switch (f.kind()) {
            case CONNECT_FAILED -> ConnectionException.Reason.CONNECT_FAILED;
            case TIMEOUT -> ConnectionException.Reason.TIMEOUT;
            case INVALID_FRAME -> ConnectionException.Reason.INVALID_FRAME;
            case REJECTED_BY_PEER -> ConnectionException.Reason.REJECTED_BY_PEER;
            case REJECTED_LOCALLY -> ConnectionException.Reason.REJECTED_LOCALLY;
            case NEGOTIATION_FAILED -> ConnectionException.Reason.NEGOTIATION_FAILED;
            case PEER_TERMINATED -> ConnectionException.Reason.PEER_TERMINATED;
            case RTR_INVALID -> ConnectionException.Reason.RTR_INVALID;
            case CONNECTION_LOST -> ConnectionException.Reason.CONNECTION_LOST;
            case CLOSED -> ConnectionException.Reason.CLOSED;
        };
        StringBuilder message = new StringBuilder("connection setup failed: ").append(f.kind());
        if (f.negotiation() != null) {
            message.append(", ").append(f.negotiation());
        }
        if (f.frameReason() != null) {
            message.append(", ").append(f.frameReason());
        }
        if (f.error() != null) {
            message.append(", ").append(f.error().describe());
        }
        return new ConnectionException(reason, message.toString(),
                f.error() == null ? -1 : f.error().terminateCodeBits(), f.peerPrivateData(), f.peerIrd(), f.peerOrd(),
                f.cause());
    }

    /**
     * The IRD/ORD the accepting queue pair gets (RFC 6581 §9.1). IRD: the value announced in the
     * Reply, which the Initiator's ORD relies on. ORD: at most the announced value and at most the
     * queue pair's own ORD (a lower ORD than announced is safe: the Initiator only sized its IRD for
     * more). A direction the Initiator did not negotiate (revision 1, or 0x3FFF) keeps the queue
     * pair's value.
     */
    private static ReadDepths acceptReadDepths(MpaParameters p, QueuePairAttributes a) {
        boolean irdNegotiated = p.enhanced() && p.peerOrd() != EnhancedSetup.NO_NEGOTIATION;
        boolean ordNegotiated = p.enhanced() && p.peerIrd() != EnhancedSetup.NO_NEGOTIATION;
        return new ReadDepths(irdNegotiated ? p.ird() : a.ird(), ordNegotiated ? Math.min(a.ord(), p.ord()) : a.ord());
    }

    /** The IRD and ORD a queue pair enters RTS with. */
    private record ReadDepths(int ird, int ord) {
    }

    // ---- setup completion ---------------------------------------------------------------------

    /**
     * The end of one setup, on the connection's event loop: Modify QP to RTS on the new stream and
     * complete the stage, or fail it.
     */
    private final class Establishment implements ConnectCallback {
        private final SoftQueuePair qp;
        private final CompletableFuture<Connection> result;
        /** ConnectionSettings.gracefulReceiveOverflow of the side that set the connection up. */
        private final boolean gracefulReceiveOverflow;
        /** ConnectionSettings.closeTimeout of that side: how long Connection.close() waits. */
        private final java.time.Duration closeTimeout;
        /** ConnectionSettings.progressTimeout of that side: the engine's stalled-peer limit. */
        private final java.time.Duration progressTimeout;
        /** Responder: the QP attributes at accept time; null at the Initiator. */
        private final QueuePairAttributes acceptAttributes;

        Establishment(SoftQueuePair qp, CompletableFuture<Connection> result, QueuePairAttributes acceptAttributes,
                      boolean gracefulReceiveOverflow, java.time.Duration closeTimeout,
                      java.time.Duration progressTimeout) {
            this.qp = qp;
            this.result = result;
            this.acceptAttributes = acceptAttributes;
            this.gracefulReceiveOverflow = gracefulReceiveOverflow;
            this.closeTimeout = closeTimeout;
            this.progressTimeout = progressTimeout;
        }

        @Override
        public void onEstablished(FpduChannel channel) {
            ConnectionInfo info = channel.info();
            MpaParameters p = info.parameters();
            // Initiator: the negotiator started from the QP's own IRD/ORD (RFC 6581 §9.1).
            ReadDepths depths = acceptAttributes == null ? new ReadDepths(p.ird(), p.ord())
                    : acceptReadDepths(p, acceptAttributes);
            int ird = depths.ird();
            int ord = depths.ord();
            Connection connection;
            try {
                channel.gracefulReceiveOverflow(gracefulReceiveOverflow); // read once, by the engine
                // The stalled-peer limit at the TCP level too (epoll only): bytes TCP took for WRs
                // already completed that stay unacknowledged that long end the connection
                // (docs/transport.md, "Socket kinds"; docs/reliability.md, "Stalled peers").
                channel.tcpUserTimeout(progressTimeout);
                QpEngine engine = new QpEngine(channel, closeTimeout, progressTimeout);
                // Verbs §6.6.1: Idle -> RTS with the LLP stream; the negotiated depths in the same Modify.
                qp.modify(new QueuePairModification().nextState(QpState.RTS).ird(ird).ord(ord).llpStream(engine));
                SoftConnection c = new SoftConnection(qp, engine, info.role() == ConnectionInfo.Role.INITIATOR
                        ? Connection.Role.INITIATOR : Connection.Role.RESPONDER, parameters(p, ird, ord, info.rtr()),
                        info.mulpdu(), info.localPrivateData(), info.peerPrivateData(), info.localAddress(),
                        info.remoteAddress(), closeTimeout);
                qp.onStreamClosed(c::streamClosed);
                connection = c;
            } catch (RuntimeException e) {
                channel.abort();
                busy.remove(qp);
                ConnectionException failure = new ConnectionException(ConnectionException.Reason.QUEUE_PAIR_UNUSABLE,
                        "connection established but QP " + qp.id() + " cannot enter RTS: " + e.getMessage(), -1, null,
                        p.peerIrd(), p.peerOrd(), e);
                JfrEvents.connectionSetupFailed(rnic.name(), qp.id(), role(), info.remoteAddress(), failure);
                result.completeExceptionally(failure);
                return;
            }
            busy.remove(qp);
            JfrEvents.connectionEstablished(rnic.name(), connection);
            result.complete(connection);
        }

        @Override
        public void onFailed(SetupFailure failure) {
            busy.remove(qp);
            ConnectionException e = failure(failure);
            JfrEvents.connectionSetupFailed(rnic.name(), qp.id(), role(), null, e);
            result.completeExceptionally(e);
        }

        /** The side of this setup: the Responder knows the attributes it accepted with. */
        private Connection.Role role() {
            return acceptAttributes == null ? Connection.Role.INITIATOR : Connection.Role.RESPONDER;
        }
    }

    /** Offers the transport's MPA Requests to the ULP as {@link ConnectionRequest}s. */
    private final class RequestBridge implements MpaRequestHandler {
        private final ConnectionRequestHandler handler;
        private final boolean gracefulReceiveOverflow;
        private final java.time.Duration closeTimeout;
        private final java.time.Duration progressTimeout;

        RequestBridge(ConnectionRequestHandler handler, ConnectionSettings settings) {
            this.handler = handler;
            this.gracefulReceiveOverflow = settings.gracefulReceiveOverflow();
            this.closeTimeout = settings.closeTimeout();
            this.progressTimeout = settings.progressTimeout();
        }

        @Override
        public void onRequest(MpaRequest request) {
            handler.onRequest(new Request(request, gracefulReceiveOverflow, closeTimeout, progressTimeout));
        }

        @Override
        public void onSetupFailed(SocketAddress remote, SetupFailure failure) {
            ConnectionException e = failure(failure);
            JfrEvents.connectionSetupFailed(rnic.name(), -1, Connection.Role.RESPONDER, remote, e);
            handler.onSetupFailed(remote, e);
        }
    }

    /** A pending MPA Request as the API sees it. */
    private final class Request implements ConnectionRequest {
        private final MpaRequest request;
        private final boolean gracefulReceiveOverflow;
        private final java.time.Duration closeTimeout;
        private final java.time.Duration progressTimeout;

        Request(MpaRequest request, boolean gracefulReceiveOverflow,
                java.time.Duration closeTimeout, java.time.Duration progressTimeout) {
            this.request = request;
            this.gracefulReceiveOverflow = gracefulReceiveOverflow;
            this.closeTimeout = closeTimeout;
            this.progressTimeout = progressTimeout;
        }

        @Override
        public byte[] privateData() {
            return request.privateData();
        }

        @Override
        public int revision() {
            return request.revision();
        }

        @Override
        public int peerIrd() {
            return request.peerIrd();
        }

        @Override
        public int peerOrd() {
            return request.peerOrd();
        }

        @Override
        public ConnectionParameters parameters() {
            MpaParameters p = request.parameters();
            return SoftConnectionManager.parameters(p, p.ird(), p.ord(), null);
        }

        @Override
        public SocketAddress remoteAddress() {
            return request.remoteAddress();
        }

        @Override
        public int maxReplyPrivateData() {
            return request.maxReplyPrivateData();
        }

        @Override
        public CompletionStage<Connection> accept(QueuePair qp, byte[] replyData) {
            if (qp == null) {
                throw new IllegalArgumentException("queue pair must not be null");
            }
            byte[] data = replyData == null ? new byte[0] : replyData.clone();
            checkPrivateData("reply", data.length, request.maxReplyPrivateData());
            SoftQueuePair q = reserve(qp);
            try {
                CompletableFuture<Connection> result = new CompletableFuture<>();
                request.accept(data, new Establishment(q, result, q.query(), gracefulReceiveOverflow, closeTimeout,
                        progressTimeout));
                return result.minimalCompletionStage();
            } catch (RuntimeException e) {
                busy.remove(q);
                throw e;
            }
        }

        @Override
        public void reject(byte[] replyData) {
            byte[] data = replyData == null ? new byte[0] : replyData;
            checkPrivateData("reply", data.length, request.maxReplyPrivateData());
            request.reject(data);
        }

        @Override
        public String toString() {
            return "ConnectionRequest[from " + request.remoteAddress() + ", rev " + request.revision() + "]";
        }
    }

    /** A bound listener. */
    private static final class CmListener implements Listener {
        private final MpaListener listener;

        CmListener(MpaListener listener) {
            this.listener = listener;
        }

        @Override
        public SocketAddress localAddress() {
            return listener.localAddress();
        }

        @Override
        public boolean isOpen() {
            return listener.isOpen();
        }

        @Override
        public void close() {
            listener.close();
        }

        @Override
        public String toString() {
            return "Listener[" + listener.localAddress() + "]";
        }
    }
}
