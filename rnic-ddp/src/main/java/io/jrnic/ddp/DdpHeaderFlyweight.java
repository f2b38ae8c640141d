package io.jrnic.ddp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What tagged and untagged DDP headers share: the DDP control byte and the first byte of RsvdULP
 * (RFC 5041 §4.1, Figure 3; §4.2 and §4.3), which RDMAP uses as its own control byte (RFC 5040 §4.1).
 *
 * <pre>
 *  0                   1
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
 * +-+-+-------+---+---------------+
 * |T|L| Resrv |DV | RsvdULP[0:7]  |
 * +-+-+-------+---+---------------+
 * </pre>
 *
 * <p>A flyweight is re-wrapped over each header it reads or writes; it holds no state of its own.
 * Multi-byte fields are big-endian, in the bit order of the RFC 5041 §4 figures. Not thread-safe:
 * use one instance per thread.
 */
public abstract sealed class DdpHeaderFlyweight permits TaggedHeaderFlyweight, UntaggedHeaderFlyweight {

    /** Offset of the DDP control byte. */
    public static final int CONTROL_OFFSET = 0;
    /** Offset of RsvdULP[0:7], the RDMAP control byte. */
    public static final int RSVD_ULP_OFFSET = 1;

    /** Tagged flag in the control byte (RFC 5041 §4.1). */
    public static final int T_FLAG = 0x80;
    /** Last flag in the control byte (RFC 5041 §4.1). */
    public static final int L_FLAG = 0x40;
    /** Mask of the reserved bits, sent as zero and not checked on receive (RFC 5041 §4.1). */
    public static final int RESERVED_MASK = 0x3C;
    /** Mask of the DDP version field. */
    public static final int DV_MASK = 0x03;
    /** The DDP version of RFC 5041. */
    public static final int VERSION_IETF = 1;
    /** The DDP version of the RDMA Consortium specification. */
    public static final int VERSION_RDMAC = 0;

    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    MemorySegment segment;
    long offset;

    DdpHeaderFlyweight() {
    }

    /**
     * {@return whether the first byte of a DDP header has the T flag set (RFC 5041 §4.1)}
     *
     * @param controlByte the first octet of the DDP header
     */
    public static boolean isTagged(int controlByte) {
        return (controlByte & T_FLAG) != 0;
    }

    /**
     * {@return the length of the DDP header that starts with this control byte: 14 tagged, 18
     * untagged}
     *
     * @param controlByte the first octet of the DDP header
     */
    public static int headerLength(int controlByte) {
        return isTagged(controlByte) ? TaggedHeaderFlyweight.HEADER_LENGTH : UntaggedHeaderFlyweight.HEADER_LENGTH;
    }

    /** {@return the length of this flyweight's header} */
    public abstract int headerLength();

    /** {@return the segment this flyweight is wrapped over} */
    public final MemorySegment segment() {
        return segment;
    }

    /** {@return the offset of the header in {@link #segment()}} */
    public final long offset() {
        return offset;
    }

    final void wrap0(MemorySegment segment, long offset) {
        if (offset < 0 || offset + headerLength() > segment.byteSize()) {
            throw new IndexOutOfBoundsException("DDP header of " + headerLength() + " bytes at " + offset
                    + " does not fit a segment of " + segment.byteSize() + " bytes");
        }
        this.segment = segment;
        this.offset = offset;
    }

    /** {@return the raw DDP control byte} */
    public final int control() {
        return segment.get(ValueLayout.JAVA_BYTE, offset + CONTROL_OFFSET) & 0xFF;
    }

    /** {@return the T flag: true for the tagged buffer model} */
    public final boolean tagged() {
        return (control() & T_FLAG) != 0;
    }

    /** {@return the L flag: true on the last segment of a DDP message} */
    public final boolean last() {
        return (control() & L_FLAG) != 0;
    }

    /** {@return the DDP version (DV)} */
    public final int version() {
        return control() & DV_MASK;
    }

    /** {@return RsvdULP[0:7]: the RDMAP control byte} */
    public final int rsvdUlp() {
        return segment.get(ValueLayout.JAVA_BYTE, offset + RSVD_ULP_OFFSET) & 0xFF;
    }

    final void control(boolean tagged, boolean last, int version) {
        int value = (tagged ? T_FLAG : 0) | (last ? L_FLAG : 0) | (version & DV_MASK);
        segment.set(ValueLayout.JAVA_BYTE, offset + CONTROL_OFFSET, (byte) value);
    }

    final void rsvdUlp0(int value) {
        segment.set(ValueLayout.JAVA_BYTE, offset + RSVD_ULP_OFFSET, (byte) value);
    }
}
