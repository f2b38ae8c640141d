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
 * <p>RFC 7306 Atomic Requests share the IRD (R-READ-044, RFC 7306 §5.2, AMB-25): they take a slot
 * here too ({@link #addAtomic}), with {@link #headKind()} {@link #ATOMIC} selecting an untagged
 * Atomic Response on queue 3 instead of the tagged Read Response. The operation is executed when
 * its slot reaches the head (RFC 7306 §5.4 rules 5 and 8, §7: a Read before it has generated its
 * response, an atomic after it has not started), so that all responses keep request order.
 *
 * <p>Thread safety: confined to the engine's event loop, except {@link #size()}, which any thread
 * may read (Verbs: "remote reads in progress").
 */
final class InboundReadQueue {
    /** Kind of a slot: an RDMA Read Request, answered by a tagged Read Response. */
    static final int READ = 0;
    /** Kind of a slot: an RFC 7306 Atomic Request, answered by an Atomic Response on queue 3. */
    static final int ATOMIC = 1;

    private final int[] kind;
    private final int[] aopcode;
    private final int[] requestId;
    private final long[] addOrSwapData;
    private final long[] addOrSwapMask;
    private final long[] compareData;
    private final long[] compareMask;
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
        kind = new int[n];
        aopcode = new int[n];
        requestId = new int[n];
        addOrSwapData = new long[n];
        addOrSwapMask = new long[n];
        compareData = new long[n];
        compareMask = new long[n];
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
        this.kind[i] = READ;
        count++;
        return true;
    }

    /**
     * Appends a validated RFC 7306 Atomic Request (STag, PD, right, bounds and alignment checked).
     * The caller has already compared the count with the IRD.
     *
     * @param aopcode     the AOpCode (FetchAdd or CmpSwap)
     * @param requestId   the Request Identifier, reflected in the response
     * @param target      the memory of the target STag
     * @param offset      the offset of the 8-byte target in {@code target}
     * @param stag        the Remote STag, checked again before execution
     * @param to          the Remote Tagged Offset
     * @return false when the ring is full
     */
    boolean addAtomic(int aopcode, int requestId, MemorySegment target, long offset, int stag, long to,
                      long addOrSwapData, long addOrSwapMask, long compareData, long compareMask) {
        if (!add(0, 0, 8, target, offset, stag, to)) {
            return false;
        }
        int i = (int) ((tail - 1) % this.size.length);
        this.kind[i] = ATOMIC;
        this.aopcode[i] = aopcode;
        this.requestId[i] = requestId;
        this.addOrSwapData[i] = addOrSwapData;
        this.addOrSwapMask[i] = addOrSwapMask;
        this.compareData[i] = compareData;
        this.compareMask[i] = compareMask;
        return true;
    }

    /** The head's kind: {@link #READ} or {@link #ATOMIC}. */
    int headKind() {
        return kind[h()];
    }

    /** The head atomic's AOpCode. */
    int headAopcode() {
        return aopcode[h()];
    }

    /** The head atomic's Request Identifier. */
    int headRequestId() {
        return requestId[h()];
    }

    /** The head atomic's Add Data or Swap Data. */
    long headAddOrSwapData() {
        return addOrSwapData[h()];
    }

    /** The head atomic's Add Mask or Swap Mask. */
    long headAddOrSwapMask() {
        return addOrSwapMask[h()];
    }

    /** The head atomic's Compare Data. */
    long headCompareData() {
        return compareData[h()];
    }

    /** The head atomic's Compare Mask. */
    long headCompareMask() {
        return compareMask[h()];
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
