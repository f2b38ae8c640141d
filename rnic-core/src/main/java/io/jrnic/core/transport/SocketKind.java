package io.jrnic.core.transport;

import io.jrnic.api.IoTransport;
import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The socket implementation of an {@link IwarpTransport}: netty's NIO transport (the JDK's
 * {@code java.nio} sockets and selector, everywhere) or its native Linux epoll transport
 * (docs/transport.md "Socket kinds", issue 11). The one place that names netty's I/O handler and
 * channel classes: the transport asks this for its event loops' {@link IoHandlerFactory} and the
 * channel classes of {@code listen} and {@code connect}.
 *
 * <p>The two differ in what the data path must do (see the methods below): epoll reads and writes
 * by native address, so heap memory and memory the RNIC does not own cannot be handed to the
 * kernel as it is, and it does not advance the positions of the {@code ByteBuffer} views it
 * writes from.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
enum SocketKind {
    /** netty's NIO transport: {@code java.nio} sockets and a {@code Selector}; available everywhere. */
    NIO(IoTransport.NIO),
    /** netty's native epoll transport ({@code netty-transport-native-epoll}): Linux only. */
    EPOLL(IoTransport.EPOLL);

    private static final Logger LOG = LoggerFactory.getLogger(SocketKind.class);
    /** AUTO's choice is logged once per JVM, not once per transport. */
    private static final AtomicBoolean AUTO_LOGGED = new AtomicBoolean();

    private final IoTransport transport;

    SocketKind(IoTransport transport) {
        this.transport = transport;
    }

    /** The {@link IoTransport} this kind is (never {@link IoTransport#AUTO}). */
    IoTransport ioTransport() {
        return transport;
    }

    /** The factory of the event loops' I/O handler: a selector or an epoll instance per loop. */
    IoHandlerFactory ioHandlerFactory() {
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /** The connecting side's channel class. */
    Class<? extends SocketChannel> socketChannelClass() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The listening side's channel class. */
    Class<? extends ServerChannel> serverSocketChannelClass() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /**
     * A channel of this kind over a connected {@code java.nio} socket the ULP made itself.
     *
     * @throws IllegalStateException for epoll: the JDK does not hand out the socket's file
     *                               descriptor, which an epoll channel needs
     */
    SocketChannel adopt(java.nio.channels.SocketChannel socket) {
        if (this != NIO) {
            throw new IllegalStateException("a java.nio socket can only be adopted by an IoTransport.NIO transport; this"
                    + " one is " + transport);
        }
        return new NioSocketChannel(socket);
    }

    /**
     * Sets TCP_USER_TIMEOUT (RFC 5482; Linux {@code tcp(7)}) on a connected socket of this kind: how
     * long transmitted data may stay unacknowledged, zero-window probes included, before the kernel
     * drops the connection. Only epoll can: the JDK offers no such socket option.
     *
     * @param ch      a channel of this kind
     * @param timeout the timeout; zero leaves the kernel's default (about 15 minutes of retransmissions)
     * @return whether the socket took it
     */
    boolean tcpUserTimeout(Channel ch, Duration timeout) {
        if (this != EPOLL || timeout.isZero()) {
            return false;
        }
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        return ch.config().setOption(EpollChannelOption.TCP_USER_TIMEOUT, millis);
    }

    /**
     * The TCP_USER_TIMEOUT of a connected socket of this kind.
     *
     * @return the timeout; zero for the kernel's default, and always on NIO
     */
    Duration tcpUserTimeout(Channel ch) {
        if (this != EPOLL) {
            return Duration.ZERO;
        }
        Integer millis = ch.config().getOption(EpollChannelOption.TCP_USER_TIMEOUT);
        return millis == null ? Duration.ZERO : Duration.ofMillis(millis);
    }

    /**
     * Whether the socket writes advance the positions of the {@code ByteBuffer}s a message hands
     * out ({@code nioBuffers}): the JDK's gathering write does, netty's native writev (iovecs built
     * from the buffers' addresses) does not. {@link TxFpdu} tells a written FPDU from a dropped one
     * by those positions when they move, and by the channel's state when they do not.
     */
    boolean writesAdvanceViews() {
        return this == NIO;
    }

    /**
     * Whether the socket reads and writes go through the JDK, which acquires a memory segment's
     * session for the system call (so its arena cannot be closed under the kernel) and copies heap
     * buffers into direct ones. netty's epoll code hands the kernel bare addresses: heap memory has
     * none, and memory of an arena the application may close at any time must not be given to the
     * kernel that way; such memory is copied (TX) or read through the staging buffer (RX), see
     * {@link NativeViews#stable}.
     */
    boolean sessionChecked() {
        return this == NIO;
    }

    /**
     * The kind for a configured choice: {@link IoTransport#AUTO} is epoll when it loads here, NIO
     * otherwise (logged once, at debug, with the reason); NIO is NIO; EPOLL is epoll or an error.
     *
     * @param choice the configured transport
     * @return the kind
     * @throws IllegalStateException if EPOLL was asked for and cannot be loaded; the message names
     *                               the cause, which is attached
     */
    static SocketKind resolve(IoTransport choice) {
        return resolve(choice, Availability.probe());
    }

    /** {@link #resolve(IoTransport)} against a given availability (the seam the tests use). */
    static SocketKind resolve(IoTransport choice, Availability epoll) {
        if (choice == null) {
            throw new IllegalArgumentException("ioTransport must not be null");
        }
        return switch (choice) {
            case NIO -> NIO;
            case EPOLL -> {
                if (!epoll.available()) {
                    throw new IllegalStateException("IoTransport.EPOLL was configured, but netty's native epoll transport"
                            + " cannot be used on this machine (" + System.getProperty("os.name") + " "
                            + System.getProperty("os.arch") + "): " + epoll.cause()
                            + "; configure IoTransport.AUTO or NIO (docs/transport.md, \"Socket kinds\")", epoll.cause());
                }
                yield EPOLL;
            }
            case AUTO -> {
                SocketKind kind = epoll.available() ? EPOLL : NIO;
                if (AUTO_LOGGED.compareAndSet(false, true) && LOG.isDebugEnabled()) {
                    if (kind == EPOLL) {
                        LOG.debug("IoTransport.AUTO: using netty's native epoll transport");
                    } else {
                        LOG.debug("IoTransport.AUTO: using NIO, the native epoll transport is unavailable: {}",
                                String.valueOf(epoll.cause()));
                    }
                }
                yield kind;
            }
        };
    }

    /**
     * Whether netty's native epoll transport loads in this JVM, and if not why.
     *
     * @param available whether it loads
     * @param cause     why not ({@code null} when it does)
     */
    record Availability(boolean available, Throwable cause) {

        /** Asks netty, once per JVM (netty caches the answer itself; this adds the missing-jar case). */
        static Availability probe() {
            return Probe.RESULT;
        }
    }

    /** Holder: the probe runs at first use only, so NIO-only configurations never load epoll. */
    private static final class Probe {
        static final Availability RESULT = probeNow();

        private static Availability probeNow() {
            try {
                return Epoll.isAvailable() ? new Availability(true, null)
                        : new Availability(false, Epoll.unavailabilityCause());
            } catch (LinkageError e) {
                // netty-transport-classes-epoll or its unix-common dependency left off the class path
                return new Availability(false, e);
            }
        }
    }
}
