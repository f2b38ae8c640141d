package io.jrnic.api;

/**
 * Input modifiers of Create QP (Verbs 1.0 §9.2.5.1), fluent and reusable; copied at creation.
 *
 * <p>Thread safety: not thread safe.
 */
public final class QueuePairConfig {
    private CompletionQueue sendCq;
    private CompletionQueue receiveCq;
    private SharedReceiveQueue srq;
    private int sqDepth = 64;
    private int rqDepth = 64;
    private int maxSendSge = 4;
    private int maxWriteSge = 4;
    private int maxReceiveSge = 4;
    private int maxInlineData;
    private int ird = 1;
    private int ord = 1;
    private boolean inboundRead = true;
    private boolean inboundWrite = true;
    private boolean bindWindows = true;
    private boolean privileged;
    private boolean signalAll = true;
    private int rqLimit;

    /** Creates a configuration with small defaults (depth 64, 4 SGEs, IRD = ORD = 1). */
    public QueuePairConfig() {
    }

    /**
     * The CQs of the SQ and the RQ (may be the same).
     *
     * @param sendCq    CQ of the SQ
     * @param receiveCq CQ of the RQ
     * @return this
     */
    public QueuePairConfig cqs(CompletionQueue sendCq, CompletionQueue receiveCq) {
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        return this;
    }

    /**
     * Uses an S-RQ instead of a private RQ (the RQ depth and RQ SGEs are then ignored).
     *
     * @param srq     the S-RQ or null
     * @param rqLimit QP RQ Limit (armed at creation when non-zero)
     * @return this
     */
    public QueuePairConfig srq(SharedReceiveQueue srq, int rqLimit) {
        this.srq = srq;
        this.rqLimit = rqLimit;
        return this;
    }

    /**
     * Queue depths (maximum outstanding WRs).
     *
     * @param sqDepth SQ depth
     * @param rqDepth RQ depth
     * @return this
     */
    public QueuePairConfig depths(int sqDepth, int rqDepth) {
        this.sqDepth = sqDepth;
        this.rqDepth = rqDepth;
        return this;
    }

    /**
     * SGE limits and inline size.
     *
     * @param maxSendSge    SGEs per Send type WR
     * @param maxWriteSge   SGEs per RDMA Write WR
     * @param maxReceiveSge SGEs per RQ WR
     * @param maxInlineData inline bytes per send WR (0 disables inline)
     * @return this
     */
    public QueuePairConfig sges(int maxSendSge, int maxWriteSge, int maxReceiveSge, int maxInlineData) {
        this.maxSendSge = maxSendSge;
        this.maxWriteSge = maxWriteSge;
        this.maxReceiveSge = maxReceiveSge;
        this.maxInlineData = maxInlineData;
        return this;
    }

    /**
     * Inbound and outbound RDMA Read depths.
     *
     * @param ird inbound read depth
     * @param ord outbound read depth
     * @return this
     */
    public QueuePairConfig readDepths(int ird, int ord) {
        this.ird = ird;
        this.ord = ord;
        return this;
    }

    /**
     * QP access enables (Verbs §9.2.5.1).
     *
     * @param inboundRead  Inbound RDMA Read enable
     * @param inboundWrite Inbound RDMA Write and Read Response enable
     * @param bindWindows  Bind Memory Windows enable
     * @return this
     */
    public QueuePairConfig access(boolean inboundRead, boolean inboundWrite, boolean bindWindows) {
        this.inboundRead = inboundRead;
        this.inboundWrite = inboundWrite;
        this.bindWindows = bindWindows;
        return this;
    }

    /**
     * Enables STag 0 and Fast-Register (privileged consumers only, V-VERB-CreateQP-3).
     *
     * @param privileged the enable
     * @return this
     */
    public QueuePairConfig privileged(boolean privileged) {
        this.privileged = privileged;
        return this;
    }

    /**
     * Signal all SQ WRs (true) or only those whose {@link SendWorkRequest#signaled()} is set.
     *
     * @param signalAll the signalling mode
     * @return this
     */
    public QueuePairConfig signalAll(boolean signalAll) {
        this.signalAll = signalAll;
        return this;
    }

    /**
     * CQ of the SQ.
     *
     * @return the CQ
     */
    public CompletionQueue sendCq() {
        return sendCq;
    }

    /**
     * CQ of the RQ.
     *
     * @return the CQ
     */
    public CompletionQueue receiveCq() {
        return receiveCq;
    }

    /**
     * The S-RQ.
     *
     * @return the S-RQ or null
     */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /**
     * SQ depth.
     *
     * @return depth
     */
    public int sqDepth() {
        return sqDepth;
    }

    /**
     * RQ depth.
     *
     * @return depth
     */
    public int rqDepth() {
        return rqDepth;
    }

    /**
     * SGEs per Send type WR.
     *
     * @return count
     */
    public int maxSendSge() {
        return maxSendSge;
    }

    /**
     * SGEs per RDMA Write WR.
     *
     * @return count
     */
    public int maxWriteSge() {
        return maxWriteSge;
    }

    /**
     * SGEs per RQ WR.
     *
     * @return count
     */
    public int maxReceiveSge() {
        return maxReceiveSge;
    }

    /**
     * Inline bytes.
     *
     * @return bytes
     */
    public int maxInlineData() {
        return maxInlineData;
    }

    /**
     * IRD.
     *
     * @return IRD
     */
    public int ird() {
        return ird;
    }

    /**
     * ORD.
     *
     * @return ORD
     */
    public int ord() {
        return ord;
    }

    /**
     * Inbound RDMA Read enable.
     *
     * @return the enable
     */
    public boolean inboundRead() {
        return inboundRead;
    }

    /**
     * Inbound RDMA Write / Read Response enable.
     *
     * @return the enable
     */
    public boolean inboundWrite() {
        return inboundWrite;
    }

    /**
     * Bind Memory Windows enable.
     *
     * @return the enable
     */
    public boolean bindWindows() {
        return bindWindows;
    }

    /**
     * STag 0 / Fast-Register enable.
     *
     * @return the enable
     */
    public boolean privileged() {
        return privileged;
    }

    /**
     * Signal-all mode.
     *
     * @return the mode
     */
    public boolean signalAll() {
        return signalAll;
    }

    /**
     * QP RQ Limit.
     *
     * @return the limit
     */
    public int rqLimit() {
        return rqLimit;
    }
}
