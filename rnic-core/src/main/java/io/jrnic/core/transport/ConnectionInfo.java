package io.jrnic.core.transport;

import io.jrnic.mpa.MpaParameters;
import io.jrnic.mpa.RtrForm;

import java.net.SocketAddress;

/**
 * The hand-off from connection setup to the QP engine: everything MPA negotiated and what the RTR
 * already consumed (RFC 6581 §9; wire-format.md §7 item 11).
 *
 * <p>MSNs count from 1 per queue and direction (RFC 5041 §5.1). The transport sends and absorbs the
 * RTR itself, so the QP must start its counters where the RTR left them:
 * <ul>
 *   <li>Send RTR: MSN 1 of QN 0 in the Initiator-to-Responder direction (the Initiator's
 *       {@code nextOutboundSendMsn} and the Responder's {@code nextInboundSendMsn} are 2). The
 *       Responder used no receive buffer for it.</li>
 *   <li>Read RTR: MSN 1 of QN 1 in the same direction ({@code nextOutboundReadRequestMsn} /
 *       {@code nextInboundReadRequestMsn} = 2). The Responder answered it with a zero-length Read
 *       Response before reporting the connection; its IRD slot is free again. The Initiator absorbs
 *       that response when it arrives and holds one ORD slot until then
 *       ({@link FpduChannel#readRtrOutstanding()}).</li>
 *   <li>Write RTR: consumes nothing (a tagged zero-length Write is ignored).</li>
 * </ul>
 *
 * <p>Thread safety: immutable record (the private data array must not be modified), safe to share.
 *
 * @param role                       this endpoint's MPA role
 * @param parameters                 what MPA negotiated: revision, CRC, markers per direction,
 *                                   IRD/ORD, peer-to-peer, RTR forms
 * @param rtr                        the RTR form that was exchanged, or {@code null} (client/server)
 * @param nextOutboundSendMsn        next MSN this endpoint sends on QN 0
 * @param nextOutboundReadRequestMsn next MSN this endpoint sends on QN 1
 * @param nextInboundSendMsn         next MSN this endpoint expects on QN 0
 * @param nextInboundReadRequestMsn  next MSN this endpoint expects on QN 1
 * @param mulpdu                     the largest ULPDU this endpoint may send (RFC 5044 §4.5, from
 *                                   {@link TransportConfig#emss()} and our markers)
 * @param localPrivateData           the ULP private data this endpoint sent in its Request or Reply
 * @param peerPrivateData            the ULP private data of the peer's frame (after the IRD/ORD word)
 * @param localAddress               this endpoint's socket address
 * @param remoteAddress              the peer's socket address
 */
public record ConnectionInfo(Role role, MpaParameters parameters, RtrForm rtr, int nextOutboundSendMsn,
                             int nextOutboundReadRequestMsn, int nextInboundSendMsn,
                             int nextInboundReadRequestMsn, int mulpdu, byte[] localPrivateData,
                             byte[] peerPrivateData, SocketAddress localAddress, SocketAddress remoteAddress) {

    /** The MPA roles (wire-format.md §0: independent of who opened TCP, but here the connector initiates). */
    public enum Role {
        /** Sent the MPA Request (the active side). */
        INITIATOR,
        /** Answered with the MPA Reply (the passive side). */
        RESPONDER
    }

    /** The first MSN of every queue and direction (RFC 5041 §5.1). */
    public static final int FIRST_MSN = 1;

    /** Builds the hand-off, deriving the MSNs from the role and the RTR form. */
    static ConnectionInfo of(Role role, MpaParameters parameters, RtrForm rtr, int mulpdu, byte[] localPrivateData,
                             byte[] peerPrivateData, SocketAddress localAddress, SocketAddress remoteAddress) {
        int send = rtr == RtrForm.SEND ? FIRST_MSN + 1 : FIRST_MSN;
        int read = rtr == RtrForm.READ ? FIRST_MSN + 1 : FIRST_MSN;
        boolean initiator = role == Role.INITIATOR;
        return new ConnectionInfo(role, parameters, rtr,
                initiator ? send : FIRST_MSN, initiator ? read : FIRST_MSN,
                initiator ? FIRST_MSN : send, initiator ? FIRST_MSN : read,
                mulpdu, localPrivateData, peerPrivateData, localAddress, remoteAddress);
    }
}
