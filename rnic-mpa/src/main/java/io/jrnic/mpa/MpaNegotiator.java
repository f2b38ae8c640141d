package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * MPA startup as pure functions: builds this endpoint's Request or Reply and judges the peer's frame
 * (RFC 5044 §7.1, RFC 6581 §9-§10). No I/O and no state besides the {@link MpaSettings}.
 *
 * <p>Rules applied (documented in docs/mpa.md):
 * <ul>
 *   <li>CRC: on in both directions iff either frame has C=1 (RFC 5044 §7.1.1); a
 *       {@link CrcPolicy#REQUIRED} endpoint also refuses a peer with C=0.</li>
 *   <li>Markers, per direction: M in the Request asks the Responder to send markers, M in the Reply
 *       asks the Initiator (RFC 5044 §7.1.1 "M").</li>
 *   <li>IRD/ORD (RFC 6581 §9.1): Responder ORD = min(local ORD, Initiator IRD), Responder IRD =
 *       min(IRD cap, Initiator ORD) (raised to 1 when it accepts a Read RTR); 0x3FFF leaves the local
 *       value unchanged and is echoed. Initiator IRD = max(local IRD, Responder ORD), or
 *       {@link NegotiationFailure#INSUFFICIENT_IRD} above its cap; Initiator ORD = min(local ORD,
 *       Responder IRD).</li>
 *   <li>RTR (RFC 6581 §9.2-9.3): the Initiator offers its forms; the Responder echoes A and sets the
 *       offered forms it accepts, or all the forms it accepts if none match; the Initiator picks one
 *       mutual form ({@link RtrForm#choose}) or fails with
 *       {@link NegotiationFailure#NO_MATCHING_RTR}.</li>
 * </ul>
 *
 * <p>Thread safety: immutable; safe to share between threads.
 */
public final class MpaNegotiator {

    private final MpaSettings settings;

    /**
     * Creates a negotiator for these local settings.
     *
     * @param settings the local MPA settings
     * @throws IllegalArgumentException if settings is null
     */
    public MpaNegotiator(MpaSettings settings) {
        if (settings == null) {
            throw new IllegalArgumentException("settings must not be null");
        }
        this.settings = settings;
    }

    /** {@return the local settings} */
    public MpaSettings settings() {
        return settings;
    }

    /**
     * {@return RFC 5044 §7.1.1 "C": CRCs are used in both directions iff either frame has C=1}
     *
     * @param requestC the C flag of the MPA Request
     * @param replyC the C flag of the MPA Reply
     */
    public static boolean crcEnabled(boolean requestC, boolean replyC) {
        return requestC || replyC;
    }

    /** {@return the enhanced setup word this endpoint sends as Initiator (revision 2 only)} */
    public EnhancedSetup requestSetup() {
        int ird = settings.negotiateIrdOrd() ? settings.ird() : EnhancedSetup.NO_NEGOTIATION;
        int ord = settings.negotiateIrdOrd() ? settings.ord() : EnhancedSetup.NO_NEGOTIATION;
        return new EnhancedSetup(settings.peerToPeer(), settings.peerToPeer() ? settings.rtrForms() : 0, ird, ord);
    }

    /**
     * Writes this endpoint's MPA Request (Initiator).
     *
     * @param dst     where the frame goes; needs {@code 20 (+4 in revision 2) + pdLength} bytes
     * @param offset  offset of the frame in dst
     * @param ulpData the ULP private data, or {@code null} when pdLength is 0
     * @param dataOff offset of the private data in ulpData
     * @param pdLength length of the ULP private data
     * @return the frame length
     * @throws IllegalArgumentException if pdLength exceeds {@link MpaSettings#maxUlpPrivateData()}
     */
    public int writeRequest(MemorySegment dst, long offset, MemorySegment ulpData, long dataOff, int pdLength) {
        StartupFrame frame = new StartupFrame().wrap(dst, offset);
        frame.kind(StartupFrame.Kind.REQUEST)
                .flags(0)
                .markers(settings.requestMarkers())
                .crc(settings.crcPolicy().sendC())
                .revision(settings.revision());
        boolean enhanced = settings.revision() == StartupFrame.REVISION_2;
        return finishFrame(frame, enhanced, enhanced ? requestSetup().toWord() : 0, ulpData, dataOff, pdLength);
    }

    /**
     * Judges a received MPA Request (Responder, RFC 5044 §7.1.2 rule 2).
     *
     * @param request   the frame
     * @param available bytes of the frame present from {@link StartupFrame#offset()}
     * @return the decision: {@code ACCEPT}, {@code REJECT} (send a Reply with R=1) or {@code CLOSE}
     */
    public Negotiation onRequest(StartupFrame request, long available) {
        // RFC 5044 §7.1.1 PD_Length: up to 512 is valid; our receive buffer takes all of it (rule 9).
        // privateDataLimit bounds only what we send (docs/mpa.md decision 6).
        StartupFrameReason reason = request.validate(StartupFrame.Kind.REQUEST, available,
                StartupFrame.MAX_PRIVATE_DATA_LENGTH);
        if (reason != null) {
            return Negotiation.invalid(reason);
        }
        if (request.enhanced() && settings.revision() < StartupFrame.REVISION_2) {
            // RFC 6581 §10: an unenhanced responder treats an enhanced Request as improperly formatted.
            return Negotiation.invalid(StartupFrameReason.UNSUPPORTED_REVISION);
        }
        boolean crc = crcEnabled(request.crc(), settings.crcPolicy().sendC());
        int revision = Math.min(request.revision(), settings.revision());
        boolean markersOnSend = request.markers();
        boolean markersOnReceive = settings.requestMarkers();

        NegotiationFailure failure = null;
        MpaParameters params;
        if (request.enhanced()) {
            EnhancedSetup peer = request.enhancedSetup();
            boolean p2p = peer.peerToPeer();
            int rtrFlags = 0;
            if (p2p) {
                // RFC 6581 §9.2: echo A; set the offered forms we accept, or (if none) every form we accept.
                int mutual = peer.rtrFlags() & settings.rtrForms();
                rtrFlags = mutual != 0 ? mutual : settings.rtrForms();
            }
            int ird;
            if (peer.ord() == EnhancedSetup.NO_NEGOTIATION) {
                ird = settings.ird();                                  // RFC 6581 §9.1: leave IRD unchanged
            } else {
                ird = Math.min(settings.irdCap(), peer.ord());         // IRD >= Initiator ORD, within our cap
                if ((rtrFlags & RtrForm.READ.flag()) != 0 && ird == 0 && settings.irdCap() >= 1) {
                    ird = 1;                                           // RFC 6581 §9.1: room for a Read RTR
                }
            }
            int ord;
            if (peer.ird() == EnhancedSetup.NO_NEGOTIATION) {
                ord = settings.ord();                                  // RFC 6581 §9.1: leave ORD unchanged
            } else if (peer.ird() < settings.minOrd()) {
                // RFC 6581 §9.1: reject, stating the required ORD in the reject frame.
                ord = settings.minOrd();
                failure = NegotiationFailure.INSUFFICIENT_IRD;
            } else {
                ord = Math.min(settings.ord(), peer.ird());            // Responder ORD <= Initiator IRD
            }
            params = new MpaParameters(StartupFrame.REVISION_2, true, crc, markersOnSend, markersOnReceive, ird, ord,
                    peer.ird(), peer.ord(), p2p, rtrFlags, null);
        } else {
            params = new MpaParameters(revision, false, crc, markersOnSend, markersOnReceive, settings.ird(),
                    settings.ord(), -1, -1, false, 0, null);
        }
        if (markersOnSend && !settings.acceptMarkerRequests()) {
            failure = NegotiationFailure.MARKERS_REFUSED;
        } else if (!request.crc() && settings.crcPolicy().refusesPeerWithoutCrc()) {
            failure = NegotiationFailure.CRC_REQUIRED;
        }
        if (failure != null) {
            return new Negotiation(Negotiation.Outcome.REJECT, params, failure, null);
        }
        return Negotiation.accept(params);
    }

    /**
     * Writes the Reply for a decision of {@link #onRequest} (Responder).
     *
     * @param decision  an {@code ACCEPT} or {@code REJECT} decision
     * @param ulpReject the ULP rejects the connection (private data not acceptable): R=1 even on ACCEPT
     * @param dst       where the frame goes
     * @param offset    offset of the frame in dst
     * @param ulpData   the ULP private data, or {@code null} when pdLength is 0
     * @param dataOff   offset of the private data in ulpData
     * @param pdLength  length of the ULP private data
     * @return the frame length
     * @throws IllegalArgumentException if the decision has no Reply (CLOSE) or pdLength is too long
     */
    public int writeReply(Negotiation decision, boolean ulpReject, MemorySegment dst, long offset,
                          MemorySegment ulpData, long dataOff, int pdLength) {
        if (decision.outcome() != Negotiation.Outcome.ACCEPT && decision.outcome() != Negotiation.Outcome.REJECT) {
            throw new IllegalArgumentException("no Reply is sent for outcome " + decision.outcome());
        }
        MpaParameters p = decision.parameters();
        StartupFrame frame = new StartupFrame().wrap(dst, offset);
        frame.kind(StartupFrame.Kind.REPLY)
                .flags(0)
                .markers(settings.requestMarkers())
                .crc(settings.crcPolicy().sendC())
                .reject(ulpReject || decision.outcome() == Negotiation.Outcome.REJECT)
                .revision(p.revision());
        int word = 0;
        if (p.enhanced()) {
            // RFC 6581 §9.1: echo 0x3FFF where the Initiator asked for no negotiation.
            int ird = p.peerOrd() == EnhancedSetup.NO_NEGOTIATION ? EnhancedSetup.NO_NEGOTIATION : p.ird();
            int ord = p.peerIrd() == EnhancedSetup.NO_NEGOTIATION ? EnhancedSetup.NO_NEGOTIATION : p.ord();
            word = new EnhancedSetup(p.peerToPeer(), p.rtrFlags(), ird, ord).toWord();
        }
        return finishFrame(frame, p.enhanced(), word, ulpData, dataOff, pdLength);
    }

    /**
     * Judges a received MPA Reply (Initiator, RFC 5044 §7.1.2 rule 3; RFC 6581 §9.1-§9.3). The
     * Request is known from the settings, since {@link #writeRequest} derives it from them alone.
     *
     * @param reply     the frame
     * @param available bytes of the frame present from {@link StartupFrame#offset()}
     * @return the decision: {@code ACCEPT}, {@code PEER_REJECTED}, {@code TERMINATE} or {@code CLOSE}
     */
    public Negotiation onReply(StartupFrame reply, long available) {
        StartupFrameReason reason = reply.validate(StartupFrame.Kind.REPLY, available, StartupFrame.MAX_PRIVATE_DATA_LENGTH);
        if (reason != null) {
            return Negotiation.invalid(reason);
        }
        boolean sentEnhanced = settings.revision() == StartupFrame.REVISION_2;
        if (reply.enhanced() != sentEnhanced) {
            // RFC 6581 §10: the Reply's S must match the Request's.
            return Negotiation.invalid(StartupFrameReason.ENHANCED_MISMATCH);
        }
        boolean crc = crcEnabled(settings.crcPolicy().sendC(), reply.crc());
        boolean markersOnSend = reply.markers();
        boolean markersOnReceive = settings.requestMarkers();
        if (!sentEnhanced) {
            MpaParameters params = new MpaParameters(Math.min(reply.revision(), settings.revision()), false, crc, markersOnSend, markersOnReceive,
                    settings.ird(), settings.ord(), -1, -1, false, 0, null);
            return judgeReply(reply, params, null);
        }
        EnhancedSetup peer = reply.enhancedSetup();
        NegotiationFailure failure = null;
        int ird = settings.ird();
        if (peer.ord() != EnhancedSetup.NO_NEGOTIATION) {
            // RFC 6581 §9.1: Initiator IRD >= Responder ORD, or Terminate code 6.
            if (peer.ord() > settings.irdCap()) {
                failure = NegotiationFailure.INSUFFICIENT_IRD;
            } else {
                ird = Math.max(ird, peer.ord());
            }
        }
        int ord = settings.ord();
        if (peer.ird() != EnhancedSetup.NO_NEGOTIATION) {
            ord = Math.min(ord, peer.ird());                           // Initiator ORD <= Responder IRD
        }
        boolean p2p = settings.peerToPeer();
        int mutual = 0;
        RtrForm rtr = null;
        if (p2p) {
            // A Responder that drops A offers no form we could send.
            mutual = peer.peerToPeer() ? peer.rtrFlags() & settings.rtrForms() : 0;
            if (peer.ird() == 0) {
                mutual &= ~RtrForm.READ.flag();                        // a Read RTR needs a Responder IRD slot
            }
            rtr = RtrForm.choose(mutual);
            if (rtr == null && failure == null) {
                failure = NegotiationFailure.NO_MATCHING_RTR;         // RFC 6581 §9.2: Terminate code 7
            }
        }
        MpaParameters params = new MpaParameters(StartupFrame.REVISION_2, true, crc, markersOnSend, markersOnReceive,
                ird, ord, peer.ird(), peer.ord(), p2p, mutual, rtr);
        return judgeReply(reply, params, failure);
    }

    private Negotiation judgeReply(StartupFrame reply, MpaParameters params, NegotiationFailure failure) {
        if (reply.reject()) {
            return new Negotiation(Negotiation.Outcome.PEER_REJECTED, params, NegotiationFailure.PEER_REJECTED, null);
        }
        if (params.markersOnSend() && !settings.acceptMarkerRequests()) {
            return new Negotiation(Negotiation.Outcome.CLOSE, params, NegotiationFailure.MARKERS_REFUSED, null);
        }
        if (!reply.crc() && settings.crcPolicy().refusesPeerWithoutCrc()) {
            return new Negotiation(Negotiation.Outcome.CLOSE, params, NegotiationFailure.CRC_REQUIRED, null);
        }
        if (failure != null) {
            return new Negotiation(Negotiation.Outcome.TERMINATE, params, failure, null);
        }
        return Negotiation.accept(params);
    }

    private int finishFrame(StartupFrame frame, boolean enhanced, int word, MemorySegment ulpData, long dataOff,
                            int pdLength) {
        int max = settings.privateDataLimit() - (enhanced ? StartupFrame.ENHANCED_WORD_LENGTH : 0);
        if (pdLength < 0 || pdLength > max) {
            throw new IllegalArgumentException("ULP private data length " + pdLength + " outside 0.." + max);
        }
        int total = pdLength;
        if (enhanced) {
            frame.enhanced(true).enhancedWord(word);
            total += StartupFrame.ENHANCED_WORD_LENGTH;
        }
        frame.pdLength(total);
        if (pdLength > 0) {
            MemorySegment.copy(ulpData, dataOff, frame.segment(), frame.ulpPrivateDataOffset(), pdLength);
        }
        return frame.frameLength();
    }

    /**
     * Copies a frame's ULP private data into a new array (startup path; allocates).
     *
     * @param frame the received startup frame
     * @return a new array with the ULP's private data
     */
    public static byte[] ulpPrivateData(StartupFrame frame) {
        return frame.segment().asSlice(frame.ulpPrivateDataOffset(), frame.ulpPrivateDataLength())
                .toArray(ValueLayout.JAVA_BYTE);
    }
}
