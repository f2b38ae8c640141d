package io.jrnic.mpa;

/**
 * The outcome of a successful MPA startup for one endpoint: what Full Operation uses.
 *
 * <p>Thread safety: immutable record, safe to share.
 *
 * @param revision         the MPA revision in force (1 or 2)
 * @param enhanced         whether RFC 6581 enhanced setup (S=1) was used
 * @param crc              CRCs generated and checked in both directions (RFC 5044 §7.1.1 "C")
 * @param markersOnSend    this endpoint inserts markers into the FPDUs it sends (the peer's M)
 * @param markersOnReceive the peer inserts markers into the FPDUs it sends (our M)
 * @param ird              this endpoint's negotiated inbound RDMA Read queue depth
 * @param ord              this endpoint's negotiated outbound RDMA Read queue depth
 * @param peerIrd          the raw IRD from the peer's frame, {@code -1} if not enhanced (RFC 6581
 *                         §9.1: passed to the ULP)
 * @param peerOrd          the raw ORD from the peer's frame, {@code -1} if not enhanced
 * @param peerToPeer       the peer-to-peer model (A=1): an RTR is the Initiator's first FPDU
 * @param rtrFlags         at the Responder: the RTR forms it announced and accepts as first FPDU;
 *                         at the Initiator: the mutual forms ({@link RtrForm#flag()} bits)
 * @param rtr              at the Initiator: the RTR form to send first, else {@code null}
 */
public record MpaParameters(int revision, boolean enhanced, boolean crc, boolean markersOnSend,
                            boolean markersOnReceive, int ird, int ord, int peerIrd, int peerOrd,
                            boolean peerToPeer, int rtrFlags, RtrForm rtr) {
}
