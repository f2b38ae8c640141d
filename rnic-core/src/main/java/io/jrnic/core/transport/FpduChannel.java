package io.jrnic.core.transport;

import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.PlacementHandler;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.RejectedExecutionException;

/**
 * An established iWARP connection in MPA Full Operation: the {@link FpduLink} the QP engine drives
 * (RFC 5044 §4, Verbs §6.2.1.2). The channel implements the link seam itself, with no adapter in
 * between: the first MSNs come from the setup hand-off, which knows what the RTR consumed (RFC 6581
 * §9.3, {@link ConnectionInfo}), and the engine's handler reaches the framing handler unchanged, so
 * a {@link PlacementHandler} keeps direct placement into registered memory.
 *
 * <p><b>TX.</b> {@link #send} frames one ULPDU (a small header plus a slice of registered memory)
 * into one FPDU with pad, CRC and markers, and queues it as one gathering write: the payload is
 * never copied into the heap, and an FPDU is never split between writes of the transport (RFC 5044
 * §5.1 asks a sender to hand TCP whole FPDUs; siw fails CRCs otherwise). {@link #flush} hands the
 * queued FPDUs to TCP; batching several {@code send}s per {@code flush} saves system calls. When the
 * queued bytes pass the high water mark, {@code send} returns {@code false} and the TX engine should
 * pause until {@link FpduLink.Listener#onWritable()}.
 *
 * <p><b>RX.</b> Nothing is read until {@link #start}; then every verified ULPDU goes to the handler
 * (RFC 5044 §4.3). If the handler is a {@link PlacementHandler}, payload that does not arrive whole
 * is read from the socket straight into the target it names (docs/transport.md, "direct
 * placement").
 *
 * <p>It is the face of the {@link FpduFramingHandler} that the MPA setup handler installed in the
 * channel's pipeline at Full Operation (docs/transport.md, "Classes").
 *
 * <p><b>Thread safety.</b> The channel belongs to one event loop ({@link #executor()}): call
 * {@link #start}, {@link #send} and {@link #flush} on it (they throw {@link IllegalStateException}
 * elsewhere); all callbacks run on it. {@link #close()} and {@link #abort()} may be called from any
 * thread. The statistics are plain fields: read them on the event loop for exact values.
 */
public final class FpduChannel implements FpduLink {

    private final FpduFramingHandler connection;
    private final Channel ch;
    /** The channel's event loop: it was registered at Full Operation, and it never moves. */
    private final EventLoop loop;
    /** See {@link #gracefulReceiveOverflow(boolean)}; read by the engine when it is built. */
    private volatile boolean gracefulReceiveOverflow;

    FpduChannel(FpduFramingHandler connection) {
        this.connection = connection;
        this.ch = connection.nettyChannel();
        this.loop = ch.eventLoop();
    }

    /** The hand-off to the QP engine: negotiated parameters, RTR-consumed MSNs, MULPDU, private data. */
    public ConnectionInfo info() {
        return connection.info();
    }

    /** The largest ULPDU {@link #send} accepts (RFC 5044 §4.5: from the EMSS and our markers). */
    @Override
    public int mulpdu() {
        return connection.info().mulpdu();
    }

    /** The event loop that owns this channel: run QP work for this connection here. */
    @Override
    public Executor executor() {
        return loop;
    }

    /** {@link ConnectionInfo#nextOutboundSendMsn()}: 2 after we sent a Send RTR (RFC 6581 §9.3). */
    @Override
    public int firstOutboundSendMsn() {
        return connection.info().nextOutboundSendMsn();
    }

    /** {@link ConnectionInfo#nextOutboundReadRequestMsn()}: 2 after we sent a Read RTR (RFC 6581 §9.3). */
    @Override
    public int firstOutboundReadRequestMsn() {
        return connection.info().nextOutboundReadRequestMsn();
    }

    /** {@link ConnectionInfo#nextInboundSendMsn()}: 2 after the peer's Send RTR (RFC 6581 §9.3). */
    @Override
    public int firstInboundSendMsn() {
        return connection.info().nextInboundSendMsn();
    }

    /** {@link ConnectionInfo#nextInboundReadRequestMsn()}: 2 after the peer's Read RTR (RFC 6581 §9.3). */
    @Override
    public int firstInboundReadRequestMsn() {
        return connection.info().nextInboundReadRequestMsn();
    }

    /**
     * Chooses what a Send that finds no receive WQE does on this connection (Verbs §13.2,
     * V-WRP-65): pause reading ({@link #pauseReceive()}) until one is posted, or terminate the
     * stream with 1/2/0x02 (RFC 5040 §5.3), the default. It is a setting of the connection (the
     * Verbs consumer's {@code ConnectionSettings}), not negotiated on the wire; set it before the
     * engine is built on the channel, which reads it once. Any thread.
     *
     * @param graceful true to pause, false to terminate
     */
    public void gracefulReceiveOverflow(boolean graceful) {
        this.gracefulReceiveOverflow = graceful;
    }

    @Override
    public boolean gracefulReceiveOverflow() {
        return gracefulReceiveOverflow;
    }

    /**
     * Bounds how long data this connection handed to TCP may stay unacknowledged before the kernel
     * drops the connection (TCP_USER_TIMEOUT), which then closes as
     * {@link FpduLink.Closure#CONNECTION_LOST}. The connection manager sets it to the connection's
     * progress timeout (docs/transport.md, "Socket kinds"): the engine's timeout only watches work
     * requests still outstanding, this one also the bytes TCP took for work requests already
     * completed. Only the epoll socket kind has the option; elsewhere this does nothing.
     *
     * @param timeout the timeout; zero for the kernel's default
     * @return whether the socket took it (false on NIO, or for zero)
     * @throws IllegalArgumentException if timeout is null or negative
     */
    public boolean tcpUserTimeout(java.time.Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive: " + timeout);
        }
        return connection.kind().tcpUserTimeout(ch, timeout);
    }

    /**
     * The socket's TCP_USER_TIMEOUT ({@link #tcpUserTimeout(java.time.Duration)}).
     *
     * @return the timeout; zero for the kernel's default, and always on NIO
     */
    public java.time.Duration tcpUserTimeout() {
        return connection.kind().tcpUserTimeout(ch);
    }

    /**
     * The socket implementation of this connection (NIO or EPOLL; an adopted socket is always NIO).
     *
     * @return NIO or EPOLL
     */
    public io.jrnic.api.IoTransport ioTransport() {
        return connection.kind().ioTransport();
    }

    /** Whether the caller runs on {@link #executor()}. */
    public boolean inEventLoop() {
        return loop.inEventLoop();
    }

    /**
     * Starts receiving: bytes already read past the startup frame are delivered first, then reading
     * is enabled. Call once, on the event loop. If the connection closed before, the listener is told
     * at once.
     *
     * @param handler  receives verified ULPDUs and the first stream fault (a
     *                 {@link PlacementHandler} enables direct placement)
     * @param listener receives writability, send completions and the closure
     * @throws IllegalArgumentException if an argument is null
     * @throws IllegalStateException    off the event loop, or if already started
     */
    @Override
    public void start(FpduHandler handler, Listener listener) {
        if (handler == null || listener == null) {
            throw new IllegalArgumentException("handler and listener must not be null");
        }
        checkEventLoop();
        connection.start(handler, listener);
    }

    /**
     * Queues one FPDU carrying {@code header} followed by {@code payload} (not flushed).
     *
     * @param header        the DDP/RDMAP header bytes (copied into the FPDU's own small buffer)
     * @param headerOffset  offset of the header
     * @param headerLength  header length
     * @param payload       registered memory (native, or heap backed by a {@code byte[]}); may be
     *                      {@code null} when payloadLength is 0; must stay valid until the FPDU has
     *                      been written (see {@link FpduLink.Listener#onSent})
     * @param payloadOffset offset of the payload slice
     * @param payloadLength payload length
     * @return whether the channel is still writable; {@code false} also when it is closed or closing
     *         (nothing is queued then; {@link FpduLink.Listener#onClosed} reports why)
     * @throws IllegalArgumentException if header plus payload exceed {@link #mulpdu()}
     * @throws IllegalStateException    off the event loop, or when the payload memory is no longer
     *                                  accessible (a closed arena): the FPDU may then be partly
     *                                  framed, so the connection is reset (RST, Verbs §6.4 #1) before
     *                                  the exception is rethrown
     */
    @Override
    public boolean send(MemorySegment header, long headerOffset, int headerLength,
                        MemorySegment payload, long payloadOffset, int payloadLength) {
        checkEventLoop();
        return connection.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, -1);
    }

    /**
     * Like {@link #send(MemorySegment, long, int, MemorySegment, long, int)}, and reports
     * {@link FpduLink.Listener#onSent(long)} with the token once TCP has taken the whole FPDU (no
     * extra allocation; an FPDU dropped by an abort or a failure reports nothing).
     *
     * @param token a non-negative value identifying the FPDU to the caller
     * @throws IllegalArgumentException if token is negative or the ULPDU exceeds {@link #mulpdu()}
     */
    @Override
    public boolean send(MemorySegment header, long headerOffset, int headerLength,
                        MemorySegment payload, long payloadOffset, int payloadLength, long token) {
        if (token < 0) {
            throw new IllegalArgumentException("token must be non-negative: " + token);
        }
        checkEventLoop();
        return connection.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
    }

    /**
     * Hands the queued FPDUs to TCP. A client/server Responder defers this until the Initiator's
     * first FPDU has arrived (RFC 5044 §7.1.2 rule 4).
     *
     * @throws IllegalStateException off the event loop
     */
    @Override
    public void flush() {
        checkEventLoop();
        connection.flush();
    }

    /**
     * Hands the queued FPDUs to TCP once they make {@code FpduFramingHandler.FLUSH_BATCH} bytes;
     * fewer wait for the next flush (docs/transport.md, "Packing and small payloads").
     *
     * @throws IllegalStateException off the event loop
     */
    @Override
    public void flushMoreFollows() {
        checkEventLoop();
        connection.flushMoreFollows();
    }

    /**
     * Stops reading from the socket (graceful receive overflow, Verbs §13.2, V-WRP-66): netty's
     * autoRead goes off, and while paused TCP flow control holds the peer back and no byte is lost.
     *
     * @throws IllegalStateException off the event loop
     */
    @Override
    public void pauseReceive() {
        checkEventLoop();
        connection.receivePaused(true);
    }

    /**
     * Undoes {@link #pauseReceive()}: reading goes on where it stopped.
     *
     * @throws IllegalStateException off the event loop
     */
    @Override
    public void resumeReceive() {
        checkEventLoop();
        connection.receivePaused(false);
    }

    /** Whether queued bytes are below the high water mark (see {@link TransportConfig}). */
    public boolean isWritable() {
        return ch.isWritable();
    }

    /** Whether the connection is open and not closing. */
    public boolean isOpen() {
        return ch.isOpen() && connection.isOpen();
    }

    /**
     * Initiator with a Read RTR: whether the peer's zero-length Read Response is still outstanding
     * (it holds one ORD slot; the transport absorbs it on arrival).
     */
    public boolean readRtrOutstanding() {
        return connection.readRtrPending();
    }

    /**
     * Graceful close: FPDUs queued so far are written, then FIN ({@link FpduLink.Closure#LOCAL_CLOSE}).
     * Any thread; idempotent.
     */
    @Override
    public void close() {
        onLoop(connection::close);
    }

    /** Abortive close: RST through SO_LINGER 0, queued FPDUs dropped ({@link FpduLink.Closure#LOCAL_ABORT}). Any thread. */
    @Override
    public void abort() {
        onLoop(connection::abort);
    }

    private void onLoop(Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            // The transport has shut down: the connection is closed already.
        }
    }

    /** Bytes received from the socket in Full Operation (including those read before {@link #start}). */
    public long bytesReceived() {
        return connection.bytesReceived;
    }

    /**
     * Bytes the socket read straight into placement targets (no copy by the transport). The other
     * {@code bytesReceived() - bytesPlacedDirect()} bytes went through the staging buffer.
     */
    @Override
    public long bytesPlacedDirect() {
        return connection.bytesPlacedDirect;
    }

    /** On the channel's event loop, at a fixed rate (one netty task, re-queued, for the whole run). */
    @Override
    public Future<?> schedulePeriodic(Runnable task, long periodNanos) {
        return loop.scheduleAtFixedRate(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /** FPDUs of Full Operation whose last byte the socket accepted (the engine's outbound progress). */
    @Override
    public long fpdusWritten() {
        return connection.fpdusWritten;
    }

    /** FPDUs sent, including the RTR and the setup control FPDUs. */
    public long fpdusSent() {
        return connection.fpdusSent;
    }

    /** Verified FPDUs received, including an absorbed RTR or Read Response. */
    public long fpdusReceived() {
        return connection.fpdusReceived;
    }

    /** The netty channel (tests). */
    Channel nettyChannel() {
        return ch;
    }

    /** The TCP segment size of the framing handler's segment rule, 0 when unknown (tests; event loop). */
    int segmentSize() {
        return connection.segmentSize();
    }

    /** See {@link FpduFramingHandler#directWriter()} (tests; event loop only). */
    DirectWriter directWriter() {
        return connection.directWriter();
    }

    /** Read-readiness events of the socket so far (netty read loops; tests). */
    long readEvents() {
        return connection.readEvents();
    }

    private void checkEventLoop() {
        if (!loop.inEventLoop()) {
            throw new IllegalStateException("FpduChannel used off its event loop: " + Thread.currentThread().getName());
        }
    }

    @Override
    public String toString() {
        return "FpduChannel[" + ch.localAddress() + " -> " + ch.remoteAddress() + ", " + info().role() + "]";
    }
}
