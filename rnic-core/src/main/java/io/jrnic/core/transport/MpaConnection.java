package io.jrnic.core.transport;

import io.jrnic.core.transport.ConnectionInfo.Role;
import io.jrnic.mpa.Crc32c;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.Fpdu;
import io.jrnic.mpa.FpduDeframer;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.FpduWriter;
import io.jrnic.mpa.MpaError;
import io.jrnic.mpa.MpaNegotiator;
import io.jrnic.mpa.MpaParameters;
import io.jrnic.mpa.Negotiation;
import io.jrnic.mpa.NegotiationFailure;
import io.jrnic.mpa.PlacementHandler;
import io.jrnic.mpa.PlacementTarget;
import io.jrnic.mpa.RtrForm;
import io.jrnic.mpa.StartupFrame;
import io.jrnic.mpa.StartupFrameParser;
import io.jrnic.wire.IwarpError;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelOutputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One TCP connection from MPA startup to close: the per-connection state machine behind
 * {@link FpduChannel} and {@link ConnectionRequest}, installed as the only handler of the channel's
 * pipeline.
 *
 * <pre>
 *  Initiator:  AWAIT_REPLY ──accept──> PAUSING ──(delay, RTR sent)──> ESTABLISHED ──start──> RUNNING
 *  Responder:  AWAIT_REQUEST ──> AWAIT_ULP ──accept──> AWAIT_RTR (peer-to-peer) ──RTR──> ESTABLISHED
 *                                                 └──> ESTABLISHED (client/server, TX gated)
 *  any state ──> CLOSED
 * </pre>
 *
 * <p>Reads: {@link PlacementRecvAllocator} asks {@link #nextReadBuffer()} for every socket read.
 * Before {@link FpduChannel#start} reading is off, and bytes read past the startup frame (or past the
 * RTR) wait in {@code pending}, the Verbs "stream message buffer" (V-VERB-ModifyQP-4), which is fed to
 * the deframer first.
 *
 * <p>Thread safety: confined to the channel's event loop; public entry points of
 * {@link FpduChannel} and {@link ConnectionRequest} hop onto it.
 */
final class MpaConnection extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(MpaConnection.class);

    /** Connection states (see the class comment). */
    enum State { AWAIT_REQUEST, AWAIT_ULP, AWAIT_REPLY, AWAIT_RTR, PAUSING, ESTABLISHED, RUNNING, CLOSED }

    private static final ValueLayout.OfInt CRC_FIELD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Room for the largest control ULPDU we write ourselves (a 46-byte Read RTR, a 22-byte Terminate). */
    private static final int CONTROL_ULPDU_CAPACITY = 64;
    /** Initial size of the TX scratch area; grown when an FPDU needs more (many markers, a big header). */
    private static final int INITIAL_SCRATCH = 1024;

    private final TransportConfig config;
    private final MpaNegotiator negotiator;
    private final Role role;
    private final RtrCodec rtrCodec = new RtrCodec();
    private final MemorySegment controlUlpdu = MemorySegment.ofArray(new byte[CONTROL_ULPDU_CAPACITY]);

    // Initiator
    private final ConnectCallback connectCallback;
    private final byte[] requestPrivateData;
    /** Adopted socket, Initiator: the last streaming-mode message, written raw before the Request. */
    private byte[] streamMessage = new byte[0];
    /** Adopted socket, Responder: bytes the ULP already read past its streaming data. */
    private byte[] alreadyRead = new byte[0];
    // Responder
    private final ConnectionRequestHandler requestHandler;
    private ConnectCallback acceptCallback;
    private Negotiation decision;

    private ChannelHandlerContext ctx;
    private Channel ch;
    private State state;
    private final StartupFrameParser parser;
    private ScheduledFuture<?> timer;
    private boolean setupReported;
    private byte[] localPrivateData = new byte[0];
    private byte[] peerPrivateData = new byte[0];
    private ByteBuf pending;

    // Receive staging: one native segment for the connection's life, wrapped once for netty.
    private final MemorySegment staging;
    private final ByteBuf stagingBuf;
    /** The first {@link TransportConfig#HEADER_READ_LENGTH} bytes of the staging memory: a cut read. */
    private final ByteBuf stagingHeadBuf;
    /** ULPDU_Length of the last FPDU received: large ones predict large ones (direct placement policy). */
    private int lastUlpduLength;
    /** The buffer of the current direct read ({@link #rxWindow}), null while staging. */
    private ByteBuf directRead;
    /** Reused for every direct read: a window of the placement target (no slice object per read). */
    private final RxWindow rxWindow = new RxWindow();

    // Full Operation
    private MpaParameters params;
    private ConnectionInfo info;
    private FpduWriter writer;
    private FpduDeframer deframer;
    private final Dispatch dispatch = new Dispatch();
    private FpduChannel channel;
    private FpduHandler rx;
    private PlacementHandler rxPlacement;
    private ChannelListener listener;
    /** Responder, peer-to-peer: the next ULPDU is the RTR (RFC 6581 §9.2), judged by {@link #onRtr}. */
    private boolean rtrPhase;
    private RtrOutcome rtrOutcome;
    private RtrForm rtrForm;
    private IwarpError rtrError;
    /** Initiator after a Read RTR: the peer's zero-length Read Response is still to be absorbed. */
    private boolean readRtrPending;
    private boolean txOpen;
    private boolean flushDeferred;

    // TX without payload copies
    private MemorySegment scratch = Arena.ofAuto().allocate(INITIAL_SCRATCH);
    private MemorySegment[] pieceSegments = new MemorySegment[8];
    private long[] pieceOffsets = new long[8];
    private int[] pieceLengths = new int[8];
    private int pieceCount;
    private final FpduWriter.GatherSink sink = this::piece;
    /** Frames data FPDUs in gathering mode, CRC off; shares the marker position with {@link #writer}. */
    private FpduWriter gatherWriter;
    private final java.util.zip.CRC32C txCrc = new java.util.zip.CRC32C();
    private final TxFpdu.Pool txPool = new TxFpdu.Pool(this::fpduSent);

    // Close
    private ChannelClosure localClosure;
    private boolean remoteFin;
    private boolean remoteFinMidFpdu;
    private Throwable failure;
    private ChannelClosure closure;
    private final IwarpTransport transport;
    private boolean closureReported;

    // Statistics (event loop only; read through FpduChannel)
    long bytesReceived;
    long bytesPlacedDirect;
    long fpdusSent;
    long fpdusReceived;
    /** Read-readiness events (netty read loops) of this channel: tests relate allocations to them. */
    long readEvents;

    /** How the Responder judged the first FPDU of a peer-to-peer stream. */
    private enum RtrOutcome { VALID, INVALID, TERMINATED }

    private MpaConnection(IwarpTransport transport, MpaNegotiator negotiator, Role role, ConnectCallback connectCallback,
                          byte[] requestPrivateData, ConnectionRequestHandler requestHandler) {
        this.config = transport.config();
        this.transport = transport;
        this.negotiator = negotiator;
        this.role = role;
        this.connectCallback = connectCallback;
        this.requestPrivateData = requestPrivateData;
        this.requestHandler = requestHandler;
        this.staging = Arena.ofAuto().allocate(config.stagingBufferSize());
        this.stagingBuf = Unpooled.wrappedBuffer(staging.asByteBuffer());
        this.stagingHeadBuf = Unpooled.wrappedBuffer(staging.asSlice(0, TransportConfig.HEADER_READ_LENGTH).asByteBuffer());
        this.state = role == Role.INITIATOR ? State.AWAIT_REPLY : State.AWAIT_REQUEST;
        StartupFrame.Kind expected = role == Role.INITIATOR ? StartupFrame.Kind.REPLY : StartupFrame.Kind.REQUEST;
        // RFC 5044 §7.1.1 PD_Length, §7.1.2 rule 9: our receive buffer always holds the protocol's 512
        // bytes, so every valid frame is accepted; privateDataLimit bounds only what we send (a Linux
        // peer's CM cannot take more than 256), docs/mpa.md decision 6
        this.parser = new StartupFrameParser(expected, StartupFrame.MAX_PRIVATE_DATA_LENGTH);
    }

    static MpaConnection initiator(IwarpTransport transport, MpaNegotiator negotiator, byte[] privateData,
                                   ConnectCallback callback) {
        return new MpaConnection(transport, negotiator, Role.INITIATOR, callback, privateData, null);
    }

    static MpaConnection responder(IwarpTransport transport, MpaNegotiator negotiator, ConnectionRequestHandler handler) {
        return new MpaConnection(transport, negotiator, Role.RESPONDER, null, null, handler);
    }

    /**
     * Sets the last streaming-mode message an Initiator on an adopted socket writes, as it is, just
     * before its MPA Request (Verbs §6.2.1.2 Stream Message Buffer, docs/connection-management.md).
     *
     * @return this
     */
    MpaConnection streamMessage(byte[] message) {
        streamMessage = message;
        return this;
    }

    /**
     * Sets bytes a Responder on an adopted socket takes as already received: what the ULP read past
     * its own streaming-mode data, i.e. the start of the MPA Request.
     *
     * @return this
     */
    MpaConnection alreadyRead(byte[] bytes) {
        alreadyRead = bytes;
        return this;
    }

    /** The receive-buffer policy to install on the channel. */
    PlacementRecvAllocator allocator() {
        return new PlacementRecvAllocator(this);
    }

    // ------------------------------------------------------------------ setup

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        ctx = context;
        ch = context.channel();
    }

    @Override
    public void channelActive(ChannelHandlerContext context) {
        timer = ch.eventLoop().schedule(this::onSetupTimeout, config.setupTimeout().toNanos(), TimeUnit.NANOSECONDS);
        if (role == Role.INITIATOR) {
            localPrivateData = requestPrivateData;
            byte[] frame = new byte[StartupFrame.HEADER_LENGTH + StartupFrame.ENHANCED_WORD_LENGTH + requestPrivateData.length];
            int n = negotiator.writeRequest(MemorySegment.ofArray(frame), 0, MemorySegment.ofArray(requestPrivateData), 0,
                    requestPrivateData.length);
            if (streamMessage.length > 0) {
                // Verbs §6.2.1.2: the last streaming-mode message, then iWARP mode (the MPA Request);
                // TCP delivers both in order, so the Reply proves the message arrived
                ctx.write(Unpooled.wrappedBuffer(streamMessage));
            }
            ctx.writeAndFlush(Unpooled.wrappedBuffer(frame, 0, n));
        } else if (alreadyRead.length > 0) {
            byte[] prefix = alreadyRead;
            alreadyRead = new byte[0];
            onBytes(MemorySegment.ofArray(prefix), 0, prefix.length);
        }
        context.fireChannelActive();
    }

    /** Reports a failed TCP connect (Initiator); runs on the event loop. */
    void connectFailed(Throwable cause) {
        failSetup(SetupFailure.ofCause(SetupFailure.Kind.CONNECT_FAILED, cause), false);
    }

    private void onSetupTimeout() {
        timer = null;
        if (state.compareTo(State.ESTABLISHED) < 0 && state != State.CLOSED) {
            failSetup(SetupFailure.of(SetupFailure.Kind.TIMEOUT, null), true);
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /**
     * Reports a setup failure once (to the connect or accept callback, else the request handler) and,
     * when {@code close} is set, closes the connection at once.
     */
    private void failSetup(SetupFailure f, boolean close) {
        cancelTimer();
        State before = state;
        state = State.CLOSED;
        if (close && ch != null && ch.isOpen()) {
            ch.close();
        }
        if (setupReported) {
            return;
        }
        setupReported = true;
        try {
            if (role == Role.INITIATOR) {
                connectCallback.onFailed(f);
            } else {
                if (acceptCallback != null) {
                    acceptCallback.onFailed(f);
                } else if (before != State.AWAIT_ULP || f.kind() != SetupFailure.Kind.REJECTED_LOCALLY) {
                    requestHandler.onSetupFailed(ch == null ? null : ch.remoteAddress(), f);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("setup callback threw", e);
        }
    }

    private void onStartupBytes(MemorySegment seg, long off, int len) {
        int taken = parser.consume(seg, off, len);
        switch (parser.state()) {
            case NEED_MORE -> {
                return;
            }
            case INVALID -> {
                // RFC 5044 §8 code 4: close TCP at once.
                failSetup(new SetupFailure(SetupFailure.Kind.INVALID_FRAME, NegotiationFailure.INVALID_FRAME,
                        parser.reason(), MpaError.INVALID_STARTUP_FRAME, null, -1, -1, null), true);
                return;
            }
            case COMPLETE -> {
                keepPending(seg, off + taken, len - taken);
                if (role == Role.INITIATOR) {
                    onReply();
                } else {
                    onRequest();
                }
            }
        }
    }

    private void keepPending(MemorySegment seg, long off, int len) {
        if (len <= 0) {
            return;
        }
        if (pending == null) {
            pending = Unpooled.buffer(len);
        }
        pending.ensureWritable(len);
        MemorySegment.copy(seg, off, MemorySegment.ofArray(pending.array()),
                pending.arrayOffset() + pending.writerIndex(), len);
        pending.writerIndex(pending.writerIndex() + len);
    }

    private SetupFailure negotiationFailure(Negotiation d, SetupFailure.Kind kind, MpaError error) {
        MpaParameters p = d.parameters();
        if (d.failure() == NegotiationFailure.INVALID_FRAME) {
            return new SetupFailure(SetupFailure.Kind.INVALID_FRAME, d.failure(), d.frameReason(),
                    MpaError.INVALID_STARTUP_FRAME, null, -1, -1, null);
        }
        return new SetupFailure(kind, d.failure(), null, error, peerPrivateData,
                p == null ? -1 : p.peerIrd(), p == null ? -1 : p.peerOrd(), null);
    }

    private void onReply() {
        Negotiation d = negotiator.onReply(parser.frame(), parser.received());
        if (d.failure() != NegotiationFailure.INVALID_FRAME) {
            peerPrivateData = MpaNegotiator.ulpPrivateData(parser.frame());
        }
        switch (d.outcome()) {
            case PEER_REJECTED -> failSetup(negotiationFailure(d, SetupFailure.Kind.REJECTED_BY_PEER, null), true);
            case CLOSE -> failSetup(negotiationFailure(d, SetupFailure.Kind.NEGOTIATION_FAILED, null), true);
            case TERMINATE -> {
                // RFC 6581 §9.1-9.2: Full Operation only to send the Terminate (code 6 or 7), then close.
                cancelTimer();
                params = d.parameters();
                writer = new FpduWriter(params.markersOnSend(), params.crc());
                state = State.PAUSING;
                afterFirstFpduDelay(() -> {
                    writeControl(rtrCodec.writeTerminate(d.error(), controlUlpdu, 0))
                            .addListener(ChannelFutureListener.CLOSE);
                    ctx.flush();
                    failSetup(negotiationFailure(d, SetupFailure.Kind.NEGOTIATION_FAILED, d.error()), false);
                });
            }
            case ACCEPT -> {
                cancelTimer();
                params = d.parameters();
                writer = new FpduWriter(params.markersOnSend(), params.crc());
                state = State.PAUSING;
                ch.config().setAutoRead(false);
                afterFirstFpduDelay(this::initiatorEstablish);
            }
            default -> throw new IllegalStateException("unexpected outcome at the Initiator: " + d.outcome());
        }
    }

    /** Runs the Initiator's first FPDU after {@link TransportConfig#firstFpduDelay()} (siw accept race). */
    private void afterFirstFpduDelay(Runnable action) {
        long delay = config.firstFpduDelay().toNanos();
        Runnable guarded = () -> {
            if (state == State.PAUSING && ch.isActive()) {
                action.run();
            }
        };
        if (delay == 0) {
            guarded.run();
        } else {
            ch.eventLoop().schedule(guarded, delay, TimeUnit.NANOSECONDS);
        }
    }

    private void initiatorEstablish() {
        RtrForm rtr = params.rtr();
        if (rtr != null) {
            // RFC 6581 §9.2: exactly one RTR, as the first FPDU; nothing else is sent before it.
            writeControl(rtrCodec.writeRtr(rtr, controlUlpdu, 0));
            ctx.flush();
            readRtrPending = rtr == RtrForm.READ;
        }
        txOpen = true;
        establish(rtr);
    }

    private void onRequest() {
        Negotiation d = negotiator.onRequest(parser.frame(), parser.received());
        if (d.failure() != NegotiationFailure.INVALID_FRAME) {
            peerPrivateData = MpaNegotiator.ulpPrivateData(parser.frame());
        }
        switch (d.outcome()) {
            case CLOSE -> failSetup(negotiationFailure(d, SetupFailure.Kind.NEGOTIATION_FAILED, null), true);
            case REJECT -> {
                // RFC 5044 §7.1.2 rule 2: a Reply with R=1; we then close (the ULP has no use for the stream).
                writeReply(d, true, new byte[0]);
                failSetup(negotiationFailure(d, SetupFailure.Kind.NEGOTIATION_FAILED, null), false);
            }
            case ACCEPT -> {
                decision = d;
                state = State.AWAIT_ULP;
                ch.config().setAutoRead(false);
                ConnectionRequest request = new ConnectionRequest(this, parser.frame().revision(), d.parameters(),
                        peerPrivateData, ch.remoteAddress(), negotiator.settings().maxUlpPrivateData());
                try {
                    requestHandler.onRequest(request);
                } catch (RuntimeException e) {
                    LOG.warn("connection request handler threw; closing", e);
                    failSetup(SetupFailure.of(SetupFailure.Kind.CLOSED, null), true);
                }
            }
            default -> throw new IllegalStateException("unexpected outcome at the Responder: " + d.outcome());
        }
    }

    private void writeReply(Negotiation d, boolean ulpReject, byte[] data) {
        byte[] frame = new byte[StartupFrame.HEADER_LENGTH + StartupFrame.ENHANCED_WORD_LENGTH + data.length];
        int n = negotiator.writeReply(d, ulpReject, MemorySegment.ofArray(frame), 0, MemorySegment.ofArray(data), 0,
                data.length);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(frame, 0, n))
                .addListener(ulpReject || d.outcome() == Negotiation.Outcome.REJECT ? ChannelFutureListener.CLOSE
                        : ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    /** {@link ConnectionRequest#accept}, on the event loop. */
    void accept(byte[] data, ConnectCallback callback) {
        if (state != State.AWAIT_ULP) {
            safeFailed(callback, SetupFailure.of(SetupFailure.Kind.CLOSED, null));
            return;
        }
        acceptCallback = callback;
        localPrivateData = data;
        writeReply(decision, false, data);
        params = decision.parameters();
        writer = new FpduWriter(params.markersOnSend(), params.crc());
        deframer = new FpduDeframer(params.markersOnReceive(), params.crc(), FpduDeframer.DEFAULT_MIN_ULPDU_LENGTH,
                Fpdu.MAX_ULPDU_LENGTH, 0, dispatch);
        if (params.peerToPeer()) {
            // RFC 5044 §7.1.2 rule 4, RFC 6581 §9.2: wait for the RTR before anything is sent or reported.
            state = State.AWAIT_RTR;
            rtrPhase = true;
            ByteBuf held = pending;
            pending = null;
            if (held != null) {
                onRtrBytes(MemorySegment.ofArray(held.array()), held.arrayOffset() + held.readerIndex(), held.readableBytes());
                held.release();
            }
            if (state == State.AWAIT_RTR) {
                ch.config().setAutoRead(true);
            }
        } else {
            // Client/server: the first FPDU is the Initiator's; ours wait in the outbound buffer until it came.
            cancelTimer();
            txOpen = false;
            establish(null);
        }
    }

    /** {@link ConnectionRequest#reject}, on the event loop. */
    void reject(byte[] data) {
        if (state != State.AWAIT_ULP) {
            return;
        }
        localPrivateData = data;
        writeReply(decision, true, data);
        failSetup(SetupFailure.of(SetupFailure.Kind.REJECTED_LOCALLY, null), false);
    }

    private static void safeFailed(ConnectCallback callback, SetupFailure f) {
        try {
            callback.onFailed(f);
        } catch (RuntimeException e) {
            LOG.warn("connect callback threw", e);
        }
    }

    /** Feeds RTR-phase bytes one at a time so that nothing after the RTR is consumed before start(). */
    private void onRtrBytes(MemorySegment seg, long off, int len) {
        int i = 0;
        while (i < len && rtrOutcome == null && deframer.fault() == null) {
            deframer.consume(seg, off + i, 1);
            i++;
        }
        if (rtrOutcome == null && deframer.fault() == null) {
            return;
        }
        if (rtrOutcome == RtrOutcome.VALID) {
            keepPending(seg, off + i, len - i);
            ch.config().setAutoRead(false);
            cancelTimer();
            txOpen = true;
            establish(rtrForm);
            return;
        }
        if (rtrOutcome == RtrOutcome.TERMINATED) {
            // Never answer a Terminate with a Terminate; just close.
            failSetup(new SetupFailure(SetupFailure.Kind.PEER_TERMINATED, null, null, rtrError, null,
                    params.peerIrd(), params.peerOrd(), null), true);
            return;
        }
        IwarpError error = rtrError != null ? rtrError : MpaError.NO_MATCHING_RTR;
        writeControl(rtrCodec.writeTerminate(error, controlUlpdu, 0)).addListener(ChannelFutureListener.CLOSE);
        ctx.flush();
        failSetup(new SetupFailure(SetupFailure.Kind.RTR_INVALID, null, null, error, null, params.peerIrd(),
                params.peerOrd(), null), false);
    }

    /** The first ULPDU of a peer-to-peer stream at the Responder (RFC 6581 §9.2). */
    private void onRtr(MemorySegment seg, long off, int len) {
        rtrPhase = false;
        IwarpError terminate = rtrCodec.terminateError(seg, off, len);
        if (terminate != null) {
            rtrError = terminate;
            rtrOutcome = RtrOutcome.TERMINATED;
            return;
        }
        RtrForm form = rtrCodec.classifyRtr(seg, off, len);
        if (form == null || (params.rtrFlags() & form.flag()) == 0) {
            rtrOutcome = RtrOutcome.INVALID;
            return;
        }
        if (form == RtrForm.READ) {
            // wire-format.md §7 item 11: a zero-length Read takes an IRD slot and gets a zero-length
            // Read Response; the slot is free again once the response is queued.
            writeControl(rtrCodec.writeReadResponse(seg, off, controlUlpdu, 0));
            ctx.flush();
        }
        rtrForm = form;
        rtrOutcome = RtrOutcome.VALID;
    }

    private void establish(RtrForm rtr) {
        int mulpdu = Fpdu.mulpdu(config.emss(), params.markersOnSend());
        info = ConnectionInfo.of(role, params, rtr, mulpdu, localPrivateData, peerPrivateData, ch.localAddress(),
                ch.remoteAddress());
        if (deframer == null) {
            deframer = new FpduDeframer(params.markersOnReceive(), params.crc(), FpduDeframer.DEFAULT_MIN_ULPDU_LENGTH,
                    Fpdu.MAX_ULPDU_LENGTH, 0, dispatch);
        }
        channel = new FpduChannel(this);
        state = State.ESTABLISHED;
        setupReported = true;
        ConnectCallback callback = role == Role.INITIATOR ? connectCallback : acceptCallback;
        try {
            callback.onEstablished(channel);
        } catch (RuntimeException e) {
            LOG.warn("onEstablished threw; aborting the connection", e);
            abort();
        }
    }

    /** Frames one control ULPDU held in {@link #controlUlpdu} and writes it (not flushed). */
    private ChannelFuture writeControl(int ulpduLength) {
        byte[] fpdu = new byte[writer.wireLength(ulpduLength)];
        writer.write(controlUlpdu, 0, ulpduLength, MemorySegment.ofArray(fpdu), 0);
        fpdusSent++;
        return ctx.write(Unpooled.wrappedBuffer(fpdu));
    }

    // ------------------------------------------------------------------ receive

    /** Size of the next socket read (netty's guess). */
    int nextReadSize() {
        int window = state == State.RUNNING && deframer != null ? deframer.directWindow() : 0;
        if (window > 0) {
            return window;
        }
        return cutStagingRead() ? TransportConfig.HEADER_READ_LENGTH : config.stagingBufferSize();
    }

    /**
     * Whether the next staging read should stop after a header: only while a placement handler runs
     * and the last FPDU was large, so that the payload of the next one can be read into its target.
     * Small FPDUs keep big reads: many of them arrive whole in one read, and copying a few hundred
     * bytes is cheaper than a system call per FPDU.
     */
    private boolean cutStagingRead() {
        int threshold = config.directPlacementThreshold();
        return state == State.RUNNING && rxPlacement != null && threshold > 0 && lastUlpduLength >= threshold;
    }

    /** The buffer of the next socket read: a slice of the placement target, or the staging buffer. */
    ByteBuf nextReadBuffer() {
        if (state == State.RUNNING && deframer != null) {
            deframer.endDirect(); // a direct read that brought nothing (netty released it unread)
            int window = deframer.directWindow();
            // R-SEC-016: the target's guard is held for this one read only (placed() or endDirect())
            if (window > 0 && deframer.beginDirect()) {
                MemorySegment target = deframer.directTarget();
                long offset = deframer.directTargetOffset();
                directRead = rxWindow.open(target, offset, window);
                return directRead;
            }
        }
        directRead = null;
        // Reused for every read: channelRead consumes it synchronously and releases the extra reference.
        return (cutStagingRead() ? stagingHeadBuf : stagingBuf).retain().clear();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            int n = buf.readableBytes();
            if (n == 0) {
                if (buf == directRead && deframer != null) {
                    deframer.endDirect();
                }
                return;
            }
            if (buf == directRead) {
                directRead = null;
                bytesReceived += n;
                bytesPlacedDirect += n;
                deframer.placed(n);
                return;
            }
            if (buf != stagingBuf && buf != stagingHeadBuf) {
                throw new IllegalStateException("read into a buffer this connection did not provide");
            }
            onBytes(staging, buf.readerIndex(), n);
        } catch (RuntimeException e) {
            LOG.warn("receive processing failed; aborting the connection", e);
            failure = e;
            abort();
        } finally {
            buf.release();
        }
    }

    private void onBytes(MemorySegment seg, long off, int len) {
        switch (state) {
            case AWAIT_REQUEST, AWAIT_REPLY -> onStartupBytes(seg, off, len);
            case AWAIT_RTR -> onRtrBytes(seg, off, len);
            case RUNNING -> {
                bytesReceived += len;
                deframer.consume(seg, off, len);
            }
            case CLOSED -> {
                // A closing connection discards what still arrives.
            }
            // AWAIT_ULP, PAUSING, ESTABLISHED: reading is being switched off, but netty may finish its
            // current read loop first. Keep the bytes for start() (V-QPS-15: nothing may be lost).
            default -> keepPending(seg, off, len);
        }
    }

    /** {@link FpduChannel#start}, on the event loop. */
    void start(FpduHandler handler, ChannelListener events) {
        if (rx != null) {
            throw new IllegalStateException("channel already started");
        }
        rx = handler;
        rxPlacement = handler instanceof PlacementHandler p ? p : null;
        listener = events;
        if (state == State.CLOSED) {
            reportClosure();
            return;
        }
        state = State.RUNNING;
        ByteBuf held = pending;
        pending = null;
        if (held != null) {
            // V-VERB-ModifyQP-4: bytes that followed the startup frame are the start of the FPDU stream.
            bytesReceived += held.readableBytes();
            deframer.consume(MemorySegment.ofArray(held.array()), held.arrayOffset() + held.readerIndex(),
                    held.readableBytes());
            held.release();
        }
        if (state == State.RUNNING) {
            ch.config().setAutoRead(true);
        }
    }

    /**
     * Graceful receive overflow (V-WRP-66, jrnic engine "rx"): in Full Operation, stops or restarts
     * socket reads. With autoRead off netty requests no further read, the TCP window closes and
     * the peer is held back; a read loop already running may still deliver what it read.
     */
    void receivePaused(boolean paused) {
        if (state == State.RUNNING) {
            ch.config().setAutoRead(!paused);
        }
    }

    /** Routes deframed ULPDUs: the RTR phase first, then the ULP's handler. */
    private final class Dispatch implements PlacementHandler {
        @Override
        public int prefixLength(int firstByte, int ulpduLength) {
            return rtrPhase || rxPlacement == null ? 0 : rxPlacement.prefixLength(firstByte, ulpduLength);
        }

        @Override
        public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                       PlacementTarget target) {
            boolean placed = !rtrPhase && rxPlacement != null
                    && rxPlacement.placementTarget(prefix, offset, prefixLength, ulpduLength, target);
            if (placed) {
                // Predict from the header already: the read of this FPDU's tail (pad, CRC) is cut too.
                lastUlpduLength = ulpduLength;
            }
            return placed;
        }

        @Override
        public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
            fpdusReceived++;
            lastUlpduLength = ulpduLength;
            openTx();
            rxPlacement.onPlaced(prefix, offset, prefixLength, ulpduLength);
        }

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            fpdusReceived++;
            lastUlpduLength = length;
            if (rtrPhase) {
                onRtr(segment, offset, length);
                return;
            }
            if (readRtrPending && rtrCodec.isZeroLengthReadResponse(segment, offset, length)) {
                readRtrPending = false;      // the answer to our Read RTR: absorbed, frees the ORD slot
                return;
            }
            openTx();
            rx.onUlpdu(segment, offset, length);
        }

        @Override
        public void onError(DeframeFault fault) {
            if (rtrPhase) {
                rtrPhase = false;
                rtrError = fault;
                rtrOutcome = RtrOutcome.INVALID;
                return;
            }
            // A client/server Responder may send once one FPDU was validated (RFC 5044 §7.1.2 rule 4).
            // A faulty FPDU still proves that the Initiator has sent an FPDU, so it had received our
            // Reply and is in Full Operation: the race the rule guards against cannot happen. The
            // Terminate the QP sends for the fault (RFC 5044 §8) must not be held back and then
            // dropped at the close; Linux siw sends it too (docs/transport.md, issue 9 item 1).
            openTx();
            rx.onError(fault);
        }
    }

    /** RFC 5044 §7.1.2 rule 4: the Responder may send once it has received one valid FPDU. */
    private void openTx() {
        if (!txOpen) {
            txOpen = true;
            if (flushDeferred) {
                flushDeferred = false;
                ctx.flush();
            }
        }
    }

    // ------------------------------------------------------------------ transmit

    boolean send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload, long payloadOffset,
                 int payloadLength, long token) {
        if (headerLength < 0 || payloadLength < 0 || (long) headerLength + payloadLength > info.mulpdu()) {
            throw new IllegalArgumentException("ULPDU of " + headerLength + " + " + payloadLength
                    + " bytes exceeds MULPDU " + info.mulpdu());
        }
        if (state != State.RUNNING && state != State.ESTABLISHED || localClosure != null) {
            return false;
        }
        try {
            return frame(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
        } catch (RuntimeException e) {
            // The framing state (marker position) may already count this FPDU, or part of it was
            // queued: nothing can follow it on this stream (Verbs §6.4 #1, V-TERM-4).
            failure = e;
            reset();
            throw e;
        }
    }

    private boolean frame(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                          long payloadOffset, int payloadLength, long token) {
        int need = writer.scratchLength(headerLength, payloadLength);
        if (need > scratch.byteSize()) {
            scratch = Arena.ofAuto().allocate(Math.max(need, 2 * scratch.byteSize()));
        }
        pieceCount = 0;
        // The data writer computes no CRC (its Crc32c caches one segment view and would allocate a new
        // one at every switch between scratch and payload); TxFpdu.writeCrc does it over its own views.
        if (gatherWriter == null) {
            gatherWriter = new FpduWriter(writer.markers(), false, writer.position());
        } else {
            gatherWriter.position(writer.position());
        }
        int used = gatherWriter.gather(header, headerOffset, headerLength, payload, payloadOffset, payloadLength,
                scratch, 0, sink);
        writer.position(gatherWriter.position());
        // One reusable message per FPDU (docs/transport.md, TX): the writer's own octets (length, header
        // copy, markers, pad, CRC; a few dozen bytes) are copied into the message's own native area, the
        // payload pieces are reusable views of the registered memory, in wire order. One message per
        // FPDU, so netty never splits an FPDU between two gathering writes. Nothing is allocated once
        // the pool has warmed up; the token is reported when the message comes back fully written.
        TxFpdu fpdu = txPool.take().fill(scratch, used, pieceSegments, pieceOffsets, pieceLengths, pieceCount);
        if (writer.crcEnabled()) {
            fpdu.writeCrc(txCrc);
        }
        ctx.write(fpdu.finish(token), ctx.voidPromise());
        fpdusSent++;
        return ch.isWritable();
    }

    /** A fully written FPDU with a token came back from netty (RFC 5040 §5: handed to the LLP). */
    private void fpduSent(long token) {
        if (listener != null) {
            try {
                listener.onSent(token);
            } catch (RuntimeException e) {
                LOG.warn("onSent threw", e);
            }
        }
    }

    /** One piece of the FPDU being gathered: a scratch range or a payload slice, in wire order. */
    private void piece(MemorySegment segment, long offset, long length) {
        if (pieceCount == pieceSegments.length) {
            pieceSegments = java.util.Arrays.copyOf(pieceSegments, 2 * pieceCount);
            pieceOffsets = java.util.Arrays.copyOf(pieceOffsets, 2 * pieceCount);
            pieceLengths = java.util.Arrays.copyOf(pieceLengths, 2 * pieceCount);
        }
        pieceSegments[pieceCount] = segment;
        pieceOffsets[pieceCount] = offset;
        pieceLengths[pieceCount] = (int) length;
        pieceCount++;
    }

    /** TX message pool statistics (tests). */
    int txObjectsCreated() {
        return txPool.created();
    }

    void flush() {
        if (!txOpen) {
            flushDeferred = true;      // client/server Responder before the Initiator's first FPDU
            return;
        }
        ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (ch.isWritable() && listener != null && state == State.RUNNING) {
            try {
                listener.onWritable();
            } catch (RuntimeException e) {
                LOG.warn("onWritable threw", e);
            }
        }
        context.fireChannelWritabilityChanged();
    }

    // ------------------------------------------------------------------ close

    /**
     * Graceful close: everything written so far goes to TCP, then FIN (a half close). The socket is
     * closed when the peer's FIN arrives. Waiting for it matters: closing at once would make the
     * kernel answer the peer's last FPDUs with a RST, and the peer would see a reset instead of a
     * normal close (Verbs §6.6.2.1). Until the FIN, what still arrives is delivered as usual. A channel
     * that was never started cannot see the FIN and is closed at once.
     *
     * <p>The wait is bounded (Verbs §6.2.5, V-QPS-79): {@link TransportConfig#closeTimeout()} runs from
     * this call, so it also covers a peer that reads nothing and leaves our last FPDUs (and the FIN)
     * stuck in the send buffer. Its expiry is an error, not a close: the connection is reset (RST)
     * and reported as {@link ChannelClosure#CONNECTION_LOST}.
     */
    void close() {
        if (localClosure != null || state == State.CLOSED) {
            return;
        }
        localClosure = ChannelClosure.LOCAL_CLOSE;
        if (!txOpen) {
            ch.close();      // a client/server Responder before the first FPDU has nothing it may send
            return;
        }
        cancelTimer();
        timer = ch.eventLoop().schedule(this::onCloseTimeout, config.closeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess() || remoteFin || rx == null || !(ch instanceof SocketChannel socket)) {
                ch.close();
                return;
            }
            socket.shutdownOutput();
        });
    }

    /** The graceful close did not finish in time: a final timeout is an error (Verbs §6.2.5). */
    private void onCloseTimeout() {
        timer = null;
        if (!ch.isOpen()) {
            return;
        }
        failure = new SocketTimeoutException("graceful close not finished within " + config.closeTimeout());
        localClosure = null;       // the timeout, not our close, explains the closure
        reset();
    }

    /** RST: SO_LINGER 0, then close; pending writes are dropped. */
    private void reset() {
        if (ch.isOpen()) {
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close();
        }
    }

    /** Abortive close: RST (SO_LINGER 0), pending writes are dropped. */
    void abort() {
        if (localClosure == null) {
            localClosure = ChannelClosure.LOCAL_ABORT;
        }
        reset();
    }

    /** The transport is shutting down. */
    void transportClosing() {
        if (localClosure == null) {
            localClosure = ChannelClosure.TRANSPORT_CLOSED;
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            // Peer FIN (half closure is enabled so that we can tell it apart from a reset).
            remoteFin = true;
            remoteFinMidFpdu = deframer != null && !deframer.atFpduBoundary();
            if (state.compareTo(State.ESTABLISHED) < 0) {
                failSetup(SetupFailure.of(SetupFailure.Kind.CONNECTION_LOST, MpaError.TCP_CONNECTION_LOST), true);
            } else if (localClosure == ChannelClosure.LOCAL_CLOSE) {
                ch.close();          // the answer to our own FIN: the graceful close is complete
            } else if (localClosure == null) {
                // Our queued FPDUs still go out (the peer may read after its FIN), then we close too;
                // a client/server Responder that never saw an FPDU has nothing it may send.
                if (txOpen) {
                    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                } else {
                    ch.close();
                }
            }
            return;
        }
        if (evt instanceof ChannelOutputShutdownEvent && localClosure == null) {
            // netty shuts the output down (FIN) when a write fails with anything but an IOException,
            // e.g. the payload memory of a queued FPDU was closed under it: that FPDU was partly
            // written, so the stream must be reset (Verbs §6.4 #1, V-TERM-4), not closed.
            if (failure == null) {
                failure = new IOException("an FPDU could not be written completely; the stream is reset");
            }
            reset();
            return;
        }
        context.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
        if (!(cause instanceof IOException)) {
            LOG.warn("unexpected exception on {}", ch, cause);
        }
        if (localClosure == null) {
            abort();
            localClosure = null;       // the cause, not our abort, explains the closure
        } else {
            ch.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        // netty releases a direct read that brought no bytes without channelRead: end its guard
        // before anything else runs on this loop (R-SEC-016: a revoker may be waiting for it)
        if (deframer != null) {
            deframer.endDirect();
        }
        context.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        if (deframer != null) {
            deframer.endDirect();
        }
        cancelTimer();
        if (pending != null) {
            pending.release();
            pending = null;
        }
        rxWindow.forget();
        State before = state;
        state = State.CLOSED;
        if (before.compareTo(State.ESTABLISHED) < 0 && before != State.CLOSED) {
            SetupFailure.Kind kind = localClosure != null ? SetupFailure.Kind.CLOSED : SetupFailure.Kind.CONNECTION_LOST;
            failSetup(new SetupFailure(kind, null, null, MpaError.TCP_CONNECTION_LOST, null, -1, -1, failure), false);
        } else if (channel != null) {
            closure = classifyClosure();
            if (listener != null) {
                reportClosure();
            }
        }
        context.fireChannelInactive();
    }

    private ChannelClosure classifyClosure() {
        if (localClosure == ChannelClosure.LOCAL_CLOSE && !remoteFin && failure != null && isReset(failure)) {
            // an RST instead of the peer's FIN: the graceful close failed (Verbs §6.2.5 Figure 11,
            // V-QPS-83; §6.2.3, V-QPS-53), it did not complete
            return ChannelClosure.REMOTE_RESET;
        }
        if (localClosure != null) {
            return localClosure;
        }
        if (transport.isClosed()) {
            // IwarpTransport.close() closes both ends of a loopback pair; the peer's FIN or RST may
            // arrive before this end's own close task runs: it is still the transport's closure.
            return ChannelClosure.TRANSPORT_CLOSED;
        }
        if (failure != null) {
            return isReset(failure) ? ChannelClosure.REMOTE_RESET : ChannelClosure.CONNECTION_LOST;
        }
        if (remoteFin) {
            return remoteFinMidFpdu ? ChannelClosure.REMOTE_CLOSE_MID_FPDU : ChannelClosure.REMOTE_CLOSE;
        }
        return ChannelClosure.CONNECTION_LOST;
    }

    /** The JDK reports an incoming RST as a SocketException "Connection reset" (by peer). */
    private static boolean isReset(Throwable t) {
        return t instanceof SocketException && t.getMessage() != null && t.getMessage().contains("reset")
                || t instanceof IOException && t.getMessage() != null && t.getMessage().contains("Connection reset");
    }

    private void reportClosure() {
        if (closureReported) {
            return;
        }
        closureReported = true;
        try {
            listener.onClosed(closure);
        } catch (RuntimeException e) {
            LOG.warn("onClosed threw", e);
        }
    }

    // ------------------------------------------------------------------ accessors for FpduChannel

    Channel nettyChannel() {
        return ch;
    }

    ConnectionInfo info() {
        return info;
    }

    boolean readRtrPending() {
        return readRtrPending;
    }

    boolean isOpen() {
        return state != State.CLOSED && localClosure == null;
    }
}
