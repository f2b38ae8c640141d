package io.jrnic.api;

/**
 * Asynchronous Event Identifiers of Verbs 1.0 §9.5.3 (Figure 37) with their Resource Indicator
 * and, where Figure 24/25 gives one, the Terminate code (Layer|EType|Code as a 16-bit value,
 * {@link #NO_TERMINATE_CODE} when none is sent).
 *
 * <p>Thread safety: immutable.
 */
public enum AsyncEventType {
    /** The stream finished Closing gracefully; QP is now Idle. */
    LLP_CLOSE_COMPLETE(ResourceType.QP, -1),
    /** A Terminate message arrived; QP entered Terminate. */
    TERMINATE_MESSAGE_RECEIVED(ResourceType.QP, -1),
    /** The LLP stream was reset by the peer; QP entered Error. */
    LLP_CONNECTION_RESET(ResourceType.QP, -1),
    /** The LLP connection was lost (timeout, retries); QP entered Error. */
    LLP_CONNECTION_LOST(ResourceType.QP, -1),
    /** LLP integrity error: segment size invalid. */
    LLP_SEGMENT_SIZE_INVALID(ResourceType.QP, 0x1000),
    /** LLP integrity error: invalid CRC. */
    LLP_INVALID_CRC(ResourceType.QP, 0x0202),
    /** LLP integrity error: bad FPDU (marker and length disagree). */
    LLP_BAD_FPDU(ResourceType.QP, 0x0203),
    /** Remote operation error: invalid DDP version. */
    INVALID_DDP_VERSION(ResourceType.QP, 0x1206),
    /** Remote operation error: invalid RDMA version. */
    INVALID_RDMA_VERSION(ResourceType.QP, 0x0205),
    /** Remote operation error: unexpected opcode. */
    UNEXPECTED_OPCODE(ResourceType.QP, 0x0206),
    /** Remote operation error: invalid DDP queue number. */
    INVALID_DDP_QUEUE_NUMBER(ResourceType.QP, 0x1201),
    /** Remote operation error: RDMA Read Request on a QP without inbound RDMA Read. */
    RDMA_READ_NOT_ENABLED(ResourceType.QP, 0x1201),
    /** Remote operation error: RDMA Write or Read Response on a QP without that enable. */
    RDMA_WRITE_NOT_ENABLED(ResourceType.QP, 0x1102),
    /** Remote operation error: RDMA Read Request too small or with a non-zero offset. */
    INVALID_READ_REQUEST(ResourceType.QP, 0x0206),
    /** Remote operation error: no L bit when expected. */
    NO_L_BIT(ResourceType.QP, 0x0207),
    /** Protection error: invalid STag on an inbound tagged segment. */
    TAGGED_INVALID_STAG(ResourceType.QP, 0x1100),
    /** Protection error: tagged base and bounds violation. */
    TAGGED_BASE_BOUNDS(ResourceType.QP, 0x1101),
    /** Protection error: tagged access rights violation. */
    TAGGED_ACCESS_RIGHTS(ResourceType.QP, 0x1102),
    /** Protection error: tagged buffer not allowed for this QP's PD (0x1102 as printed). */
    TAGGED_INVALID_PD(ResourceType.QP, 0x1102),
    /** Protection error: tagged wrap. */
    TAGGED_WRAP(ResourceType.QP, 0x1103),
    /** Bad Close: segment in Closing, SQ WQE present, or RDMA in progress; QP entered Error. */
    BAD_CLOSE(ResourceType.QP, -1),
    /** Bad LLP Close: LLP close received with SQ or IRRQ not empty; QP entered Terminate. */
    BAD_LLP_CLOSE(ResourceType.QP, 0x0207),
    /** RQ protection error: invalid MSN, range not valid (e.g. no receive posted). */
    RQ_INVALID_MSN_RANGE(ResourceType.QP, 0x1202),
    /** RQ protection error: gap in MSN. */
    RQ_INVALID_MSN_GAP(ResourceType.QP, 0x1202),
    /** IRRQ protection error: too many RDMA Read Requests in progress (IRD exceeded). */
    IRRQ_TOO_MANY_READS(ResourceType.QP, 0x1203),
    /** IRRQ protection error: gap in MSN. */
    IRRQ_INVALID_MSN_GAP(ResourceType.QP, 0x1203),
    /** IRRQ protection error: MSN range not valid. */
    IRRQ_INVALID_MSN_RANGE(ResourceType.QP, 0x1203),
    /** IRRQ protection error: invalid data source STag. */
    IRRQ_INVALID_STAG(ResourceType.QP, 0x0100),
    /** IRRQ protection error: base and bounds violation. */
    IRRQ_BASE_BOUNDS(ResourceType.QP, 0x0101),
    /** IRRQ protection error: access rights violation. */
    IRRQ_ACCESS_RIGHTS(ResourceType.QP, 0x0102),
    /** IRRQ protection error: invalid PD. */
    IRRQ_INVALID_PD(ResourceType.QP, 0x0103),
    /** IRRQ protection error: wrap. */
    IRRQ_WRAP(ResourceType.QP, 0x0104),
    /** CQ overflow or operation error during an SQ completion; QP entered Terminate. */
    CQ_SQ_ERROR(ResourceType.QP, 0x0207),
    /** CQ overflow or operation error during an RQ completion; QP entered Terminate. */
    CQ_RQ_ERROR(ResourceType.QP, 0x0207),
    /** Error pulling a WQE from the QP's S-RQ; QP entered Terminate. */
    SRQ_ERROR_ON_QP(ResourceType.QP, 0x0207),
    /** Local QP catastrophic error; QP moved to Error. */
    LOCAL_QP_CATASTROPHIC(ResourceType.QP, 0x0207),
    /** The armed QP RQ Limit was reached (S-RQ attached QP). */
    QP_RQ_LIMIT_REACHED(ResourceType.QP, -1),
    /**
     * A QP took more than its fair share of its S-RQ (RFC 5040 §8.1.2 item 8; jrnic extension to
     * Figure 37, see {@link SrqFairShare}). When the policy refuses the WQE, the Terminate that
     * follows is reported by {@link #RQ_INVALID_MSN_RANGE} (0x1202, no buffer available).
     */
    SRQ_FAIR_SHARE_EXCEEDED(ResourceType.QP, -1),
    /** Optional CQ overflow detection (reported in addition to the QP's CQ_SQ/RQ_ERROR). */
    CQ_OVERFLOW_DETECTED(ResourceType.CQ, -1),
    /** CQ fault unrelated to a specific completion. */
    CQ_OPERATION_ERROR(ResourceType.CQ, -1),
    /** The armed S-RQ Limit was reached. */
    SRQ_LIMIT_REACHED(ResourceType.SRQ, -1),
    /** The S-RQ can no longer be used. */
    SRQ_CATASTROPHIC(ResourceType.SRQ, -1),
    /** The RNIC cannot function reliably; recovery is Close RNIC. */
    RNIC_CATASTROPHIC(ResourceType.RNIC, 0x0208);

    /** Value of {@link #terminateCode()} when the event sends no Terminate code. */
    public static final int NO_TERMINATE_CODE = -1;

    private final ResourceType resourceType;
    private final int terminateCode;

    AsyncEventType(ResourceType resourceType, int terminateCode) {
        this.resourceType = resourceType;
        this.terminateCode = terminateCode;
    }

    /**
     * The Resource Indicator of events of this type.
     *
     * @return QP, CQ, SRQ or RNIC
     */
    public ResourceType resourceType() {
        return resourceType;
    }

    /**
     * Terminate code (Layer&lt;&lt;12 | EType&lt;&lt;8 | Code) of Figures 24/25.
     *
     * @return the code, or {@link #NO_TERMINATE_CODE}
     */
    public int terminateCode() {
        return terminateCode;
    }
}
