package io.jrnic.ddp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The receive side of one DDP stream: validates each inbound DDP segment before placement
 * (RFC 5041 §7.1), keeps the per-queue MSN and MO state of untagged messages (RFC 5041 §4.3, §5.2,
 * §5.4), and latches the first error for the Terminate (RFC 5041 §7.1, RFC 5040 §4.8).
 *
 * <p>Checks, in the order they are made; the first failure is reported:
 * <pre>
 *  every segment   ULPDU shorter than its DDP header          LOCAL_CATASTROPHIC
 *                  DV differs from the stream's version        TAGGED_/UNTAGGED_INVALID_VERSION
 *  tagged          (zero-length segments: no further check, RFC 5041 §5.2)
 *   1 STag valid for this stream                               TAGGED_INVALID_STAG
 *                  ... and associated with it                  TAGGED_STAG_NOT_ASSOCIATED
 *   2 buffer permits placement                                 TAGGED_INVALID_STAG (no code of its own)
 *   3 TO within [base, base + length)                          TAGGED_BASE_OR_BOUNDS
 *   5 TO + payload length does not wrap 2^64 (unsigned)        TAGGED_TO_WRAP
 *   4 TO + payload length &lt;= base + length                     TAGGED_BASE_OR_BOUNDS
 *  untagged
 *   1 QN is one of the stream's queues                         UNTAGGED_INVALID_QN
 *   5 MSN is the one expected on that queue                    UNTAGGED_MSN_RANGE
 *   2 a buffer exists for (QN, MSN)                            UNTAGGED_NO_BUFFER
 *   3 MO is within the buffer and follows the bytes placed     UNTAGGED_INVALID_MO
 *   4 MO + payload length &lt;= buffer capacity                   UNTAGGED_MESSAGE_TOO_LONG
 * </pre>
 * (numbers are those of the RFC 5041 §7.1 lists). Two orderings differ from the RFC's numbering on
 * purpose: the MSN is checked before the buffer, because the buffer is found by MSN; and the wrap
 * check comes before the end-of-range check, because a wrapped sum cannot be compared with the end
 * of the range and "TO wrap" is the more precise diagnosis.
 *
 * <p>Because the LLP (MPA over TCP) delivers segments in order, the untagged checks are exact rather
 * than windowed: the MSN must be the one of the message in progress on its queue, or the next one
 * when none is in progress; and the MO must equal the octets already accepted for that message.
 * Expected MSNs start at 1 on every queue and wrap from 0xFFFFFFFF to 0 (RFC 5041 §4.3). Zero-length
 * untagged segments are checked too (RFC 5041 §7.1 only requires it for non-zero-length ones): a
 * zero-length message still uses its MSN and a buffer (RFC 5040 §5.3).
 *
 * <p>After the first failure the stream is errored: {@link #onSegment} returns
 * {@link InboundSegment.Outcome#DROPPED} for every later segment, counted by
 * {@link #droppedSegments()}, and the ULP may send one more message, its Terminate, built from
 * {@link #firstError()}, {@link #terminateDdpHeader()} (or the raw bytes of {@link #terminateHeader()})
 * and {@link #terminatePayloadLength()} or {@link #terminateSegmentLength()}.
 *
 * <p>Buffers are not DDP's: untagged buffers come from an {@link UntaggedBufferResolver} and tagged
 * buffers from a {@link TaggedBufferResolver}, both implemented by the QP layer. An untagged resolver
 * may answer {@link UntaggedBufferResolver#DEFER} instead of "no buffer" to hold the stream until a
 * buffer is posted (RFC 5041 §7.1 check 2, implementers' note).
 *
 * <p>{@link #onSegment} only needs the DDP header bytes to be present, so the caller may validate a
 * segment before its payload has been read and then read the payload straight into the target buffer.
 *
 * <p>Allocation-free after construction. Not thread-safe: one receiver belongs to the thread (event
 * loop) that owns the stream.
 */
public final class DdpReceiver {

    /** RDMAP's queue for Send, Send with Invalidate/SE and Immediate Data messages (RFC 5040 §5.3, RFC 7306). */
    public static final int QN_SEND = 0;
    /** RDMAP's queue for RDMA Read Requests and the other IRD-counted requests (RFC 5040 §5.2, RFC 7306). */
    public static final int QN_READ_REQUEST = 1;
    /** RDMAP's queue for the Terminate message (RFC 5040 §5.4). */
    public static final int QN_TERMINATE = 2;
    /** RFC 7306's queue for Atomic Responses, and the draft's Flush/Verify/Atomic Write responses. */
    public static final int QN_ATOMIC_RESPONSE = 3;

    /** The first MSN on every queue (RFC 5041 §4.3). */
    public static final int INITIAL_MSN = 1;

    private static final int MAX_HEADER_LENGTH = UntaggedHeaderFlyweight.HEADER_LENGTH;

    private final UntaggedQueue[] queues;
    private final UntaggedBufferResolver untaggedResolver;
    private final TaggedBufferResolver taggedResolver;

    private final TaggedHeaderFlyweight taggedHeader = new TaggedHeaderFlyweight();
    private final UntaggedHeaderFlyweight untaggedHeader = new UntaggedHeaderFlyweight();
    private final TaggedBufferDescriptor descriptor = new TaggedBufferDescriptor();
    private final InboundSegment result = new InboundSegment();

    private final MemorySegment terminateCopy = MemorySegment.ofArray(new byte[MAX_HEADER_LENGTH]);
    private final TaggedHeaderFlyweight terminateTaggedHeader = new TaggedHeaderFlyweight();
    private final UntaggedHeaderFlyweight terminateUntaggedHeader = new UntaggedHeaderFlyweight();
    // Read-only views made once, so that terminateHeader() does not allocate.
    private final MemorySegment terminateNone = terminateCopy.asSlice(0, 0).asReadOnly();
    private final MemorySegment terminateTagged = terminateCopy.asSlice(0, TaggedHeaderFlyweight.HEADER_LENGTH).asReadOnly();
    private final MemorySegment terminateUntagged = terminateCopy.asReadOnly();

    private int version;
    private boolean stopped;
    private DdpError firstError;
    private int terminateHeaderLength;
    private int terminateSegmentLength;
    private int terminatePayloadLength;
    private long droppedSegments;

    /**
     * Creates the receiver of one DDP stream.
     *
     * @param version          the stream's DDP version, {@link DdpHeaderFlyweight#VERSION_IETF} or
     *                         {@link DdpHeaderFlyweight#VERSION_RDMAC}, fixed for the stream (RFC 5041 §4.1)
     * @param queueNumbers     the valid QNs of untagged messages, e.g. {@link #rdmapQueueNumbers(boolean)};
     *                         distinct, at least one; copied
     * @param untaggedResolver gives the buffer capacity for an untagged message
     * @param taggedResolver   describes the buffer behind an STag
     * @throws IllegalArgumentException if the version or queue numbers are invalid
     * @throws NullPointerException     if an argument is null
     */
    public DdpReceiver(int version, int[] queueNumbers, UntaggedBufferResolver untaggedResolver,
                       TaggedBufferResolver taggedResolver) {
        Objects.requireNonNull(queueNumbers, "queueNumbers");
        this.untaggedResolver = Objects.requireNonNull(untaggedResolver, "untaggedResolver");
        this.taggedResolver = Objects.requireNonNull(taggedResolver, "taggedResolver");
        if (queueNumbers.length == 0) {
            throw new IllegalArgumentException("a DDP stream needs at least one untagged queue number");
        }
        this.queues = new UntaggedQueue[queueNumbers.length];
        for (int i = 0; i < queueNumbers.length; i++) {
            for (int j = 0; j < i; j++) {
                if (queueNumbers[j] == queueNumbers[i]) {
                    throw new IllegalArgumentException("queue number " + Integer.toUnsignedString(queueNumbers[i])
                            + " is listed twice");
                }
            }
            queues[i] = new UntaggedQueue(queueNumbers[i]);
        }
        reset(version);
    }

    /**
     * The queue numbers RDMAP uses (RFC 5040 §5, RFC 7306 §10.2): 0 Send, 1 Read Request, 2 Terminate,
     * and with RFC 7306 atomics (or the commit draft's responses) also 3.
     *
     * @param atomicResponses whether queue 3 is in use
     * @return a new array {@code {0, 1, 2}} or {@code {0, 1, 2, 3}}
     */
    public static int[] rdmapQueueNumbers(boolean atomicResponses) {
        return atomicResponses
                ? new int[] {QN_SEND, QN_READ_REQUEST, QN_TERMINATE, QN_ATOMIC_RESPONSE}
                : new int[] {QN_SEND, QN_READ_REQUEST, QN_TERMINATE};
    }

    /**
     * Returns the receiver to the state of a new stream: expected MSN 1 and no message in progress on
     * every queue, no error, nothing dropped. For a QP that goes from Idle to RTS again (Verbs §6.2.1.2).
     *
     * @param version the new stream's DDP version
     * @throws IllegalArgumentException if the version is neither IETF (1) nor RDMAC (0)
     */
    public void reset(int version) {
        if (version != DdpHeaderFlyweight.VERSION_IETF && version != DdpHeaderFlyweight.VERSION_RDMAC) {
            throw new IllegalArgumentException("DDP version " + version + " is neither IETF (1) nor RDMAC (0)");
        }
        this.version = version;
        for (UntaggedQueue queue : queues) {
            queue.reset();
        }
        stopped = false;
        firstError = null;
        terminateHeaderLength = 0;
        terminateSegmentLength = 0;
        terminatePayloadLength = 0;
        droppedSegments = 0;
        terminateCopy.fill((byte) 0);
        result.clear(InboundSegment.Outcome.DROPPED);
    }

    /**
     * Validates one inbound DDP segment and, if it is valid, advances the untagged queue state.
     *
     * <p>Only the DDP header must be readable at {@code offset}: the payload may still be on its way.
     *
     * @param segment     memory holding the ULPDU, at least its DDP header
     * @param offset      where the ULPDU (its DDP control byte) starts in {@code segment}
     * @param ulpduLength the ULPDU length from the MPA frame: DDP header plus payload
     * @return the verdict, a flyweight reused by the next call
     * @throws IllegalArgumentException  if {@code ulpduLength} is negative
     * @throws IndexOutOfBoundsException if {@code segment} does not hold the header at {@code offset}
     */
    public InboundSegment onSegment(MemorySegment segment, long offset, int ulpduLength) {
        if (ulpduLength < 0) {
            throw new IllegalArgumentException("negative ULPDU length " + ulpduLength);
        }
        if (stopped) {
            // RFC 5041 §7.1: after an error, silently drop every later segment.
            droppedSegments++;
            result.clear(InboundSegment.Outcome.DROPPED);
            return result;
        }
        result.clear(InboundSegment.Outcome.REJECTED);
        if (ulpduLength == 0) {
            return fail(DdpError.LOCAL_CATASTROPHIC, segment, offset, 0, 0);
        }
        final int control = segment.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
        final int headerLength = DdpHeaderFlyweight.headerLength(control);
        if (ulpduLength < headerLength) {
            // Not even a whole DDP header: no field can be trusted and no header can be copied. RFC 5040
            // §4.8 sends no header with a local catastrophic error, which fits.
            return fail(DdpError.LOCAL_CATASTROPHIC, segment, offset, 0, ulpduLength);
        }
        return DdpHeaderFlyweight.isTagged(control)
                ? onTagged(taggedHeader.wrap(segment, offset), ulpduLength)
                : onUntagged(untaggedHeader.wrap(segment, offset), ulpduLength);
    }

    private InboundSegment onTagged(TaggedHeaderFlyweight header, int ulpduLength) {
        final int payloadLength = ulpduLength - TaggedHeaderFlyweight.HEADER_LENGTH;
        final int rsvdUlp = header.rsvdUlp();
        final int stag = header.stag();
        final long to = header.taggedOffset();
        result.common(true, header.last(), header.version(), rsvdUlp, TaggedHeaderFlyweight.HEADER_LENGTH,
                header.offset() + TaggedHeaderFlyweight.HEADER_LENGTH, payloadLength);
        result.taggedFields(stag, to);

        // RFC 5041 §4.1: DV is the same for every segment of the stream.
        if (header.version() != version) {
            return fail(DdpError.TAGGED_INVALID_VERSION, header, ulpduLength);
        }
        // RFC 5041 §5.2: STag and TO of a zero-length tagged segment MUST NOT be checked.
        if (payloadLength == 0) {
            return result.accept();
        }

        descriptor.clear();
        taggedResolver.resolve(stag, rsvdUlp, descriptor);
        // RFC 5041 §7.1 check 1: the STag is valid for this stream.
        final TaggedBufferDescriptor.Status status = descriptor.status();
        if (status == TaggedBufferDescriptor.Status.INVALID) {
            return fail(DdpError.TAGGED_INVALID_STAG, header, ulpduLength);
        }
        if (status == TaggedBufferDescriptor.Status.NOT_ASSOCIATED) {
            return fail(DdpError.TAGGED_STAG_NOT_ASSOCIATED, header, ulpduLength);
        }
        // Check 2 has no error code of its own; like Linux siw, report an invalid STag (R-ERR-032).
        if (!descriptor.placementAllowed()) {
            return fail(DdpError.TAGGED_INVALID_STAG, header, ulpduLength);
        }
        // Check 3. All TO arithmetic is unsigned 64-bit: TOs are often virtual addresses above 2^63.
        final long base = descriptor.baseTaggedOffset();
        final long offsetInBuffer = to - base;
        if (Long.compareUnsigned(to, base) < 0 || Long.compareUnsigned(offsetInBuffer, descriptor.length()) >= 0) {
            return fail(DdpError.TAGGED_BASE_OR_BOUNDS, header, ulpduLength);
        }
        // Check 5, before 4: the 64-bit unsigned sum TO + length must not wrap.
        if (Long.compareUnsigned(to + payloadLength, to) < 0) {
            return fail(DdpError.TAGGED_TO_WRAP, header, ulpduLength);
        }
        // Check 4: the last octet is inside the range too.
        if (Long.compareUnsigned(payloadLength, descriptor.length() - offsetInBuffer) > 0) {
            return fail(DdpError.TAGGED_BASE_OR_BOUNDS, header, ulpduLength);
        }
        result.placement(offsetInBuffer, descriptor.attachment());
        descriptor.clear(); // do not keep the region reachable from here
        return result.accept();
    }

    private InboundSegment onUntagged(UntaggedHeaderFlyweight header, int ulpduLength) {
        final int payloadLength = ulpduLength - UntaggedHeaderFlyweight.HEADER_LENGTH;
        final int qn = header.queueNumber();
        final int msn = header.msn();
        final long mo = Integer.toUnsignedLong(header.messageOffset());
        result.common(false, header.last(), header.version(), header.rsvdUlp(), UntaggedHeaderFlyweight.HEADER_LENGTH,
                header.offset() + UntaggedHeaderFlyweight.HEADER_LENGTH, payloadLength);
        result.untaggedFields(header.rsvdUlpWord(), qn, msn, mo);

        // RFC 5041 §4.1: DV is the same for every segment of the stream.
        if (header.version() != version) {
            return fail(DdpError.UNTAGGED_INVALID_VERSION, header, ulpduLength);
        }
        // RFC 5041 §7.1 check 1: the QN is valid for this stream.
        final UntaggedQueue queue = queue(qn);
        if (queue == null) {
            return fail(DdpError.UNTAGGED_INVALID_QN, header, ulpduLength);
        }
        // In-order delivery: the MSN is the message in progress, or the next one (RFC 5041 §7.1 check 5).
        if (msn != queue.expectedMsn) {
            return fail(DdpError.UNTAGGED_MSN_RANGE, header, ulpduLength);
        }
        if (!queue.inProgress) {
            // First segment of the message: ask for (and let the ULP bind) its buffer, once.
            final long capacity = untaggedResolver.bufferCapacity(qn, msn);
            if (capacity == UntaggedBufferResolver.DEFER) {
                // RFC 5041 §7.1 check 2, implementers' note: the ULP recovers by LLP means. Nothing changed.
                return result.defer();
            }
            if (capacity < 0) {
                return fail(DdpError.UNTAGGED_NO_BUFFER, header, ulpduLength);
            }
            // A DDP message is shorter than 2^32 octets (RFC 5041 §5.2), whatever the buffer holds.
            queue.begin(Math.min(capacity, DdpSegmenter.MAX_MESSAGE_LENGTH));
        }
        result.bufferCapacity(queue.capacity);
        // Check 3. Since accepted octets never exceed the capacity, an MO equal to them is inside the
        // buffer; any other MO is either beyond the buffer or out of sequence for an in-order LLP.
        if (mo != queue.accepted) {
            return fail(DdpError.UNTAGGED_INVALID_MO, header, ulpduLength);
        }
        // Check 4: the payload fits the buffer (a Send larger than its buffer is an error, RFC 5040 §5.3).
        final long end = mo + payloadLength;
        if (end > queue.capacity) {
            return fail(DdpError.UNTAGGED_MESSAGE_TOO_LONG, header, ulpduLength);
        }
        queue.accepted = end;
        if (header.last()) {
            // RFC 5041 §5.4: message length = MO + payload length of the L=1 segment.
            result.complete(end);
            queue.complete();
        }
        return result.accept();
    }

    private UntaggedQueue queue(int qn) {
        for (UntaggedQueue queue : queues) {
            if (queue.queueNumber == qn) {
                return queue;
            }
        }
        return null;
    }

    private InboundSegment fail(DdpError error, DdpHeaderFlyweight header, int ulpduLength) {
        return fail(error, header.segment(), header.offset(), header.headerLength(), ulpduLength);
    }

    private InboundSegment fail(DdpError error, MemorySegment segment, long offset, int headerLength, int ulpduLength) {
        // Latch the first error for the Terminate (RFC 5040 §7.1: report the first failing segment).
        stopped = true;
        firstError = error;
        terminateHeaderLength = headerLength;
        terminateSegmentLength = ulpduLength;
        terminatePayloadLength = ulpduLength - headerLength;
        terminateCopy.fill((byte) 0);
        if (headerLength > 0) {
            MemorySegment.copy(segment, offset, terminateCopy, 0, headerLength);
        }
        return result.reject(error);
    }

    /**
     * Stops the stream without a DDP error: every later segment is dropped. For errors the ULP finds
     * in an accepted segment (for example an RDMAP opcode or version error, RFC 5040 §7.2) and for a
     * received Terminate, after which the stream carries nothing more (RFC 5040 §5.4). Does not
     * change {@link #firstError()}.
     */
    public void stop() {
        stopped = true;
    }

    /**
     * {@return whether segments are being dropped: a DDP error occurred or {@link #stop()} was
     * called}
     */
    public boolean stopped() {
        return stopped;
    }

    /** {@return the first DDP error of the stream, or null if none occurred} */
    public DdpError firstError() {
        return firstError;
    }

    /**
     * {@return a read-only view of the failing segment's DDP header for the Terminate's "Terminated
     * DDP Header" (RFC 5040 §4.8): 14 or 18 bytes, or empty if no error occurred or the error was
     * LOCAL_CATASTROPHIC (which carries no header)} The view stays valid until {@link #reset(int)}.
     */
    public MemorySegment terminateHeader() {
        return switch (terminateHeaderLength) {
            case TaggedHeaderFlyweight.HEADER_LENGTH -> terminateTagged;
            case UntaggedHeaderFlyweight.HEADER_LENGTH -> terminateUntagged;
            default -> terminateNone;
        };
    }

    /**
     * {@return the failing segment's DDP header as a flyweight over the read-only copy of {@link
     * #terminateHeader()}, ready for RDMAP's Terminate encoder; null when there is no header to
     * copy (no error, or LOCAL_CATASTROPHIC)} Allocation-free.
     */
    public DdpHeaderFlyweight terminateDdpHeader() {
        return switch (terminateHeaderLength) {
            case TaggedHeaderFlyweight.HEADER_LENGTH -> terminateTaggedHeader.wrap(terminateTagged, 0);
            case UntaggedHeaderFlyweight.HEADER_LENGTH -> terminateUntaggedHeader.wrap(terminateUntagged, 0);
            default -> null;
        };
    }

    /** {@return the length of {@link #terminateHeader()}: 14, 18 or 0} */
    public int terminateHeaderLength() {
        return terminateHeaderLength;
    }

    /**
     * {@return the failing segment's length as the LLP handed it up: its ULPDU length, DDP header
     * included} RFC 5040 §4.8 calls the Terminate field "the length handed up by the DDP layer";
     * Linux siw sends the payload length there instead ({@link #terminatePayloadLength()}).
     */
    public int terminateSegmentLength() {
        return terminateSegmentLength;
    }

    /**
     * {@return the failing segment's DDP payload length: {@link #terminateSegmentLength()} minus
     * the DDP header}
     */
    public int terminatePayloadLength() {
        return terminatePayloadLength;
    }

    /** {@return segments silently dropped since the stream stopped} */
    public long droppedSegments() {
        return droppedSegments;
    }

    /** {@return the stream's DDP version} */
    public int version() {
        return version;
    }

    /**
     * {@return the MSN the next segment on queue {@code qn} must carry: the message in progress, or
     * the next one}
     *
     * @param qn the Queue Number
     * @throws IllegalArgumentException if {@code qn} is not one of this stream's queues
     */
    public int expectedMsn(int qn) {
        return requireQueue(qn).expectedMsn;
    }

    /**
     * {@return octets accepted so far for the message in progress on queue {@code qn}: the MO its
     * next segment must carry; 0 between messages}
     *
     * @param qn the Queue Number
     * @throws IllegalArgumentException if {@code qn} is not one of this stream's queues
     */
    public long acceptedOctets(int qn) {
        return requireQueue(qn).accepted;
    }

    /**
     * {@return whether a message has begun but not yet completed on queue {@code qn}}
     *
     * @param qn the Queue Number
     * @throws IllegalArgumentException if {@code qn} is not one of this stream's queues
     */
    public boolean messageInProgress(int qn) {
        return requireQueue(qn).inProgress;
    }

    /**
     * Sets the expected MSN of an idle queue. Package-private: lets tests reach the 2^32 wrap of the
     * MSN without sending 2^32 messages.
     */
    void expectedMsn(int qn, int msn) {
        final UntaggedQueue queue = requireQueue(qn);
        if (queue.inProgress) {
            throw new IllegalStateException("a message is in progress on queue " + qn);
        }
        queue.expectedMsn = msn;
    }

    private UntaggedQueue requireQueue(int qn) {
        // RFC 5041 §7.1 check 1: the QN is valid for this stream.
        final UntaggedQueue queue = queue(qn);
        if (queue == null) {
            throw new IllegalArgumentException("queue number " + Integer.toUnsignedString(qn)
                    + " is not configured for this DDP stream");
        }
        return queue;
    }

    @Override
    public String toString() {
        return "DdpReceiver[version=" + version + " queues=" + queues.length
                + (stopped ? " stopped error=" + firstError + " dropped=" + droppedSegments : "") + "]";
    }

    /** Reassembly state of one untagged queue (RFC 5041 §4.3). */
    private static final class UntaggedQueue {
        final int queueNumber;
        int expectedMsn;
        boolean inProgress;
        long capacity;
        long accepted;

        UntaggedQueue(int queueNumber) {
            this.queueNumber = queueNumber;
        }

        void reset() {
            expectedMsn = INITIAL_MSN;
            inProgress = false;
            capacity = 0;
            accepted = 0;
        }

        void begin(long capacity) {
            this.inProgress = true;
            this.capacity = capacity;
            this.accepted = 0;
        }

        void complete() {
            // RFC 5041 §4.3: MSN + 1 modulo 2^32; int overflow wraps 0xFFFFFFFF to 0.
            expectedMsn++;
            inProgress = false;
            capacity = 0;
            accepted = 0;
        }
    }
}
