package io.jrnic.api;

/**
 * Which socket implementation an RNIC's connections use ({@link RnicConfig#ioTransport}).
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum IoTransport {
    /** Linux's native epoll transport when it loads on this machine, {@link #NIO} otherwise (the default). */
    AUTO,
    /** The JDK's {@code java.nio} sockets and selector: available everywhere. */
    NIO,
    /**
     * Linux's native epoll transport (netty's {@code netty-transport-native-epoll}); opening the
     * RNIC fails ({@code INVALID_MODIFIER}, naming the cause) if it cannot be loaded on this machine.
     */
    EPOLL
}
