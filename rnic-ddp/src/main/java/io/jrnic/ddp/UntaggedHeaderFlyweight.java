package io.jrnic.ddp;

import java.lang.foreign.MemorySegment;

/**
 * The 18-byte DDP untagged buffer model header (RFC 5041 §4.3, Figure 5).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |T|L| Resrv | DV| RsvdULP[0:7]  |            RsvdULP[8:39]      |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |           QN                  |  (32 bits)
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          MSN                  |  (32 bits)
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |           MO                  |  (32 bits)
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * RDMAP carries the Invalidate STag of Send with Invalidate in RsvdULP[8:39] (RFC 5040 §4.1).
 * Not thread-safe: use one instance per thread.
 */
public final class UntaggedHeaderFlyweight extends DdpHeaderFlyweight {

    /** Offset of RsvdULP[8:39], RDMAP's Invalidate STag. */
    public static final int RSVD_ULP_WORD_OFFSET = 2;
    /** Offset of the Queue Number. */
    public static final int QN_OFFSET = 6;
    /** Offset of the Message Sequence Number. */
    public static final int MSN_OFFSET = 10;
    /** Offset of the Message Offset. */
    public static final int MO_OFFSET = 14;
    /** Length of the untagged header. */
    public static final int HEADER_LENGTH = 18;

    /** Creates an unwrapped flyweight; {@link #wrap} it over a header before use. */
    public UntaggedHeaderFlyweight() {
    }

    /**
     * Wraps the header that starts at {@code offset}.
     *
     * @param segment the memory that holds the header
     * @param offset the offset of the header in {@code segment}
     * @return this flyweight
     */
    public UntaggedHeaderFlyweight wrap(MemorySegment segment, long offset) {
        wrap0(segment, offset);
        return this;
    }

    @Override
    public int headerLength() {
        return HEADER_LENGTH;
    }

    /**
     * Writes the control byte: T=0, the given L flag and version.
     *
     * @param last the L flag: whether this is the last segment of the message
     * @param version the DDP version (DV), the same as the stream's RDMAP version
     * @return this flyweight
     */
    public UntaggedHeaderFlyweight control(boolean last, int version) {
        control(false, last, version);
        return this;
    }

    /**
     * Writes RsvdULP[0:7], the RDMAP control byte.
     *
     * @param value the RDMAP control byte
     * @return this flyweight
     */
    public UntaggedHeaderFlyweight rsvdUlp(int value) {
        rsvdUlp0(value);
        return this;
    }

    /** {@return RsvdULP[8:39]: RDMAP's Invalidate STag, zero for other messages} */
    public int rsvdUlpWord() {
        return segment.get(INT_BE, offset + RSVD_ULP_WORD_OFFSET);
    }

    /**
     * Writes RsvdULP[8:39].
     *
     * @param value RDMAP's Invalidate STag, or zero
     * @return this flyweight
     */
    public UntaggedHeaderFlyweight rsvdUlpWord(int value) {
        segment.set(INT_BE, offset + RSVD_ULP_WORD_OFFSET, value);
        return this;
    }

    /** {@return the Queue Number, an unsigned 32-bit value} */
    public int queueNumber() {
        return segment.get(INT_BE, offset + QN_OFFSET);
    }

    /**
     * Writes the Queue Number.
     *
     * @param qn the Queue Number
     * @return this flyweight
     */
    public UntaggedHeaderFlyweight queueNumber(int qn) {
        segment.set(INT_BE, offset + QN_OFFSET, qn);
        return this;
    }

    /** {@return the Message Sequence Number, an unsigned 32-bit value that wraps} */
    public int msn() {
        return segment.get(INT_BE, offset + MSN_OFFSET);
    }

    /**
     * Writes the Message Sequence Number.
     *
     * @param msn the Message Sequence Number
     * @return this flyweight
     */
    public UntaggedHeaderFlyweight msn(int msn) {
        segment.set(INT_BE, offset + MSN_OFFSET, msn);
        return this;
    }

    /** {@return the Message Offset, an unsigned 32-bit value} */
    public int messageOffset() {
        return segment.get(INT_BE, offset + MO_OFFSET);
    }

    /**
     * Writes the Message Offset.
     *
     * @param mo the Message Offset
     * @return this flyweight
     */
    public UntaggedHeaderFlyweight messageOffset(int mo) {
        segment.set(INT_BE, offset + MO_OFFSET, mo);
        return this;
    }

    /**
     * Writes a complete untagged header in one call.
     *
     * @param last the L flag: whether this is the last segment of the message
     * @param version the DDP version (DV), the same as the stream's RDMAP version
     * @param rsvdUlp the RDMAP control byte carried in RsvdULP
     * @param rsvdUlpWord RsvdULP[8:39]: the Invalidate STag, or zero
     * @param qn the Queue Number
     * @param msn the Message Sequence Number
     * @param mo the Message Offset
     * @return this flyweight
     */
    public UntaggedHeaderFlyweight encode(boolean last, int version, int rsvdUlp, int rsvdUlpWord,
                                          int qn, int msn, int mo) {
        control(false, last, version);
        rsvdUlp0(rsvdUlp);
        rsvdUlpWord(rsvdUlpWord);
        queueNumber(qn);
        msn(msn);
        return messageOffset(mo);
    }

    @Override
    public String toString() {
        return segment == null ? "UntaggedHeader[unwrapped]" : String.format(
                "UntaggedHeader[L=%b DV=%d rsvdUlp=0x%02x word=0x%08x QN=%d MSN=%d MO=%d]",
                last(), version(), rsvdUlp(), rsvdUlpWord(), queueNumber(),
                Integer.toUnsignedLong(msn()), Integer.toUnsignedLong(messageOffset()));
    }
}
