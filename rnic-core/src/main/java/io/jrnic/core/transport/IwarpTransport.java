package io.jrnic.core.transport;

import io.jrnic.api.IoTransport;
import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.MpaNegotiator;
import io.jrnic.mpa.MpaSettings;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.jrnic.api.IoMode;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The owner of jrnic's TCP transport: a netty event-loop group (NIO, or Linux's native epoll:
 * {@link TransportConfig#ioTransport()}, {@link #ioTransport()}), the listeners and the connections
 * made through it (RFC 5044 §7.1 connection setup, RFC 6581, Verbs §6.6).
 *
 * <pre>{@code
 * try (IwarpTransport transport = new IwarpTransport(TransportConfig.defaults())) {
 *     MpaListener listener = transport.listen(address, MpaSettings.defaults(), request ->
 *             request.accept(replyData, callback));
 *     transport.connect(listener.localAddress(), MpaSettings.defaults(), requestData, callback);
 * }
 * }</pre>
 *
 * Every connection is owned by one event loop of the group for its whole life; its callbacks run
 * there. Both ends use TCP_NODELAY (FPDUs are written whole and must not wait for Nagle).
 *
 * <p>Thread safety: thread-safe. {@link #close()} and {@link MpaListener#close()} wait and must not
 * be called on one of the transport's event loops.
 */
public final class IwarpTransport implements AutoCloseable {

    private final TransportConfig config;
    /** Where the connections' traffic is recorded, or null (no capture). */
    private final PacketCapture capture;
    /** NIO or epoll: the event loops' I/O handler and the channel classes (docs/transport.md "Socket kinds"). */
    private final SocketKind kind;
    private final MultiThreadIoEventLoopGroup group;
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();

    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
    private final Set<Thread> loopThreads = ConcurrentHashMap.newKeySet();
    /** Each event loop's receive staging, shared by its connections ({@link ReadStaging}). */
    private final Map<EventLoop, ReadStaging> staging = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * Starts the event loops.
     *
     * @throws IllegalArgumentException if config is null
     * @throws IllegalStateException    if the config asks for {@link IoTransport#EPOLL} and netty's
     *                                  native epoll transport cannot be loaded here (the message
     *                                  names the cause)
     */
    public IwarpTransport(TransportConfig config) {
        this(config, null);
    }

    /**
     * Starts the event loops; every connection's traffic is also written to a packet capture.
     *
     * @param config  the configuration
     * @param capture the capture file shared by the connections, or {@code null} for none; the
     *                caller closes it after this transport
     * @throws IllegalArgumentException if config is null
     * @throws IllegalStateException    if the config asks for {@link IoTransport#EPOLL} and netty's
     *                                  native epoll transport cannot be loaded here (the message
     *                                  names the cause)
     */
    public IwarpTransport(TransportConfig config, PacketCapture capture) {
        this(config, capture, SocketKind.resolve(config == null ? IoTransport.AUTO : config.ioTransport()));
    }

    /** With the socket kind already chosen (tests pick one against a simulated availability). */
    IwarpTransport(TransportConfig config, PacketCapture capture, SocketKind kind) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        this.config = config;
        this.capture = capture;
        this.kind = kind;
        this.group = config.ioMode() == IoMode.EVENT_LOOP && config.callerTransmit()
                ? new DrivableEventLoopGroup(config.eventLoopThreads(), this::newLoopThread, kind.ioHandlerFactory(),
                        0, 0, true)
                : config.ioMode() != IoMode.EVENT_LOOP
                ? new DrivableEventLoopGroup(config.eventLoopThreads(), this::newLoopThread, kind.ioHandlerFactory(),
                        config.pollingTakeover().toNanos(), config.ioMode() == IoMode.BUSY_POLLING
                                ? DrivableEventLoop.SPIN_ALWAYS : config.pollingSpin().toNanos())
                : new MultiThreadIoEventLoopGroup(config.eventLoopThreads(), this::newLoopThread,
                        kind.ioHandlerFactory());
    }

    /** Whether posts may transmit on the posting thread: the loops are drivable (polling, or event loop with callerTransmit). */
    boolean drivableLoops() {
        return group instanceof DrivableEventLoopGroup;
    }

    /** The configuration. */
    public TransportConfig config() {
        return config;
    }

    /**
     * The socket implementation this transport's connections use: {@link IoTransport#NIO} or
     * {@link IoTransport#EPOLL}, never {@link IoTransport#AUTO} (which resolves to one of them when
     * the transport is created).
     *
     * @return NIO or EPOLL
     */
    public IoTransport ioTransport() {
        return kind.ioTransport();
    }

    /**
     * Which {@link IoTransport} a configured choice resolves to in this JVM: what
     * {@link #ioTransport()} of a transport created with it would be.
     *
     * @param choice AUTO, NIO or EPOLL
     * @return NIO or EPOLL
     * @throws IllegalArgumentException if choice is null
     * @throws IllegalStateException    if choice is {@link IoTransport#EPOLL} and netty's native
     *                                  epoll transport cannot be loaded here (the message names the
     *                                  cause)
     */
    public static IoTransport resolve(IoTransport choice) {
        return SocketKind.resolve(choice).ioTransport();
    }

    /** The socket kind (package: the framing code adapts its buffers to it). */
    SocketKind kind() {
        return kind;
    }

    /**
     * Listens for MPA connections (the Responder role).
     *
     * @param address  where to bind (port 0 for an ephemeral port)
     * @param settings the local MPA settings of the accepted connections
     * @param handler  receives the connection requests
     * @return the listener, bound
     * @throws IOException              if binding fails
     * @throws IllegalArgumentException if an argument is null
     * @throws IllegalStateException    if the transport is closed or this runs on its event loop
     */
    public MpaListener listen(SocketAddress address, MpaSettings settings, MpaRequestHandler handler)
            throws IOException {
        if (address == null || settings == null || handler == null) {
            throw new IllegalArgumentException("address, settings and handler must not be null");
        }
        checkOpen();
        checkNotInEventLoop("listen");
        MpaNegotiator negotiator = new MpaNegotiator(settings);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(kind.serverSocketChannelClass())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.writeLowWaterMark(), config.writeHighWaterMark()))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        MpaSetupHandler connection = MpaSetupHandler.responder(IwarpTransport.this, negotiator, handler);
                        install(ch, connection, false);
                    }
                });
        ChannelFuture bind = bootstrap.bind(address).awaitUninterruptibly();
        if (!bind.isSuccess()) {
            Throwable cause = bind.cause();
            throw cause instanceof IOException io ? io : new IOException("cannot listen on " + address, cause);
        }
        Channel server = bind.channel();
        track(server);
        return new MpaListener(this, server);
    }

    /**
     * Connects to a listener and runs MPA setup as Initiator. The result arrives through the callback,
     * exactly once, on the connection's event loop.
     *
     * @param address     the Responder's address
     * @param settings    the local MPA settings
     * @param privateData ULP private data for the Request ({@code null} for none), at most
     *                    {@link MpaSettings#maxUlpPrivateData()} bytes
     * @param callback    the result
     * @throws IllegalArgumentException if an argument is null or the private data is too long (the
     *                                  request is refused locally, nothing is sent)
     * @throws IllegalStateException    if the transport is closed
     */
    public void connect(SocketAddress address, MpaSettings settings, byte[] privateData, ConnectCallback callback) {
        if (address == null || settings == null || callback == null) {
            throw new IllegalArgumentException("address, settings and callback must not be null");
        }
        byte[] data = privateData == null ? new byte[0] : privateData.clone();
        if (data.length > settings.maxUlpPrivateData()) {
            throw new IllegalArgumentException("request private data of " + data.length + " bytes exceeds the limit of "
                    + settings.maxUlpPrivateData());
        }
        checkOpen();
        MpaSetupHandler connection = MpaSetupHandler.initiator(this, new MpaNegotiator(settings), data, callback);
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(kind.socketChannelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        config.connectTimeout().toMillis()))
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.writeLowWaterMark(), config.writeHighWaterMark()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        install(ch, connection, true);
                    }
                });
        bootstrap.connect(address).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                connection.connectFailed(f.cause());
            }
        });
    }

    /**
     * Turns a TCP connection the ULP established itself, and may have used in streaming mode, into an
     * RDMA stream as the MPA Initiator (Verbs §6.6.1.1, V-CM-2): the transport takes the socket
     * over, writes the last streaming-mode message as it is (if any) and then the MPA Request, and
     * continues exactly as {@link #connect}. The result arrives through the callback, exactly once,
     * on the connection's event loop.
     *
     * <p>The stream message is the Verbs Stream Message Buffer (§6.2.1.2, V-QPS-14): it is sent in
     * streaming mode before iWARP mode begins, and since TCP delivers in order, the peer's Reply
     * proves it arrived (V-QPS-16: reliably transmitted before the QP enters RTS). The peer's ULP
     * reads it from its socket and then adopts that socket as Responder.
     *
     * @param socket        a connected socket, blocking or not, with nothing of ours unread: the
     *                      transport owns and closes it from now on (it is made non-blocking)
     * @param settings      the local MPA settings
     * @param privateData   ULP private data for the Request ({@code null} for none), at most
     *                      {@link MpaSettings#maxUlpPrivateData()} bytes
     * @param streamMessage the last streaming-mode message ({@code null} or empty for none)
     * @param callback      the result
     * @throws IllegalArgumentException if an argument is null, the socket is not connected, or the
     *                                  private data is too long (nothing is sent)
     * @throws IllegalStateException    if the transport is closed, or its {@link #ioTransport()} is
     *                                  not {@link IoTransport#NIO} (see {@link #adoptResponder})
     */
    public void adoptInitiator(java.nio.channels.SocketChannel socket, MpaSettings settings, byte[] privateData,
                               byte[] streamMessage, ConnectCallback callback) {
        if (socket == null || settings == null || callback == null) {
            throw new IllegalArgumentException("socket, settings and callback must not be null");
        }
        byte[] data = privateData == null ? new byte[0] : privateData.clone();
        if (data.length > settings.maxUlpPrivateData()) {
            throw new IllegalArgumentException("request private data of " + data.length + " bytes exceeds the limit of "
                    + settings.maxUlpPrivateData());
        }
        checkOpen();
        checkConnected(socket);
        MpaSetupHandler connection = MpaSetupHandler.initiator(this, new MpaNegotiator(settings), data, callback)
                .streamMessage(streamMessage == null ? new byte[0] : streamMessage.clone());
        adopt(socket, connection, true);
    }

    /**
     * Turns a TCP connection the ULP established itself, and may have used in streaming mode, into an
     * RDMA stream as the MPA Responder (Verbs §6.6.1.2, V-CM-2): the transport takes the socket
     * over and waits on it for the peer's MPA Request, which goes to the handler exactly as for a
     * {@link #listen listener} (accept or reject it there). Setup failures go to
     * {@link MpaRequestHandler#onSetupFailed}.
     *
     * @param socket      a connected socket, blocking or not: the transport owns and closes it from
     *                    now on (it is made non-blocking)
     * @param settings    the local MPA settings
     * @param alreadyRead bytes the ULP already read from the socket past its own streaming-mode data
     *                    (the start of the MPA Request), or {@code null}
     * @param handler     receives the request
     * <p>Adoption needs an {@link IoTransport#NIO} transport: a {@code java.nio} socket can only be
     * registered with NIO event loops, and the JDK does not hand out its file descriptor, which an
     * epoll channel would need (docs/transport.md, "Socket kinds"). The connection manager keeps a
     * NIO transport for adopted sockets whatever the RNIC's {@code ioTransport}.
     *
     * @throws IllegalArgumentException if an argument is null or the socket is not connected
     * @throws IllegalStateException    if the transport is closed or its {@link #ioTransport()} is
     *                                  not {@link IoTransport#NIO}
     */
    public void adoptResponder(java.nio.channels.SocketChannel socket, MpaSettings settings, byte[] alreadyRead,
                               MpaRequestHandler handler) {
        if (socket == null || settings == null || handler == null) {
            throw new IllegalArgumentException("socket, settings and handler must not be null");
        }
        checkOpen();
        checkConnected(socket);
        MpaSetupHandler connection = MpaSetupHandler.responder(this, new MpaNegotiator(settings), handler)
                .alreadyRead(alreadyRead == null ? new byte[0] : alreadyRead.clone());
        adopt(socket, connection, false);
    }

    private void checkConnected(java.nio.channels.SocketChannel socket) {
        if (kind != SocketKind.NIO) {
            throw new IllegalStateException("a java.nio socket can only be adopted by an IoTransport.NIO transport; this"
                    + " one is " + kind.ioTransport());
        }
        if (!socket.isConnected()) {
            throw new IllegalArgumentException("the socket to adopt is not connected: " + socket);
        }
    }

    /** Registers an already connected socket with a loop; channelActive then starts MPA setup. */
    private void adopt(java.nio.channels.SocketChannel socket, MpaSetupHandler connection, boolean initiator) {
        SocketChannel ch = kind.adopt(socket);
        ch.config().setTcpNoDelay(true);
        ch.config().setAllowHalfClosure(true);
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(config.writeLowWaterMark(),
                config.writeHighWaterMark()));
        install(ch, connection, initiator);
        group.register(ch).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                connection.connectFailed(f.cause());
                ch.unsafe().closeForcibly();
            }
        });
    }

    private void install(SocketChannel ch, MpaSetupHandler connection, boolean initiator) {
        ch.config().setRecvByteBufAllocator(connection.allocator());
        if (capture != null) {
            // next to the socket: it sees the bytes as read and as framed for writing
            ch.pipeline().addLast(new CaptureHandler(capture, initiator));
        }
        ch.pipeline().addLast(MpaSetupHandler.SETUP_HANDLER_NAME, connection);  // replaced by the framing handler at Full Operation
        track(ch);
        if (closed) {
            connection.transportClosing();
            ch.close();
        }
    }

    private void track(Channel ch) {
        channels.add(ch);
        ch.closeFuture().addListener((ChannelFutureListener) f -> channels.remove(f.channel()));
    }

    /**
     * The receive staging of {@code loop}, created at its first connection's first read. Any
     * thread; each connection asks once ({@link ConnectionContext#staging}).
     */
    ReadStaging stagingFor(EventLoop loop) {
        return staging.computeIfAbsent(loop, l -> new ReadStaging(config.stagingBufferSize()));
    }

    /** Event loops that have receive staging (tests: one per loop, not one per connection). */
    int stagingAreas() {
        return staging.size();
    }

    /**
     * Closes every listener and connection (their listeners see {@link FpduLink.Closure#TRANSPORT_CLOSED}
     * or {@link SetupFailure.Kind#CLOSED}), stops the event loops and waits for them to terminate.
     * Idempotent.
     *
     * @throws IllegalStateException if called on one of the transport's event loops
     */
    @Override
    public void close() {
        checkNotInEventLoop("IwarpTransport.close");
        closed = true;
        for (Channel ch : channels) {
            ch.eventLoop().execute(() -> {
                // before Full Operation the setup handler is in the pipeline, after it the framing handler
                MpaSetupHandler setup = ch.pipeline().get(MpaSetupHandler.class);
                if (setup != null) {
                    setup.transportClosing();
                }
                FpduFramingHandler framing = ch.pipeline().get(FpduFramingHandler.class);
                if (framing != null) {
                    framing.transportClosing();
                }
                ch.close();
            });
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        try {
            if (!group.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("event loops did not terminate within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("transport is closed");
        }
    }

    /**
     * Whether the calling thread is one of this transport's event loops.
     *
     * @return true on an event loop
     */
    public boolean isEventLoopThread() {
        Thread current = Thread.currentThread();
        return loopThreads.contains(current) || group instanceof DrivableEventLoopGroup g && g.runsLoop(current);
    }

    void checkNotInEventLoop(String what) {
        if (isEventLoopThread()) {
            throw new IllegalStateException(what + " must not be called on an event loop of the transport");
        }
    }

    /** Creates the event-loop threads and remembers them, so that blocking calls can refuse to run on one. */
    private Thread newLoopThread(Runnable task) {
        Thread thread = new Thread(task, "jrnic-transport-" + THREAD_IDS.incrementAndGet());
        thread.setDaemon(true);
        loopThreads.add(thread);
        return thread;
    }
}
