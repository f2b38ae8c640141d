package io.jrnic.api;

/**
 * Completion Status of a Work Completion (Verbs 1.0 §9.5.2, Figure 36). Only one completion per
 * error episode carries a status other than {@link #SUCCESS} or {@link #FLUSHED} (V-ERR-59).
 * The order follows Figure 36 (names of the first rows reconstructed, see feature-checklist.md).
 *
 * <p>Thread safety: immutable.
 */
public enum WorkCompletionStatus {
    /** Operation completed successfully. */
    SUCCESS,
    /** The work request was flushed (QP entered Error, or an earlier WR of the queue failed). */
    FLUSHED,
    /** Invalid WQE format. */
    INVALID_WQE,
    /** Local QP catastrophic error. */
    LOCAL_QP_CATASTROPHIC_ERROR,
    /** The remote peer terminated the stream while the operation was outstanding. */
    REMOTE_TERMINATION_ERROR,
    /** Invalid STag in an SGE, local or remote address, or memory work request target. */
    INVALID_STAG,
    /** Access outside the limits of the region or window (including length errors). */
    BASE_AND_BOUNDS_VIOLATION,
    /** The region or window lacks the needed access right; for Bind, incompatible rights. */
    ACCESS_VIOLATION,
    /** PD of the STag differs from the QP's, or a window is bound to another QP. */
    INVALID_PD_ID,
    /** TO plus length wraps beyond 2^64 - 1. */
    WRAP_ERROR,
    /** The STag named by an incoming Send with Invalidate had the wrong PD or no remote right. */
    INVALIDATE_STAG_PD_OR_ACCESS_ERROR,
    /** RDMA Read posted on a QP whose ORD is 0. */
    ZERO_RDMA_READ_RESOURCES,
    /** Fast-Register on a QP without the privileged (STag 0 / Fast-Register) enable. */
    QP_NOT_PRIVILEGED,
    /** Bind or Fast-Register of an STag that is not Invalid. */
    STAG_NOT_INVALID,
    /** Fast-Register: page size unsupported. */
    INVALID_PAGE_SIZE,
    /** Fast-Register: physical buffer size unsupported. */
    INVALID_PHYSICAL_BUFFER_SIZE,
    /** Fast-Register: physical buffer list entry invalid. */
    INVALID_PBL_ENTRY,
    /** Fast-Register: first byte offset larger than the physical buffer size. */
    INVALID_FBO,
    /** Fast-Register: length larger than the buffer list covers or than the RNIC supports. */
    INVALID_LENGTH,
    /** Fast-Register: invalid access rights specified. */
    INVALID_ACCESS_RIGHTS,
    /** Fast-Register: physical buffer list longer than the STag was allocated for. */
    PBL_TOO_LONG,
    /** Fast-Register: virtual address inconsistent with the first byte offset. */
    INVALID_VIRTUAL_ADDRESS,
    /** Bind: the region STag is invalid. */
    INVALID_REGION,
    /** Bind: the window STag is invalid. */
    INVALID_WINDOW,
    /** Sum of the SGL lengths larger than the RNIC supports. */
    TOTAL_LENGTH_TOO_BIG
}
