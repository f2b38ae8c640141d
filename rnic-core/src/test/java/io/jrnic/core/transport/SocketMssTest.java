package io.jrnic.core.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The EMSS read from a connected socket (RFC 5044 §5.1), on both socket kinds. */
class SocketMssTest {
    private MultiThreadIoEventLoopGroup group;

    @AfterEach
    void close() {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private Channel connect(ServerSocket server, Class<? extends Channel> kind) throws Exception {
        Channel channel = new Bootstrap().group(group).channel(kind).handler(new ChannelInboundHandlerAdapter())
                .connect(server.getLocalSocketAddress()).sync().channel();
        assertThat(channel.isActive()).isTrue();
        return channel;
    }

    /** A connected channel's EMSS (the segment, clamped) and the segment rule's size; none once closed. */
    private static void assertSizesUntilClosed(Channel channel, long segment) throws InterruptedException {
        assertThat(SocketMss.of(channel)).isEqualTo(Math.min(segment, TransportConfig.MAX_EMSS));
        assertThat(SocketMss.segmentSize(channel)).as("the segment rule's size, unclamped").isEqualTo(segment);
        channel.close().sync();
        assertThat(SocketMss.segmentSize(channel)).as("closed: unknown").isZero();
    }

    /**
     * Also NIO's estimate on the same socket: the MTU's segment is the kernel's own MSS where
     * timestamps are on, and never above it. Linux advertises its MSS less the options in use
     * ({@code tcpi_advmss}: 65,483 on loopback, whose MTU of 65,536 exceeds what an IPv4 datagram
     * can carry).
     */
    @Test
    void onEpollItIsTheKernelsSendMss() throws Exception {
        assumeTrue(Epoll.isAvailable(), "netty's native epoll transport loads here");
        group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        // the kernel completes the handshake from the backlog: nothing needs to accept
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            EpollSocketChannel channel = (EpollSocketChannel) connect(server, EpollSocketChannel.class);
            long kernel = channel.tcpInfo().sndMss();
            assertThat(kernel).as("loopback's MSS").isGreaterThan(TransportConfig.ETHERNET_EMSS);
            long advertised = channel.tcpInfo().advmss();
            assertThat((long) SocketMss.mtuSegment(channel.localAddress())).as("the MTU's segment")
                    .isLessThanOrEqualTo(advertised).isGreaterThanOrEqualTo(advertised - SocketMss.TCP_TIMESTAMPS_OPTION);
            assertSizesUntilClosed(channel, kernel);
        }
    }

    @Test
    void onNioItIsTheInterfacesMtuLessTheHeadersAndTimestamps() throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        InetAddress loopback = InetAddress.getLoopbackAddress();
        int mtu = NetworkInterface.getByInetAddress(loopback).getMTU();
        int segment = Math.min(mtu, SocketMss.MAX_IPV4_DATAGRAM) - SocketMss.IPV4_TCP_HEADERS
                - SocketMss.TCP_TIMESTAMPS_OPTION;
        try (ServerSocket server = new ServerSocket(0, 1, loopback)) {
            assertSizesUntilClosed(connect(server, NioSocketChannel.class), segment);
        }
    }

@Test
    void anIpv6AddressLeavesRoomForItsLargerHeader() throws Exception {
        InetAddress v6 = InetAddress.getByName("::1");
        NetworkInterface nif = NetworkInterface.getByInetAddress(v6);
        assumeTrue(nif != null, "an IPv6 loopback address");
        int segment = nif.getMTU() - SocketMss.IPV6_TCP_HEADERS - SocketMss.TCP_TIMESTAMPS_OPTION;
        assertThat(SocketMss.mtuSegment(new InetSocketAddress(v6, 1))).isEqualTo(segment);
        assertThat(SocketMss.fromMtu(new InetSocketAddress(v6, 1))).isEqualTo(Math.min(segment, TransportConfig.MAX_EMSS));
    }

    @Test
    void withoutAnAddressOrInterfaceItFallsBackToEthernet() {
        assertThat(SocketMss.fromMtu(null)).isZero();
        assertThat(SocketMss.fromMtu(InetSocketAddress.createUnresolved("nowhere.invalid", 1))).isZero();
        Channel unconnected = new NioSocketChannel(); // no local address: neither MSS nor MTU known
        try {
            assertThat(SocketMss.of(unconnected)).isEqualTo(TransportConfig.ETHERNET_EMSS);
        } finally {
            unconnected.unsafe().closeForcibly();
        }
    }

    @Test
    void theResultStaysWithinTheEmssAConnectionAccepts() {
        assertThat(SocketMss.clamp(10)).isEqualTo(134);       // MULPDU 128 (RFC 5044 §4.5) + 6
        assertThat(SocketMss.clamp(70_000)).isEqualTo(TransportConfig.MAX_EMSS);
        assertThat(SocketMss.clamp(1448)).isEqualTo(1448);
    }
}
