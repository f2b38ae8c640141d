package io.jrnic.core.transport;

import io.jrnic.mpa.Fpdu;
import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.epoll.EpollTcpInfo;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;

/**
 * The EMSS of an established connection, read from its socket (RFC 5044 §5.1: "If the TCP
 * implementation allows EMSS to be determined by MPA, that value should be used. If the transmit
 * side TCP implementation is not able to report the EMSS, MPA SHOULD use the current MTU value").
 * {@link TransportConfig#AUTO_EMSS} asks for it; Linux siw sizes its FPDUs the same way, by the
 * socket's MSS.
 *
 * <ul>
 *   <li>epoll: the kernel's current send MSS ({@code TCP_INFO.tcpi_snd_mss}), which already counts
 *       the TCP options in use: 1448 on Ethernet with timestamps. Linux also holds it to half the
 *       peer's largest window so far, so a fresh loopback connection reports 32,741 (65,483 once the
 *       window has opened; {@link SendMss}).</li>
 *   <li>NIO: the JDK reports no MSS (there is no {@code TCP_MAXSEG} option), so the MTU of the
 *       interface holding the local address, less the IPv4 or IPv6 and TCP headers and the TCP
 *       timestamps option ({@link #mtuSegment}): the kernel's own MSS where timestamps are on (Linux
 *       and macOS by default; 65,483 on Linux's loopback, 1448 on Ethernet), 12 bytes under it where
 *       they are off.</li>
 *   <li>Neither known: {@link TransportConfig#ETHERNET_EMSS}.</li>
 * </ul>
 *
 * The result is kept within the EMSS range a connection accepts (its MULPDU stays 128..64768).
 *
 * <p>Thread safety: stateless.
 */
final class SocketMss {
    /** IPv4 and TCP headers without options. */
    static final int IPV4_TCP_HEADERS = 20 + 20;
    /** IPv6 and TCP headers without options. */
    static final int IPV6_TCP_HEADERS = 40 + 20;
    /** The TCP timestamps option (RFC 7323 §3), 10 bytes padded to 12, in every segment where it is on. */
    static final int TCP_TIMESTAMPS_OPTION = 12;
    /**
     * The largest IPv4 datagram (its header's total length is 16 bits): Linux's loopback MTU of 65,536
     * carries no more.
     */
    static final int MAX_IPV4_DATAGRAM = 65_535;

    private SocketMss() {
    }

    /**
     * The EMSS of a connected channel.
     *
     * @param channel the connection's channel
     * @return its EMSS, within {@link TransportConfig}'s range
     */
    static int of(Channel channel) {
        int mss = segmentSize(channel);
        if (mss > 0) {
            return clamp(mss);
        }
        int mtuBased = fromMtu(channel.localAddress());
        return mtuBased > 0 ? mtuBased : TransportConfig.ETHERNET_EMSS;
    }

    /** The segment size the local address's interface allows ({@link #mtuSegment}), clamped; 0 when unknown. */
    static int fromMtu(SocketAddress local) {
        int segment = mtuSegment(local);
        return segment > 0 ? clamp(segment) : 0;
    }

    /**
     * The TCP segment size the MTU of the local address's interface allows: the largest datagram it
     * carries less the IP and TCP headers and the timestamps option. Where timestamps are on this is
     * the kernel's MSS; where they are off, 12 bytes under it. Never above it: a write cut at this
     * size ends a little before a segment's end at worst, which leaves no small segment behind (the
     * segment rule's concern), where an estimate a byte above the MSS would leave one per write.
     *
     * @param local the connection's local address
     * @return the segment size in bytes, or 0 when the interface or its MTU is unknown
     */
    static int mtuSegment(SocketAddress local) {
        if (!(local instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return 0;
        }
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(inet.getAddress());
            int mtu = nif == null ? -1 : nif.getMTU(); // -1: unknown, and so is the segment below
            int segment = inet.getAddress() instanceof Inet6Address
                    ? mtu - IPV6_TCP_HEADERS // IPv6's payload length leaves its own header out
                    : Math.min(mtu, MAX_IPV4_DATAGRAM) - IPV4_TCP_HEADERS;
            return Math.max(0, segment - TCP_TIMESTAMPS_OPTION);
        } catch (SocketException e) {
            return 0;
        }
    }

    /**
     * The TCP segment size a write of this channel is cut into now, for the framing handler's
     * segment rule: the kernel's current send MSS on epoll; on NIO the MTU's segment
     * ({@link #mtuSegment}), at most the MSS, as the rule needs: a limit a byte above the MSS would
     * make the very small segments the rule avoids.
     *
     * @param channel the connection's channel
     * @return the segment size in bytes, or 0 when the channel is closed or it is unknown
     */
    static int segmentSize(Channel channel) {
        SendMss probe = SendMss.of(channel);
        if (probe != null) {
            return probe.read();
        }
        return channel.isActive() ? mtuSegment(channel.localAddress()) : 0;
    }

    /**
     * Reads an epoll socket's current send MSS ({@code TCP_INFO.tcpi_snd_mss}) into one reused
     * {@link EpollTcpInfo}: nothing is allocated per read. The value changes while a connection
     * runs: Linux holds it to half the largest window the peer has offered, so a fresh loopback
     * connection reports 32,741 and, once the window has grown, 65,483.
     *
     * <p>Thread safety: the channel's event loop only.
     */
    static final class SendMss {
        private final EpollSocketChannel channel;
        private final EpollTcpInfo info = new EpollTcpInfo();

        private SendMss(EpollSocketChannel channel) {
            this.channel = channel;
        }

        /** A probe of this channel, or null when it is not an epoll socket (no exact MSS). */
        static SendMss of(Channel channel) {
            return channel instanceof EpollSocketChannel epoll ? new SendMss(epoll) : null;
        }

        /** The send MSS now, or 0 when the socket is closed or reports none. */
        int read() {
            if (!channel.isActive()) {
                return 0;
            }
            long mss = channel.tcpInfo(info).sndMss();
            return mss > 0 && mss <= Integer.MAX_VALUE ? (int) mss : 0;
        }
    }

    static int clamp(long emss) {
        int min = Fpdu.MIN_MULPDU + Fpdu.OVERHEAD;
        return (int) Math.max(min, Math.min(TransportConfig.MAX_EMSS, emss));
    }
}
