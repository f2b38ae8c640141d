package io.jrnic.core.engine;

import io.jrnic.api.SendWorkRequest;
import io.jrnic.ddp.UntaggedHeaderFlyweight;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The responder's IRD queue (the IRRQ, DDP queue 1, RFC 5040 §5.2.1, §6.1, Verbs §6.5): validated
 * inbound RDMA Read Requests waiting for, or in the middle of, their Read Response, in the order
 * they were Delivered (R-READ-017, R-READ-029). Each slot keeps the sink STag and TO to copy into
 * the response, the size, the source memory resolved when the request was validated, and the bytes
 * already sent. Preallocated for the QP's IRD when its stream starts; nothing is allocated per
 * request. A Modify QP may raise the IRD in RTS: the ring then doubles when a request finds it full,
 * up to the RNIC's maximum IRD (at most a few times in a QP's life). Sized for the RNIC's maximum
 * from the start, every QP held 64 slots of 19 arrays, about 7 KiB of heap per idle QP end more than
 * with an IRD of 4 (issue 11).
 *
 * <p>Each slot may also keep the request's source STag and TO. With them, TX checks before every
 * Read Response segment that the source is still what the request was validated against (Verbs
 * §6.4 #5, V-TERM-9: an STag invalidated or deregistered in the meantime stops the response before
 * the bad segment). A slot added without them (source STag 0) is only checked for its memory still
 * being alive.
 *
 * <p>RFC 7306 Atomic Requests and the commit draft's requests share the IRD (R-READ-044, RFC 7306
 * §5.2, AMB-25): they take a slot here too ({@link #addAtomic}, {@link #addCommit}), and the slot's
 * {@link #headKind() kind} selects an untagged response on queue 3 instead of the tagged Read
 * Response. The operation is executed when its slot reaches the head (RFC 7306 §5.4 rules 5 and 8,
 * §7; C-AW-046: a Read before it has generated its response, a request after it has not started),
 * so that all responses keep request order. A commit slot also keeps the request's flags, Atomic
 * Write value, expected hash and DDP header (for a Terminate found while executing it).
 *
 * <p>Thread safety: confined to the engine's event loop, except {@link #size()}, which any thread
 * may read (Verbs: "remote reads in progress").
 */
public final class InboundReadQueue {
    /** Kind of a slot: an RDMA Read Request, answered by a tagged Read Response. */
    static final int READ = 0;
    /** Kind of a slot: an RFC 7306 Atomic Request, answered by an Atomic Response on queue 3. */
    static final int ATOMIC = 1;
    /** Kind of a slot: a commit draft Flush Request (answered by a Flush Response, draft §3.1.1). */
    static final int FLUSH = 0x10;
    /** Kind of a slot: a commit draft Verify Request (answered by a Verify Response, draft §3.1.2). */
    static final int VERIFY = 0x11;
    /** Kind of a slot: a commit draft Atomic Write Request (answered by an AW Response, draft §3.1.3). */
    static final int ATOMIC_WRITE = 0x12;

    private int[] kind;
    private int[] aopcode;
    private int[] requestId;
    private long[] addOrSwapData;
    private long[] addOrSwapMask;
    private long[] compareData;
    private long[] compareMask;
    private int[] sinkStag;
    private long[] sinkTo;
    private long[] size;
    private long[] sent;
    private MemorySegment[] source;
    private long[] sourceOffset;
    private int[] sourceStag;
    private long[] sourceTo;
    private int[] flags;
    private long[] data;
    private byte[][] hash;
    private int[] hashLength;
    private MemorySegment[] requestHeader;
    private long head;
    private long tail;
    private volatile int count;
    /** The most slots the ring may grow to: the RNIC's maximum IRD. */
    private final int maxCapacity;

    /**
     * A ring of a fixed size.
     *
     * @param capacity slots (at least 1)
     */
    InboundReadQueue(int capacity) {
        this(capacity, capacity);
    }

    /**
     * A ring that starts with {@code capacity} slots and may double up to {@code maxCapacity}.
     *
     * @param capacity    slots now: the QP's IRD (at least 1)
     * @param maxCapacity slots at most: the RNIC's maximum IRD
     */
    InboundReadQueue(int capacity, int maxCapacity) {
        int n = Math.max(1, Math.min(capacity, maxCapacity));
        this.maxCapacity = Math.max(n, maxCapacity);
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
        flags = new int[n];
        data = new long[n];
        hash = new byte[n][];
        hashLength = new int[n];
        requestHeader = new MemorySegment[n];
    }

    /** Requests held: accepted and not completely answered. Readable from any thread. */
    public int size() {
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
        if (tail - head == this.size.length && !grow()) {
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
     * Appends a validated commit draft request (Flush, Verify or Atomic Write). The caller has
     * already compared the count with the IRD. The expected hash and the DDP header are copied into
     * the slot (its buffers are made on the slot's first use and reused).
     *
     * @param kind          {@link #FLUSH}, {@link #VERIFY} or {@link #ATOMIC_WRITE}
     * @param stag          the request's STag (checked again when it executes), 0 for a zero length
     * @param to            the request's TO
     * @param length        bytes of the range
     * @param memory        the STag's memory, null for a zero length
     * @param memoryOffset  offset of {@code to} in {@code memory}
     * @param flags         Flush disposition flags
     * @param data          Atomic Write value (as on the wire)
     * @param hashSource    the Verify's expected hash, or null
     * @param hashOffset    its offset
     * @param hashLength    its length (at most {@link SendWorkRequest#MAX_HASH_LENGTH})
     * @param ddpHeader     the request's untagged DDP header (18 bytes), for a Terminate
     * @param ddpHeaderOffset its offset
     * @return false when the ring is full
     */
    boolean addCommit(int kind, int stag, long to, long length, MemorySegment memory, long memoryOffset, int flags,
                      long data, MemorySegment hashSource, long hashOffset, int hashLength, MemorySegment ddpHeader,
                      long ddpHeaderOffset) {
        if (tail - head == this.size.length && !grow()) {
            return false;
        }
        int i = (int) (tail++ % this.size.length);
        this.kind[i] = kind;
        this.sinkStag[i] = 0;
        this.sinkTo[i] = 0;
        this.size[i] = length;
        this.sent[i] = 0;
        this.source[i] = memory;
        this.sourceOffset[i] = memoryOffset;
        this.sourceStag[i] = stag;
        this.sourceTo[i] = to;
        this.flags[i] = flags;
        this.data[i] = data;
        this.hashLength[i] = hashLength;
        if (hashLength > 0) {
            if (hash[i] == null) {
                hash[i] = new byte[SendWorkRequest.MAX_HASH_LENGTH];
            }
            MemorySegment.copy(hashSource, ValueLayout.JAVA_BYTE, hashOffset, hash[i], 0,
                    hashLength);
        }
        if (requestHeader[i] == null) {
            requestHeader[i] = MemorySegment.ofArray(new byte[UntaggedHeaderFlyweight.HEADER_LENGTH]);
        }
        MemorySegment.copy(ddpHeader, ddpHeaderOffset, requestHeader[i], 0,
                UntaggedHeaderFlyweight.HEADER_LENGTH);
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

    /** The head's kind: {@link #READ}, {@link #ATOMIC}, {@link #FLUSH}, {@link #VERIFY} or {@link #ATOMIC_WRITE}. */
    int headKind() {
        return kind[h()];
    }

    /** The head's Flush disposition flags. */
    int headFlags() {
        return flags[h()];
    }

    /** The head's Atomic Write value. */
    long headData() {
        return data[h()];
    }

    /** The head's expected Verify hash (the first {@link #headHashLength()} bytes), or null. */
    byte[] headHash() {
        return hash[h()];
    }

    /** Bytes of the head's expected hash; 0 when the Verify carries none. */
    int headHashLength() {
        return hashLength[h()];
    }

    /** The head's DDP header (a commit request's), 18 bytes. */
    MemorySegment headRequestHeader() {
        return requestHeader[h()];
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

    /** Slots the ring holds now (tests). */
    int capacity() {
        return size.length;
    }

    /**
     * Doubles a full ring (up to {@link #maxCapacity}), its requests kept in order from slot 0: a
     * Modify QP raised the IRD beyond what the ring was sized for. Returns false when it may not grow.
     */
    private boolean grow() {
        int n = size.length;
        if (n >= maxCapacity) {
            return false;
        }
        int grown = Math.min(2 * n, maxCapacity);
        int h = h();
        kind = regrow(kind, new int[grown], h, n);
        aopcode = regrow(aopcode, new int[grown], h, n);
        requestId = regrow(requestId, new int[grown], h, n);
        addOrSwapData = regrow(addOrSwapData, new long[grown], h, n);
        addOrSwapMask = regrow(addOrSwapMask, new long[grown], h, n);
        compareData = regrow(compareData, new long[grown], h, n);
        compareMask = regrow(compareMask, new long[grown], h, n);
        sinkStag = regrow(sinkStag, new int[grown], h, n);
        sinkTo = regrow(sinkTo, new long[grown], h, n);
        sent = regrow(sent, new long[grown], h, n);
        source = regrow(source, new MemorySegment[grown], h, n);
        sourceOffset = regrow(sourceOffset, new long[grown], h, n);
        sourceStag = regrow(sourceStag, new int[grown], h, n);
        sourceTo = regrow(sourceTo, new long[grown], h, n);
        flags = regrow(flags, new int[grown], h, n);
        data = regrow(data, new long[grown], h, n);
        hash = regrow(hash, new byte[grown][], h, n);
        hashLength = regrow(hashLength, new int[grown], h, n);
        requestHeader = regrow(requestHeader, new MemorySegment[grown], h, n);
        size = regrow(size, new long[grown], h, n); // last: it is the capacity every index is taken against
        head = 0;
        tail = n;
        return true;
    }

    /** The full ring {@code old} (head at slot {@code h}) in order from slot 0 of {@code grown}. */
    private static <A> A regrow(A old, A grown, int h, int n) {
        System.arraycopy(old, h, grown, 0, n - h);
        System.arraycopy(old, 0, grown, n - h, h);
        return grown;
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
