package io.jrnic.core.transport;

import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.Fpdu;
import io.jrnic.mpa.FpduDeframer;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.FpduWriter;
import io.jrnic.mpa.MpaParameters;
import io.jrnic.mpa.PlacementHandler;
import io.jrnic.mpa.PlacementTarget;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
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
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One connection in MPA Full Operation (RFC 5044 §4-§6), installed by {@link MpaSetupHandler} in its
 * own place when setup completes: TX framing of ULPDUs into FPDUs without payload copies
 * ({@link TxFpdu}, {@link FpduWriter}), RX deframing with direct placement into registered memory
 * ({@link PlacementRecvAllocator}, {@link RxWindow}), backpressure, the client/server Responder's
 * TX gate, graceful and abortive close with its timeout, and the classification of the closure.
 * {@link FpduChannel}, the link seam the QP engine drives, sits directly on it.
 *
 * <pre>
 *  ESTABLISHED ──start──> RUNNING ──> CLOSED
 *       └───────────(closed before start)──> CLOSED
 * </pre>
 *
 * <p>Everything it needs from setup arrives in one {@link FullOperation} (the negotiated parameters,
 * the writer and the receive stream position, the bytes read past the startup frame or the RTR)
 * plus the {@link ConnectionContext}; it knows nothing of the setup handler.
 *
 * <p>Reads: before {@link FpduChannel#start} reading is off, and bytes that still arrive from a read
 * loop that was running wait in {@code pending} with those handed over, the Verbs "stream message
 * buffer" (V-VERB-ModifyQP-4), which is fed to the deframer first.
 *
 * <p>Thread safety: confined to the channel's event loop; {@link FpduChannel} hops onto it.
 */
final class FpduFramingHandler extends ChannelDuplexHandler implements PlacementRecvAllocator.ReadSource {

    private static final Logger LOG = LoggerFactory.getLogger(FpduFramingHandler.class);

    /** Initial size of the TX scratch area; grown when an FPDU needs more (many markers, a big header). */
    private static final int INITIAL_SCRATCH = 1024;

    /** States (see the class comment). */
    enum State { ESTABLISHED, RUNNING, CLOSED }

    /**
     * What setup hands to Full Operation.
     *
     * @param info           the negotiated connection (parameters, RTR, MULPDU, private data)
     * @param writer         frames our FPDUs; it already counted the control FPDUs of setup (marker position)
     * @param rxPosition     stream position of the next byte to deframe: after the RTR, else 0
     * @param pending        bytes read past the startup frame or the RTR, or null; ownership passes
     * @param txOpen         whether we may send now (false: a client/server Responder before the
     *                       Initiator's first FPDU, RFC 5044 §7.1.2 rule 4)
     * @param readRtrPending Initiator after a Read RTR: the peer's zero-length Read Response is still
     *                       to be absorbed
     * @param fpdusSent      control FPDUs setup sent (the RTR or its Read Response)
     * @param fpdusReceived  FPDUs setup received (the RTR)
     * @param segmentSize    the socket's TCP segment size (its send MSS), 0 when unknown
     *                       ({@link SocketMss#segmentSize}; see {@link #segmentFirst})
     */
    record FullOperation(ConnectionInfo info, FpduWriter writer, int rxPosition, ByteBuf pending, boolean txOpen,
                         boolean readRtrPending, long fpdusSent, long fpdusReceived, int segmentSize) {
    }

    private final ConnectionContext cx;
    private final TransportConfig config;
    private final Channel ch;
    /** Writes messages to the socket without netty's outbound buffer (epoll; null: netty writes). */
    private final DirectWriter direct;
    private final ConnectionInfo info;
    private final FpduWriter writer;
    private final FpduDeframer deframer;
    private final FpduChannel channel;
    private ChannelHandlerContext ctx;
    private State state = State.ESTABLISHED;
    private ScheduledFuture<?> timer;
    private ByteBuf pending;

    // Receive
    private FpduHandler rx;
    private PlacementHandler rxPlacement;
    private FpduLink.Listener listener;
    /**
     * FPDUs that may still arrive before staging reads return to full size: a large FPDU (ULPDU at
     * least {@link TransportConfig#directPlacementThreshold}) sets it to {@link #LARGE_FPDU_MEMORY},
     * each smaller one counts it down (direct placement policy, {@link #cutStagingRead}).
     */
    private int largeFpduMemory;
    /** Whether the last FPDU received was large (direct placement policy, {@link #tailAfterLarge}). */
    private boolean lastLarge;
    /**
     * Wire bytes of the small FPDU that followed the last large one, or 0 when a large one did: how
     * much more than a header a cut staging read takes ({@link #cutReadLength}).
     */
    private int tailAfterLarge;
    /** The buffer of the current direct read ({@link #rxWindow}), null while staging. */
    private ByteBuf directRead;
    /** Reused for every direct read: a window of the placement target (no slice object per read). */
    private final RxWindow rxWindow = new RxWindow();
    /** Initiator after a Read RTR: the peer's zero-length Read Response is still to be absorbed. */
    private boolean readRtrPending;
    private final RtrCodec rtrCodec = new RtrCodec();
    private boolean txOpen;
    private boolean flushDeferred;

    // TX without payload copies
    private MemorySegment scratch = Arena.ofAuto().allocate(INITIAL_SCRATCH);
    private MemorySegment[] pieceSegments = new MemorySegment[8];
    private long[] pieceOffsets = new long[8];
    private int[] pieceLengths = new int[8];
    private int pieceCount;
    private final FpduWriter.GatherSink sink = this::piece;
    /** The message an FPDU is framed straight into ({@link #frameInPlace}), null otherwise. */
    private TxFpdu inPlace;
    private final FpduWriter.GatherSink inPlaceSink = (segment, offset, length) -> inPlace.gathered(segment, offset, length);
    /** Frames data FPDUs in gathering mode, CRC off; shares the marker position with {@link #writer}. */
    private FpduWriter gatherWriter;
    private final java.util.zip.CRC32C txCrc = new java.util.zip.CRC32C();
    private final TxFpdu.Pool txPool;
    /** FPDUs framed since the last flush, packed into one message not yet handed to netty, or null. */
    private TxFpdu open;
    /** A message reaching this many bytes goes to netty before the flush (large FPDUs: at once). */
    private static final int OPEN_MESSAGE_LIMIT = 16 * 1024;
    /**
     * Bytes framed since the last flush that {@link #flushMoreFollows} hands to TCP; fewer wait for
     * the engine's next run. Runs of large FPDUs pass it in one run and flush as before; runs of
     * small ones leave together, in one write instead of one per run (issue 11).
     */
    static final int FLUSH_BATCH = 16 * 1024;
    /** ULPDU bytes framed since the last flush. */
    private int unflushed;
    /** Wire bytes (whole FPDUs) framed since the last flush: {@link #segmentFirst}. */
    private int unflushedWire;
    /** The socket's TCP segment size, 0 when unknown (the segment rule is off): {@link #segmentFirst}. */
    private int segmentSize;
    /** Reads {@link #segmentSize} again every {@link #SEGMENT_SIZE_REFRESH} flushes; null when unknown. */
    private final SocketMss.SendMss sendMss;
    private int flushesSinceSegmentSize;
    /**
     * True while {@link #send} flushes ({@link #flushWithinSend}): the FPDUs of a full segment ahead
     * of the one it frames, or a direct writer's queue at the high water mark. The
     * listener's callbacks that write would fire ({@code onSent}, {@code onWritable}) wait for the
     * next {@link #flush}, because the caller is in the middle of its own send and a callback that
     * sends again would put its FPDUs before the one being framed.
     */
    private boolean segmentFlushing;
    /** The last token TCP took during a segment flush, not yet reported (negative: none). */
    private long deferredToken = -1;
    /** The channel became writable during a segment flush, not yet reported. */
    private boolean writableDeferred;
    /**
     * Flushes between two reads of the socket's send MSS: it grows from half the peer's first window
     * (32,741 bytes on a fresh loopback connection) to the MSS (65,483) as the window opens, and a
     * read is a system call.
     */
    static final int SEGMENT_SIZE_REFRESH = 256;
    /**
     * Whether the socket reads through the JDK, which holds a segment's session during the read
     * (NIO); epoll reads into bare addresses, so only {@link NativeViews#stable} targets are read
     * into directly there (docs/transport.md, "Socket kinds").
     */
    private final boolean sessionChecked;

    // Close
    private FpduLink.Closure localClosure;
    private boolean remoteFin;
    private boolean remoteFinMidFpdu;
    /** The peer's FIN arrived before {@link #start} (epoll reads up to it): taken up there. */
    private boolean finBeforeStart;
    private Throwable failure;
    private FpduLink.Closure closure;
    private boolean closureReported;

    // Statistics (event loop only; read through FpduChannel)
    long bytesReceived;
    long bytesPlacedDirect;
    long fpdusSent;
    /** FPDUs of Full Operation that TCP took whole ({@link FpduChannel#fpdusWritten()}). */
    long fpdusWritten;
    long fpdusReceived;

    /**
     * @param cx      the connection's shared context
     * @param ch      the channel (this handler may be created before it is added to the pipeline)
     * @param handoff the state setup negotiated
     */
    FpduFramingHandler(ConnectionContext cx, Channel ch, FullOperation handoff) {
        this.cx = cx;
        this.config = cx.config;
        this.ch = ch;
        this.info = handoff.info();
        this.writer = handoff.writer();
        MpaParameters params = info.parameters();
        this.deframer = new FpduDeframer(params.markersOnReceive(), params.crc(), FpduDeframer.DEFAULT_MIN_ULPDU_LENGTH,
                Fpdu.MAX_ULPDU_LENGTH, handoff.rxPosition(), new Dispatch());
        this.pending = handoff.pending();
        this.txOpen = handoff.txOpen();
        this.readRtrPending = handoff.readRtrPending();
        this.fpdusSent = handoff.fpdusSent();
        this.fpdusReceived = handoff.fpdusReceived();
        this.segmentSize = handoff.segmentSize();
        this.sendMss = config.segmentRule() ? SocketMss.SendMss.of(ch) : null;
        this.channel = new FpduChannel(this);
        SocketKind kind = cx.transport.kind();
        this.sessionChecked = kind.sessionChecked();
        this.txPool = new TxFpdu.Pool(this::fpduSent, kind, this::socketWriting);
        // a capture handler between this one and the socket must see every write
        this.direct = ch.pipeline().get(CaptureHandler.class) == null ? DirectWriter.of(ch, kind) : null;
    }

    /** Whether the socket still takes writes: open, output not shut down (TxFpdu on epoll). */
    private boolean socketWriting() {
        return ch.isOpen() && !(ch instanceof SocketChannel socket && socket.isOutputShutdown());
    }

    /** The link seam on this handler. */
    FpduChannel channel() {
        return channel;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        ctx = context;
    }

    // ------------------------------------------------------------------ receive

    @Override
    public int nextReadSize() {
        int window = state == State.RUNNING ? deframer.directWindow() : 0;
        if (window > 0) {
            return window;
        }
        return cutStagingRead() ? cutReadLength() : config.stagingBufferSize();
    }

    /**
     * Bytes of a cut staging read: a header; and within an FPDU (the CRC of a large one whose
     * payload was read into its target), also the small FPDU that followed the last large one when
     * one did. A message whose length is not a multiple of the FPDU room ends in such a FPDU (a 64
     * KiB Write in the largest loopback FPDUs: 64,754 payload bytes, then 782), so the read after a
     * large payload takes its CRC, the whole small FPDU and the next header in one system call,
     * where reads cut to a header took three (header, small payload, header) and, with nothing more
     * to come, a fourth that found the socket empty (issue 11; docs/benchmarks.md). At an FPDU
     * boundary the next bytes are a header, of a large FPDU as likely as not: the read stays cut
     * there, so that no more than a header's worth of a large payload is staged. A guess that
     * misses costs a copy of at most that many payload bytes of a following large FPDU, the rest
     * of which is still read into its target.
     */
    private int cutReadLength() {
        int length = deframer.atFpduBoundary() ? TransportConfig.HEADER_READ_LENGTH
                : TransportConfig.HEADER_READ_LENGTH + tailAfterLarge;
        return Math.min(config.stagingBufferSize(), length);
    }

    /**
     * Whether the next staging read should stop after a header: only while a placement handler runs
     * and a large FPDU came lately ({@link #LARGE_FPDU_MEMORY}), so that the payload of the next one
     * can be read into its target. Small FPDUs keep big reads: many of them arrive whole in one
     * read, and copying a few hundred bytes is cheaper than a system call per FPDU.
     */
    private boolean cutStagingRead() {
        return state == State.RUNNING && rxPlacement != null && largeFpduMemory > 0;
    }

    /**
     * How many small FPDUs after a large one still keep staging reads cut. More than one: a large
     * message whose length is not a multiple of the FPDU room ends in a small FPDU (a 64 KiB Write
     * in the largest FPDUs carries 64,754 bytes in one and 782 in a second), and a stream of such
     * messages alternates large and small FPDUs. Judged by the last FPDU alone, every large FPDU's
     * payload came through the staging buffer (a full-size read after the small one) and was
     * copied: 94-99% of a 64 KiB Write stream's bytes (DirectPlacementLoopbackTest). The cost when
     * traffic turns small for good: this many FPDUs read in header-sized reads.
     */
    static final int LARGE_FPDU_MEMORY = 4;

    private boolean large(int ulpduLength) {
        int threshold = config.directPlacementThreshold();
        return threshold > 0 && ulpduLength >= threshold;
    }

    /** Direct placement policy: one received FPDU of this ULPDU length. */
    private void received(int ulpduLength) {
        boolean isLarge = large(ulpduLength);
        if (lastLarge) {
            tailAfterLarge = isLarge ? 0 : wireLength(ulpduLength);
        }
        lastLarge = isLarge;
        if (isLarge) {
            largeFpduMemory = LARGE_FPDU_MEMORY;
        } else if (largeFpduMemory > 0) {
            largeFpduMemory--;
        }
    }

    /** An FPDU's bytes on the wire with its ULPDU of this length (with markers: at most, RFC 5044 §4.3). */
    private int wireLength(int ulpduLength) {
        return Fpdu.maxWireLength(ulpduLength, deframer.markers());
    }

    @Override
    public ByteBuf nextReadBuffer() {
        if (state == State.RUNNING) {
            deframer.endDirect(); // a direct read that brought nothing (netty released it unread)
            int window = deframer.directWindow();
            // R-SEC-016: the target's guard is held for this one read only (placed() or endDirect())
            if (window > 0 && (sessionChecked || NativeViews.stable(deframer.directTarget()))
                    && deframer.beginDirect()) {
                MemorySegment target = deframer.directTarget();
                long offset = deframer.directTargetOffset();
                directRead = rxWindow.open(target, offset, window);
                return directRead;
            }
        }
        directRead = null;
        // Reused for every read: channelRead consumes it synchronously and releases the extra reference.
        ReadStaging staging = cx.staging(ch);
        return cutStagingRead() ? staging.cut(cutReadLength()) : staging.whole.retain().clear();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            int n = buf.readableBytes();
            if (n == 0) {
                if (buf == directRead) {
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
            ReadStaging staging = cx.staging(ch);
            if (!staging.holds(buf)) {
                throw new IllegalStateException("read into a buffer this connection did not provide");
            }
            onBytes(staging.memory, buf.readerIndex(), n);
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
            case RUNNING -> {
                bytesReceived += len;
                deframer.consume(seg, off, len);
            }
            case CLOSED -> {
                // A closing connection discards what still arrives.
            }
            // ESTABLISHED: reading was switched off during setup, but netty may finish its current
            // read loop first. Keep the bytes for start() (V-QPS-15: nothing may be lost).
            default -> keepPending(seg, off, len);
        }
    }

    private void keepPending(MemorySegment seg, long off, int len) {
        if (pending == null) {
            pending = Unpooled.buffer(len);
        }
        pending.ensureWritable(len);
        MemorySegment.copy(seg, off, MemorySegment.ofArray(pending.array()),
                pending.arrayOffset() + pending.writerIndex(), len);
        pending.writerIndex(pending.writerIndex() + len);
    }

    /** {@link FpduChannel#start}, on the event loop. */
    void start(FpduHandler handler, FpduLink.Listener events) {
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
            if (finBeforeStart) {
                onRemoteFin();     // after the bytes that preceded it (see userEventTriggered)
                return;
            }
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

    /** Routes deframed ULPDUs to the ULP's handler, absorbing the answer to our Read RTR. */
    private final class Dispatch implements PlacementHandler {
        @Override
        public int prefixLength(int firstByte, int ulpduLength) {
            return rxPlacement == null ? 0 : rxPlacement.prefixLength(firstByte, ulpduLength);
        }

        @Override
        public boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength,
                                       PlacementTarget target) {
            boolean placed = rxPlacement != null
                    && rxPlacement.placementTarget(prefix, offset, prefixLength, ulpduLength, target);
            if (placed && large(ulpduLength)) {
                // Predict from the header already: the read of this FPDU's tail (pad, CRC) is cut too.
                largeFpduMemory = LARGE_FPDU_MEMORY;
            }
            return placed;
        }

        @Override
        public void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength) {
            fpdusReceived++;
            received(ulpduLength);
            openTx();
            rxPlacement.onPlaced(prefix, offset, prefixLength, ulpduLength);
        }

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            fpdusReceived++;
            received(length);
            if (readRtrPending && rtrCodec.isZeroLengthReadResponse(segment, offset, length)) {
                readRtrPending = false;      // the answer to our Read RTR: absorbed, frees the ORD slot
                return;
            }
            openTx();
            rx.onUlpdu(segment, offset, length);
        }

        @Override
        public void onError(DeframeFault fault) {
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
                writeOpen();
                flushWrites();
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
        if (state == State.CLOSED || localClosure != null) {
            return false;
        }
        int wire = writer.wireLength(headerLength + payloadLength);
        if (segmentFirst(wire)) {
            flushWithinSend();
        }
        try {
            boolean writable = frame(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
            unflushedWire += wire;
            if (direct != null && direct.queuedBytes() >= config.writeHighWaterMark()) {
                // What netty's outbound buffer would count against its high water mark waits in the
                // direct writer's queue, where it turns no channel unwritable: it goes to TCP now, and
                // what TCP does not take goes to netty, which counts it (issue 11).
                flushWithinSend();
                writable = ch.isWritable();
            }
            return writable;
        } catch (RuntimeException e) {
            // The framing state (marker position) may already count this FPDU, or part of it was
            // queued: nothing can follow it on this stream (Verbs §6.4 #1, V-TERM-4).
            failure = e;
            reset();
            throw e;
        }
    }

    /**
     * A flush from inside {@link #send}: the callbacks it would make ({@code onSent},
     * {@code onWritable}) wait for the caller's next flush ({@link #segmentFlushing}).
     */
    private void flushWithinSend() {
        segmentFlushing = true;
        try {
            flush();
        } finally {
            segmentFlushing = false;
        }
    }

    private boolean frame(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                          long payloadOffset, int payloadLength, long token) {
        // Reusable messages of whole FPDUs (docs/transport.md, TX): the writer's own octets (length,
        // header copy, markers, pad, CRC; a few dozen bytes) go into the message's own native area,
        // large payload pieces are reusable views of the registered memory, in wire order. netty
        // cuts gathering writes only between messages, so never inside an FPDU. Nothing is allocated
        // once the pool has warmed up; the last token is reported when the message comes back fully
        // written. Small FPDUs framed back to back share one message (until the next flush): one
        // netty outbound entry and one buffer for many FPDUs. More entries per flush than netty's
        // per-thread recycling batch would make its pool allocate.
        TxFpdu fpdu;
        if (payloadLength <= TxFpdu.SMALL_PAYLOAD_COPY_LIMIT) {
            fpdu = frameContiguous(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
        } else if (!writer.markers() && !txPool.copiedPiece(payload, payloadLength)) {
            fpdu = frameInPlace(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
        } else {
            fpdu = frameGathered(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
        }
        open = fpdu;
        fpdusSent++;
        unflushed += headerLength + payloadLength;
        if (fpdu.length() >= OPEN_MESSAGE_LIMIT) {
            writeOpen();   // a large FPDU (a payload view): to netty at once, as before packing
        }
        return ch.isWritable();
    }

    /**
     * A small FPDU (its payload is copied anyway, {@link TxFpdu#SMALL_PAYLOAD_COPY_LIMIT}): framed
     * whole, in one pass, straight into the message's own area -- no scratch, no pieces, each
     * octet written once.
     */
    private TxFpdu frameContiguous(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                                   long payloadOffset, int payloadLength, long token) {
        FpduWriter data = dataWriter();
        int wire = data.wireLength(headerLength + payloadLength);
        TxFpdu fpdu = messageWithRoom(wire);
        try {
            data.write(header, headerOffset, headerLength, payload, payloadOffset, payloadLength,
                    fpdu.ownRoom(wire), fpdu.ownUsed());
        } catch (RuntimeException e) {
            if (fpdu != open) {
                fpdu.discard(); // taken for this FPDU alone: back to the pool (send() resets the stream)
            }
            throw e;
        }
        writer.position(data.position());
        return fpdu.appendOwn(wire, writer.crcEnabled() ? txCrc : null, token);
    }

    /**
     * An FPDU whose payload stays one view, without markers (the common large FPDU): the gathering
     * writer puts its octets (length, header copy, pad, CRC field) straight into the message's own
     * area and the pieces go straight to the message, with no scratch area, piece list or second
     * copy of those octets ({@link #frameGathered} does all three).
     */
    private TxFpdu frameInPlace(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                                long payloadOffset, int payloadLength, long token) {
        FpduWriter data = dataWriter();
        int ownBytes = data.scratchLength(headerLength, payloadLength);
        TxFpdu fpdu = messageWithRoom(ownBytes);
        MemorySegment room = fpdu.ownRoom(ownBytes);
        int fpduStart = fpdu.length();
        inPlace = fpdu;
        try {
            data.gather(header, headerOffset, headerLength, payload, payloadOffset, payloadLength,
                    room, fpdu.ownUsed(), inPlaceSink);
        } catch (RuntimeException e) {
            if (fpdu != open) {
                fpdu.discard(); // taken for this FPDU alone: back to the pool (send() resets the stream)
            }
            throw e;
        } finally {
            inPlace = null;
        }
        writer.position(data.position());
        return fpdu.endGathered(fpduStart, ownBytes, writer.crcEnabled() ? txCrc : null, token);
    }

    /** An FPDU whose payload stays a view of the registered memory: gathered into pieces. */
    private TxFpdu frameGathered(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                                 long payloadOffset, int payloadLength, long token) {
        int need = writer.scratchLength(headerLength, payloadLength);
        if (need > scratch.byteSize()) {
            scratch = Arena.ofAuto().allocate(Math.max(need, 2 * scratch.byteSize()));
        }
        pieceCount = 0;
        FpduWriter data = dataWriter();
        int used = data.gather(header, headerOffset, headerLength, payload, payloadOffset, payloadLength,
                scratch, 0, sink);
        writer.position(data.position());
        int ownBytes = txPool.ownBytes(scratch, pieceSegments, pieceLengths, pieceCount);
        return messageWithRoom(ownBytes).append(scratch, used, pieceSegments, pieceOffsets, pieceLengths, pieceCount,
                ownBytes, writer.crcEnabled() ? txCrc : null, token);
    }

    /**
     * The writer of data FPDUs, at the stream position of {@link #writer}. It computes no CRC (its
     * Crc32c caches one segment view and would allocate a new one at every switch between segments);
     * {@code TxFpdu.writeCrc} does it over the message's own views.
     */
    private FpduWriter dataWriter() {
        if (gatherWriter == null) {
            gatherWriter = new FpduWriter(writer.markers(), false, writer.position());
        } else {
            gatherWriter.position(writer.position());
        }
        return gatherWriter;
    }

    /** The message being packed if an FPDU of {@code ownBytes} own octets fits behind its FPDUs, else a new one. */
    private TxFpdu messageWithRoom(int ownBytes) {
        TxFpdu fpdu = open;
        if (fpdu != null && !fpdu.fits(ownBytes)) {
            writeOpen();
            fpdu = null;
        }
        return fpdu != null ? fpdu : txPool.take();
    }

    /** Hands the message being packed to netty (written at the next flush). */
    private void writeOpen() {
        TxFpdu fpdu = open;
        if (fpdu != null) {
            open = null;
            if (direct != null) {
                direct.add(fpdu.finish());
            } else {
                ctx.write(fpdu.finish(), ctx.voidPromise());
            }
        }
    }

    /** Writes what was framed: directly ({@link DirectWriter}) or through netty. */
    private void flushWrites() {
        if (direct != null) {
            direct.flush(ctx);
        } else {
            ctx.flush();
        }
    }

    /** Hands everything framed to netty, unflushed: before the paths that end the stream through netty (FIN). */
    private void handOver() {
        writeOpen();
        if (direct != null) {
            direct.handOver(ctx);
        }
    }

    /** Drops the message being packed and the direct writer's queue: the stream is reset, nothing more goes out. */
    private void discardOpen() {
        TxFpdu fpdu = open;
        if (fpdu != null) {
            open = null;
            fpdu.discard();
        }
        if (direct != null) {
            direct.discard();
        }
    }

    /**
     * A fully written FPDU came back from netty (RFC 5040 §5: handed to the LLP): counted for the
     * engine's progress timeout, and its token, if it has one, reported.
     */
    private void fpduSent(long token, int fpdus) {
        fpdusWritten += fpdus;
        if (token >= 0 && segmentFlushing) {
            deferredToken = token;     // cumulative: the last one reports them all
            return;
        }
        if (token >= 0 && listener != null) {
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

    /** The segment rule's TCP segment size now, 0 when unknown (tests). */
    int segmentSize() {
        return segmentSize;
    }

    /** The writer that bypasses netty's outbound buffer, null where netty writes (tests). */
    DirectWriter directWriter() {
        return direct;
    }

    /** TX message pool statistics (tests). */
    int txObjectsCreated() {
        return txPool.created();
    }

    /** See {@link FpduLink#flushMoreFollows()}. */
    void flushMoreFollows() {
        if (unflushed >= FLUSH_BATCH) {
            flush();
        }
    }

    /**
     * The segment rule (issue 11): whether the FPDUs framed since the last flush go to TCP before an
     * FPDU of {@code wire} bytes joins them. They do when they fill at least half a TCP segment but
     * not a whole one, and this FPDU would carry them past the segment's end. A socket write that
     * runs a little past a segment leaves as a full segment and a small one: loopback TCP moved
     * writes of 65,576 bytes at a third of the rate of writes of at most its 65,483-byte MSS
     * ({@code tcp-write-probe}, docs/benchmarks.md). A post list of 16 4 KiB Writes was one
     * 65,856-byte write; now it is 15 FPDUs in one segment and the 16th in the next write. Beyond
     * one segment, batching wins: the kernel cuts full segments from a large write and leaves one
     * small one at its end, and the event-loop mode's large flushes of many messages stay as they
     * are. Below half a segment, a write of its own would be the small segment itself. Nor when the
     * write would end exactly at a segment: FPDUs of one whole segment each (EMSS = the send MSS, as
     * on Ethernet) go out together in whole segments, not one write each. All of this
     * holds where TCP paces its own segments (BBR without the fq qdisc: the small segment waits for
     * a pacing timer); under CUBIC the same workloads ran 6-10% faster without the rule, so it is on
     * only when {@link TransportConfig#segmentRule()} says so ({@link TcpCongestion}).
     */
    private boolean segmentFirst(int wire) {
        int pending = unflushedWire;
        return segmentSize > 0 && pending >= segmentSize / 2 && pending <= segmentSize
                && pending + wire > segmentSize && (pending + wire) % segmentSize != 0;
    }

    void flush() {
        if (!segmentFlushing) {
            reportDeferred();
        }
        unflushed = 0;
        unflushedWire = 0;
        if (sendMss != null && ++flushesSinceSegmentSize >= SEGMENT_SIZE_REFRESH) {
            flushesSinceSegmentSize = 0;
            segmentSize = sendMss.read();
        }
        writeOpen();
        if (!txOpen) {
            flushDeferred = true;      // client/server Responder before the Initiator's first FPDU
            return;
        }
        flushWrites();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (segmentFlushing) {
            writableDeferred = true;   // reported by the next flush (see segmentFlushing)
        } else {
            reportWritable();
        }
        context.fireChannelWritabilityChanged();
    }

    /** Tells the listener that the channel takes writes again, if it does and the stream runs. */
    private void reportWritable() {
        if (ch.isWritable() && listener != null && state == State.RUNNING) {
            try {
                listener.onWritable();
            } catch (RuntimeException e) {
                LOG.warn("onWritable threw", e);
            }
        }
    }

    /** Reports what a segment flush held back ({@link #segmentFlushing}), in the order it happened. */
    private void reportDeferred() {
        long token = deferredToken;
        if (token >= 0) {
            deferredToken = -1;
            fpduSent(token, 0);
        }
        if (writableDeferred) {
            writableDeferred = false;
            reportWritable();
        }
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
     * and reported as {@link FpduLink.Closure#CONNECTION_LOST}.
     */
    void close() {
        if (localClosure != null || state == State.CLOSED) {
            return;
        }
        localClosure = FpduLink.Closure.LOCAL_CLOSE;
        if (!txOpen) {
            ch.close();      // a client/server Responder before the first FPDU has nothing it may send
            return;
        }
        cancelTimer();
        timer = ch.eventLoop().schedule(this::onCloseTimeout, config.closeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        handOver();
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

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** RST: SO_LINGER 0, then close; pending writes are dropped. */
    private void reset() {
        discardOpen();
        if (ch.isOpen()) {
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close();
        }
    }

    /** Abortive close: RST (SO_LINGER 0), pending writes are dropped. */
    void abort() {
        if (localClosure == null) {
            localClosure = FpduLink.Closure.LOCAL_ABORT;
        }
        reset();
    }

    /** The transport is shutting down. */
    void transportClosing() {
        if (localClosure == null) {
            localClosure = FpduLink.Closure.TRANSPORT_CLOSED;
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            if (state == State.ESTABLISHED) {
                // Before start: the bytes ahead of the FIN wait in pending, unread by the deframer.
                // NIO reads nothing while autoRead is off, but netty's epoll transport reads up to
                // the FIN when the peer half-closes (EPOLLRDHUP) whatever autoRead says: the FIN
                // is taken up at start(), after those bytes (V-QPS-15: nothing may be lost; RFC 5044
                // §8: a FIN inside an FPDU is told from one between FPDUs).
                finBeforeStart = true;
                return;
            }
            onRemoteFin();
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

    /** The peer's FIN (half closure is enabled so that we can tell it apart from a reset). */
    private void onRemoteFin() {
        remoteFin = true;
        remoteFinMidFpdu = !deframer.atFpduBoundary();
        if (localClosure == FpduLink.Closure.LOCAL_CLOSE) {
            ch.close();          // the answer to our own FIN: the graceful close is complete
        } else if (localClosure == null) {
            // Our queued FPDUs still go out (the peer may read after its FIN), then we close too;
            // a client/server Responder that never saw an FPDU has nothing it may send.
            if (txOpen) {
                handOver();
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            } else {
                ch.close();
            }
        }
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
        deframer.endDirect();
        context.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        discardOpen(); // never handed to netty: the stream is gone
        deframer.endDirect();
        cancelTimer();
        if (pending != null) {
            pending.release();
            pending = null;
        }
        rxWindow.forget();
        state = State.CLOSED;
        closure = classifyClosure();
        if (listener != null) {
            reportClosure();
        }
        context.fireChannelInactive();
    }

    private FpduLink.Closure classifyClosure() {
        if (localClosure == FpduLink.Closure.LOCAL_CLOSE && !remoteFin && failure != null && isReset(failure)) {
            // an RST instead of the peer's FIN: the graceful close failed (Verbs §6.2.5 Figure 11,
            // V-QPS-83; §6.2.3, V-QPS-53), it did not complete
            return FpduLink.Closure.REMOTE_RESET;
        }
        if (localClosure != null) {
            return localClosure;
        }
        if (cx.transport.isClosed()) {
            // IwarpTransport.close() closes both ends of a loopback pair; the peer's FIN or RST may
            // arrive before this end's own close task runs: it is still the transport's closure.
            return FpduLink.Closure.TRANSPORT_CLOSED;
        }
        if (failure != null) {
            return isReset(failure) ? FpduLink.Closure.REMOTE_RESET : FpduLink.Closure.CONNECTION_LOST;
        }
        if (remoteFin) {
            return remoteFinMidFpdu ? FpduLink.Closure.REMOTE_CLOSE_MID_FPDU : FpduLink.Closure.REMOTE_CLOSE;
        }
        return FpduLink.Closure.CONNECTION_LOST;
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
        reportDeferred(); // TCP took those FPDUs before the stream ended: their sends succeeded
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

    SocketKind kind() {
        return cx.transport.kind();
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

    /** Read-readiness events of the socket so far (netty read loops; tests). */
    long readEvents() {
        return cx.allocator.readEvents;
    }
}
