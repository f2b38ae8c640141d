package io.jrnic.api;

import io.jrnic.api.internal.ApiAccess;

/**
 * A Work Completion (Verbs 1.0 §9.3.2.1): caller-owned, reused across polls. For a status other
 * than SUCCESS only {@link #wrId()}, {@link #status()} and the QP fields are defined
 * (V-VERB-PollCQ-9).
 *
 * <p>Thread safety: not thread safe; one owner at a time.
 */
public final class WorkCompletion {
    private long wrId;
    private Opcode opcode;
    private WorkCompletionStatus status;
    private int byteLength;
    private int qpId;
    private QueuePair queuePair;
    private boolean stagInvalidated;
    private int invalidatedStag;
    private boolean hasImmediateData;
    private long immediateData;

    static {
        // The implementation fills completions through io.jrnic.api.internal (exported to it alone)
        ApiAccess.install(new ApiAccess() {
            @Override
            public void set(WorkCompletion wc, long wrId, Opcode opcode, WorkCompletionStatus status,
                            int byteLength, QueuePair queuePair, boolean stagInvalidated, int invalidatedStag) {
                wc.set(wrId, opcode, status, byteLength, queuePair, stagInvalidated, invalidatedStag);
            }

            @Override
            public void immediateData(WorkCompletion wc, long data) {
                wc.immediateData(data);
            }

            @Override
            public long[] counterValues(Counters counters) {
                return counters.values();
            }
        });
    }

    /** Creates an empty completion to be filled by polling. */
    public WorkCompletion() {
    }

    /**
     * Copies every field of another completion into this one (no allocation): polling reuses the
     * completion it fills, so keep a copy of one that must outlive the next poll.
     *
     * @param other the completion to copy
     * @return this
     */
    public WorkCompletion copyFrom(WorkCompletion other) {
        this.wrId = other.wrId;
        this.opcode = other.opcode;
        this.status = other.status;
        this.byteLength = other.byteLength;
        this.qpId = other.qpId;
        this.queuePair = other.queuePair;
        this.stagInvalidated = other.stagInvalidated;
        this.invalidatedStag = other.invalidatedStag;
        this.hasImmediateData = other.hasImmediateData;
        this.immediateData = other.immediateData;
        return this;
    }

    /**
     * Fills every field; only the RNIC implementation calls it (through
     * {@code io.jrnic.api.internal.ApiAccess}).
     *
     * @param wrId            the 64-bit WR ID
     * @param opcode          the operation type
     * @param status          the completion status
     * @param byteLength      bytes received (Receive only)
     * @param queuePair       the QP where the WR was posted
     * @param stagInvalidated whether an incoming Send with Invalidate invalidated an STag
     * @param invalidatedStag that STag
     * @return this
     */
    WorkCompletion set(long wrId, Opcode opcode, WorkCompletionStatus status, int byteLength,
                              QueuePair queuePair, boolean stagInvalidated, int invalidatedStag) {
        this.wrId = wrId;
        this.opcode = opcode;
        this.status = status;
        this.byteLength = byteLength;
        this.queuePair = queuePair;
        this.qpId = queuePair == null ? -1 : queuePair.id();
        this.stagInvalidated = stagInvalidated;
        this.invalidatedStag = invalidatedStag;
        this.hasImmediateData = false;
        this.immediateData = 0;
        return this;
    }

    /**
     * Attaches the 8 bytes of an RFC 7306 Immediate Data message to a receive completion (after
     * {@link #set}, which clears them).
     *
     * @param data the immediate data as sent (big-endian on the wire)
     * @return this
     */
    WorkCompletion immediateData(long data) {
        this.hasImmediateData = true;
        this.immediateData = data;
        return this;
    }

    /**
     * Whether this receive completion carries RFC 7306 Immediate Data (its opcode is then
     * {@link Opcode#IMMEDIATE_DATA} or {@link Opcode#IMMEDIATE_DATA_SE} and its byte length 0: the
     * data is not placed in the receive buffers, checklist AMB-32).
     *
     * @return true for a completed Immediate Data message
     */
    public boolean hasImmediateData() {
        return hasImmediateData;
    }

    /**
     * The 8 bytes of RFC 7306 Immediate Data, as the sender's {@code long}.
     *
     * @return the data, 0 when {@link #hasImmediateData()} is false
     */
    public long immediateData() {
        return immediateData;
    }

    /**
     * The consumer's 64-bit WR ID, valid for every status.
     *
     * @return the WR ID
     */
    public long wrId() {
        return wrId;
    }

    /**
     * The operation type.
     *
     * @return the opcode
     */
    public Opcode opcode() {
        return opcode;
    }

    /**
     * The Completion Status.
     *
     * @return the status
     */
    public WorkCompletionStatus status() {
        return status;
    }

    /**
     * Bytes transferred, valid for successful Receives only.
     *
     * @return the length
     */
    public int byteLength() {
        return byteLength;
    }

    /**
     * The QP ID of the QP where the WR was posted.
     *
     * @return the QP ID
     */
    public int qpId() {
        return qpId;
    }

    /**
     * The QP where the WR was posted.
     *
     * @return the QP handle
     */
    public QueuePair queuePair() {
        return queuePair;
    }

    /**
     * STag Invalidated Indicator.
     *
     * @return true when an incoming Send with Invalidate invalidated {@link #invalidatedStag()}
     */
    public boolean stagInvalidated() {
        return stagInvalidated;
    }

    /**
     * The invalidated STag, valid when {@link #stagInvalidated()}.
     *
     * @return the STag
     */
    public int invalidatedStag() {
        return invalidatedStag;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", " + opcode + ", " + status + ", len=" + byteLength + ", qp=" + qpId
                + (stagInvalidated ? ", invalidated=0x" + Integer.toHexString(invalidatedStag) : "")
                + (hasImmediateData ? ", imm=0x" + Long.toHexString(immediateData) : "") + "]";
    }
}
