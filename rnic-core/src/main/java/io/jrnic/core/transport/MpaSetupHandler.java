package io.jrnic.core.transport;

import io.jrnic.core.link.FpduLink;
import io.jrnic.core.transport.ConnectionInfo.Role;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * MPA connection setup on one TCP connection (RFC 5044 §7, RFC 6581): the startup frames, the
 * negotiation, the ULP's accept or reject, the RTR exchange, the Initiator's pause before its first
 * FPDU and the setup timeout. At Full Operation it replaces itself in the pipeline by an
 * {@link FpduFramingHandler} (as netty's WebSocket handshaker swaps its handlers), hands it the
 * negotiated state explicitly ({@link FpduFramingHandler.FullOperation}) and reports the
 * {@link FpduChannel}, which sits on the framing handler.
 *
 * <pre>
 *  Initiator:  AWAIT_REPLY ──accept──> PAUSING ──(delay, RTR sent)──> Full Operation
 *  Responder:  AWAIT_REQUEST ──> AWAIT_ULP ──accept──> AWAIT_RTR (peer-to-peer) ──RTR──> Full Operation
 *                                                 └──> Full Operation (client/server, TX gated)
 *  any state ──> CLOSED (a setup failure)
 * </pre>
 *
 * <p>Close before Full Operation belongs here: every closure of a connection that never reached
 * Full Operation, including one while the Initiator pauses or the Responder waits for its ULP or
 * the RTR, is reported once as a {@link SetupFailure}. Once the framing handler is installed this
 * handler is gone and it reports the {@link FpduLink.Closure}.
 *
 * <p>Reads: always into the staging buffer ({@link PlacementRecvAllocator} asks this handler until
 * the swap). Bytes read past the startup frame (or past the RTR) wait in {@code pending}, the Verbs
 * "stream message buffer" (V-VERB-ModifyQP-4), and are handed to the framing handler, which feeds
 * them to its deframer first.
 *
 * <p>Thread safety: confined to the channel's event loop; {@link MpaRequest} hops onto it.
 */
final class MpaSetupHandler extends ChannelDuplexHandler implements PlacementRecvAllocator.ReadSource {

    private static final Logger LOG = LoggerFactory.getLogger(MpaSetupHandler.class);

    /** The name of the setup handler in the pipeline. */
    static final String SETUP_HANDLER_NAME = "mpa-setup";
    /** The name of the framing handler in the pipeline, in the setup handler's place. */
    static final String FRAMING_HANDLER_NAME = "fpdu-framing";

    /** Setup states (see the class comment); {@code ESTABLISHED} once the framing handler took over. */
    enum State { AWAIT_REQUEST, AWAIT_ULP, AWAIT_REPLY, AWAIT_RTR, PAUSING, ESTABLISHED, CLOSED }

    /** Room for the largest control ULPDU we write ourselves (a 46-byte Read RTR, a 22-byte Terminate). */
    private static final int CONTROL_ULPDU_CAPACITY = 64;

    private final ConnectionContext cx;
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
    private final MpaRequestHandler requestHandler;
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
    /** Bytes read past the startup frame or the RTR: the start of the FPDU stream (V-VERB-ModifyQP-4). */
    private ByteBuf pending;

    private MpaParameters params;
    /** Frames the control FPDUs of setup; handed to the framing handler (it holds the marker position). */
    private FpduWriter writer;
    /** Responder, peer-to-peer: deframes the RTR (RFC 6581 §9.2); its stream position is handed on. */
    private FpduDeframer rtrDeframer;
    private RtrOutcome rtrOutcome;
    private RtrForm rtrForm;
    private IwarpError rtrError;
    /** Control FPDUs sent and FPDUs received during setup (the RTR and its answer count). */
    private long fpdusSent;
    private long fpdusReceived;

    // Close before Full Operation
    /** This side closes (transport shutdown, a receive failure): a closure reports CLOSED, not CONNECTION_LOST. */
    private boolean localClose;
    /** {@link #transportClosing()} was called: handed to the framing handler if setup still completes. */
    private boolean transportClosing;
    private Throwable failure;

    /** How the Responder judged the first FPDU of a peer-to-peer stream. */
    private enum RtrOutcome { VALID, INVALID, TERMINATED }

    private MpaSetupHandler(IwarpTransport transport, MpaNegotiator negotiator, Role role, ConnectCallback connectCallback,
                            byte[] requestPrivateData, MpaRequestHandler requestHandler) {
        this.cx = new ConnectionContext(transport, role);
        this.config = cx.config;
        this.negotiator = negotiator;
        this.role = role;
        this.connectCallback = connectCallback;
        this.requestPrivateData = requestPrivateData;
        this.requestHandler = requestHandler;
        this.state = role == Role.INITIATOR ? State.AWAIT_REPLY : State.AWAIT_REQUEST;
        StartupFrame.Kind expected = role == Role.INITIATOR ? StartupFrame.Kind.REPLY : StartupFrame.Kind.REQUEST;
        // RFC 5044 §7.1.1 PD_Length, §7.1.2 rule 9: our receive buffer always holds the protocol's 512
        // bytes, so every valid frame is accepted; privateDataLimit bounds only what we send (a Linux
        // peer's CM cannot take more than 256), docs/mpa.md decision 6
        this.parser = new StartupFrameParser(expected, StartupFrame.MAX_PRIVATE_DATA_LENGTH);
        cx.allocator.source(this);
    }

    static MpaSetupHandler initiator(IwarpTransport transport, MpaNegotiator negotiator, byte[] privateData,
                                     ConnectCallback callback) {
        return new MpaSetupHandler(transport, negotiator, Role.INITIATOR, callback, privateData, null);
    }

    static MpaSetupHandler responder(IwarpTransport transport, MpaNegotiator negotiator,
                                     MpaRequestHandler handler) {
        return new MpaSetupHandler(transport, negotiator, Role.RESPONDER, null, null, handler);
    }

    /**
     * Sets the last streaming-mode message an Initiator on an adopted socket writes, as it is, just
     * before its MPA Request (Verbs §6.2.1.2 Stream Message Buffer, docs/connection-management.md).
     *
     * @return this
     */
    MpaSetupHandler streamMessage(byte[] message) {
        streamMessage = message;
        return this;
    }

    /**
     * Sets bytes a Responder on an adopted socket takes as already received: what the ULP read past
     * its own streaming-mode data, i.e. the start of the MPA Request.
     *
     * @return this
     */
    MpaSetupHandler alreadyRead(byte[] bytes) {
        alreadyRead = bytes;
        return this;
    }

    /** The receive-buffer policy to install on the channel, once: it follows the handler swap. */
    PlacementRecvAllocator allocator() {
        return cx.allocator;
    }

    /** The setup state (tests). */
    State state() {
        return state;
    }

    Channel nettyChannel() {
        return ch;
    }

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

    /** The transport is shutting down: a closure now is the transport's ({@link SetupFailure.Kind#CLOSED}). */
    void transportClosing() {
        localClose = true;
        transportClosing = true;
    }

    private void onSetupTimeout() {
        timer = null;
        if (state.compareTo(State.ESTABLISHED) < 0) {
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

    // ------------------------------------------------------------------ receive

    @Override
    public ByteBuf nextReadBuffer() {
        // Reused for every read: channelRead consumes it synchronously and releases the extra reference.
        return cx.staging(ch).whole.retain().clear();
    }

    @Override
    public int nextReadSize() {
        return config.stagingBufferSize();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            int n = buf.readableBytes();
            if (n == 0) {
                return;
            }
            ReadStaging staging = cx.staging(ch);
            if (!staging.holds(buf)) {
                throw new IllegalStateException("read into a buffer this connection did not provide");
            }
            onBytes(staging.memory, buf.readerIndex(), n);
        } catch (RuntimeException e) {
            LOG.warn("receive processing failed; aborting the connection", e);
            failure = e;
            localClose = true;
            reset();
        } finally {
            buf.release();
        }
    }

    private void onBytes(MemorySegment seg, long off, int len) {
        switch (state) {
            case AWAIT_REQUEST, AWAIT_REPLY -> onStartupBytes(seg, off, len);
            case AWAIT_RTR -> onRtrBytes(seg, off, len);
            case CLOSED -> {
                // A closing connection discards what still arrives.
            }
            // AWAIT_ULP, PAUSING: reading is being switched off, but netty may finish its current read
            // loop first. Keep the bytes for the framing handler (V-QPS-15: nothing may be lost).
            default -> keepPending(seg, off, len);
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

    // ------------------------------------------------------------------ negotiation

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
        boolean readRtrPending = false;
        if (rtr != null) {
            // RFC 6581 §9.2: exactly one RTR, as the first FPDU; nothing else is sent before it.
            writeControl(rtrCodec.writeRtr(rtr, controlUlpdu, 0));
            ctx.flush();
            readRtrPending = rtr == RtrForm.READ;
        }
        establish(rtr, 0, true, readRtrPending);
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
                // The failure is recorded first: the close after the write must not be reported instead.
                failSetup(negotiationFailure(d, SetupFailure.Kind.NEGOTIATION_FAILED, null), false);
                writeReply(d, true, new byte[0]);
            }
            case ACCEPT -> {
                decision = d;
                state = State.AWAIT_ULP;
                ch.config().setAutoRead(false);
                MpaRequest request = new MpaRequest(this, parser.frame().revision(), d.parameters(),
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

    /** {@link MpaRequest#accept}, on the event loop. */
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
        if (params.peerToPeer()) {
            // RFC 5044 §7.1.2 rule 4, RFC 6581 §9.2: wait for the RTR before anything is sent or reported.
            state = State.AWAIT_RTR;
            rtrDeframer = new FpduDeframer(params.markersOnReceive(), params.crc(),
                    FpduDeframer.DEFAULT_MIN_ULPDU_LENGTH, Fpdu.MAX_ULPDU_LENGTH, 0, new RtrJudge());
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
            establish(null, 0, false, false);
        }
    }

    /** {@link MpaRequest#reject}, on the event loop. */
    void reject(byte[] data) {
        if (state != State.AWAIT_ULP) {
            return;
        }
        localPrivateData = data;
        // recorded before the Reply goes out: the close that follows it is this reject, not a lost connection
        failSetup(SetupFailure.of(SetupFailure.Kind.REJECTED_LOCALLY, null), false);
        writeReply(decision, true, data);
    }

    private static void safeFailed(ConnectCallback callback, SetupFailure f) {
        try {
            callback.onFailed(f);
        } catch (RuntimeException e) {
            LOG.warn("connect callback threw", e);
        }
    }

    // ------------------------------------------------------------------ RTR (Responder, peer-to-peer)

    /** Feeds RTR-phase bytes one at a time so that nothing after the RTR is consumed before start(). */
    private void onRtrBytes(MemorySegment seg, long off, int len) {
        int i = 0;
        while (i < len && rtrOutcome == null && rtrDeframer.fault() == null) {
            rtrDeframer.consume(seg, off + i, 1);
            i++;
        }
        if (rtrOutcome == null && rtrDeframer.fault() == null) {
            return;
        }
        if (rtrOutcome == RtrOutcome.VALID) {
            keepPending(seg, off + i, len - i);
            ch.config().setAutoRead(false);
            cancelTimer();
            establish(rtrForm, rtrDeframer.position(), true, false);
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

    /** Judges the first ULPDU of a peer-to-peer stream at the Responder (RFC 6581 §9.2). */
    private final class RtrJudge implements FpduHandler {
        @Override
        public void onUlpdu(MemorySegment seg, long off, int len) {
            fpdusReceived++;
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

        @Override
        public void onError(DeframeFault fault) {
            rtrError = fault;
            rtrOutcome = RtrOutcome.INVALID;
        }
    }

    /** Frames one control ULPDU held in {@link #controlUlpdu} and writes it (not flushed). */
    private ChannelFuture writeControl(int ulpduLength) {
        byte[] fpdu = new byte[writer.wireLength(ulpduLength)];
        writer.write(controlUlpdu, 0, ulpduLength, MemorySegment.ofArray(fpdu), 0);
        fpdusSent++;
        return ctx.write(Unpooled.wrappedBuffer(fpdu));
    }

    // ------------------------------------------------------------------ Full Operation: the swap

    /**
     * Enters Full Operation: replaces this handler by the framing handler at the same place in the
     * pipeline (after the capture handler, if any), points the receive-buffer policy at it, then
     * reports the {@link FpduChannel}. Reading stays off until {@link FpduChannel#start}.
     *
     * @param rtr            the RTR form exchanged, or null
     * @param rxPosition     stream position of the next byte to deframe (after the RTR, else 0)
     * @param txOpen         whether we may send (false: client/server Responder, RFC 5044 §7.1.2 rule 4)
     * @param readRtrPending Initiator after a Read RTR: the peer's zero-length Read Response is due
     */
    private void establish(RtrForm rtr, int rxPosition, boolean txOpen, boolean readRtrPending) {
        int emss = config.emss() == TransportConfig.AUTO_EMSS ? SocketMss.of(ch) : config.emss();
        int mulpdu = Fpdu.mulpdu(emss, params.markersOnSend());
        ConnectionInfo info = ConnectionInfo.of(role, params, rtr, mulpdu, localPrivateData, peerPrivateData,
                ch.localAddress(), ch.remoteAddress());
        FpduFramingHandler.FullOperation handoff = new FpduFramingHandler.FullOperation(info, writer, rxPosition,
                pending, txOpen, readRtrPending, fpdusSent, fpdusReceived,
                config.segmentRule() ? SocketMss.segmentSize(ch) : 0);
        pending = null;
        state = State.ESTABLISHED;
        setupReported = true;
        FpduFramingHandler framing = new FpduFramingHandler(cx, ch, handoff);
        if (transportClosing) {
            framing.transportClosing();
        }
        ctx.pipeline().replace(this, FRAMING_HANDLER_NAME, framing);
        cx.allocator.source(framing);
        ConnectCallback callback = role == Role.INITIATOR ? connectCallback : acceptCallback;
        try {
            callback.onEstablished(framing.channel());
        } catch (RuntimeException e) {
            LOG.warn("onEstablished threw; aborting the connection", e);
            framing.abort();
        }
    }

    // ------------------------------------------------------------------ close before Full Operation

    /** RST: SO_LINGER 0, then close; pending writes are dropped. */
    private void reset() {
        if (ch.isOpen()) {
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            // Peer FIN before Full Operation: setup cannot complete (half closure is enabled so that we
            // can tell it apart from a reset).
            if (state != State.CLOSED) {
                failSetup(SetupFailure.of(SetupFailure.Kind.CONNECTION_LOST, MpaError.TCP_CONNECTION_LOST), true);
            } else {
                ch.close();
            }
            return;
        }
        if (evt instanceof ChannelOutputShutdownEvent && !localClose) {
            // netty shuts the output down (FIN) when a write fails with anything but an IOException:
            // a startup or control frame was partly written, so the stream is reset, not closed.
            if (failure == null) {
                failure = new IOException("a setup frame could not be written completely; the stream is reset");
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
        if (!localClose) {
            reset();       // the cause, not a local close, explains the closure
        } else {
            ch.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        cancelTimer();
        if (pending != null) {
            pending.release();
            pending = null;
        }
        State before = state;
        state = State.CLOSED;
        if (before.compareTo(State.ESTABLISHED) < 0) {
            SetupFailure.Kind kind = localClose ? SetupFailure.Kind.CLOSED : SetupFailure.Kind.CONNECTION_LOST;
            failSetup(new SetupFailure(kind, null, null, MpaError.TCP_CONNECTION_LOST, null, -1, -1, failure), false);
        }
        context.fireChannelInactive();
    }
}
