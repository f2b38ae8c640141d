package io.jrnic.api;

/**
 * A shared receive queue (Verbs 1.0 §6.3, §9.2.4). Its WQEs stay counted until their Work
 * Completion is polled (V-SRQ-19); when the number of available (posted, not yet used) WQEs
 * drops below the armed S-RQ Limit, the SRQ_LIMIT_REACHED event fires once (§6.3.8).
 *
 * <p>Thread safety: all methods are thread safe.
 */
public interface SharedReceiveQueue extends AutoCloseable {
    /** Value for {@link #modify(int, int, boolean)} arguments that keep the current setting. */
    int UNCHANGED = -1;

    /**
     * PostRQ to the S-RQ (Verbs §6.3.5, §9.3.1.2); the request is copied.
     *
     * @param wr the receive work request
     * @throws VerbsException TOO_MANY_WRS_POSTED, INVALID_SGL_LENGTH, INVALID_SGL_FORMAT, INVALID_SRQ_HANDLE
     */
    void postReceive(ReceiveWorkRequest wr);

    /**
     * PostRQ of a list: stops at the first failing WR (Verbs §8.2.1).
     *
     * @param wrs    the requests
     * @param offset first index
     * @param count  number to post
     * @return number posted (= count)
     * @throws VerbsException for the first failing WR, with {@link VerbsException#postedCount()}
     */
    int postReceive(ReceiveWorkRequest[] wrs, int offset, int count);

    /**
     * Modify S-RQ (Verbs §9.2.4.3).
     *
     * @param maxWrs   new maximum outstanding WRs or {@link #UNCHANGED}
     * @param limit    new S-RQ Limit or {@link #UNCHANGED}
     * @param armLimit arm (or re-arm) the limit event
     * @return the allocated maximum WRs
     * @throws VerbsException SHRINK_TOO_MANY_ELEMENTS, SRQ_LIMIT_OUT_OF_RANGE, INVALID_MODIFIER,
     *                        MAX_WRS_EXCEED_CAPABILITY
     */
    int modify(int maxWrs, int limit, boolean armLimit);

    /**
     * Query S-RQ (Verbs §9.2.4.2).
     *
     * @return a snapshot
     */
    SrqAttributes query();

    /**
     * Sets the fair-share policy (RFC 5040 §8.1.2 item 8); it applies from the next WQE taken. A
     * new S-RQ starts with {@link RnicConfig#srqFairShare()}.
     *
     * @param policy the policy
     * @throws VerbsException INVALID_SRQ_HANDLE; INVALID_MODIFIER for a window above the RNIC's
     *                        maximum S-RQ WRs
     */
    void fairShare(SrqFairShare policy);

    /**
     * The current fair-share policy.
     *
     * @return the policy
     */
    SrqFairShare fairShare();

    /**
     * What one attached QP consumed of this S-RQ (which remote peer takes the buffers).
     *
     * @param qp a QP that uses this S-RQ
     * @return a snapshot (all zero for a QP that took nothing yet)
     * @throws VerbsException INVALID_QP_HANDLE when the QP does not use this S-RQ, INVALID_SRQ_HANDLE
     */
    SrqConsumption consumption(QueuePair qp);

    /**
     * Destroy S-RQ (Verbs §6.3.3): allowed with WRs posted (they never complete).
     *
     * @throws VerbsException SRQ_IN_USE while QPs use it
     */
    @Override
    void close();
}
