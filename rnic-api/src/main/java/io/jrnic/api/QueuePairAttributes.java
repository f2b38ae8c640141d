package io.jrnic.api;

/**
 * Output of Query QP (Verbs 1.0 §9.2.5.2) and of Modify QP.
 *
 * @param qpId             the QP ID
 * @param state            current state
 * @param pdId             the PD ID
 * @param sendCq           CQ of the SQ
 * @param receiveCq        CQ of the RQ
 * @param srq              the S-RQ or null
 * @param sqDepth          allocated SQ depth
 * @param rqDepth          allocated RQ depth (0 with an S-RQ)
 * @param maxSendSge       SGEs per Send type WR
 * @param maxWriteSge      SGEs per RDMA Write WR
 * @param maxReceiveSge    SGEs per RQ WR (0 with an S-RQ)
 * @param maxInlineData    inline bytes per send WR
 * @param ird              IRD
 * @param ord              ORD
 * @param inboundRead      Inbound RDMA Read enable
 * @param inboundWrite     Inbound RDMA Write / Read Response enable
 * @param bindWindows      Bind Memory Windows enable
 * @param privileged       STag 0 / Fast-Register enable
 * @param signalAll        signal-all mode
 * @param rqLimit          QP RQ Limit (S-RQ only)
 * @param rqLimitArmed     QP RQ Limit armed indicator (S-RQ only)
 * @param llpStream        the LLP Stream Handle, null in Idle and Error
 * @param terminateMessage the Terminate sent or received, only in Terminate and Error (else null)
 */
public record QueuePairAttributes(int qpId, QpState state, int pdId, CompletionQueue sendCq,
                                  CompletionQueue receiveCq, SharedReceiveQueue srq, int sqDepth, int rqDepth,
                                  int maxSendSge, int maxWriteSge, int maxReceiveSge, int maxInlineData,
                                  int ird, int ord, boolean inboundRead, boolean inboundWrite,
                                  boolean bindWindows, boolean privileged, boolean signalAll,
                                  int rqLimit, boolean rqLimitArmed, LlpStreamHandle llpStream,
                                  TerminateMessage terminateMessage) {
}
