package io.jrnic.core;

import java.lang.foreign.MemorySegment;

/**
 * The responder's IRD queue (the IRRQ, DDP queue 1, RFC 5040 §5.2.1, §6.1, Verbs §6.5): validated
 * inbound RDMA Read Requests waiting for, or in the middle of, their Read Response, in the order
 * they were Delivered (R-READ-017, R-READ-029). Each slot keeps the sink STag and TO to copy into
 * the response, the size, the source memory resolved when the request was validated, and the bytes
 * already sent. Preallocated for the RNIC's maximum IRD; nothing is allocated per request.
 *
 * <p>Each slot may also keep the request's source STag and TO. With them, TX checks before every
 * Read Response segment that the source is still what the request was validated against (Verbs
 * §6.4 #5, V-TERM-9: an STag invalidated or deregistered in the meantime stops the response before
 * the bad segment). A slot added without them (source STag 0) is only checked for its memory still
 * being alive.
 *
 * <p>RFC 7306 Atomic Requests and the commit draft's requests share the IRD (R-READ-044): they
 * would take a slot here too, with a kind field selecting an untagged response on queue 3 instead
 * of the tagged Read Response, executed when the slot reaches the head, so that all responses keep
 * request order.
 *
 * <p>Thread safety: confined to the engine's event loop, except {@link #size()}, which any thread
 * may read (Verbs: "remote reads in progress").
 */
final class InboundReadQueue {
    private final int[] sinkStag;
    private final long[] sinkTo;
    private final long[] size;
    private final long[] sent;
    private final MemorySegment[] source;
    private final long[] sourceOffset;
    private final int[] sourceStag;
    private final long[] sourceTo;
    private long head;
    private long tail;
    private volatile int count;

    InboundReadQueue(int capacity) {
        int n = Math.max(1, capacity);
        sinkStag = new int[n];
        sinkTo = new long[n];
        size = new long[n];
        sent = new long[n];
        source = new MemorySegment[n];
        sourceOffset = new long[n];
        sourceStag = new int[n];
        sourceTo = new long[n];
    }

    /** Requests held: accepted and not completely answered. Readable from any thread. */
    int size() {
        return count;
    }

    boolean isEmpty() {
        return head == tail;
    }

    /**
     * Appends a validated request whose source is checked only for its memory being alive. The
     * caller has already compared the count with the IRD.
     *
     * @return false when the ring is full
     */
    boolean add(int sinkStag, long sinkTo, long size, MemorySegment source, long sourceOffset) {
        return add(sinkStag, sinkTo, size, source, sourceOffset, 0, 0);
    }

    /**
     * Appends a validated request with the source STag and TO it was validated against, so that TX
     * can check them again before each segment of the response (V-TERM-9). The caller has already
     * compared the count with the IRD.
     *
     * @param sourceStag the Data Source STag of the request, or 0 when not to be checked again
     * @param sourceTo   the Data Source Tagged Offset of the request
     * @return false when the ring is full
     */
    boolean add(int sinkStag, long sinkTo, long size, MemorySegment source, long sourceOffset, int sourceStag,
                long sourceTo) {
        if (tail - head == this.size.length) {
            return false;
        }
        int i = (int) (tail++ % this.size.length);
        this.sinkStag[i] = sinkStag;
        this.sinkTo[i] = sinkTo;
        this.size[i] = size;
        this.sent[i] = 0;
        this.source[i] = source;
        this.sourceOffset[i] = sourceOffset;
        this.sourceStag[i] = sourceStag;
        this.sourceTo[i] = sourceTo;
        count++;
        return true;
    }

    private int h() {
        return (int) (head % size.length);
    }

    int headSinkStag() {
        return sinkStag[h()];
    }

    long headSinkTo() {
        return sinkTo[h()];
    }

    long headSize() {
        return size[h()];
    }

    long headSent() {
        return sent[h()];
    }

    void headSent(long bytes) {
        sent[h()] = bytes;
    }

    MemorySegment headSource() {
        return source[h()];
    }

    long headSourceOffset() {
        return sourceOffset[h()];
    }

    /** The head's Data Source STag, 0 when it is not checked again. */
    int headSourceStag() {
        return sourceStag[h()];
    }

    /** The head's Data Source Tagged Offset. */
    long headSourceTo() {
        return sourceTo[h()];
    }

    /** Removes the head once its response is completely handed to the link. */
    void pop() {
        source[h()] = null;
        head++;
        count--;
    }

    void clear() {
        while (!isEmpty()) {
            pop();
        }
    }
}
