package io.jrnic.rdmap;

import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The Terminate header that follows the untagged DDP header (QN 2) of a Terminate message
 * (RFC 5040 §4.8, Figures 7 and 8), in the RFC's bit order. This class writes Terminates; received
 * ones are parsed by {@link TerminateDecoder}, which also understands Linux siw's bit order.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | Layer | EType |  Error Code   |M|D|R|       Reserved          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  DDP Segment Length  (if any) |                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 * |                                                               |
 * //                                                             //
 * |                  Terminated DDP Header (if any)               |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * //                                                             //
 * |                 Terminated RDMA Header (if any)               |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * As one big-endian word the control field is
 * {@code Layer<<28 | EType<<24 | Code<<16 | M<<15 | D<<14 | R<<13}. Layout rules (RFC 5040 §4.8):
 * the 16-bit DDP Segment Length is present when M or D is set (it "MUST be valid if M" and "MUST be
 * present when D"); the copied DDP header (14 bytes if its T bit is set, else 18) follows when D is
 * set; the 28-byte copied Read Request header follows when R is set. With M=D=R=0 the header is the
 * 4-byte control word alone, which is also what Linux siw sends.
 *
 * <p>{@link #encode} chooses M, D and R from the error as in RFC 5040 Figure 10 (wire-format.md
 * §4.5 "Which parts to include"). Not thread-safe: use one instance per thread.
 */
public final class TerminateHeaderFlyweight extends RdmapHeaderFlyweight {

    /** Offset of the 32-bit control word (Terminate Control and Reserved). */
    public static final int CONTROL_OFFSET = 0;
    /** Offset of the DDP Segment Length when present. */
    public static final int DDP_SEGMENT_LENGTH_OFFSET = 4;
    /** Offset of the Terminated DDP Header when D is set (the length field always precedes it). */
    public static final int DDP_HEADER_OFFSET = 6;
    /** Length of the control word: the shortest Terminate header. */
    public static final int MIN_LENGTH = 4;
    /** Length of the DDP Segment Length field. */
    public static final int DDP_SEGMENT_LENGTH_SIZE = 2;
    /** Length of the longest Terminate header: 4 + 2 + 18 + 28. */
    public static final int MAX_LENGTH = MIN_LENGTH + DDP_SEGMENT_LENGTH_SIZE + UntaggedHeaderFlyweight.HEADER_LENGTH
            + ReadRequestHeaderFlyweight.HEADER_LENGTH;

    /** Shift of the Layer in the control word. */
    public static final int LAYER_SHIFT = 28;
    /** Shift of the Error Type in the control word. */
    public static final int ERROR_TYPE_SHIFT = 24;
    /** Shift of the Error Code in the control word. */
    public static final int ERROR_CODE_SHIFT = 16;
    /** M bit (bit 16): DDP Segment Length valid. Byte 2 mask 0x80. */
    public static final int M_FLAG = 1 << 15;
    /** D bit (bit 17): DDP header included. Byte 2 mask 0x40. */
    public static final int D_FLAG = 1 << 14;
    /** R bit (bit 18): RDMAP header included. Byte 2 mask 0x20. */
    public static final int R_FLAG = 1 << 13;
    /** Mask of the 13 reserved bits, sent as zero and ignored on receive (R-TERM-005). */
    public static final int RESERVED_MASK = 0x1FFF;

    /** Creates an unwrapped flyweight; wrap it over a header before use. */
    public TerminateHeaderFlyweight() {
    }

    /**
     * Wraps a Terminate header that starts at {@code offset}; at least the 4-byte control word must fit.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public TerminateHeaderFlyweight wrap(MemorySegment segment, long offset) {
        wrap0(segment, offset, MIN_LENGTH);
        return this;
    }

    /** {@return the raw 32-bit control word} */
    public int controlWord() {
        return getInt(CONTROL_OFFSET);
    }

    /** {@return the 4-bit Layer} */
    public int layer() {
        return controlWord() >>> LAYER_SHIFT;
    }

    /** {@return the 4-bit Error Type} */
    public int errorType() {
        return controlWord() >>> ERROR_TYPE_SHIFT & 0xF;
    }

    /** {@return the 8-bit Error Code} */
    public int errorCode() {
        return controlWord() >>> ERROR_CODE_SHIFT & 0xFF;
    }

    /** {@return M: the DDP Segment Length is valid} */
    public boolean segmentLengthValid() {
        return (controlWord() & M_FLAG) != 0;
    }

    /** {@return D: the Terminated DDP Header is included} */
    public boolean ddpHeaderIncluded() {
        return (controlWord() & D_FLAG) != 0;
    }

    /** {@return R: the Terminated RDMA Header is included} */
    public boolean rdmaHeaderIncluded() {
        return (controlWord() & R_FLAG) != 0;
    }

    /** {@return the registered error named by the control word, or {@code null}} */
    public IwarpError error() {
        return IwarpErrors.fromWire(layer(), errorType(), errorCode());
    }

    /**
     * Writes the control word for this error and header-control bits; reserved bits zero.
     *
     * @param error the error to report
     * @param m the M bit: an MPA segment is copied into the Terminate
     * @param d the D bit: a DDP header is copied into the Terminate
     * @param r the R bit: an RDMA Read Request header is copied into the Terminate
     * @return this flyweight
     */
    public TerminateHeaderFlyweight control(IwarpError error, boolean m, boolean d, boolean r) {
        putInt(CONTROL_OFFSET, controlWord(error, m, d, r));
        return this;
    }

    /** {@return the DDP Segment Length (unsigned 16 bits); only meaningful when M or D is set} */
    public int ddpSegmentLength() {
        return segment.get(SHORT_BE, offset + DDP_SEGMENT_LENGTH_OFFSET) & 0xFFFF;
    }

    /**
     * Writes the DDP Segment Length (low 16 bits of the value).
     *
     * @param length the DDP Segment Length to report
     * @return this flyweight
     */
    public TerminateHeaderFlyweight ddpSegmentLength(int length) {
        segment.set(SHORT_BE, offset + DDP_SEGMENT_LENGTH_OFFSET, (short) length);
        return this;
    }

    /**
     * {@return the length of this header as its control word and the copied DDP header's T bit
     * describe it (RFC 5040 §4.8 layout rules above)}
     */
    public int length() {
        int word = controlWord();
        boolean d = (word & D_FLAG) != 0;
        int ddpLength = d ? DdpHeaderFlyweight.headerLength(
                segment.get(ValueLayout.JAVA_BYTE, offset + DDP_HEADER_OFFSET) & 0xFF) : 0;
        return length(word, ddpLength);
    }

    /**
     * {@return the Terminate header length for a control word and the length of the copied DDP
     * header (used only when D is set)}
     *
     * @param controlWord the Terminate control word
     * @param ddpHeaderLength the length of the copied DDP header: 14 or 18
     */
    public static int length(int controlWord, int ddpHeaderLength) {
        boolean m = (controlWord & M_FLAG) != 0;
        boolean d = (controlWord & D_FLAG) != 0;
        boolean r = (controlWord & R_FLAG) != 0;
        return MIN_LENGTH + (m || d ? DDP_SEGMENT_LENGTH_SIZE : 0) + (d ? ddpHeaderLength : 0)
                + (r ? ReadRequestHeaderFlyweight.HEADER_LENGTH : 0);
    }

    /**
     * {@return the control word for an error and header-control bits, RFC 5040 bit order}
     *
     * @param error the error to report
     * @param m the M bit: an MPA segment is copied into the Terminate
     * @param d the D bit: a DDP header is copied into the Terminate
     * @param r the R bit: an RDMA Read Request header is copied into the Terminate
     */
    public static int controlWord(IwarpError error, boolean m, boolean d, boolean r) {
        return error.terminateCodeBits() << ERROR_CODE_SHIFT | (m ? M_FLAG : 0) | (d ? D_FLAG : 0) | (r ? R_FLAG : 0);
    }

    /**
     * The header-control bits (M, D, R as in the control word) that RFC 5040 Figure 10 asks for:
     * <ul>
     *   <li>local catastrophic errors (RDMAP 0/0, DDP 1/0) and LLP errors (layer 2): none;</li>
     *   <li>DDP errors and RDMAP remote operation errors: M and D, when the failed DDP header is
     *       known ("yes, if possible");</li>
     *   <li>RDMAP remote protection errors: M and D as above, and R when the failed message was a
     *       Read Request (RFC 5040 §4.8: the RDMA header is sent back only for Read Requests, so a
     *       Send with Invalidate gets R=0, checklist AMB-07).</li>
     * </ul>
     * An error raised while creating an outbound message has no failed header: M=D=R=0 (RFC 5040
     * §7.1 case 1, AMB-08).
     *
     * @param error the error to report
     * @param haveDdpHeader    whether the failed segment's DDP header is available
     * @param haveReadRequest  whether the failed message is a Read Request and its header is available
     *
     * @return the M, D and R bits, positioned as in the control word
     */
    public static int headerControl(IwarpError error, boolean haveDdpHeader, boolean haveReadRequest) {
        if (!haveDdpHeader || error.layer() == TerminateLayer.LLP || IwarpErrors.isLocalCatastrophic(error)) {
            return 0;
        }
        boolean rdmaHeader = haveReadRequest && error.layer() == TerminateLayer.RDMAP
                && error.errorType() == RdmapError.TYPE_REMOTE_PROTECTION;
        return M_FLAG | D_FLAG | (rdmaHeader ? R_FLAG : 0);
    }

    /**
     * Writes a complete Terminate header for an error, choosing M, D and R with
     * {@link #headerControl} and copying the failed headers.
     *
     * @param error            the first error of the stream, of any layer
     * @param failedDdpHeader  the DDP header of the failed inbound segment, wrapped where it was
     *                         received, or {@code null} for an error not tied to an inbound segment
     * @param ddpSegmentLength the length DDP handed up for the failed segment (RFC 5040 §4.8; this
     *                         project sends the segment's payload length after the DDP and RDMAP
     *                         headers, as Linux siw does, wire-format.md §4.5)
     * @param failedReadRequest the Read Request header of the failed message, already updated with
     *                         {@link ReadRequestHeaderFlyweight#advance} if the Read was partly
     *                         served, or {@code null}; used only for remote protection errors
     * @return the number of bytes written
     * @throws IllegalArgumentException  if a Read Request header is given for a failed segment that is
     *                                   not an untagged Read Request, or the segment length exceeds 16 bits
     * @throws IndexOutOfBoundsException if the header does not fit the wrapped segment
     */
    public int encode(IwarpError error, DdpHeaderFlyweight failedDdpHeader, int ddpSegmentLength,
                      ReadRequestHeaderFlyweight failedReadRequest) {
        if (failedReadRequest != null && (failedDdpHeader == null || failedDdpHeader.tagged()
                || (failedDdpHeader.rsvdUlp() & RdmapControl.OPCODE_MASK) != RdmapOpcode.READ_REQUEST.wireValue())) {
            throw new IllegalArgumentException("a Terminated RDMA Header is only sent for a failed Read Request");
        }
        if ((ddpSegmentLength & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("DDP Segment Length must fit 16 bits, was " + ddpSegmentLength);
        }
        int hdrCt = headerControl(error, failedDdpHeader != null, failedReadRequest != null);
        int ddpLength = failedDdpHeader == null ? 0 : failedDdpHeader.headerLength();
        int word = error.terminateCodeBits() << ERROR_CODE_SHIFT | hdrCt;
        int length = length(word, ddpLength);
        if (offset + length > segment.byteSize()) {
            throw new IndexOutOfBoundsException("Terminate of " + length + " bytes at " + offset
                    + " does not fit a segment of " + segment.byteSize() + " bytes");
        }
        putInt(CONTROL_OFFSET, word);
        int position = MIN_LENGTH;
        if ((hdrCt & (M_FLAG | D_FLAG)) != 0) {
            ddpSegmentLength(ddpSegmentLength);
            position += DDP_SEGMENT_LENGTH_SIZE;
        }
        if ((hdrCt & D_FLAG) != 0) {
            MemorySegment.copy(failedDdpHeader.segment(), failedDdpHeader.offset(), segment, offset + position,
                    ddpLength);
            position += ddpLength;
        }
        if ((hdrCt & R_FLAG) != 0) {
            MemorySegment.copy(failedReadRequest.segment(), failedReadRequest.offset(), segment, offset + position,
                    ReadRequestHeaderFlyweight.HEADER_LENGTH);
            position += ReadRequestHeaderFlyweight.HEADER_LENGTH;
        }
        return position;
    }

    @Override
    public String toString() {
        return segment == null ? "TerminateHeader[unwrapped]" : String.format(
                "TerminateHeader[%d/%d/0x%02x M=%b D=%b R=%b]", layer(), errorType(), errorCode(),
                segmentLengthValid(), ddpHeaderIncluded(), rdmaHeaderIncluded());
    }
}
