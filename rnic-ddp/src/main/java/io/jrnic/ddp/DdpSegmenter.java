package io.jrnic.ddp;

import java.lang.foreign.MemorySegment;

/**
 * Cuts one outbound DDP message into DDP segments whose ULPDU is no larger than MULPDU
 * (RFC 5041 §5.2), writing each segment's DDP header into a caller-supplied buffer.
 *
 * <pre>
 *   message:  | ULP header (untagged only, optional) |            data (length bytes)            |
 *   segment 0:  DDP hdr | ULP header | data[0 .. p0)                    MO 0        / TO to
 *   segment 1:  DDP hdr | data[p0 .. p0+p1)                             MO h+p0     / TO to+p0
 *   ...
 *   segment n:  DDP hdr | data[.. length)                     L=1       MO h+...    / TO to+...
 *   each ULPDU = DDP header (14|18) + ULP header (first segment only) + data slice &lt;= MULPDU
 * </pre>
 *
 * <p>The segmenter never touches payload bytes: for each segment it reports the slice of the
 * message data ({@link #payloadOffset()}, {@link #payloadLength()}) so that the transport can
 * gather {@code DDP header | ULP header | payload slice} without copying. Rules it implements:
 * <ul>
 *   <li>every ULPDU is at most MULPDU octets (RFC 5041 §5.2);</li>
 *   <li>tagged: each segment's TO is the initial TO plus the payload octets before it, in unsigned
 *       64-bit arithmetic (RFC 5041 §5.2); every segment carries the same STag and RsvdULP;</li>
 *   <li>untagged: each segment's MO is the offset of its first payload octet in the DDP message
 *       (RFC 5041 §4.3, §5.2); every segment carries the same QN, MSN and RsvdULP;</li>
 *   <li>the L flag is set on the last segment only (RFC 5041 §4.1), and a zero-length message is
 *       exactly one segment with L=1 (RFC 5041 §5.2);</li>
 *   <li>the DDP message (ULP header plus data) is shorter than 2^32 octets (RFC 5041 §5.2).</li>
 * </ul>
 *
 * <p>A ULP header is for untagged messages whose RDMAP header travels as DDP payload, such as the
 * 28-byte RDMA Read Request header or a Terminate header (RFC 5040 §4.4, §4.8): it occupies the start
 * of the first segment's payload and counts towards MO and MULPDU, but it is not part of the data
 * the payload slices refer to. The caller writes it right after the DDP header
 * ({@code headerOffset + headerLength()}) when {@link #ulpHeaderLength()} is non-zero.
 *
 * <p>Usage, allocation-free and reusable for any number of messages:
 * <pre>{@code
 * segmenter.resetTagged(mulpdu, DdpHeaderFlyweight.VERSION_IETF, rdmapControl, stag, to, length);
 * while (segmenter.next(headerBuffer, 0)) {
 *     transport.gather(headerBuffer, 0, segmenter.headerLength(),
 *                      data, segmenter.payloadOffset(), segmenter.payloadLength());
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one instance belongs to the thread that transmits on one stream.
 */
public final class DdpSegmenter {

    /** The largest DDP message length, in octets: a ULP message must be shorter than 2^32 (RFC 5041 §5.2). */
    public static final long MAX_MESSAGE_LENGTH = 0xFFFF_FFFFL;

    private final TaggedHeaderFlyweight taggedHeader = new TaggedHeaderFlyweight();
    private final UntaggedHeaderFlyweight untaggedHeader = new UntaggedHeaderFlyweight();

    // The message being segmented, fixed by reset*().
    private boolean tagged;
    private int version;
    private int rsvdUlp;
    private int rsvdUlpWord;
    private int stag;
    private long initialTaggedOffset;
    private int queueNumber;
    private int msn;
    private int messageUlpHeaderLength;
    private long dataLength;
    private int maxSegmentPayload;

    // Iteration state.
    private boolean ready;
    private boolean done;
    private long nextDataOffset;
    private long segmentCount;

    // The segment produced by the last next().
    private int segmentUlpHeaderLength;
    private long payloadOffset;
    private int payloadLength;
    private boolean last;

    /** Creates an idle segmenter; call {@link #resetTagged} or {@link #resetUntagged} before {@link #next}. */
    public DdpSegmenter() {
    }

    /**
     * Starts segmenting a tagged message (RFC 5041 §4.2, §5.2).
     *
     * @param mulpdu        the largest ULPDU the LLP accepts (MULPDU, RFC 5044 §3, §4.5), more than 14
     * @param version       the stream's DDP version, {@link DdpHeaderFlyweight#VERSION_IETF} or
     *                      {@link DdpHeaderFlyweight#VERSION_RDMAC}
     * @param rsvdUlp       RsvdULP, the RDMAP control byte, 0..255
     * @param stag          the Data Sink STag
     * @param taggedOffset  the TO of the first data octet, an unsigned 64-bit value
     * @param length        the message length in octets, 0..{@link #MAX_MESSAGE_LENGTH}
     * @return this segmenter
     * @throws IllegalArgumentException if an argument is out of range
     */
    public DdpSegmenter resetTagged(int mulpdu, int version, int rsvdUlp, int stag, long taggedOffset, long length) {
        checkCommon(mulpdu, TaggedHeaderFlyweight.HEADER_LENGTH, 0, version, rsvdUlp, length);
        this.tagged = true;
        this.stag = stag;
        this.initialTaggedOffset = taggedOffset;
        this.rsvdUlpWord = 0;
        this.queueNumber = 0;
        this.msn = 0;
        return start(mulpdu - TaggedHeaderFlyweight.HEADER_LENGTH, version, rsvdUlp, 0, length);
    }

    /**
     * Starts segmenting an untagged message (RFC 5041 §4.3, §5.2).
     *
     * @param mulpdu          the largest ULPDU the LLP accepts, more than 18 and at least
     *                        {@code 18 + ulpHeaderLength}
     * @param version         the stream's DDP version
     * @param rsvdUlp         RsvdULP[0:7], the RDMAP control byte, 0..255
     * @param rsvdUlpWord     RsvdULP[8:39], RDMAP's Invalidate STag or 0
     * @param queueNumber     the QN
     * @param msn             the MSN of this message on its queue
     * @param ulpHeaderLength octets of ULP header at the start of the message, carried in the first
     *                        segment only (0 for Sends; 28 for an RDMA Read Request)
     * @param dataLength      octets of data after the ULP header; {@code ulpHeaderLength + dataLength}
     *                        must not exceed {@link #MAX_MESSAGE_LENGTH}
     * @return this segmenter
     * @throws IllegalArgumentException if an argument is out of range
     */
    public DdpSegmenter resetUntagged(int mulpdu, int version, int rsvdUlp, int rsvdUlpWord,
                                      int queueNumber, int msn, int ulpHeaderLength, long dataLength) {
        if (ulpHeaderLength < 0) {
            throw new IllegalArgumentException("negative ULP header length " + ulpHeaderLength);
        }
        checkCommon(mulpdu, UntaggedHeaderFlyweight.HEADER_LENGTH, ulpHeaderLength, version, rsvdUlp, dataLength);
        this.tagged = false;
        this.stag = 0;
        this.initialTaggedOffset = 0;
        this.rsvdUlpWord = rsvdUlpWord;
        this.queueNumber = queueNumber;
        this.msn = msn;
        return start(mulpdu - UntaggedHeaderFlyweight.HEADER_LENGTH, version, rsvdUlp, ulpHeaderLength, dataLength);
    }

    private static void checkCommon(int mulpdu, int headerLength, int ulpHeaderLength, int version, int rsvdUlp,
                                    long dataLength) {
        // Each segment must make progress, and the ULP header must fit the first segment whole.
        if (mulpdu <= headerLength || mulpdu - headerLength < ulpHeaderLength) {
            throw new IllegalArgumentException("MULPDU " + mulpdu + " leaves no room for payload after a "
                    + headerLength + "-byte DDP header and a " + ulpHeaderLength + "-byte ULP header");
        }
        if (version != DdpHeaderFlyweight.VERSION_IETF && version != DdpHeaderFlyweight.VERSION_RDMAC) {
            throw new IllegalArgumentException("DDP version " + version + " is neither IETF (1) nor RDMAC (0)");
        }
        if ((rsvdUlp & ~0xFF) != 0) {
            throw new IllegalArgumentException("RsvdULP 0x" + Integer.toHexString(rsvdUlp) + " does not fit one octet");
        }
        if (dataLength < 0 || dataLength > MAX_MESSAGE_LENGTH - ulpHeaderLength) {
            throw new IllegalArgumentException("message length " + dataLength + " + ULP header " + ulpHeaderLength
                    + " is outside 0.." + MAX_MESSAGE_LENGTH + " (RFC 5041 §5.2)");
        }
    }

    private DdpSegmenter start(int maxSegmentPayload, int version, int rsvdUlp, int ulpHeaderLength, long dataLength) {
        this.maxSegmentPayload = maxSegmentPayload;
        this.version = version;
        this.rsvdUlp = rsvdUlp;
        this.messageUlpHeaderLength = ulpHeaderLength;
        this.dataLength = dataLength;
        this.ready = true;
        this.done = false;
        this.nextDataOffset = 0;
        this.segmentCount = 0;
        this.segmentUlpHeaderLength = 0;
        this.payloadOffset = 0;
        this.payloadLength = 0;
        this.last = false;
        return this;
    }

    /** {@return whether {@link #next} will produce another segment of the current message} */
    public boolean hasNext() {
        return ready && !done;
    }

    /**
     * Produces the next segment: writes its DDP header at {@code headerOffset} in
     * {@code headerBuffer} and updates this segmenter's segment accessors.
     *
     * @param headerBuffer where to write the 14- or 18-byte DDP header
     * @param headerOffset offset of the header in {@code headerBuffer}
     * @return true if a segment was produced, false if the message is already fully segmented
     * @throws IllegalStateException     if no message was started with a reset method
     * @throws IndexOutOfBoundsException if the header does not fit {@code headerBuffer} at that offset
     */
    public boolean next(MemorySegment headerBuffer, long headerOffset) {
        if (!ready) {
            throw new IllegalStateException("no message: call resetTagged or resetUntagged first");
        }
        if (done) {
            return false;
        }
        final boolean first = segmentCount == 0;
        final int ulpHeader = first ? messageUlpHeaderLength : 0;
        final long room = maxSegmentPayload - ulpHeader;
        final long remaining = dataLength - nextDataOffset;
        final int length = (int) Math.min(room, remaining);
        final boolean isLast = length == remaining;

        if (tagged) {
            // RFC 5041 §5.2: TO = initial TO + octets of the message before this segment (mod 2^64).
            taggedHeader.wrap(headerBuffer, headerOffset)
                    .encode(isLast, version, rsvdUlp, stag, initialTaggedOffset + nextDataOffset);
        } else {
            // RFC 5041 §4.3: MO counts every DDP payload octet before this one, the ULP header included.
            final long mo = first ? 0 : messageUlpHeaderLength + nextDataOffset;
            untaggedHeader.wrap(headerBuffer, headerOffset)
                    .encode(isLast, version, rsvdUlp, rsvdUlpWord, queueNumber, msn, (int) mo);
        }

        segmentUlpHeaderLength = ulpHeader;
        payloadOffset = nextDataOffset;
        payloadLength = length;
        last = isLast;
        nextDataOffset += length;
        segmentCount++;
        done = isLast;
        return true;
    }

    /**
     * {@return whether the current message is tagged (14-byte headers) rather than untagged
     * (18-byte headers)}
     */
    public boolean tagged() {
        return tagged;
    }

    /**
     * {@return the length of the DDP header {@link #next} writes: 14 for tagged, 18 for untagged
     * messages}
     */
    public int headerLength() {
        return tagged ? TaggedHeaderFlyweight.HEADER_LENGTH : UntaggedHeaderFlyweight.HEADER_LENGTH;
    }

    /**
     * {@return octets of ULP header that follow the DDP header in the current segment: non-zero
     * only in the first}
     */
    public int ulpHeaderLength() {
        return segmentUlpHeaderLength;
    }

    /**
     * {@return the offset, in the message data (ULP header excluded), of the current segment's payload
     * slice}
     */
    public long payloadOffset() {
        return payloadOffset;
    }

    /** {@return octets of message data in the current segment (ULP header excluded); may be 0} */
    public int payloadLength() {
        return payloadLength;
    }

    /**
     * {@return the current segment's ULPDU length: DDP header + ULP header + payload; at most
     * MULPDU}
     */
    public int ulpduLength() {
        return headerLength() + segmentUlpHeaderLength + payloadLength;
    }

    /** {@return whether the current segment is the last of its message (the L flag it carries)} */
    public boolean last() {
        return last;
    }

    /**
     * {@return the offset of the current segment's first DDP payload octet in the DDP message: the
     * MO for an untagged message, and TO minus the initial TO for a tagged one}
     */
    public long messageOffset() {
        return segmentCount <= 1 ? 0 : messageUlpHeaderLength + payloadOffset;
    }

    /**
     * {@return the TO the current tagged segment carries (unsigned, wraps mod 2^64); 0 for untagged
     * messages}
     */
    public long taggedOffset() {
        return tagged ? initialTaggedOffset + payloadOffset : 0;
    }

    /** {@return segments produced so far for the current message} */
    public long segmentCount() {
        return segmentCount;
    }

    /** {@return octets of message data not yet covered by a produced segment} */
    public long remaining() {
        return dataLength - nextDataOffset;
    }

    /**
     * The number of segments a message needs; handy for sizing work or checking a send window.
     *
     * @param mulpdu          the largest ULPDU
     * @param tagged          tagged (14-byte header) or untagged (18-byte header)
     * @param ulpHeaderLength ULP header octets in the first segment (0 for tagged messages)
     * @param dataLength      message data octets after the ULP header
     * @return the segment count, at least 1
     * @throws IllegalArgumentException if the arguments could not be segmented
     */
    public static long segmentsFor(int mulpdu, boolean tagged, int ulpHeaderLength, long dataLength) {
        final int headerLength = tagged ? TaggedHeaderFlyweight.HEADER_LENGTH : UntaggedHeaderFlyweight.HEADER_LENGTH;
        if (ulpHeaderLength < 0) {
            throw new IllegalArgumentException("negative ULP header length " + ulpHeaderLength);
        }
        checkCommon(mulpdu, headerLength, ulpHeaderLength, DdpHeaderFlyweight.VERSION_IETF, 0, dataLength);
        final long perSegment = mulpdu - headerLength;
        final long total = ulpHeaderLength + dataLength;
        return total == 0 ? 1 : (total + perSegment - 1) / perSegment;
    }

    @Override
    public String toString() {
        return String.format("DdpSegmenter[%s segment=%d payload=%d+%d L=%b remaining=%d]",
                tagged ? "tagged" : "untagged", segmentCount, payloadOffset, payloadLength, last, remaining());
    }
}
