package io.jrnic.core.mem;

import io.jrnic.api.WorkCompletionStatus;

/**
 * Why an incoming Send with Invalidate could not invalidate the STag it names: the status of the
 * receive's completion (Verbs 1.0 §8.2.2.1, Figure 36) and the Terminate that goes to the peer.
 *
 * <p>The wire codes follow RFC 5040 §5.3 ("STag cannot be Invalidated") with the error type chosen
 * as the checklist's AMB-06 and Linux siw do: Remote Protection (0/1/0x09) when the peer may not
 * touch the STag (another PD or QP, shared across streams per §8.1.1 (7), no remote right), Remote
 * Operation (0/2/0x09) when the STag's state forbids it (a region with windows bound); an STag that
 * names nothing is an invalid STag (0/1/0x00). Where Verbs Figure 23 suggests other codes, the RFC
 * wins: it is what the peer, possibly siw, parses (decision in docs/engine.md).
 */
public enum InvalidateRefusal {
    /** No such STag, a free entry, the wrong key or STag 0 (V-MR-26). */
    UNKNOWN_STAG(WorkCompletionStatus.INVALID_STAG, 0x0100),
    /** The QP has neither inbound Read nor inbound Write enabled (V-MR-122). */
    QP_WITHOUT_REMOTE_ACCESS(WorkCompletionStatus.INVALIDATE_STAG_PD_OR_ACCESS_ERROR, 0x0109),
    /** A shared region: it may be reachable from other streams (RFC 5040 §8.1.1 (7), V-MR-114). */
    SHARED_REGION(WorkCompletionStatus.INVALID_STAG, 0x0109),
    /** A region of another protection domain. */
    REGION_OF_OTHER_PD(WorkCompletionStatus.INVALIDATE_STAG_PD_OR_ACCESS_ERROR, 0x0109),
    /** A region without any remote access right (V-MR-85). */
    REGION_WITHOUT_REMOTE_RIGHTS(WorkCompletionStatus.INVALIDATE_STAG_PD_OR_ACCESS_ERROR, 0x0109),
    /** A window bound to another QP, or an unbound window of another PD (V-MW-45). */
    WINDOW_OF_OTHER_QP(WorkCompletionStatus.INVALIDATE_STAG_PD_OR_ACCESS_ERROR, 0x0109),
    /** A region that still has windows bound to it (Verbs §7.8). */
    REGION_WITH_BOUND_WINDOWS(WorkCompletionStatus.ACCESS_VIOLATION, 0x0209);

    /** The status of the receive that carried the Send with Invalidate. */
    public final WorkCompletionStatus status;
    /** Layer, error type and code of the Terminate (RFC 5040 §4.8): Layer&lt;&lt;12 | EType&lt;&lt;8 | Code. */
    public final int terminateCode;

    InvalidateRefusal(WorkCompletionStatus status, int terminateCode) {
        this.status = status;
        this.terminateCode = terminateCode;
    }
}
