package io.jrnic.bench.perftest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The messages Linux perftest (linux-rdma/perftest 4.5/6.x, the one Debian 12 ships) exchanges over
 * its rdma_cm "comm" connection, byte for byte (docs/perftest.md, "The exchange"). With {@code -R}
 * perftest opens one RC connection for its control messages before the test connections; every
 * control message is one Send into the single posted receive of the other side, in lock step:
 * the client sends first and then receives, the server receives first and then answers.
 *
 * <ul>
 *   <li>the version: a 16-byte NUL-padded string ({@code "6.06"}; the peer refuses versions
 *       below 5.70);</li>
 *   <li>the cycle buffer and the cache line size: two 4-byte big-endian ints (each side takes the
 *       larger);</li>
 *   <li>the MTU: 2 bytes, the decimal digit of the {@code ibv_mtu} enum and a NUL ({@code "3"} =
 *       1024, 4 = 2048, 5 = 4096);</li>
 *   <li>the destination ({@code struct pingpong_dest}, {@value #DEST_LENGTH} bytes, x86-64 layout,
 *       integers big-endian): lid, out_reads, qpn, psn, rkey at 0, 4, 8, 12, 16; 4 bytes of padding;
 *       vaddr (8) at 24; the GID (16) at 32; srqn at 48, gid_index at 52;</li>
 *   <li>the bandwidth report: size, iterations (8 bytes each, big-endian), peak, average
 *       (MB/s) and message rate (Mpps) as big-endian IEEE doubles, each field its own message.</li>
 * </ul>
 *
 * <p>Thread safety: stateless.
 */
public final class PerftestWire {

    /** Bytes of {@code struct pingpong_dest} on x86-64. */
    public static final int DEST_LENGTH = 56;

    /** Bytes of the version message ({@code MAX_VERSION}). */
    public static final int VERSION_LENGTH = 16;

    /** The perftest version this implementation speaks (Debian 12's perftest 4.5-0.17 reports 6.06). */
    public static final String VERSION = "6.06";

    /** Lowest peer version accepted: perftest refuses anything older than 5.70. */
    public static final double MIN_PEER_VERSION = 5.70;

    /** Bytes of the MTU message (peers of version 5.31 and later). */
    public static final int MTU_LENGTH = 2;

    /** Bytes of each field of the bandwidth report. */
    public static final int REPORT_FIELD_LENGTH = 8;

    /** Fields of the bandwidth report, each one exchange: size, iters, peak, average, message rate. */
    public static final int REPORT_FIELDS = 5;

    private PerftestWire() {
    }

    /**
     * One side's {@code struct pingpong_dest}.
     *
     * @param lid      LID (0 on iWARP)
     * @param outReads the side's outstanding reads
     * @param qpn      QP number
     * @param psn      initial PSN (random; unused on iWARP)
     * @param rkey     STag of the buffer the peer may access
     * @param vaddr    address (TO) of that buffer
     * @param gid      16 bytes
     * @param srqn     SRQ number
     * @param gidIndex GID index
     */
    public record Dest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn,
                       int gidIndex) {

        /**
         * {@return a destination of zeros: what perftest sends in the two syncs around the test
         * connection}
         */
        public static Dest zero() {
            return new Dest(0, 0, 0, 0, 0, 0, new byte[16], 0, 0);
        }

        /** Checks the GID length. */
        public Dest {
            if (gid.length != 16) {
                throw new IllegalArgumentException("gid must be 16 bytes, was " + gid.length);
            }
            gid = gid.clone();
        }

        /** {@return a copy of the 16 GID bytes} */
        @Override
        public byte[] gid() {
            return gid.clone();
        }

        /**
         * {@return perftest's own line for a destination ({@code ctx_print_pingpong_data}), RDMA part
         * included: LID, QPN, PSN, RKey and VAddr in hex}
         */
        public String describe() {
            return String.format("LID %#06x QPN %#06x PSN %#08x RKey %#08x VAddr %#018x", lid, qpn, psn, rkey, vaddr);
        }
    }

    /**
     * Encodes a destination; the padding at 20..23 is written as zeros.
     *
     * @param d the destination
     * @return the {@value #DEST_LENGTH}-byte message
     */
    public static byte[] encodeDest(Dest d) {
        ByteBuffer b = ByteBuffer.allocate(DEST_LENGTH).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0, d.lid()).putInt(4, d.outReads()).putInt(8, d.qpn()).putInt(12, d.psn()).putInt(16, d.rkey());
        b.putLong(24, d.vaddr());
        b.put(32, d.gid());
        b.putInt(48, d.srqn()).putInt(52, d.gidIndex());
        return b.array();
    }

    /**
     * Decodes a destination; the padding at 20..23 is ignored (perftest sends stack garbage there).
     *
     * @param bytes the message; bytes beyond the first {@value #DEST_LENGTH} are ignored
     * @return the destination
     * @throws IllegalArgumentException if shorter than {@value #DEST_LENGTH}
     */
    public static Dest decodeDest(byte[] bytes) {
        requireLength(bytes, DEST_LENGTH, "pingpong_dest");
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        byte[] gid = new byte[16];
        b.get(32, gid);
        return new Dest(b.getInt(0), b.getInt(4), b.getInt(8), b.getInt(12), b.getInt(16), b.getLong(24), gid,
                b.getInt(48), b.getInt(52));
    }

    /**
     * Encodes a version message: the string NUL-padded to {@value #VERSION_LENGTH} bytes, cut to
     * {@value #VERSION_LENGTH} - 1 characters so that a NUL always ends it.
     *
     * @param version the version string, {@link #VERSION} for ours (US-ASCII)
     * @return the {@value #VERSION_LENGTH}-byte message
     */
    public static byte[] encodeVersion(String version) {
        byte[] out = new byte[VERSION_LENGTH];
        byte[] text = version.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, out, 0, Math.min(text.length, VERSION_LENGTH - 1));
        return out;
    }

    /**
     * Decodes a version message.
     *
     * @param bytes the message
     * @return the version string: the bytes up to the first NUL, at most {@value #VERSION_LENGTH} characters
     */
    public static String decodeVersion(byte[] bytes) {
        int n = 0;
        while (n < bytes.length && n < VERSION_LENGTH && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.US_ASCII);
    }

    /**
     * The version as perftest reads it ({@code atof}), for comparing with {@link #MIN_PEER_VERSION}.
     *
     * @param version a version string ({@code "6.06"})
     * @return the leading number (digits and dots), 0 if there is none or it does not parse
     */
    public static double versionNumber(String version) {
        int n = 0;
        while (n < version.length() && (Character.isDigit(version.charAt(n)) || version.charAt(n) == '.')) {
            n++;
        }
        try {
            return n == 0 ? 0 : Double.parseDouble(version.substring(0, n));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Encodes a 4-byte big-endian int message (cycle buffer, cache line size).
     *
     * @param value the int
     * @return the 4-byte message
     */
    public static byte[] encodeInt(int value) {
        return ByteBuffer.allocate(4).order(ByteOrder.BIG_ENDIAN).putInt(0, value).array();
    }

    /**
     * Decodes a 4-byte big-endian int message.
     *
     * @param bytes the message; bytes beyond the first 4 are ignored
     * @return the int
     * @throws IllegalArgumentException if shorter than 4 bytes
     */
    public static int decodeInt(byte[] bytes) {
        requireLength(bytes, 4, "int");
        return ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN).getInt(0);
    }

    /**
     * Encodes the MTU message: the {@code ibv_mtu} enum value as one decimal digit and a NUL.
     *
     * @param ibvMtu the {@code ibv_mtu} enum value: 1 = 256, 2 = 512, 3 = 1024, 4 = 2048, 5 = 4096 bytes
     * @return the {@value #MTU_LENGTH}-byte message
     * @throws IllegalArgumentException if {@code ibvMtu} is not in 1..5
     */
    public static byte[] encodeMtu(int ibvMtu) {
        if (ibvMtu < 1 || ibvMtu > 5) {
            throw new IllegalArgumentException("ibv_mtu enum is 1..5, was " + ibvMtu);
        }
        return new byte[] {(byte) ('0' + ibvMtu), 0};
    }

    /**
     * Encodes an 8-byte big-endian long message (the report's size and iterations).
     *
     * @param value the long
     * @return the 8-byte message
     */
    public static byte[] encodeLong(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN).putLong(0, value).array();
    }

    /**
     * Decodes an 8-byte big-endian long message.
     *
     * @param bytes the message; bytes beyond the first 8 are ignored
     * @return the long
     * @throws IllegalArgumentException if shorter than 8 bytes
     */
    public static long decodeLong(byte[] bytes) {
        requireLength(bytes, 8, "long");
        return ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN).getLong(0);
    }

    /**
     * Encodes an 8-byte big-endian IEEE double message (the report's rates).
     *
     * @param value the double, its bits sent as they are (NaNs not canonicalized)
     * @return the 8-byte message
     */
    public static byte[] encodeDouble(double value) {
        return encodeLong(Double.doubleToRawLongBits(value));
    }

    /**
     * Decodes an 8-byte big-endian IEEE double message.
     *
     * @param bytes the message; bytes beyond the first 8 are ignored
     * @return the double
     * @throws IllegalArgumentException if shorter than 8 bytes
     */
    public static double decodeDouble(byte[] bytes) {
        return Double.longBitsToDouble(decodeLong(bytes));
    }

    private static void requireLength(byte[] bytes, int length, String what) {
        if (bytes.length < length) {
            throw new IllegalArgumentException(what + " needs " + length + " bytes, got " + bytes.length);
        }
    }
}
