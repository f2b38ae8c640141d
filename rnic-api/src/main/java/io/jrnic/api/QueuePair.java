package io.jrnic.api;

/**
 * A queue pair (Verbs 1.0 §6): SQ, RQ (or an S-RQ) and the state machine of §6.2. Posting
 * validates the request, copies it into a preallocated WQE slot and allocates nothing.
 *
 * <p>Thread safety: all methods are thread safe; posting from several threads is allowed and
 * each queue keeps the order in which posts were accepted.
 */
public interface QueuePair extends AutoCloseable {
    /**
     * The QP ID, unique within the RNIC (V-QP-15).
     *
     * @return the id
     */
    int id();

    /**
     * The current state.
     *
     * @return the state
     */
    QpState state();

    /**
     * PostSQ of one work request (Verbs §9.3.1.1).
     *
     * @param wr the request; copied, reusable as soon as the call returns
     * @throws VerbsException TOO_MANY_WRS_POSTED, INVALID_QP_STATE, INVALID_SGL_FORMAT,
     *                        INVALID_SGL_LENGTH, INVALID_OPERATION_TYPE, INVALID_MODIFIER
     */
    void postSend(SendWorkRequest wr);

    /**
     * PostSQ of a list: WRs enter the SQ in list order; the first Immediate Error stops (V-WRP-3).
     *
     * @param wrs    the requests
     * @param offset first index
     * @param count  number to post
     * @return number posted (= count on success)
     * @throws VerbsException for the first failing WR, carrying {@link VerbsException#postedCount()}
     */
    int postSend(SendWorkRequest[] wrs, int offset, int count);

    /**
     * PostRQ of one work request (Verbs §9.3.1.2).
     *
     * @param wr the request; copied
     * @throws VerbsException RQ_ASSOCIATED_WITH_SRQ, TOO_MANY_WRS_POSTED, INVALID_QP_STATE,
     *                        INVALID_SGL_FORMAT, INVALID_SGL_LENGTH
     */
    void postReceive(ReceiveWorkRequest wr);

    /**
     * PostRQ of a list (first failure stops).
     *
     * @param wrs    the requests
     * @param offset first index
     * @param count  number to post
     * @return number posted
     */
    int postReceive(ReceiveWorkRequest[] wrs, int offset, int count);

    /**
     * Modify QP (Verbs §6.1.3, §9.2.5.3): all-or-nothing; on return the state change happened.
     *
     * @param modification the requested next state and attributes
     * @return the attributes after the change (allocated depths, IRD, ORD)
     * @throws VerbsException per Figure 32; nothing is changed then
     */
    QueuePairAttributes modify(QueuePairModification modification);

    /**
     * Query QP (Verbs §9.2.5.2).
     *
     * @return a snapshot
     */
    QueuePairAttributes query();

    /**
     * Reads this queue pair's traffic counters into a caller-owned holder, without allocating:
     * messages and payload bytes by {@link MessageType}, FPDUs, CRC errors, Terminates, bytes placed
     * directly or copied (docs/observability.md). They count from the creation of the queue pair,
     * over every connection it had, and stay readable after it was destroyed.
     *
     * @param into the holder to fill (every counter is overwritten)
     * @return {@code into}
     */
    Counters counters(Counters into);

    /**
     * The traffic counters in a new holder ({@link #counters(Counters)}).
     *
     * @return a snapshot
     */
    default Counters counters() {
        return counters(new Counters());
    }

    /**
     * Destroy QP (Verbs §6.1.4): in any state; outstanding WRs produce no further completions.
     *
     * @throws VerbsException MWS_STILL_BOUND_TO_QP
     */
    @Override
    void close();
}
