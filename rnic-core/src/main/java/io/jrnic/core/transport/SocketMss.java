package io.jrnic.core.transport;

import io.jrnic.mpa.Fpdu;
import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollSocketChannel;

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
 *       the TCP options in use: 1448 on Ethernet with timestamps, 65483 on loopback.</li>
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
        if (channel instanceof EpollSocketChannel epoll && epoll.isActive()) {
            long mss = epoll.tcpInfo().sndMss();
            if (mss > 0) {
                return clamp(mss);
            }
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

    static int clamp(long emss) {
        int min = Fpdu.MIN_MULPDU + Fpdu.OVERHEAD;
        return (int) Math.max(min, Math.min(TransportConfig.MAX_EMSS, emss));
    }
}
