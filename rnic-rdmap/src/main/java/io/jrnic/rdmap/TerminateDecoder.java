package io.jrnic.rdmap;

import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.mpa.MpaError;
import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Parses a received Terminate header (the RDMAP message after the untagged DDP header on QN 2,
 * RFC 5040 §4.8; layout in {@link TerminateHeaderFlyweight}) into reusable fields, in one of two
 * modes:
 *
 * <ul>
 *   <li><b>Strict</b>: RFC 5040 bit order; the message length must equal exactly what M, D, R and
 *       the copied DDP header's T bit describe; the control field must name a registered error
 *       (RFC 5040 Figure 9, RFC 6580 §3). Reserved bits are ignored as the RFC requires.</li>
 *   <li><b>Lenient</b> (the default for received Terminates, design-notes "Interop defaults"):
 *       detects Linux siw's bit order with {@link #detectBitOrder}, reads only the parts whose bits
 *       are set and that fit, and ignores trailing bytes (checklist AMB-08, wire-format.md §7
 *       item 7). It fails only on a message shorter than the 4-byte control word.</li>
 * </ul>
 *
 * Linux siw fills the control word through little-endian C bit-fields, so on x86 the Layer sits in
 * the low nibble and the Error Type in the high nibble of byte 0, and M/D/R are bits 0x01/0x02/0x04
 * of byte 2 instead of 0x80/0x40/0x20 (interop README). Its length field, copied DDP header and
 * copied RDMA header are laid out as in the RFC.
 *
 * <p>Errors are returned as values: {@link #decode} returns {@code null} on success or
 * {@link RdmapError#OPERATION_UNSPECIFIED} for a malformed Terminate. A malformed Terminate is
 * surfaced locally only, never answered with another Terminate (R-TERM-048). After a failed strict
 * decode the fields hold what could be read. Decoding allocates nothing. Not thread-safe: use one
 * instance per thread.
 */
public final class TerminateDecoder {

    /** The bit order of a received Terminate control word. */
    public enum BitOrder {
        /** RFC 5040 §4.8: Layer in the high nibble of byte 0, M/D/R = 0x80/0x40/0x20 of byte 2. */
        RFC_5040,
        /** Linux siw on little-endian hosts: Layer in the low nibble, M/D/R = 0x01/0x02/0x04. */
        LINUX_SIW
    }

    private static final int RFC_HDRCT_MASK = 0xE0;
    private static final int SIW_HDRCT_MASK = 0x07;
    private static final int SIW_M = 0x01;
    private static final int SIW_D = 0x02;
    private static final int SIW_R = 0x04;

    private final boolean lenient;

    private MemorySegment segment;
    private BitOrder bitOrder;
    private int layer;
    private int errorType;
    private int errorCode;
    private boolean m;
    private boolean d;
    private boolean r;
    private IwarpError error;
    private int ddpSegmentLength;
    private long ddpHeaderOffset;
    private int ddpHeaderLength;
    private long rdmaHeaderOffset;

    private TerminateDecoder(boolean lenient) {
        this.lenient = lenient;
        reset(null);
    }

    /** {@return a decoder that accepts only RFC 5040 Terminates, exactly as specified} */
    public static TerminateDecoder strict() {
        return new TerminateDecoder(false);
    }

    /**
     * {@return a decoder that also understands Linux siw's bit order and tolerates missing or extra
     * parts}
     */
    public static TerminateDecoder lenient() {
        return new TerminateDecoder(true);
    }

    /** {@return whether this decoder is lenient} */
    public boolean isLenient() {
        return lenient;
    }

    /**
     * Decodes a Terminate that was not the first FPDU of the stream; see
     * {@link #decode(MemorySegment, long, int, boolean)}.
     *
     * @param segment the memory that holds the received Terminate header
     * @param offset the offset of the Terminate header (after the DDP header) in {@code segment}
     * @param length the RDMAP message length after the DDP header, as DDP reported it
     * @return {@code null} if the Terminate was decoded, else {@link RdmapError#OPERATION_UNSPECIFIED}
     */
    public RdmapError decode(MemorySegment segment, long offset, int length) {
        return decode(segment, offset, length, false);
    }

    /**
     * Decodes the Terminate header of {@code length} bytes at {@code offset}.
     *
     * @param segment the memory that holds the received Terminate header
     * @param offset the offset of the Terminate header (after the DDP header) in {@code segment}
     * @param length   the RDMAP message length after the DDP header, as DDP reported it
     * @param firstFpdu whether this Terminate is the first FPDU the peer sent after the MPA Reply or
     *                 Request exchange; only there can an RFC 6581 setup error (LLP 2/0/5..7) occur,
     *                 which breaks ties of the lenient bit-order detection ({@link #detectBitOrder})
     * @return {@code null} if the Terminate was decoded, else {@link RdmapError#OPERATION_UNSPECIFIED}
     *         (shorter than 4 bytes; in strict mode also a length that disagrees with M/D/R or an
     *         unregistered control value)
     */
    public RdmapError decode(MemorySegment segment, long offset, int length, boolean firstFpdu) {
        reset(segment);
        if (length < TerminateHeaderFlyweight.MIN_LENGTH || offset < 0 || offset + length > segment.byteSize()) {
            return RdmapError.OPERATION_UNSPECIFIED;
        }
        int b0 = segment.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
        int b1 = segment.get(ValueLayout.JAVA_BYTE, offset + 1) & 0xFF;
        int b2 = segment.get(ValueLayout.JAVA_BYTE, offset + 2) & 0xFF;
        bitOrder = lenient ? detectBitOrder(b0, b1, b2, firstFpdu) : BitOrder.RFC_5040;
        if (bitOrder == BitOrder.RFC_5040) {
            layer = b0 >>> 4;
            errorType = b0 & 0xF;
            m = (b2 & 0x80) != 0;
            d = (b2 & 0x40) != 0;
            r = (b2 & 0x20) != 0;
        } else {
            layer = b0 & 0xF;
            errorType = b0 >>> 4;
            m = (b2 & SIW_M) != 0;
            d = (b2 & SIW_D) != 0;
            r = (b2 & SIW_R) != 0;
        }
        errorCode = b1;
        error = IwarpErrors.fromWire(layer, errorType, errorCode);

        boolean complete = parseParts(segment, offset, length);
        if (lenient) {
            return null;
        }
        return complete && error != null ? null : RdmapError.OPERATION_UNSPECIFIED;
    }

    /** Reads the optional parts; returns whether they exactly fill {@code length}. */
    private boolean parseParts(MemorySegment segment, long offset, int length) {
        int position = TerminateHeaderFlyweight.MIN_LENGTH;
        boolean complete = true;
        if (m || d) {
            if (position + TerminateHeaderFlyweight.DDP_SEGMENT_LENGTH_SIZE <= length) {
                ddpSegmentLength = segment.get(RdmapHeaderFlyweight.SHORT_BE, offset + position) & 0xFFFF;
                position += TerminateHeaderFlyweight.DDP_SEGMENT_LENGTH_SIZE;
            } else {
                return false;
            }
        }
        if (d) {
            int ddpLength = position < length
                    ? DdpHeaderFlyweight.headerLength(segment.get(ValueLayout.JAVA_BYTE, offset + position) & 0xFF)
                    : Integer.MAX_VALUE;
            if (ddpLength <= length - position) {
                ddpHeaderOffset = offset + position;
                ddpHeaderLength = ddpLength;
                position += ddpLength;
            } else {
                return false;
            }
        }
        if (r) {
            if (ReadRequestHeaderFlyweight.HEADER_LENGTH <= length - position) {
                rdmaHeaderOffset = offset + position;
                position += ReadRequestHeaderFlyweight.HEADER_LENGTH;
            } else {
                complete = false;
            }
        }
        return complete && position == length;
    }

    /**
     * Decides the bit order of a received control word (the lenient heuristic, docs/rdmap.md):
     * <ol>
     *   <li>Byte 2 first: an RFC sender sets only bits 0xE0 of it (the low 5 bits are reserved and
     *       sent as zero), siw only bits 0x07. If exactly one of the two groups is non-zero, it
     *       decides.</li>
     *   <li>Otherwise the nibbles of byte 0: if only one reading names a registered error
     *       ({@link IwarpErrors#fromWire}), that reading wins. Example: {@code 02 02 00 00} is
     *       0/2/0x02 (unregistered) in RFC order but MPA CRC error 2/0/0x02 in siw order.</li>
     *   <li>If both readings are registered (only the words {@code 20|02 05..07} and
     *       {@code 10|01 00}), an RFC 6581 connection-setup error (LLP 2/0/0x05-0x07) is believed
     *       only for the first FPDU of the stream, where alone it can occur: so {@code 20 06 00 00}
     *       is siw's 0/2/0x06 Unexpected OpCode on an established stream, and RFC's 2/0/0x06
     *       Insufficient IRD as the first FPDU; {@code 02 06 00 00} the other way round.</li>
     *   <li>Still tied and no header bits set: a local catastrophic reading wins, because RFC 5040
     *       Figure 10 sends headers with every other RDMAP and DDP error. So {@code 01 00 00 00} is
     *       siw's DDP Local Catastrophic 1/0/0x00 and {@code 10 00 00 00} RFC's.</li>
     *   <li>Everything else (symmetric nibbles, both or neither reading registered): RFC order.</li>
     * </ol>
     *
     * @param b0 byte 0 of the control word
     * @param b1 byte 1 (the Error Code in both orders)
     * @param b2 byte 2 (the header-control bits)
     * @param firstFpdu whether the Terminate is the peer's first FPDU
     *
     * @return the bit order the control word was sent in
     */
    public static BitOrder detectBitOrder(int b0, int b1, int b2, boolean firstFpdu) {
        boolean rfcBits = (b2 & RFC_HDRCT_MASK) != 0;
        boolean siwBits = (b2 & SIW_HDRCT_MASK) != 0;
        if (rfcBits != siwBits) {
            return rfcBits ? BitOrder.RFC_5040 : BitOrder.LINUX_SIW;
        }
        IwarpError rfc = IwarpErrors.fromWire(b0 >>> 4, b0 & 0xF, b1);
        IwarpError siw = IwarpErrors.fromWire(b0 & 0xF, b0 >>> 4, b1);
        if ((rfc == null) != (siw == null)) {
            return rfc != null ? BitOrder.RFC_5040 : BitOrder.LINUX_SIW;
        }
        if (rfc != null && isSetupError(rfc) != isSetupError(siw)) {
            return isSetupError(rfc) == firstFpdu ? BitOrder.RFC_5040 : BitOrder.LINUX_SIW;
        }
        if (rfc != null && !rfcBits && IwarpErrors.isLocalCatastrophic(rfc) != IwarpErrors.isLocalCatastrophic(siw)) {
            return IwarpErrors.isLocalCatastrophic(rfc) ? BitOrder.RFC_5040 : BitOrder.LINUX_SIW;
        }
        return BitOrder.RFC_5040;
    }

    /** RFC 6581 §8: the MPA errors of enhanced connection setup, sent only as the first FPDU. */
    private static boolean isSetupError(IwarpError error) {
        return error.layer() == TerminateLayer.LLP && (error == MpaError.LOCAL_CATASTROPHIC
                || error == MpaError.INSUFFICIENT_IRD || error == MpaError.NO_MATCHING_RTR);
    }

    private void reset(MemorySegment segment) {
        this.segment = segment;
        bitOrder = null;
        layer = -1;
        errorType = -1;
        errorCode = -1;
        m = false;
        d = false;
        r = false;
        error = null;
        ddpSegmentLength = -1;
        ddpHeaderOffset = -1;
        ddpHeaderLength = 0;
        rdmaHeaderOffset = -1;
    }

    /** {@return the bit order the last Terminate was read in} */
    public BitOrder bitOrder() {
        return bitOrder;
    }

    /** {@return the 4-bit Layer, or -1 before a decode} */
    public int layer() {
        return layer;
    }

    /** {@return the 4-bit Error Type, or -1 before a decode} */
    public int errorType() {
        return errorType;
    }

    /** {@return the 8-bit Error Code, or -1 before a decode} */
    public int errorCode() {
        return errorCode;
    }

    /**
     * {@return the registered error named by the control field, or {@code null} if it names none}
     */
    public IwarpError error() {
        return error;
    }

    /** {@return the M bit: the sender marked the DDP Segment Length valid} */
    public boolean segmentLengthValid() {
        return m;
    }

    /** {@return the D bit: the sender included the Terminated DDP Header} */
    public boolean ddpHeaderIncluded() {
        return d;
    }

    /** {@return the R bit: the sender included the Terminated RDMA Header} */
    public boolean rdmaHeaderIncluded() {
        return r;
    }

    /**
     * {@return the DDP Segment Length, or -1 if absent} For information only: RFC 5040 says "the
     * length handed up by DDP" and siw sends the payload length (wire-format.md §4.5).
     */
    public int ddpSegmentLength() {
        return ddpSegmentLength;
    }

    /** {@return whether a copied DDP header was found} */
    public boolean hasDdpHeader() {
        return ddpHeaderOffset >= 0;
    }

    /** {@return the absolute offset of the copied DDP header, or -1} */
    public long ddpHeaderOffset() {
        return ddpHeaderOffset;
    }

    /** {@return the length of the copied DDP header: 14, 18, or 0 if absent} */
    public int ddpHeaderLength() {
        return ddpHeaderLength;
    }

    /** {@return whether the copied DDP header is tagged (T=1); false if absent} */
    public boolean ddpHeaderTagged() {
        return ddpHeaderLength == TaggedHeaderFlyweight.HEADER_LENGTH;
    }

    /** {@return whether a copied RDMA (Read Request) header was found} */
    public boolean hasRdmaHeader() {
        return rdmaHeaderOffset >= 0;
    }

    /** {@return the absolute offset of the copied Read Request header, or -1} */
    public long rdmaHeaderOffset() {
        return rdmaHeaderOffset;
    }

    /**
     * Wraps a tagged flyweight over the copied DDP header.
     *
     * @param header the flyweight to wrap
     * @return {@code header}, wrapped
     * @throws IllegalStateException if there is no copied header or it is untagged
     */
    public TaggedHeaderFlyweight wrapDdpHeader(TaggedHeaderFlyweight header) {
        if (!hasDdpHeader() || !ddpHeaderTagged()) {
            throw new IllegalStateException("the Terminate carries no tagged DDP header");
        }
        return header.wrap(segment, ddpHeaderOffset);
    }

    /**
     * Wraps an untagged flyweight over the copied DDP header.
     *
     * @param header the flyweight to wrap
     * @return {@code header}, wrapped
     * @throws IllegalStateException if there is no copied header or it is tagged
     */
    public UntaggedHeaderFlyweight wrapDdpHeader(UntaggedHeaderFlyweight header) {
        if (!hasDdpHeader() || ddpHeaderTagged()) {
            throw new IllegalStateException("the Terminate carries no untagged DDP header");
        }
        return header.wrap(segment, ddpHeaderOffset);
    }

    /**
     * Wraps a Read Request flyweight over the copied RDMA header.
     *
     * @param header the flyweight to wrap
     * @return {@code header}, wrapped
     * @throws IllegalStateException if there is none
     */
    public ReadRequestHeaderFlyweight wrapRdmaHeader(ReadRequestHeaderFlyweight header) {
        if (!hasRdmaHeader()) {
            throw new IllegalStateException("the Terminate carries no RDMA header");
        }
        return header.wrap(segment, rdmaHeaderOffset);
    }

    @Override
    public String toString() {
        return String.format("Terminate[%s %d/%d/0x%02x M=%b D=%b R=%b length=%d ddp=%d rdma=%b]", bitOrder,
                layer, errorType, errorCode, m, d, r, ddpSegmentLength, ddpHeaderLength, hasRdmaHeader());
    }
}
