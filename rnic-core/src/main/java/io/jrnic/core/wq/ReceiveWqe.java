package io.jrnic.core.wq;

import io.jrnic.core.mem.SoftProtectionDomain;

/**
 * A receive WQE: the copy of a {@link io.jrnic.api.ReceiveWorkRequest} in a preallocated slot of
 * an RQ or S-RQ (Verbs 1.0 §8.1.1: a WR only lives during posting, the WQE afterwards). The
 * transport reads the SGL to place an incoming Send.
 *
 * <p>Thread safety: owned by the queue it sits in; accessed under that queue's or its QP's lock.
 */
public final class ReceiveWqe extends WorkQueueElement {
    public long wrId;
    /** PD the SGEs are checked against: the QP's, or the S-RQ's (V-SRQ-26). */
    public SoftProtectionDomain pd;
    /** Account released when this WQE's completion is polled. */
    public WorkQueueAccount account;
    /** The queue it was posted to, which takes it back ({@link ReceiveSource#recycle}): an RQ or an S-RQ. */
    public ReceiveSource<?> source;
    public boolean done;
    public io.jrnic.api.WorkCompletionStatus status;
    public int byteLength;
    public boolean solicited;
    public boolean stagInvalidated;
    public int invalidatedStag;
    /** Completed by an RFC 7306 Immediate Data message (set by the engine before the completion). */
    public boolean immediate;
    /** The Immediate Data's 8 bytes. */
    public long immediateData;

    ReceiveWqe(int maxSge) {
        super(maxSge);
    }

    void copyFrom(io.jrnic.api.ReceiveWorkRequest wr) {
        wrId = wr.wrId();
        copySges(wr);
        done = false;
        status = null;
        byteLength = 0;
        solicited = false;
        stagInvalidated = false;
        invalidatedStag = 0;
        immediate = false;
        immediateData = 0;
    }

    /**
     * The consumer's WR ID.
     *
     * @return the id
     */
    public long wrId() {
        return wrId;
    }
}
