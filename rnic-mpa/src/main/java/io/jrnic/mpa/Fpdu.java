package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Flyweight over an FPDU without markers (RFC 5044 §4.1), plus the FPDU size arithmetic of
 * RFC 5044 §4.1 and §4.5. FPDUs with markers are written by {@link FpduWriter} and read by
 * {@link FpduDeframer}.
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |          ULPDU_Length         |                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *    |                                                               |
 *    ~                                                               ~
 *    ~                            ULPDU                              ~
 *    |                                                               |
 *    +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |                               |          PAD (0-3 octets)     |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |                             CRC                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * ULPDU_Length counts the ULPDU only. PAD makes {@code 2 + ULPDU_Length + PAD} a multiple of 4. The
 * CRC32c covers ULPDU_Length, ULPDU and PAD and is sent least-significant byte first; the field is
 * present even when CRCs are off (RFC 5044 §4.4).
 *
 * <p>Thread safety: not thread-safe (flyweight); the static methods are.
 */
public final class Fpdu {

    /** Offset of the 16-bit big-endian ULPDU_Length. */
    public static final int ULPDU_LENGTH_OFFSET = 0;
    /** Length of the ULPDU_Length field. */
    public static final int ULPDU_LENGTH_FIELD_LENGTH = 2;
    /** Offset of the ULPDU. */
    public static final int ULPDU_OFFSET = 2;
    /** Length of the CRC field. */
    public static final int CRC_LENGTH = 4;
    /** ULPDU_Length plus CRC: the per-FPDU overhead without pad and markers (RFC 5044 §4.5). */
    public static final int OVERHEAD = ULPDU_LENGTH_FIELD_LENGTH + CRC_LENGTH;
    /** The largest ULPDU the 16-bit length can describe. */
    public static final int MAX_ULPDU_LENGTH = 0xFFFF;
    /** MULPDU never shrinks below this (RFC 5044 §4.1, §4.5). */
    public static final int MIN_MULPDU = 128;
    /**
     * MULPDU never grows above this, whatever the EMSS: RFC 5044 §4.1 "The range of MULPDU values
     * MUST be between 128 octets and 64768 octets" and "The sending DDP MUST NOT post a ULPDU larger
     * than 64768 octets to MPA" (an FPDU must fit an IP datagram). A receiver may still be sent, and
     * accepts, ULPDUs up to {@link #MAX_ULPDU_LENGTH}.
     */
    public static final int MAX_MULPDU = 64768;
    /** FPDUs are multiples of this length. */
    public static final int ALIGNMENT = 4;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment segment;
    private long offset;

    /**
     * {@return pad octets after a ULPDU: {@code (4 - ((2 + len) mod 4)) mod 4} (RFC 5044 §4.1)}
     *
     * @param ulpduLength the ULPDU length in octets
     */
    public static int padLength(int ulpduLength) {
        return (ALIGNMENT - ((ULPDU_LENGTH_FIELD_LENGTH + ulpduLength) & (ALIGNMENT - 1))) & (ALIGNMENT - 1);
    }

    /**
     * {@return wire length of an FPDU without markers: {@code 2 + len + pad + 4}}
     *
     * @param ulpduLength the ULPDU length in octets
     */
    public static int frameLength(int ulpduLength) {
        return ULPDU_LENGTH_FIELD_LENGTH + ulpduLength + padLength(ulpduLength) + CRC_LENGTH;
    }

    /**
     * {@return an upper bound of the wire length of an FPDU with markers, whatever its stream
     * position: the frame plus one marker per started 508 octets plus one}
     *
     * @param ulpduLength the ULPDU length in octets
     * @param markers whether the stream carries markers (RFC 5044 §4.3)
     */
    public static int maxWireLength(int ulpduLength, boolean markers) {
        int frame = frameLength(ulpduLength);
        if (!markers) {
            return frame;
        }
        int perInterval = Markers.MARKER_INTERVAL - Markers.MARKER_LENGTH;
        return frame + Markers.MARKER_LENGTH * ((frame + perInterval - 1) / perInterval + 1);
    }

    /**
     * {@return MULPDU for an EMSS (RFC 5044 §4.5): {@code EMSS - (6 + EMSS mod 4)} without markers,
     * {@code EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4)} with markers, never below
     * {@link #MIN_MULPDU} 128 (§4.5) and never above {@link #MAX_MULPDU} 64768 (§4.1): the largest
     * ULPDU a sender may post}
     *
     * @param emss the effective maximum segment size of the TCP connection
     * @param markers whether the stream carries markers (RFC 5044 §4.3)
     * @throws IllegalArgumentException if emss is not positive
     */
    public static int mulpdu(int emss, boolean markers) {
        if (emss <= 0) {
            throw new IllegalArgumentException("EMSS must be positive: " + emss);
        }
        int overhead = OVERHEAD + (emss & (ALIGNMENT - 1));
        if (markers) {
            overhead += Markers.MARKER_LENGTH * ((emss + Markers.MARKER_INTERVAL - 1) / Markers.MARKER_INTERVAL);
        }
        // RFC 5044 §4.1: 128..64768 inclusive; the upper bound is reached from EMSS 64776 on
        return Math.min(MAX_MULPDU, Math.max(MIN_MULPDU, emss - overhead));
    }

    /** Creates an unwrapped flyweight; {@link #wrap} it over an FPDU before use. */
    public Fpdu() {
    }

    /**
     * Points this flyweight at an FPDU.
     *
     * @param segment the memory that holds the FPDU
     * @param offset the offset of the FPDU (its ULPDU_Length field) in {@code segment}
     * @return this
     */
    public Fpdu wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** {@return the wrapped segment} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return offset of the FPDU in {@link #segment()}} */
    public long offset() {
        return offset;
    }

    /** {@return ULPDU_Length} */
    public int ulpduLength() {
        return segment.get(U16, offset + ULPDU_LENGTH_OFFSET) & 0xFFFF;
    }

    /**
     * Writes ULPDU_Length.
     *
     * @param length the ULPDU length in octets
     * @return this
     */
    public Fpdu ulpduLength(int length) {
        segment.set(U16, offset + ULPDU_LENGTH_OFFSET, (short) length);
        return this;
    }

    /** {@return absolute offset of the ULPDU in {@link #segment()}} */
    public long ulpduOffset() {
        return offset + ULPDU_OFFSET;
    }

    /** {@return absolute offset of the CRC field, from the current ULPDU_Length} */
    public long crcOffset() {
        int len = ulpduLength();
        return offset + ULPDU_OFFSET + len + padLength(len);
    }

    /** {@return wire length of this FPDU from its ULPDU_Length} */
    public int frameLength() {
        return frameLength(ulpduLength());
    }

    /** {@return the CRC value carried in the CRC field (converted from its wire order)} */
    public int crc() {
        return Crc32c.fromWire(segment.get(U32, crcOffset()));
    }

    /**
     * Writes a CRC value into the CRC field in wire order (least-significant byte first).
     *
     * @param value the CRC value
     * @return this
     */
    public Fpdu crc(int value) {
        segment.set(U32, crcOffset(), Crc32c.toWire(value));
        return this;
    }

    /**
     * Zeroes the pad octets (RFC 5044 §4.1: sent as zero).
     *
     * @return this
     */
    public Fpdu clearPad() {
        int len = ulpduLength();
        long padOffset = offset + ULPDU_OFFSET + len;
        for (int i = 0, pad = padLength(len); i < pad; i++) {
            segment.set(ValueLayout.JAVA_BYTE, padOffset + i, (byte) 0);
        }
        return this;
    }

    /**
     * Computes the CRC32c over ULPDU_Length, ULPDU and PAD (allocates a checksum; not for the data path).
     *
     * @return the CRC32c value
     */
    public int computeCrc() {
        return Crc32c.compute(segment, offset, crcOffset() - offset);
    }

    /**
     * Checks a received FPDU lying whole in the segment.
     *
     * @param crcEnabled whether CRCs were negotiated; when off the field is never checked
     * @return {@code null} if valid, else {@link MpaError#CRC_MISMATCH}
     */
    public MpaError verify(boolean crcEnabled) {
        if (crcEnabled && computeCrc() != crc()) {
            return MpaError.CRC_MISMATCH;
        }
        return null;
    }
}
