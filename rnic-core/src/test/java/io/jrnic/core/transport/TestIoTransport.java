package io.jrnic.core.transport;

import io.jrnic.api.IoTransport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The socket kind the loopback tests run on (docs/transport.md "Socket kinds"): the system property
 * {@code jrnic.test.ioTransport} (NIO, EPOLL or AUTO; AUTO when unset, which is epoll on Linux). The
 * fixtures ({@code TransportFixture.config()}, {@code LoopbackFixture}, {@code VerbsFixture}) apply
 * it; rnic-core's POM runs the data-path tests a second time with NIO.
 */
public final class TestIoTransport {

    /** The configured choice. */
    public static final IoTransport CHOICE = IoTransport.valueOf(System.getProperty("jrnic.test.ioTransport", "AUTO"));

    /** Memory that lives as long as the test JVM and is trusted like a SoftRnic's arena (NativeViews). */
    private static final Arena STABLE = Arena.ofShared();

    static {
        NativeViews.trust(STABLE.scope());
    }

    private TestIoTransport() {
    }

    /** What {@link #CHOICE} resolves to here: NIO or EPOLL. */
    public static IoTransport resolved() {
        return IwarpTransport.resolve(CHOICE);
    }

    /**
     * Native memory that the socket may read into and write from by address on every socket kind
     * (it is never freed; like registered RNIC memory, {@link NativeViews#stable}).
     */
    public static MemorySegment stableMemory(long size) {
        return STABLE.allocate(Math.max(1, size), 64);
    }
}
