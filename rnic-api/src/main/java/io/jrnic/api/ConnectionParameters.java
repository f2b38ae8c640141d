package io.jrnic.api;

import java.util.Set;

/**
 * What MPA connection setup negotiated for one endpoint (RFC 5044 §7.1, RFC 6581 §9).
 *
 * <p>Thread safety: immutable record, safe to share.
 *
 * @param revision         the MPA revision in force (1 or 2)
 * @param enhanced         whether RFC 6581 enhanced setup was used (revision 2 frames with S=1)
 * @param crc              CRCs are generated and checked in both directions
 * @param markersOnSend    this endpoint inserts markers into the FPDUs it sends (the peer asked)
 * @param markersOnReceive the peer inserts markers into the FPDUs it sends (we asked)
 * @param ird              this endpoint's negotiated IRD (inbound RDMA Read queue depth)
 * @param ord              this endpoint's negotiated ORD (outbound RDMA Read queue depth)
 * @param peerIrd          the IRD in the peer's frame, -1 when not enhanced, 0x3FFF for "no
 *                         negotiation" (RFC 6581 §9.1: passed to the ULP)
 * @param peerOrd          the ORD in the peer's frame, likewise
 * @param peerToPeer       the peer-to-peer model (an RTR is the Initiator's first FPDU)
 * @param rtrTypes         passive side: the RTR types it announced; active side: the types both offer
 * @param rtr              the RTR exchanged, or {@code null} in the client/server model (and on the
 *                         passive side before the RTR arrived)
 */
public record ConnectionParameters(int revision, boolean enhanced, boolean crc, boolean markersOnSend,
                                   boolean markersOnReceive, int ird, int ord, int peerIrd, int peerOrd,
                                   boolean peerToPeer, Set<RtrType> rtrTypes, RtrType rtr) {
    /**
     * Copies the RTR set.
     *
     * @throws NullPointerException if rtrTypes is null
     */
    public ConnectionParameters {
        rtrTypes = Set.copyOf(rtrTypes);
    }
}
