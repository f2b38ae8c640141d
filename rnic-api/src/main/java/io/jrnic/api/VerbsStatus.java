package io.jrnic.api;

/**
 * Immediate error results of the verbs (Verbs 1.0 §9.5.1, Figures 28 to 35). A verb that fails
 * with one of these leaves its subject resource unchanged (Verbs §8.3.1, V-ERR-2), except where
 * RI-Reregister documents otherwise.
 *
 * <p>Thread safety: immutable.
 */
public enum VerbsStatus {
    /** Insufficient resources (every creating verb). */
    INSUFFICIENT_RESOURCES,
    /** Invalid input modifier (Open RNIC name, Modify S-RQ, Modify QP, post verbs). */
    INVALID_MODIFIER,
    /** Open RNIC in Block List mode on an RNIC that supports only Page List mode (Fig. 28). */
    BLOCK_LIST_MODE_NOT_SUPPORTED,
    /** The RNIC is already open (Fig. 28). */
    RNIC_IN_USE,
    /** The RNIC handle is closed or foreign. */
    INVALID_RNIC_HANDLE,
    /** The PD is deallocated or belongs to another RNIC. */
    INVALID_PD_ID,
    /** Deallocate PD while a QP, S-RQ, MR or MW still uses it (Fig. 29). */
    PD_IN_USE,
    /** Number of CQ entries requested exceeds the RNIC capability (Fig. 30). */
    CQ_DEPTH_EXCEEDS_CAPABILITY,
    /** Shrinking a CQ, WQ or S-RQ below the number of entries it holds (Figs. 30 to 32). */
    SHRINK_TOO_MANY_ELEMENTS,
    /** The CQ handle is destroyed or foreign. */
    INVALID_CQ_HANDLE,
    /** Destroy CQ while work queues are still associated (Fig. 30). */
    CQ_IN_USE,
    /** Poll CQ found no completion (Fig. 30); the Java poll methods report it as a count of 0. */
    CQ_EMPTY,
    /** Unknown Completion Event Handler Identifier (Figs. 30, 35). */
    INVALID_COMPLETION_HANDLER_ID,
    /** Maximum outstanding work requests exceeds the RNIC capability (Figs. 31, 32). */
    MAX_WRS_EXCEED_CAPABILITY,
    /** Maximum SGEs per work request exceeds the RNIC capability (Figs. 31, 32). */
    MAX_SGES_EXCEED_CAPABILITY,
    /** S-RQ Limit larger than the S-RQ's maximum outstanding work requests (Fig. 31). */
    SRQ_LIMIT_OUT_OF_RANGE,
    /** The S-RQ handle is destroyed or foreign. */
    INVALID_SRQ_HANDLE,
    /** Destroy S-RQ while QPs are still associated with it (Fig. 31, §9.2.4.4). */
    SRQ_IN_USE,
    /** ORD exceeds the RNIC capability (Fig. 32). */
    ORD_EXCEEDS_CAPABILITY,
    /** IRD exceeds the RNIC capability (Fig. 32). */
    IRD_EXCEEDS_CAPABILITY,
    /** The QP handle is destroyed or foreign. */
    INVALID_QP_HANDLE,
    /** Cannot change QP attribute (Fig. 32). */
    CANNOT_CHANGE_QP_ATTRIBUTE,
    /** Invalid QP state change requested (Fig. 32, Verbs §6.2 transition tables). */
    INVALID_QP_STATE_CHANGE,
    /** The LLP Stream Handle is missing, foreign or not established (Fig. 32, V-QPS-12). */
    INVALID_LLP_STREAM_HANDLE,
    /** Error to Idle requested while work requests are still being flushed (Fig. 32). */
    RI_STILL_FLUSHING,
    /** QP RQ Limit out of range (Fig. 32). */
    QP_RQ_LIMIT_OUT_OF_RANGE,
    /** Destroy QP while memory windows are bound to it (Fig. 32). */
    MWS_STILL_BOUND_TO_QP,
    /** Invalid virtual address (Fig. 33). */
    INVALID_VA,
    /** Invalid length: too long or not covered by the memory (Fig. 33). */
    INVALID_LENGTH,
    /** Invalid access rights requested (Fig. 33, Figure 18). */
    INVALID_ACCESS_RIGHTS,
    /** Invalid physical buffer list entry (Fig. 33). */
    INVALID_PBL_ENTRY,
    /** Unsupported physical buffer (page) size (Fig. 33). */
    INVALID_PHYSICAL_BUFFER_SIZE,
    /** The STag index is unknown, of the wrong kind, STag 0 or its key does not match (Fig. 33). */
    INVALID_STAG_INDEX,
    /** First byte offset larger than the physical buffer size (Fig. 33). */
    INVALID_FBO,
    /** Deallocate or Reregister a region with windows bound to it (Fig. 33). */
    MWS_STILL_BOUND_TO_REGION,
    /** The work queue is full (Fig. 34). */
    TOO_MANY_WRS_POSTED,
    /** Posting is not allowed in the QP's current state (Fig. 34). */
    INVALID_QP_STATE,
    /** Malformed SGL: negative lengths, missing SGEs, null entries (Fig. 34). */
    INVALID_SGL_FORMAT,
    /** More SGEs than the queue supports, or inline data too large (Fig. 34). */
    INVALID_SGL_LENGTH,
    /** Operation type missing or not allowed on this queue (Fig. 34). */
    INVALID_OPERATION_TYPE,
    /** PostRQ to the RQ of a QP that uses an S-RQ (Fig. 34). */
    RQ_ASSOCIATED_WITH_SRQ,
    /** Request Completion Notification with an unknown type (Fig. 35). */
    INVALID_NOTIFY_TYPE
}
