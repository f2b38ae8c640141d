package io.jrnic.core;

/**
 * The requester's ORD queue: RDMA Read WQEs whose Read Request went out and whose Read Response
 * has not been Delivered yet, oldest first (RFC 5040 §5.2, §6.1, Verbs §6.5). Responses arrive in
 * request order (RFC 5040 §5.5 rule 11, R-READ-029), so the head is always the one being answered.
 * The ORD limit itself is applied by the SQ (Verbs V-IRD-9); the ring only needs room for the
 * RNIC's maximum ORD.
 *
 * <p>RFC 7306 Atomic Requests and the commit draft's Flush / Verify / Atomic Write requests also
 * consume ORD and are answered in order on queue 3: they would get a second ring of this shape
 * keyed by their response queue, the request kind kept in {@link #kind}.
 *
 * <p>Thread safety: confined to the engine's event loop.
 */
final class OutstandingReads {
    /** Kind of an outstanding request: an RDMA Read (answered by a tagged Read Response). */
    static final int READ = 0;

    private final SendWqe[] wqes;
    private final int[] kind;
    private final long[] received;
    private long head;
    private long tail;

    OutstandingReads(int capacity) {
        wqes = new SendWqe[Math.max(1, capacity)];
        kind = new int[wqes.length];
        received = new long[wqes.length];
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
        if (tail - head == wqes.length) {
            return false;
        }
        int i = (int) (tail++ % wqes.length);
        wqes[i] = w;
        kind[i] = READ;
        received[i] = 0;
        return true;
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
