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
 *       interface holding the local address, less the IPv4 or IPv6 and TCP headers.</li>
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

    /** The MTU of the local address's interface less the headers, or 0 when unknown. */
    static int fromMtu(SocketAddress local) {
        if (!(local instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return 0;
        }
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(inet.getAddress());
            int mtu = nif == null ? -1 : nif.getMTU();
            if (mtu <= 0) {
                return 0;
            }
            return clamp(mtu - (inet.getAddress() instanceof Inet6Address ? IPV6_TCP_HEADERS : IPV4_TCP_HEADERS));
        } catch (SocketException e) {
            return 0;
        }
    }

    /**
     * The TCP segment size a write of this channel is cut into now, for the framing handler's
     * segment rule: the kernel's current send MSS on epoll; 0 (unknown, the rule is off) elsewhere --
     * the MTU-based estimate can miss the TCP options by a few bytes, and a limit a byte above the
     * MSS would make the very small segments the rule avoids.
     *
     * @param channel the connection's channel
     * @return the send MSS in bytes, or 0
     */
    static int segmentSize(Channel channel) {
        SendMss probe = SendMss.of(channel);
        return probe == null ? 0 : probe.read();
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
