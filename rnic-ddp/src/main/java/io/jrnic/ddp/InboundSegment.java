package io.jrnic.ddp;

/**
 * The verdict of {@link DdpReceiver#onSegment} on one inbound DDP segment, and what the placing code
 * needs to know about it.
 *
 * <ul>
 *   <li>{@link Outcome#ACCEPTED}: every RFC 5041 §7.1 check passed. Place the
 *       {@link #payloadLength()} octets that follow the DDP header: for a tagged segment at
 *       {@link #bufferOffset()} in the buffer the resolver {@linkplain #attachment() attached}, for an
 *       untagged one at {@link #messageOffset()} in the buffer of ({@link #queueNumber()},
 *       {@link #msn()}). If {@link #messageComplete()} the untagged message is whole and
 *       {@link #messageLength()} is its length (RFC 5041 §5.4).</li>
 *   <li>{@link Outcome#REJECTED}: this segment failed check {@link #error()}. Place nothing of it;
 *       the stream is now errored (RFC 5041 §7.1). The receiver keeps the header copy and lengths
 *       for the Terminate.</li>
 *   <li>{@link Outcome#DROPPED}: the stream was already errored or stopped, so the segment is
 *       silently dropped (RFC 5041 §7.1) and no other field is meaningful.</li>
 *   <li>{@link Outcome#DEFERRED}: the {@link UntaggedBufferResolver} asked to wait for a buffer
 *       ({@link UntaggedBufferResolver#DEFER}). Nothing changed; present the same segment again
 *       once a buffer may be there.</li>
 * </ul>
 *
 * <p>The receiver owns one instance and refills it for every segment: read it before the next call.
 * Not thread-safe.
 */
public final class InboundSegment {

    /** What to do with the segment. */
    public enum Outcome {
        /** Valid: place its payload. */
        ACCEPTED,
        /** Invalid: this segment caused the stream's DDP error; place nothing. */
        REJECTED,
        /** The stream had already failed or was stopped: the segment is silently dropped. */
        DROPPED,
        /** Untagged first segment without a buffer yet, and the ULP chose to wait: retry the segment later. */
        DEFERRED
    }

    private Outcome outcome = Outcome.DROPPED;
    private DdpError error;
    private boolean tagged;
    private boolean last;
    private int version;
    private int rsvdUlp;
    private int headerLength;
    private long payloadOffset;
    private int payloadLength;

    private int stag;
    private long taggedOffset;
    private long bufferOffset;
    private Object attachment;

    private int rsvdUlpWord;
    private int queueNumber;
    private int msn;
    private long messageOffset;
    private long bufferCapacity;
    private boolean messageComplete;
    private long messageLength;

    InboundSegment() {
    }

    void clear(Outcome outcome) {
        this.outcome = outcome;
        this.error = null;
        this.tagged = false;
        this.last = false;
        this.version = 0;
        this.rsvdUlp = 0;
        this.headerLength = 0;
        this.payloadOffset = 0;
        this.payloadLength = 0;
        this.stag = 0;
        this.taggedOffset = 0;
        this.bufferOffset = 0;
        this.attachment = null;
        this.rsvdUlpWord = 0;
        this.queueNumber = 0;
        this.msn = 0;
        this.messageOffset = 0;
        this.bufferCapacity = 0;
        this.messageComplete = false;
        this.messageLength = 0;
    }

    void common(boolean tagged, boolean last, int version, int rsvdUlp, int headerLength,
                long payloadOffset, int payloadLength) {
        this.tagged = tagged;
        this.last = last;
        this.version = version;
        this.rsvdUlp = rsvdUlp;
        this.headerLength = headerLength;
        this.payloadOffset = payloadOffset;
        this.payloadLength = payloadLength;
    }

    void taggedFields(int stag, long taggedOffset) {
        this.stag = stag;
        this.taggedOffset = taggedOffset;
    }

    void placement(long bufferOffset, Object attachment) {
        this.bufferOffset = bufferOffset;
        this.attachment = attachment;
    }

    void untaggedFields(int rsvdUlpWord, int queueNumber, int msn, long messageOffset) {
        this.rsvdUlpWord = rsvdUlpWord;
        this.queueNumber = queueNumber;
        this.msn = msn;
        this.messageOffset = messageOffset;
    }

    void bufferCapacity(long capacity) {
        this.bufferCapacity = capacity;
    }

    void complete(long messageLength) {
        this.messageComplete = true;
        this.messageLength = messageLength;
    }

    InboundSegment accept() {
        this.outcome = Outcome.ACCEPTED;
        this.error = null;
        return this;
    }

    InboundSegment defer() {
        this.outcome = Outcome.DEFERRED;
        this.error = null;
        return this;
    }

    InboundSegment reject(DdpError error) {
        this.outcome = Outcome.REJECTED;
        this.error = error;
        this.messageComplete = false;
        this.messageLength = 0;
        return this;
    }

    /** {@return what to do with the segment} */
    public Outcome outcome() {
        return outcome;
    }

    /** {@return whether the segment was accepted for placement} */
    public boolean accepted() {
        return outcome == Outcome.ACCEPTED;
    }

    /** {@return the error when {@link Outcome#REJECTED}, otherwise null} */
    public DdpError error() {
        return error;
    }

    /** {@return the T flag: tagged buffer model} */
    public boolean tagged() {
        return tagged;
    }

    /** {@return the L flag: last segment of its DDP message} */
    public boolean last() {
        return last;
    }

    /** {@return the DV field} */
    public int version() {
        return version;
    }

    /**
     * {@return RsvdULP[0:7], the RDMAP control byte, to hand up to the ULP (RFC 5041 §4.2, §4.3)}
     */
    public int rsvdUlp() {
        return rsvdUlp;
    }

    /**
     * {@return the DDP header length: 14 (tagged) or 18 (untagged); 0 if the ULPDU was too short to
     * hold one}
     */
    public int headerLength() {
        return headerLength;
    }

    /**
     * {@return where the DDP payload starts in the segment passed to {@link DdpReceiver#onSegment}}
     */
    public long payloadOffset() {
        return payloadOffset;
    }

    /** {@return the DDP payload length: ULPDU length minus the DDP header} */
    public int payloadLength() {
        return payloadLength;
    }

    /** {@return for a tagged segment, the STag} */
    public int stag() {
        return stag;
    }

    /** {@return for a tagged segment, the TO of the first payload octet (unsigned)} */
    public long taggedOffset() {
        return taggedOffset;
    }

    /**
     * {@return tagged and accepted: where to place, as an offset from the buffer's base TO ({@code
     * TO - baseTaggedOffset}); 0 for a zero-length segment, which is not looked up}
     */
    public long bufferOffset() {
        return bufferOffset;
    }

    /**
     * {@return tagged and accepted: the resolver's attachment for the STag; null for a zero-length
     * segment}
     */
    public Object attachment() {
        return attachment;
    }

    /** {@return for an untagged segment, RsvdULP[8:39], RDMAP's Invalidate STag} */
    public int rsvdUlpWord() {
        return rsvdUlpWord;
    }

    /** {@return for an untagged segment, the QN} */
    public int queueNumber() {
        return queueNumber;
    }

    /** {@return for an untagged segment, the MSN (unsigned 32-bit)} */
    public int msn() {
        return msn;
    }

    /** {@return for an untagged segment, the MO (unsigned 32-bit, as a long)} */
    public long messageOffset() {
        return messageOffset;
    }

    /**
     * {@return for an untagged segment, the capacity the {@link UntaggedBufferResolver} reported for this
     * message's buffer}
     */
    public long bufferCapacity() {
        return bufferCapacity;
    }

    /**
     * {@return untagged and accepted: the L flag completed the message, and its MSN on its queue is
     * used up}
     */
    public boolean messageComplete() {
        return messageComplete;
    }

    /**
     * {@return when {@link #messageComplete()}: the message length, MO + payload length of the last
     * segment (RFC 5041 §5.4)}
     */
    public long messageLength() {
        return messageLength;
    }

    @Override
    public String toString() {
        if (outcome == Outcome.DROPPED) {
            return "InboundSegment[DROPPED]";
        }
        final String verdict = outcome == Outcome.REJECTED ? "REJECTED " + error : outcome.name();
        return tagged
                ? String.format("InboundSegment[%s tagged L=%b STag=0x%08x TO=0x%x payload=%d]",
                        verdict, last, stag, taggedOffset, payloadLength)
                : String.format("InboundSegment[%s untagged L=%b QN=%d MSN=%s MO=%d payload=%d%s]",
                        verdict, last, Integer.toUnsignedLong(queueNumber), Integer.toUnsignedString(msn),
                        messageOffset, payloadLength, messageComplete ? " complete length=" + messageLength : "");
    }
}
