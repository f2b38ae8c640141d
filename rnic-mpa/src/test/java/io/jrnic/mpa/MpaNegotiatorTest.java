package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Negotiation tables: CRC, markers per direction, IRD/ORD (incl. 0x3FFF) and RTR (RFC 5044 §7.1, RFC 6581 §9). */
class MpaNegotiatorTest {

    /** The result of a full Request / Reply exchange between two negotiators. */
    record Exchange(Negotiation responder, StartupFrame reply, Negotiation initiator) {
    }

    static StartupFrame request(MpaSettings initiator, byte[] ulpData) {
        MemorySegment out = MemorySegment.ofArray(new byte[600]);
        new MpaNegotiator(initiator).writeRequest(out, 0, MemorySegment.ofArray(ulpData), 0, ulpData.length);
        return new StartupFrame().wrap(out, 0);
    }

    static Exchange exchange(MpaSettings initiatorSettings, MpaSettings responderSettings, boolean ulpReject) {
        MpaNegotiator initiator = new MpaNegotiator(initiatorSettings);
        MpaNegotiator responder = new MpaNegotiator(responderSettings);
        StartupFrame req = request(initiatorSettings, new byte[0]);
        Negotiation r = responder.onRequest(req, req.frameLength());
        if (r.outcome() == Negotiation.Outcome.CLOSE) {
            return new Exchange(r, null, null);
        }
        MemorySegment out = MemorySegment.ofArray(new byte[600]);
        responder.writeReply(r, ulpReject, out, 0, MemorySegment.ofArray(new byte[] {9, 8}), 0, 2);
        StartupFrame reply = new StartupFrame().wrap(out, 0);
        return new Exchange(r, reply, initiator.onReply(reply, reply.frameLength()));
    }

    static MpaSettings.Builder settings() {
        return MpaSettings.builder();
    }

    @ParameterizedTest
    @CsvSource({"false,false,false", "true,false,true", "false,true,true", "true,true,true"})
    void crcIsOnIffEitherSideSetsC(boolean requestC, boolean replyC, boolean enabled) {
        assertThat(MpaNegotiator.crcEnabled(requestC, replyC)).isEqualTo(enabled);
    }

    @ParameterizedTest
    @CsvSource({
            // initiator, responder, crc, responder outcome, initiator outcome
            "OFF,      OFF,      false, ACCEPT, ACCEPT",
            "OFF,      OPTIONAL, true,  ACCEPT, ACCEPT",
            "OPTIONAL, OFF,      true,  ACCEPT, ACCEPT",
            "OPTIONAL, OPTIONAL, true,  ACCEPT, ACCEPT",
            "REQUIRED, OPTIONAL, true,  ACCEPT, ACCEPT",
            "OPTIONAL, REQUIRED, true,  ACCEPT, ACCEPT",
            "REQUIRED, OFF,      true,  ACCEPT, CLOSE",
            "OFF,      REQUIRED, true,  REJECT, PEER_REJECTED"
    })
    void crcPolicyTable(CrcPolicy initiator, CrcPolicy responder, boolean crc, Negotiation.Outcome atResponder,
                        Negotiation.Outcome atInitiator) {
        Exchange x = exchange(settings().crcPolicy(initiator).build(), settings().crcPolicy(responder).build(), false);
        assertThat(x.responder().outcome()).isEqualTo(atResponder);
        assertThat(x.initiator().outcome()).isEqualTo(atInitiator);
        assertThat(x.responder().parameters().crc()).isEqualTo(crc);
        assertThat(x.initiator().parameters().crc()).isEqualTo(crc);
        if (atInitiator == Negotiation.Outcome.CLOSE || atResponder == Negotiation.Outcome.REJECT) {
            assertThat(x.initiator().failure()).isIn(NegotiationFailure.CRC_REQUIRED, NegotiationFailure.PEER_REJECTED);
        }
        if (atResponder == Negotiation.Outcome.REJECT) {
            assertThat(x.responder().failure()).isEqualTo(NegotiationFailure.CRC_REQUIRED);
            assertThat(x.reply().reject()).isTrue();
        }
    }

    @ParameterizedTest
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void markersAreDecidedPerDirectionByTheReceiver(boolean initiatorWants, boolean responderWants) {
        Exchange x = exchange(settings().requestMarkers(initiatorWants).build(),
                settings().requestMarkers(responderWants).build(), false);
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        // M in the Request asks the Responder to send markers; M in the Reply asks the Initiator.
        assertThat(x.responder().parameters().markersOnSend()).isEqualTo(initiatorWants);
        assertThat(x.responder().parameters().markersOnReceive()).isEqualTo(responderWants);
        assertThat(x.initiator().parameters().markersOnSend()).isEqualTo(responderWants);
        assertThat(x.initiator().parameters().markersOnReceive()).isEqualTo(initiatorWants);
        assertThat(x.reply().markers()).isEqualTo(responderWants);
    }

    @Test
    void responderRefusingMarkersRejectsLikeSiw() {
        Exchange x = exchange(settings().requestMarkers(true).build(), settings().acceptMarkerRequests(false).build(), false);
        assertThat(x.responder().outcome()).isEqualTo(Negotiation.Outcome.REJECT);
        assertThat(x.responder().failure()).isEqualTo(NegotiationFailure.MARKERS_REFUSED);
        assertThat(x.responder().error()).isNull();
        assertThat(x.reply().reject()).isTrue();
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.PEER_REJECTED);
    }

    @Test
    void initiatorRefusingMarkersCloses() {
        Exchange x = exchange(settings().acceptMarkerRequests(false).build(), settings().requestMarkers(true).build(), false);
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.CLOSE);
        assertThat(x.initiator().failure()).isEqualTo(NegotiationFailure.MARKERS_REFUSED);
    }

    @ParameterizedTest
    @CsvSource({
            // init IRD, init ORD, resp ord, resp irdCap, -> resp IRD, resp ORD, init IRD, init ORD
            "16, 16, 16, 128,  16, 16, 16, 16",
            "16, 16,  8, 128,  16,  8, 16, 16",
            " 4, 16, 16, 128,  16,  4,  4, 16",
            "16, 200, 16, 128, 128, 16, 16, 128",
            " 1,  1, 16, 128,   1,  1,  1,  1",
            " 0,  0,  0,   0,   0,  0,  0,  0"
    })
    void irdOrdNegotiationV_IRD_19(int iIrd, int iOrd, int rOrd, int rCap, int rIrdOut, int rOrdOut, int iIrdOut,
                                   int iOrdOut) {
        MpaSettings initiator = settings().ird(iIrd).ord(iOrd).irdCap(Math.max(iIrd, 128)).rtrForms(RtrForm.WRITE).build();
        MpaSettings responder = settings().ird(Math.min(rCap, 16)).ord(rOrd).irdCap(rCap).build();
        Exchange x = exchange(initiator, responder, false);
        assertThat(x.responder().parameters().ird()).isEqualTo(rIrdOut);
        assertThat(x.responder().parameters().ord()).isEqualTo(rOrdOut);
        EnhancedSetup word = x.reply().enhancedSetup();
        assertThat(word.ird()).isEqualTo(rIrdOut);
        assertThat(word.ord()).isEqualTo(rOrdOut);
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        assertThat(x.initiator().parameters().ird()).isEqualTo(iIrdOut);
        assertThat(x.initiator().parameters().ord()).isEqualTo(iOrdOut);
        // Both sides pass the peer's raw values to the ULP (RFC 6581 §9.1).
        assertThat(x.responder().parameters().peerIrd()).isEqualTo(iIrd);
        assertThat(x.responder().parameters().peerOrd()).isEqualTo(iOrd);
        assertThat(x.initiator().parameters().peerIrd()).isEqualTo(rIrdOut);
        // The negotiated relations hold.
        assertThat(x.initiator().parameters().ord()).isLessThanOrEqualTo(x.responder().parameters().ird());
        assertThat(x.responder().parameters().ord()).isLessThanOrEqualTo(x.initiator().parameters().ird());
    }

    @Test
    void noNegotiationValue3FFFLeavesLocalValuesAndIsEchoed() {
        MpaSettings initiator = settings().ird(4).ord(6).negotiateIrdOrd(false).build();
        MpaSettings responder = settings().ird(10).ord(12).build();
        Exchange x = exchange(initiator, responder, false);
        assertThat(request(initiator, new byte[0]).enhancedSetup().ird()).isEqualTo(EnhancedSetup.NO_NEGOTIATION);
        assertThat(x.responder().parameters().ird()).isEqualTo(10);
        assertThat(x.responder().parameters().ord()).isEqualTo(12);
        assertThat(x.reply().enhancedSetup().ird()).isEqualTo(0x3FFF);
        assertThat(x.reply().enhancedSetup().ord()).isEqualTo(0x3FFF);
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        assertThat(x.initiator().parameters().ird()).isEqualTo(4);
        assertThat(x.initiator().parameters().ord()).isEqualTo(6);
    }

    @Test
    void responderRejectsInsufficientInitiatorIrdStatingRequiredOrd() {
        Exchange x = exchange(settings().ird(2).build(), settings().minOrd(8).build(), false);
        assertThat(x.responder().outcome()).isEqualTo(Negotiation.Outcome.REJECT);
        assertThat(x.responder().failure()).isEqualTo(NegotiationFailure.INSUFFICIENT_IRD);
        assertThat(x.responder().error()).isEqualTo(MpaError.INSUFFICIENT_IRD);
        assertThat(x.reply().reject()).isTrue();
        assertThat(x.reply().enhanced()).isTrue();
        assertThat(x.reply().enhancedSetup().ord()).isEqualTo(8);
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.PEER_REJECTED);
        assertThat(x.initiator().parameters().peerOrd()).isEqualTo(8);
    }

    /** A hand-made accepting revision-2 Reply with the given word. */
    static StartupFrame reply(int word, int flags) {
        MemorySegment seg = MemorySegment.ofArray(new byte[24]);
        return new StartupFrame().wrap(seg, 0).kind(StartupFrame.Kind.REPLY).flags(flags).revision(2).pdLength(4)
                .enhancedWord(word);
    }

    @Test
    void initiatorThatCannotMeetResponderOrdTerminatesWithCode6() {
        MpaNegotiator initiator = new MpaNegotiator(settings().ird(16).irdCap(32).build());
        Negotiation n = initiator.onReply(reply(new EnhancedSetup(true, RtrForm.ALL, 16, 64).toWord(), 0x50), 24);
        assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.TERMINATE);
        assertThat(n.failure()).isEqualTo(NegotiationFailure.INSUFFICIENT_IRD);
        assertThat(n.error().terminateCodeBits()).isEqualTo(0x2006);
        // Up to the cap the Initiator raises its IRD instead.
        n = initiator.onReply(reply(new EnhancedSetup(true, RtrForm.ALL, 16, 32).toWord(), 0x50), 24);
        assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        assertThat(n.parameters().ird()).isEqualTo(32);
    }

    @ParameterizedTest
    @CsvSource({
            // initiator offers, responder accepts, reply flags, chosen (empty = none)
            "WRITE READ,      WRITE READ SEND, WRITE READ, WRITE",
            "READ SEND,       WRITE READ SEND, READ SEND,  READ",
            "SEND,            WRITE READ SEND, SEND,       SEND",
            "SEND,            WRITE,           WRITE,      ",
            "WRITE READ SEND, READ,            READ,       READ"
    })
    void rtrNegotiation(String offered, String accepted, String replied, String chosen) {
        Exchange x = exchange(settings().rtrForms(forms(offered)).build(), settings().rtrForms(forms(accepted)).build(),
                false);
        assertThat(x.reply().enhancedSetup().peerToPeer()).isTrue();
        assertThat(x.reply().enhancedSetup().rtrFlags()).isEqualTo(flags(forms(replied)));
        assertThat(x.responder().parameters().rtrFlags()).isEqualTo(flags(forms(replied)));
        if (chosen == null) {
            assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.TERMINATE);
            assertThat(x.initiator().failure()).isEqualTo(NegotiationFailure.NO_MATCHING_RTR);
            assertThat(x.initiator().error().terminateCodeBits()).isEqualTo(0x2007);
            assertThat(x.initiator().parameters().rtr()).isNull();
        } else {
            assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
            assertThat(x.initiator().parameters().rtr()).isEqualTo(RtrForm.valueOf(chosen));
        }
    }

    @Test
    void responderRaisesIrdToOneForAReadRtr() {
        Exchange x = exchange(settings().ord(0).rtrForms(RtrForm.READ).build(), settings().build(), false);
        assertThat(x.responder().parameters().ird()).isEqualTo(1);
        assertThat(x.initiator().parameters().rtr()).isEqualTo(RtrForm.READ);
    }

    @Test
    void readRtrIsNotChosenAgainstAZeroResponderIrd() {
        MpaNegotiator initiator = new MpaNegotiator(settings().rtrForms(RtrForm.READ).build());
        Negotiation n = initiator.onReply(reply(new EnhancedSetup(true, RtrForm.READ.flag(), 0, 4).toWord(), 0x50), 24);
        assertThat(n.failure()).isEqualTo(NegotiationFailure.NO_MATCHING_RTR);
    }

    @Test
    void responderDroppingPeerToPeerMeansNoMatchingRtr() {
        MpaNegotiator initiator = new MpaNegotiator(settings().build());
        Negotiation n = initiator.onReply(reply(new EnhancedSetup(false, 0, 16, 16).toWord(), 0x50), 24);
        assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.TERMINATE);
        assertThat(n.failure()).isEqualTo(NegotiationFailure.NO_MATCHING_RTR);
    }

    @Test
    void clientServerModelHasNoRtr() {
        Exchange x = exchange(settings().peerToPeer(false).build(), settings().build(), false);
        assertThat(x.reply().enhancedSetup()).isEqualTo(new EnhancedSetup(false, 0, 16, 16));
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        assertThat(x.initiator().parameters().peerToPeer()).isFalse();
        assertThat(x.initiator().parameters().rtr()).isNull();
    }

    @Test
    void siwStyleRequestIsAnsweredEnhancedWithMirroredIrdOrd() {
        // Linux siw as initiator: Rev 2, S=1, C=0, M=0, IRD=1 ORD=1, client/server (interop README).
        StartupFrame req = new StartupFrame().wrap(Hex.segment(StartupFrameTest.REQ_KEY + "10 02 0004 00010001"), 0);
        MpaNegotiator responder = new MpaNegotiator(MpaSettings.builder()
                .privateDataLimit(MpaSettings.LINUX_PRIVATE_DATA_LIMIT).build());
        Negotiation n = responder.onRequest(req, 24);
        assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        MemorySegment out = MemorySegment.ofArray(new byte[32]);
        int len = responder.writeReply(n, false, out, 0, null, 0, 0);
        assertThat(Hex.of(out, 0, len)).isEqualTo(Hex.normalize(StartupFrameTest.REP_KEY + "50 02 0004 00010001"));
        assertThat(n.parameters().crc()).isTrue();
    }

    @Test
    void revision1RequestGetsUnenhancedReplyFromRevision2Responder() {
        Exchange x = exchange(settings().revision(1).build(), settings().build(), false);
        assertThat(x.reply().enhanced()).isFalse();
        assertThat(x.reply().revision()).isEqualTo(1);
        assertThat(x.reply().pdLength()).isEqualTo(2);
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        assertThat(x.initiator().parameters().peerIrd()).isEqualTo(-1);
        assertThat(x.initiator().parameters().enhanced()).isFalse();
    }

    @Test
    void revision1ResponderClosesOnEnhancedRequest() {
        Exchange x = exchange(settings().build(), settings().revision(1).build(), false);
        assertThat(x.responder().outcome()).isEqualTo(Negotiation.Outcome.CLOSE);
        assertThat(x.responder().frameReason()).isEqualTo(StartupFrameReason.UNSUPPORTED_REVISION);
        assertThat(x.responder().error()).isEqualTo(MpaError.INVALID_STARTUP_FRAME);
    }

    @Test
    void enhancedInitiatorClosesOnUnenhancedReply() {
        MpaNegotiator initiator = new MpaNegotiator(settings().build());
        StartupFrame rep = new StartupFrame().wrap(Hex.segment(StartupFrameTest.WORKED_REPLY), 0);
        Negotiation n = initiator.onReply(rep, 20);
        assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.CLOSE);
        assertThat(n.frameReason()).isEqualTo(StartupFrameReason.ENHANCED_MISMATCH);
    }

    @Test
    void malformedReplyClosesWithReason() {
        MpaNegotiator initiator = new MpaNegotiator(settings().build());
        StartupFrame req = request(settings().build(), new byte[0]);
        Negotiation n = initiator.onReply(req, req.frameLength());
        assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.CLOSE);
        assertThat(n.frameReason()).isEqualTo(StartupFrameReason.INITIATOR_INITIATOR);
        assertThat(n.parameters()).isNull();
    }

    @Test
    void ulpRejectSetsRAndInitiatorLeavesMpaWithPrivateData() {
        Exchange x = exchange(settings().build(), settings().build(), true);
        assertThat(x.responder().outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        assertThat(x.reply().reject()).isTrue();
        assertThat(x.initiator().outcome()).isEqualTo(Negotiation.Outcome.PEER_REJECTED);
        assertThat(MpaNegotiator.ulpPrivateData(x.reply())).containsExactly(9, 8);
    }

    @Test
    void privateDataLimitsCountTheEnhancedWord() {
        MpaNegotiator rev2 = new MpaNegotiator(settings().privateDataLimit(512).build());
        MemorySegment out = MemorySegment.ofArray(new byte[600]);
        MemorySegment pd = MemorySegment.ofArray(new byte[512]);
        assertThat(rev2.writeRequest(out, 0, pd, 0, 508)).isEqualTo(532);
        assertThatThrownBy(() -> rev2.writeRequest(out, 0, pd, 0, 509)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0..508");
        MpaNegotiator linux = new MpaNegotiator(settings().privateDataLimit(256).build());
        assertThat(linux.settings().maxUlpPrivateData()).isEqualTo(252);
        assertThatThrownBy(() -> linux.writeRequest(out, 0, pd, 0, 253)).hasMessageContaining("0..252");
        MpaNegotiator rev1 = new MpaNegotiator(settings().revision(1).privateDataLimit(512).build());
        assertThat(rev1.writeRequest(out, 0, pd, 0, 512)).isEqualTo(532);
    }

    /**
     * RFC 5044 §7.1.1: up to 512 bytes of private data are valid whatever our own send limit; only
     * more than 512 is an improperly formatted frame (issue 9 item 4).
     */
    @Test
    void privateDataUpTo512IsAcceptedWhateverOurSendLimit() {
        MpaSettings sender = settings().privateDataLimit(512).build();
        MpaNegotiator linux = new MpaNegotiator(settings().privateDataLimit(MpaSettings.LINUX_PRIVATE_DATA_LIMIT).build());
        for (int ulp : new int[] {253, 507, 508}) {
            StartupFrame req = request(sender, new byte[ulp]);
            assertThat(linux.onRequest(req, req.frameLength()).outcome()).as("PD_Length %d", ulp + 4)
                    .isEqualTo(Negotiation.Outcome.ACCEPT);
        }
        StartupFrame tooLong = request(sender, new byte[508]);
        tooLong.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 19, (byte) 1); // PD_Length 0x0201 = 513
        Negotiation refused = linux.onRequest(tooLong, 20 + 513);
        assertThat(refused.failure()).isEqualTo(NegotiationFailure.INVALID_FRAME);
        assertThat(refused.frameReason()).isEqualTo(StartupFrameReason.PD_LENGTH_TOO_LONG);
        // the Initiator side: a Reply with 508 bytes to an Initiator whose own limit is 256
        MpaNegotiator big = new MpaNegotiator(sender);
        StartupFrame req = request(settings().privateDataLimit(MpaSettings.LINUX_PRIVATE_DATA_LIMIT).build(), new byte[0]);
        Negotiation r = big.onRequest(req, req.frameLength());
        MemorySegment out = MemorySegment.ofArray(new byte[600]);
        big.writeReply(r, false, out, 0, MemorySegment.ofArray(new byte[508]), 0, 508);
        StartupFrame reply = new StartupFrame().wrap(out, 0);
        assertThat(new MpaNegotiator(settings().privateDataLimit(MpaSettings.LINUX_PRIVATE_DATA_LIMIT).build())
                .onReply(reply, reply.frameLength()).outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
    }

    @Test
    void noReplyIsWrittenForAClosingDecision() {
        MpaNegotiator responder = new MpaNegotiator(settings().build());
        Negotiation close = responder.onRequest(new StartupFrame().wrap(Hex.segment(StartupFrameTest.WORKED_REPLY), 0), 20);
        assertThatThrownBy(() -> responder.writeReply(close, false, MemorySegment.ofArray(new byte[40]), 0, null, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CLOSE");
    }

    @Test
    void settingsAreValidated() {
        assertThatThrownBy(() -> settings().revision(3).build()).hasMessageContaining("revision");
        assertThatThrownBy(() -> settings().rtrForms().build()).hasMessageContaining("RTR form");
        assertThatThrownBy(() -> settings().ird(0x3FFF).irdCap(0x3FFF).build()).hasMessageContaining("0x3FFE");
        assertThatThrownBy(() -> settings().ird(200).build()).hasMessageContaining("irdCap");
        assertThatThrownBy(() -> settings().privateDataLimit(513).build()).hasMessageContaining("privateDataLimit");
        assertThatThrownBy(() -> settings().privateDataLimit(3).build()).hasMessageContaining("IRD/ORD word");
        assertThatThrownBy(() -> settings().crcPolicy(null).build()).hasMessageContaining("crcPolicy");
        assertThatThrownBy(() -> new MpaNegotiator(null)).hasMessageContaining("settings");
        assertThat(settings().revision(1).rtrForms().build().rtrForms()).isZero();
    }

    private static RtrForm[] forms(String names) {
        return java.util.Arrays.stream(names.trim().split("\\s+")).map(RtrForm::valueOf).toArray(RtrForm[]::new);
    }

    private static int flags(RtrForm[] forms) {
        int f = 0;
        for (RtrForm form : forms) {
            f |= form.flag();
        }
        return f;
    }

    /** RFC 6581 §9.1: the responder raises IRD to 1 for a Read RTR only, and only within its cap. */
    @Test
    void irdIsRaisedForAReadRtrOnlyAndWithinTheCap() {
        Exchange read = exchange(settings().ord(0).rtrForms(RtrForm.READ).build(),
                settings().ird(1).irdCap(1).build(), false);
        assertThat(read.responder().parameters().ird()).isEqualTo(1);
        assertThat(read.reply().enhancedSetup().ird()).isEqualTo(1);
        assertThat(read.initiator().parameters().rtr()).isEqualTo(RtrForm.READ);
        for (RtrForm other : new RtrForm[] {RtrForm.SEND, RtrForm.WRITE}) {
            Exchange x = exchange(settings().ord(0).rtrForms(other).build(), settings().build(), false);
            assertThat(x.responder().parameters().ird()).as("%s RTR", other).isZero();
            assertThat(x.reply().enhancedSetup().ird()).isZero();
            assertThat(x.initiator().parameters().rtr()).isEqualTo(other);
        }
    }
}
