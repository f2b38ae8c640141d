package io.jrnic.core.transport;

import io.jrnic.api.IoTransport;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.transport.TransportFixture.Endpoint;
import io.jrnic.core.transport.TransportFixture.Pair;
import io.jrnic.core.transport.TransportFixture.PlacingEndpoint;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.MpaSettings;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.jrnic.core.transport.TransportFixture.assertSameBytes;
import static io.jrnic.core.transport.TransportFixture.await;
import static io.jrnic.core.transport.TransportFixture.fpduCount;
import static io.jrnic.core.transport.TransportFixture.total;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The socket kinds (issue 11, docs/transport.md "Socket kinds"): how {@link IoTransport} resolves,
 * against a simulated availability of the native epoll transport and on this machine; each kind
 * connects and moves data over loopback TCP, native and heap, placed and staged; what epoll adds
 * (TCP_USER_TIMEOUT) and what it cannot do (adopt a java.nio socket).
 */
class SocketKindTest {

    private static final SocketKind.Availability LOADS = new SocketKind.Availability(true, null);
    private static final SocketKind.Availability MISSING = new SocketKind.Availability(false,
            new UnsatisfiedLinkError("simulated: no netty_transport_native_epoll_x86_64 in java.library.path"));

    private IwarpTransport transport;

    @AfterEach
    void close() {
        if (transport != null) {
            transport.close();
        }
    }

    @Test
    void autoIsEpollWhenItLoadsAndNioWhenNot() {
        assertThat(SocketKind.resolve(IoTransport.AUTO, LOADS)).isEqualTo(SocketKind.EPOLL);
        assertThat(SocketKind.resolve(IoTransport.AUTO, MISSING)).isEqualTo(SocketKind.NIO);
    }

    @Test
    void nioIsNioEvenWhereEpollLoads() {
        assertThat(SocketKind.resolve(IoTransport.NIO, LOADS)).isEqualTo(SocketKind.NIO);
        assertThat(SocketKind.resolve(IoTransport.NIO, MISSING)).isEqualTo(SocketKind.NIO);
    }

    @Test
    void epollThatCannotLoadIsRefusedNamingTheCause() {
        assertThat(SocketKind.resolve(IoTransport.EPOLL, LOADS)).isEqualTo(SocketKind.EPOLL);
        assertThatThrownBy(() -> SocketKind.resolve(IoTransport.EPOLL, MISSING))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("IoTransport.EPOLL")
                .hasMessageContaining("no netty_transport_native_epoll_x86_64 in java.library.path")
                .hasCause(MISSING.cause());
    }

    @Test
    void onLinuxWithTheNativeLibraryAutoResolvesToEpoll() {
        assumeTrue(Epoll.isAvailable(), "netty's native epoll transport loads here");
        assertThat(IwarpTransport.resolve(IoTransport.AUTO)).isEqualTo(IoTransport.EPOLL);
        transport = new IwarpTransport(TransportFixture.config().ioTransport(IoTransport.AUTO).build());
        assertThat(transport.ioTransport()).isEqualTo(IoTransport.EPOLL);
    }

    /** Both kinds: native payload placed into trusted memory, heap payload into heap memory. */
    @ParameterizedTest
    @EnumSource(value = IoTransport.class, names = {"NIO", "EPOLL"})
    void eachKindConnectsAndMovesNativeAndHeapData(IoTransport kind) throws Exception {
        assumeTrue(kind == IoTransport.NIO || Epoll.isAvailable(), "netty's native epoll transport loads here");
        transport = new IwarpTransport(TransportFixture.config().ioTransport(kind).emss(TransportConfig.MAX_EMSS)
                .build());
        assertThat(transport.ioTransport()).isEqualTo(kind);
        MpaSettings settings = MpaSettings.builder().crcPolicy(CrcPolicy.REQUIRED).requestMarkers(true).build();
        for (boolean heap : new boolean[] {false, true}) {
            Pair pair = TransportFixture.connect(transport, settings, settings);
            assertThat(pair.initiator().ioTransport()).isEqualTo(kind);
            assertThat(pair.responder().ioTransport()).isEqualTo(kind);
            assertThat(pair.initiator().nettyChannel()).isInstanceOf(kind == IoTransport.EPOLL
                    ? EpollSocketChannel.class : NioSocketChannel.class);
            int[] sizes = {1, 1500, 70_000, 1024 * 1024};
            long total = total(sizes);
            PlacingEndpoint receiver = new PlacingEndpoint(total, fpduCount(sizes, pair.initiator().mulpdu()), heap);
            Endpoint sender = new Endpoint(0, 0);
            receiver.start(pair.responder());
            sender.start(pair.initiator());
            MemorySegment data = heap ? TransportFixture.heapPattern((int) total, 11) : TransportFixture.pattern(total, 11);
            sender.send(data, sizes);
            await(receiver.done);
            assertSameBytes(receiver.received, data, total);
            pair.initiator().close();
            assertThat(await(receiver.closed)).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        }
    }

    @Test
    void epollSetsTcpUserTimeoutAndNioCannot() throws Exception {
        assumeTrue(Epoll.isAvailable(), "netty's native epoll transport loads here");
        for (IoTransport kind : new IoTransport[] {IoTransport.EPOLL, IoTransport.NIO}) {
            try (IwarpTransport t = new IwarpTransport(TransportFixture.config().ioTransport(kind).build())) {
                MpaSettings settings = MpaSettings.defaults();
                Pair pair = TransportFixture.connect(t, settings, settings);
                FpduChannel ch = pair.initiator();
                boolean set = ch.tcpUserTimeout(Duration.ofMillis(1234));
                assertThat(set).as("%s takes TCP_USER_TIMEOUT", kind).isEqualTo(kind == IoTransport.EPOLL);
                assertThat(ch.tcpUserTimeout()).isEqualTo(kind == IoTransport.EPOLL ? Duration.ofMillis(1234)
                        : Duration.ZERO);
                assertThat(ch.tcpUserTimeout(Duration.ZERO)).as("zero leaves the kernel's default").isFalse();
            }
        }
    }

    /**
     * A peer that reads nothing: its window closes and our unacknowledged bytes wait in the send
     * buffer. TCP_USER_TIMEOUT makes the kernel give up on it (Linux applies it to zero-window
     * probes too) and the connection closes as lost, where without it TCP would probe for as long
     * as the peer answers.
     */
    @Test
    void epollDropsAPeerThatStopsReadingAfterTheUserTimeout() throws Exception {
        assumeTrue(Epoll.isAvailable(), "netty's native epoll transport loads here");
        transport = new IwarpTransport(TransportFixture.config().ioTransport(IoTransport.EPOLL)
                .emss(TransportConfig.MAX_EMSS).build());
        MpaSettings settings = MpaSettings.defaults();
        Pair pair = TransportFixture.connect(transport, settings, settings);
        // the responder is never started: nothing reads its socket, its window closes
        FpduChannel tx = pair.initiator();
        assertThat(tx.tcpUserTimeout(Duration.ofMillis(300))).isTrue();
        Endpoint sender = new Endpoint(0, 0);
        sender.start(tx);
        int[] sizes = new int[32];
        java.util.Arrays.fill(sizes, 1024 * 1024);  // 32 MiB: beyond both socket buffers and netty's water mark
        sender.send(java.lang.foreign.Arena.ofAuto().allocate(32L * 1024 * 1024), sizes);
        FpduLink.Closure closure = sender.closed.get(TransportFixture.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(closure).isEqualTo(FpduLink.Closure.CONNECTION_LOST);
        assertThat(sender.allSent).as("the stalled peer never took everything").isNotDone();
    }

    @Test
    void onlyANioTransportAdoptsAJavaNioSocket() throws Exception {
        assumeTrue(Epoll.isAvailable(), "netty's native epoll transport loads here");
        transport = new IwarpTransport(TransportFixture.config().ioTransport(IoTransport.EPOLL).build());
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(TransportFixture.LOOPBACK);
             SocketChannel socket = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            TransportFixture.Setup setup = new TransportFixture.Setup();
            assertThatThrownBy(() -> transport.adoptInitiator(socket, MpaSettings.defaults(), null, null, setup))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("IoTransport.NIO");
            assertThat(setup.calls).isEmpty();
            assertThat(socket.isOpen()).as("a refused socket stays the caller's").isTrue();
        }
    }
}
