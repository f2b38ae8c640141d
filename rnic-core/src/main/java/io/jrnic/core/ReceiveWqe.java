package io.jrnic.core;

/**
 * A receive WQE: the copy of a {@link io.jrnic.api.ReceiveWorkRequest} in a preallocated slot of
 * an RQ or S-RQ (Verbs 1.0 §8.1.1: a WR only lives during posting, the WQE afterwards). The
 * transport reads the SGL to place an incoming Send.
 *
 * <p>Thread safety: owned by the queue it sits in; accessed under that queue's or its QP's lock.
 */
public final class ReceiveWqe {
    long wrId;
    final int[] stags;
    final long[] tos;
    final int[] lengths;
    int sgeCount;
    /** PD the SGEs are checked against: the QP's, or the S-RQ's (V-SRQ-26). */
    SoftProtectionDomain pd;
    /** Account released when this WQE's completion is polled. */
    WorkQueueAccount account;
    /** The S-RQ it came from, or null for a private RQ. */
    SoftSharedReceiveQueue srq;
    boolean done;
    io.jrnic.api.WorkCompletionStatus status;
    int byteLength;
    boolean solicited;
    boolean stagInvalidated;
    int invalidatedStag;

    ReceiveWqe(int maxSge) {
        stags = new int[maxSge];
        tos = new long[maxSge];
        lengths = new int[maxSge];
    }

    void copyFrom(io.jrnic.api.ReceiveWorkRequest wr) {
        wrId = wr.wrId();
        sgeCount = wr.sgeCount();
        for (int i = 0; i < sgeCount; i++) {
            stags[i] = wr.sgeStag(i);
            tos[i] = wr.sgeTo(i);
            lengths[i] = wr.sgeLength(i);
        }
        done = false;
        status = null;
        byteLength = 0;
        solicited = false;
        stagInvalidated = false;
        invalidatedStag = 0;
    }

    /**
     * The consumer's WR ID.
     *
     * @return the id
     */
    public long wrId() {
        return wrId;
    }

    /**
     * Number of SGEs.
     *
     * @return the count
     */
    public int sgeCount() {
        return sgeCount;
    }

    /**
     * STag of SGE {@code i}.
     *
     * @param i index
     * @return the STag
     */
    public int sgeStag(int i) {
        return stags[i];
    }

    /**
     * TO of SGE {@code i}.
     *
     * @param i index
     * @return the TO
     */
    public long sgeTo(int i) {
        return tos[i];
    }

    /**
     * Length of SGE {@code i}.
     *
     * @param i index
     * @return the length
     */
    public int sgeLength(int i) {
        return lengths[i];
    }

    /**
     * Capacity of the SGL in bytes.
     *
     * @return the sum of the SGE lengths
     */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < sgeCount; i++) {
            total += lengths[i] & 0xFFFF_FFFFL;
        }
        return total;
    }
}
