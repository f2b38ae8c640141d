package io.jrnic.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes one connection's stream bytes to a {@link PacketCapture}: the first handler of the
 * pipeline (next to the socket), so it sees every byte read before the MPA handler consumes it and
 * every byte written after the MPA handler framed it. The bytes pass on untouched.
 *
 * <p>Each direction is cut into packets at MPA boundaries: the MPA Request or Reply frame (RFC 5044
 * §7.1), optional bytes before it (the Verbs stream message of an adopted socket), then one FPDU per
 * packet (§4: ULPDU_Length, ULPDU, pad, CRC field; Markers every 512 octets of the FPDU stream when
 * the peer required them, §4.3). Wireshark's MPA dissector decodes one FPDU per TCP segment; a cut
 * that cannot follow the stream any more (nothing here ever fails on bad input) still writes every
 * byte, only with other boundaries. An FPDU longer than an IP packet can carry is split.
 *
 * <p>The TCP handshake and the closing FINs are synthesized around the stream with sequence numbers
 * of this handler's own; the addresses and ports are the socket's.
 *
 * <p>Thread safety: confined to the connection's event loop.
 */
final class CaptureHandler extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(CaptureHandler.class);

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int KEY_LENGTH = 16;
    private static final int FRAME_HEADER = 20;
    private static final int MARKER_INTERVAL = 512;
    private static final int MARKER_LENGTH = 4;
    private static final int FLAG_MARKERS = 0x80;

    private static final int ETHERNET = 14;
    private static final int IPV4 = 20;
    private static final int IPV6 = 40;
    private static final int TCP = 20;
    private static final int TCP_SYN = 0x02;
    private static final int TCP_ACK = 0x10;
    private static final int TCP_PSH = 0x08;
    private static final int TCP_FIN = 0x01;

    private final PacketCapture capture;
    private final boolean initiator;
    private final Direction out = new Direction(true);
    private final Direction in = new Direction(false);

    private byte[] localIp;
    private byte[] remoteIp;
    private int localPort;
    private int remotePort;
    private boolean ipv6;
    private byte[] frame = new byte[ETHERNET + IPV6 + TCP + 2048];
    private boolean started;
    private boolean finished;
    private boolean failed;
    /** The M flag of the MPA Request: Markers REQUIRED in FPDUs from the Responder (RFC 5044 §7.1.1). */
    private boolean markersFromResponder;
    /** The M flag of the MPA Reply: Markers REQUIRED in FPDUs from the Initiator. */
    private boolean markersFromInitiator;

    /**
     * @param capture   the file
     * @param initiator whether this end opened the connection (it sends the synthesized SYN)
     */
    CaptureHandler(PacketCapture capture, boolean initiator) {
        this.capture = capture;
        this.initiator = initiator;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start(ctx);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof ByteBuf buf) {
            guarded(() -> in.feed(buf));
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof ByteBuf buf) {
            guarded(() -> out.feed(buf));
        }
        super.write(ctx, msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        guarded(this::finish);
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        guarded(this::finish);
    }

    /** Capture never disturbs the connection: a failure stops capturing it and is logged once. */
    private void guarded(Runnable action) {
        if (failed) {
            return;
        }
        try {
            action.run();
        } catch (RuntimeException e) {
            failed = true;
            LOG.warn("packet capture of this connection stopped", e);
        }
    }

    private void start(ChannelHandlerContext ctx) {
        if (started) {
            return;
        }
        SocketAddress l = ctx.channel().localAddress();
        SocketAddress r = ctx.channel().remoteAddress();
        if (!(l instanceof InetSocketAddress local) || !(r instanceof InetSocketAddress remote)) {
            failed = true; // not an IP socket: nothing to synthesize headers for
            return;
        }
        started = true;
        InetAddress la = local.getAddress();
        InetAddress ra = remote.getAddress();
        ipv6 = !(la instanceof Inet4Address && ra instanceof Inet4Address);
        localIp = ipv6 ? ipv6Bytes(la) : la.getAddress();
        remoteIp = ipv6 ? ipv6Bytes(ra) : ra.getAddress();
        localPort = local.getPort();
        remotePort = remote.getPort();
        Direction client = initiator ? out : in;
        Direction server = initiator ? in : out;
        client.packet(TCP_SYN, null, 0, 0);
        client.seq++;
        server.packet(TCP_SYN | TCP_ACK, null, 0, 0);
        server.seq++;
        client.packet(TCP_ACK, null, 0, 0);
    }

    private void finish() {
        if (!started || finished) {
            return;
        }
        finished = true;
        out.drain();
        in.drain();
        Direction first = initiator ? out : in;
        Direction second = initiator ? in : out;
        first.packet(TCP_FIN | TCP_ACK, null, 0, 0);
        first.seq++;
        second.packet(TCP_FIN | TCP_ACK, null, 0, 0);
        second.seq++;
        first.packet(TCP_ACK, null, 0, 0);
    }

    private static byte[] ipv6Bytes(InetAddress a) {
        if (a instanceof Inet6Address) {
            return a.getAddress();
        }
        byte[] mapped = new byte[16]; // ::ffff:a.b.c.d (RFC 4291 §2.5.5.2)
        mapped[10] = (byte) 0xFF;
        mapped[11] = (byte) 0xFF;
        System.arraycopy(a.getAddress(), 0, mapped, 12, 4);
        return mapped;
    }

    /** One direction of the stream: its sequence numbers and its MPA cutter. */
    private final class Direction {
        private final boolean outbound;
        private long seq = ThreadLocalRandom.current().nextInt() & 0xFFFFFFFFL;
        private byte[] pending = new byte[4096];
        private int pendingLength;
        /** Cutting at FPDUs (after this direction's MPA Request or Reply). */
        private boolean fullOperation;
        /** Octets of the FPDU stream cut so far: the Marker positions (RFC 5044 §4.3). */
        private long fpduStreamOffset;

        Direction(boolean outbound) {
            this.outbound = outbound;
        }

        private Direction other() {
            return outbound ? in : out;
        }

        void feed(ByteBuf buf) {
            if (!started || finished) {
                return;
            }
            int n = buf.readableBytes();
            if (pending.length - pendingLength < n) {
                pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + n));
            }
            buf.getBytes(buf.readerIndex(), pending, pendingLength, n);
            pendingLength += n;
            int cut = 0;
            int unit;
            while ((unit = nextUnit(cut)) > 0 && cut + unit <= pendingLength) {
                emit(cut, unit);
                cut += unit;
            }
            System.arraycopy(pending, cut, pending, 0, pendingLength - cut);
            pendingLength -= cut;
        }

        /** Writes what is left as one last segment (the stream ended inside a unit). */
        void drain() {
            if (pendingLength > 0) {
                segments(pending, 0, pendingLength);
                pendingLength = 0;
            }
        }

        /** The length of the unit at {@code at}, or 0 if more bytes are needed to tell. */
        private int nextUnit(int at) {
            int available = pendingLength - at;
            if (fullOperation) {
                return fpduLength(at, available);
            }
            if (available < KEY_LENGTH) {
                return 0;
            }
            if (keyAt(at, REQUEST_KEY) || keyAt(at, REPLY_KEY)) {
                if (available < FRAME_HEADER) {
                    return 0;
                }
                return FRAME_HEADER + u16(at + 18);
            }
            // bytes before the frame (a stream message on an adopted socket): up to the next key
            for (int k = at + 1; k + KEY_LENGTH <= pendingLength; k++) {
                if (keyAt(k, REQUEST_KEY) || keyAt(k, REPLY_KEY)) {
                    return k - at;
                }
            }
            return available - (KEY_LENGTH - 1);
        }

        /** RFC 5044 §4: ULPDU_Length (2), ULPDU, pad to 4, CRC (4, present even when unused), Markers. */
        private int fpduLength(int at, int available) {
            boolean markers = outbound == initiator ? markersFromInitiator : markersFromResponder;
            if (!markers) {
                return available < 2 ? 0 : ((2 + u16(at) + 3) & ~3) + 4;
            }
            int lengthField = fpduStreamOffset % MARKER_INTERVAL == 0 ? MARKER_LENGTH : 0;
            if (available < lengthField + 2) {
                return 0;
            }
            int content = ((2 + u16(at + lengthField) + 3) & ~3) + 4;
            long position = fpduStreamOffset;
            int total = 0;
            while (content > 0) {
                if (position % MARKER_INTERVAL == 0) {
                    total += MARKER_LENGTH;
                    position += MARKER_LENGTH;
                }
                int take = (int) Math.min(content, MARKER_INTERVAL - position % MARKER_INTERVAL);
                total += take;
                position += take;
                content -= take;
            }
            return total;
        }

        private void emit(int at, int length) {
            if (fullOperation) {
                fpduStreamOffset += length;
            } else if (keyAt(at, REQUEST_KEY) || keyAt(at, REPLY_KEY)) {
                boolean markers = (pending[at + KEY_LENGTH] & FLAG_MARKERS) != 0;
                if (keyAt(at, REQUEST_KEY)) {
                    markersFromResponder = markers;
                } else {
                    markersFromInitiator = markers;
                }
                fullOperation = true;
            }
            segments(pending, at, length);
        }

        private boolean keyAt(int at, byte[] key) {
            return Arrays.equals(pending, at, at + KEY_LENGTH, key, 0, KEY_LENGTH);
        }

        private int u16(int at) {
            return (pending[at] & 0xFF) << 8 | (pending[at + 1] & 0xFF);
        }

        private void segments(byte[] data, int at, int length) {
            int max = 0xFFFF - TCP - (ipv6 ? 0 : IPV4);
            while (length > 0) {
                int n = Math.min(length, max);
                packet(TCP_ACK | TCP_PSH, data, at, n);
                seq += n;
                at += n;
                length -= n;
            }
        }

        /** Writes one synthesized Ethernet/IP/TCP packet of this direction. */
        void packet(int flags, byte[] data, int at, int length) {
            int ip = ipv6 ? IPV6 : IPV4;
            int total = ETHERNET + ip + TCP + length;
            if (frame.length < total) {
                frame = new byte[total];
            }
            byte[] f = frame;
            Arrays.fill(f, 0, ETHERNET + ip + TCP, (byte) 0);
            // Ethernet: locally administered addresses, the local end ...:01
            f[0] = 0x02;
            f[5] = (byte) (outbound ? 2 : 1);
            f[6] = 0x02;
            f[11] = (byte) (outbound ? 1 : 2);
            f[12] = (byte) (ipv6 ? 0x86 : 0x08);
            f[13] = (byte) (ipv6 ? 0xDD : 0x00);
            byte[] src = outbound ? localIp : remoteIp;
            byte[] dst = outbound ? remoteIp : localIp;
            int o = ETHERNET;
            if (ipv6) {
                f[o] = 0x60;
                put16(f, o + 4, TCP + length);
                f[o + 6] = 6;   // next header: TCP
                f[o + 7] = 64;  // hop limit
                System.arraycopy(src, 0, f, o + 8, 16);
                System.arraycopy(dst, 0, f, o + 24, 16);
            } else {
                f[o] = 0x45;
                put16(f, o + 2, IPV4 + TCP + length);
                f[o + 6] = 0x40; // don't fragment
                f[o + 8] = 64;   // TTL
                f[o + 9] = 6;    // TCP
                System.arraycopy(src, 0, f, o + 12, 4);
                System.arraycopy(dst, 0, f, o + 16, 4);
                put16(f, o + 10, ~checksum(f, o, IPV4, 0) & 0xFFFF);
            }
            int t = ETHERNET + ip;
            put16(f, t, outbound ? localPort : remotePort);
            put16(f, t + 2, outbound ? remotePort : localPort);
            put32(f, t + 4, seq);
            put32(f, t + 8, (flags & TCP_ACK) != 0 ? other().seq : 0);
            f[t + 12] = 0x50; // data offset: 5 words
            f[t + 13] = (byte) flags;
            put16(f, t + 14, 0xFFFF);
            if (length > 0) {
                System.arraycopy(data, at, f, t + TCP, length);
            }
            // TCP checksum over the pseudo-header (RFC 793 §3.1, RFC 8200 §8.1), header and data
            int pseudo = checksum(f, ETHERNET + (ipv6 ? 8 : 12), ipv6 ? 32 : 8, 6 + TCP + length);
            put16(f, t + 16, ~checksum(f, t, TCP + length, pseudo) & 0xFFFF);
            capture.write(f, total);
        }
    }

    /** The one's complement sum of length bytes at offset, added to initial (RFC 1071). */
    private static int checksum(byte[] b, int offset, int length, int initial) {
        long sum = initial;
        int i = offset;
        for (; i + 1 < offset + length; i += 2) {
            sum += (b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF);
        }
        if (i < offset + length) {
            sum += (b[i] & 0xFF) << 8;
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    private static void put16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    private static void put32(byte[] b, int at, long v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
