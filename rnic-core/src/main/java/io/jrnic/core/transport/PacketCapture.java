package io.jrnic.core.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A pcapng file of an RNIC's iWARP traffic, for Wireshark and tshark: every connection's stream
 * bytes, both directions, as they were written to and read from the socket, wrapped in synthesized
 * Ethernet, IPv4 (or IPv6) and TCP headers with the connection's real addresses and ports.
 *
 * <p>Why synthesized: the JVM sees the TCP payload, not the packets. The {@link CaptureHandler} of
 * each connection cuts its streams at MPA boundaries (one MPA Request/Reply or one FPDU per packet,
 * as Wireshark's MPA dissector expects) and numbers them with TCP sequence numbers of its own, so a
 * capture decodes as MPA, DDP and RDMAP with the CRCs the peers really sent.
 *
 * <p>The file format (pcapng, draft-ietf-opsawg-pcapng): a Section Header Block, one Interface
 * Description Block (link type 1, Ethernet; nanosecond timestamps), then one Enhanced Packet Block
 * per packet. Each block is written at once, so a capture can be read while the RNIC runs.
 *
 * <p>Thread safety: thread-safe; the connections of all event loops write to one file, each packet
 * under this object's lock. Capture is a debugging aid: it copies every payload byte and allocates,
 * and is off unless configured.
 */
public final class PacketCapture implements AutoCloseable {

    private static final int SECTION_HEADER = 0x0A0D0D0A;
    private static final int INTERFACE_DESCRIPTION = 0x00000001;
    private static final int ENHANCED_PACKET = 0x00000006;
    private static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    private static final int LINKTYPE_ETHERNET = 1;
    private static final short OPT_END = 0;
    private static final short OPT_SHB_USERAPPL = 4;
    private static final short OPT_IF_NAME = 2;
    private static final short OPT_IF_TSRESOL = 9;

    private final Path path;
    private final FileChannel file;
    private final long epochNanosAtStart;
    private final long nanoTimeAtStart;
    private ByteBuffer block = ByteBuffer.allocate(70_000).order(ByteOrder.LITTLE_ENDIAN);
    private long packets;
    private boolean closed;
    private IOException failure;

    private PacketCapture(Path path, FileChannel file) {
        this.path = path;
        this.file = file;
        java.time.Instant now = java.time.Instant.now();
        this.epochNanosAtStart = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        this.nanoTimeAtStart = System.nanoTime();
    }

    /**
     * Creates (or truncates) the file and writes its section and interface headers.
     *
     * @param path          the pcapng file
     * @param interfaceName the name Wireshark shows for the interface (the RNIC's name)
     * @return the open capture
     * @throws UncheckedIOException if the file cannot be written
     */
    public static PacketCapture open(Path path, String interfaceName) {
        try {
            FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
            PacketCapture capture = new PacketCapture(path, channel);
            capture.writeHeaders(interfaceName);
            return capture;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the packet capture " + path, e);
        }
    }

    /** The file. */
    public Path path() {
        return path;
    }

    /** Packets written so far. */
    public synchronized long packets() {
        return packets;
    }

    private synchronized void writeHeaders(String interfaceName) throws IOException {
        ByteBuffer b = block.clear();
        // Section Header Block
        int start = b.position();
        b.putInt(SECTION_HEADER).putInt(0).putInt(BYTE_ORDER_MAGIC).putShort((short) 1).putShort((short) 0)
                .putLong(-1L);
        putOption(b, OPT_SHB_USERAPPL, "jrnic".getBytes(StandardCharsets.UTF_8));
        b.putShort(OPT_END).putShort((short) 0);
        endBlock(b, start);
        // Interface Description Block: Ethernet, no snap length, timestamps in nanoseconds
        start = b.position();
        b.putInt(INTERFACE_DESCRIPTION).putInt(0).putShort((short) LINKTYPE_ETHERNET).putShort((short) 0).putInt(0);
        putOption(b, OPT_IF_NAME, interfaceName.getBytes(StandardCharsets.UTF_8));
        putOption(b, OPT_IF_TSRESOL, new byte[] {9});
        b.putShort(OPT_END).putShort((short) 0);
        endBlock(b, start);
        b.flip();
        while (b.hasRemaining()) {
            file.write(b);
        }
    }

    private static void putOption(ByteBuffer b, short code, byte[] value) {
        b.putShort(code).putShort((short) value.length).put(value);
        pad(b, value.length);
    }

    private static void pad(ByteBuffer b, int length) {
        for (int i = length; (i & 3) != 0; i++) {
            b.put((byte) 0);
        }
    }

    /** Writes the block total length into the header and the trailer of the block begun at start. */
    private static void endBlock(ByteBuffer b, int start) {
        int length = b.position() - start + 4;
        b.putInt(start + 4, length);
        b.putInt(length);
    }

    /**
     * Writes one Ethernet frame as an Enhanced Packet Block, time-stamped now. After a write error
     * the capture stops (the error is kept for {@link #close()}); the connection is never disturbed.
     *
     * @param frame  the frame's bytes
     * @param length how many of them
     */
    synchronized void write(byte[] frame, int length) {
        if (closed || failure != null) {
            return;
        }
        long ts = epochNanosAtStart + (System.nanoTime() - nanoTimeAtStart);
        int needed = 32 + length + 3;
        if (block.capacity() < needed) {
            block = ByteBuffer.allocate(needed).order(ByteOrder.LITTLE_ENDIAN);
        }
        ByteBuffer b = block.clear();
        b.putInt(ENHANCED_PACKET).putInt(0).putInt(0).putInt((int) (ts >>> 32)).putInt((int) ts)
                .putInt(length).putInt(length).put(frame, 0, length);
        pad(b, length);
        endBlock(b, 0);
        b.flip();
        try {
            while (b.hasRemaining()) {
                file.write(b);
            }
            packets++;
        } catch (IOException e) {
            failure = e;
        }
    }

    /**
     * Closes the file. Idempotent.
     *
     * @throws UncheckedIOException if a write failed earlier or closing fails
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            file.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
        if (failure != null) {
            throw new UncheckedIOException("packet capture " + path + " is incomplete", failure);
        }
    }
}
