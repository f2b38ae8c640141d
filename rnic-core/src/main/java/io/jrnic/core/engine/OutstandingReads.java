package io.jrnic.core.engine;

import io.jrnic.core.wq.SendWqe;

/**
 * The requester's ORD queue: RDMA Read WQEs whose Read Request went out and whose Read Response
 * has not been Delivered yet, oldest first (RFC 5040 §5.2, §6.1, Verbs §6.5). Responses arrive in
 * request order (RFC 5040 §5.5 rule 11, R-READ-029), so the head is always the one being answered.
 * The ORD limit itself is applied by the SQ (Verbs V-IRD-9); the ring only needs room for the
 * RNIC's maximum ORD.
 *
 * <p>RFC 7306 Atomic Requests (RFC 7306 §5.2, AMB-25) and the commit draft's Flush / Verify /
 * Atomic Write requests consume ORD too and share this ring with the Reads, in request order: the
 * responder answers every queue-1 request in the order it received them (one IRD FIFO, RFC 7306
 * §5.4 rule 8, §7, C-AW-046), so a response, tagged or on queue 3, always answers the head.
 * {@link #headKind()} tells whether it is the expected kind, and {@link #headRequestId()} is the
 * Request Identifier an Atomic Response must reflect (A-ATOM-044).
 *
 * <p>Thread safety: confined to the engine's event loop.
 */
final class OutstandingReads {
    /** Kind of an outstanding request: an RDMA Read (answered by a tagged Read Response). */
    static final int READ = 0;
    /** Kind of an outstanding request: a commit draft RDMA Flush (answered by a Flush Response on queue 3). */
    static final int FLUSH = InboundReadQueue.FLUSH;
    /** Kind of an outstanding request: a commit draft RDMA Verify (answered by a Verify Response). */
    static final int VERIFY = InboundReadQueue.VERIFY;
    /** Kind of an outstanding request: a commit draft Atomic Write (answered by an Atomic Write Response). */
    static final int ATOMIC_WRITE = InboundReadQueue.ATOMIC_WRITE;
    /** Kind of an outstanding request: an RFC 7306 atomic (answered by an Atomic Response, queue 3). */
    static final int ATOMIC = 1;

    private final SendWqe[] wqes;
    private final int[] kind;
    private final long[] received;
    private final int[] requestId;
    private long head;
    private long tail;

    OutstandingReads(int capacity) {
        wqes = new SendWqe[Math.max(1, capacity)];
        kind = new int[wqes.length];
        received = new long[wqes.length];
        requestId = new int[wqes.length];
    }

    int size() {
        return (int) (tail - head);
    }

    boolean isEmpty() {
        return head == tail;
    }

    /**
     * Appends a request whose Read Request is being sent.
     *
     * @param w the Read WQE
     * @return false when the ring is full (more than the RNIC's ORD: a programming error upstream)
     */
    boolean add(SendWqe w) {
        return add(w, READ, 0);
    }

    /**
     * Appends a request of a kind.
     *
     * @param w         the WQE
     * @param kind      {@link #READ} or {@link #ATOMIC}
     * @param requestId the RFC 7306 Request Identifier of an atomic (0 for a Read)
     * @return false when the ring is full
     */
    boolean add(SendWqe w, int kind, int requestId) {
        if (tail - head == wqes.length) {
            return false;
        }
        int i = (int) (tail++ % wqes.length);
        wqes[i] = w;
        this.kind[i] = kind;
        this.requestId[i] = requestId;
        received[i] = 0;
        return true;
    }

    /**
     * Appends a commit draft request (its request is being sent).
     *
     * @param w    the WQE
     * @param kind {@link #FLUSH}, {@link #VERIFY} or {@link #ATOMIC_WRITE}
     * @return false when the ring is full
     */
    boolean add(SendWqe w, int kind) {
        return add(w, kind, 0);
    }

    /** The head's kind ({@link #READ}, {@link #ATOMIC}, {@link #FLUSH}, ...); {@link #READ} when empty. */
    int headKind() {
        return isEmpty() ? READ : kind[(int) (head % wqes.length)];
    }

    /** The head atomic's Request Identifier. */
    int headRequestId() {
        return requestId[(int) (head % wqes.length)];
    }

    SendWqe head() {
        return isEmpty() ? null : wqes[(int) (head % wqes.length)];
    }

    /** Bytes of the head's Read Response placed so far. */
    long headReceived() {
        return received[(int) (head % wqes.length)];
    }

    void headReceived(long bytes) {
        received[(int) (head % wqes.length)] = bytes;
    }

    SendWqe poll() {
        if (isEmpty()) {
            return null;
        }
        int i = (int) (head++ % wqes.length);
        SendWqe w = wqes[i];
        wqes[i] = null;
        return w;
    }

    void clear() {
        while (poll() != null) {
            // drop references
        }
    }
}
