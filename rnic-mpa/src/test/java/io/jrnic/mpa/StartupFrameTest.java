package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** Startup frame layout, the worked examples of wire-format.md §2.2 and §5, and every malformed field. */
class StartupFrameTest {

    static final String REQ_KEY = "4d50412049442052 6571204672616d65";
    static final String REP_KEY = "4d50412049442052 6570204672616d65";
    static final String WORKED_REQUEST = REQ_KEY + "40 01 0004 01020304";
    static final String WORKED_REPLY = REP_KEY + "40 01 0000";
    static final String REV2_REQUEST = REQ_KEY + "50 02 0004 8010c010";

    private static StartupFrame frame(String hex) {
        return new StartupFrame().wrap(Hex.segment(hex), 0);
    }

    private static MpaSettings rev1() {
        return MpaSettings.builder().revision(1).build();
    }

    @Test
    void workedExampleRequestIsEncodedByteExact() {
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        MemorySegment pd = Hex.segment("01020304");
        int n = new MpaNegotiator(rev1()).writeRequest(out, 0, pd, 0, 4);
        assertThat(Hex.of(out, 0, n)).isEqualTo(Hex.normalize(WORKED_REQUEST));
    }

    @Test
    void workedExampleReplyIsEncodedByteExact() {
        MpaNegotiator responder = new MpaNegotiator(MpaSettings.defaults());
        Negotiation decision = responder.onRequest(frame(WORKED_REQUEST), 24);
        assertThat(decision.outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        int n = responder.writeReply(decision, false, out, 0, null, 0, 0);
        assertThat(Hex.of(out, 0, n)).isEqualTo(Hex.normalize(WORKED_REPLY));
        assertThat(decision.parameters().crc()).isTrue();
        assertThat(decision.parameters().markersOnSend()).isFalse();
        assertThat(decision.parameters().markersOnReceive()).isFalse();
    }

    @Test
    void revision2RequestOfWireFormat22IsEncodedByteExact() {
        MpaSettings s = MpaSettings.builder().rtrForms(RtrForm.WRITE, RtrForm.READ).ird(16).ord(16).build();
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        int n = new MpaNegotiator(s).writeRequest(out, 0, null, 0, 0);
        assertThat(Hex.of(out, 0, n)).isEqualTo(Hex.normalize(REV2_REQUEST));
    }

    @Test
    void decodesEveryFieldOfTheRevision2Request() {
        StartupFrame f = frame(REV2_REQUEST);
        assertThat(f.kind()).isEqualTo(StartupFrame.Kind.REQUEST);
        assertThat(f.markers()).isFalse();
        assertThat(f.crc()).isTrue();
        assertThat(f.reject()).isFalse();
        assertThat(f.enhanced()).isTrue();
        assertThat(f.revision()).isEqualTo(2);
        assertThat(f.pdLength()).isEqualTo(4);
        assertThat(f.frameLength()).isEqualTo(24);
        assertThat(f.ulpPrivateDataLength()).isZero();
        assertThat(f.ulpPrivateDataOffset()).isEqualTo(24);
        assertThat(f.enhancedSetup()).isEqualTo(new EnhancedSetup(true, RtrForm.WRITE.flag() | RtrForm.READ.flag(), 16, 16));
        assertThat(f.validate(StartupFrame.Kind.REQUEST, 24, 512)).isNull();
    }

    @Test
    void decodesWorkedExampleReplyAndPrivateData() {
        StartupFrame rep = frame(WORKED_REPLY);
        assertThat(rep.kind()).isEqualTo(StartupFrame.Kind.REPLY);
        assertThat(rep.validate(StartupFrame.Kind.REPLY, 20, 512)).isNull();
        StartupFrame req = frame(WORKED_REQUEST);
        assertThat(MpaNegotiator.ulpPrivateData(req)).containsExactly(1, 2, 3, 4);
    }

    @Test
    void flagWritersSetExactlyTheirBits() {
        StartupFrame f = new StartupFrame().wrap(MemorySegment.ofArray(new byte[20]), 0).flags(0);
        assertThat(f.markers(true).flags()).isEqualTo(0x80);
        assertThat(f.crc(true).flags()).isEqualTo(0xC0);
        assertThat(f.reject(true).flags()).isEqualTo(0xE0);
        assertThat(f.enhanced(true).flags()).isEqualTo(0xF0);
        assertThat(f.markers(false).reject(false).flags()).isEqualTo(0x50);
        assertThat(f.revision(2).pdLength(512).pdLength()).isEqualTo(512);
        assertThat(f.toString()).contains("rev=2", "pdLength=512");
    }

    @Test
    void reservedBitsAndRequestRejectBitAreNotChecked() {
        // siw's experimental 0x08 and R in a Request must be ignored (RFC 5044 §7.1.1).
        StartupFrame f = frame(REQ_KEY + "68 01 0000");
        assertThat(f.validate(StartupFrame.Kind.REQUEST, 20, 512)).isNull();
        Negotiation n = new MpaNegotiator(MpaSettings.defaults()).onRequest(f, 20);
        assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
    }

    private static void assertInvalid(String hex, StartupFrame.Kind expected, long available, int limit,
                                      StartupFrameReason reason) {
        assertThat(frame(hex).validate(expected, available, limit)).isEqualTo(reason);
        assertThat(reason.error()).isEqualTo(MpaError.INVALID_STARTUP_FRAME);
        assertThat(reason.error().terminateCodeBits()).isEqualTo(0x2004);
    }

    @Test
    void rejectsBadKey() {
        assertInvalid("4d50412049442052 6573204672616d65 40 01 0000", StartupFrame.Kind.REQUEST, 20, 512,
                StartupFrameReason.BAD_KEY);
        assertInvalid("0d50412049442052 6571204672616d65 40 01 0000", StartupFrame.Kind.REQUEST, 20, 512,
                StartupFrameReason.BAD_KEY);
    }

    @Test
    void rejectsRequestWhereReplyExpectedAsInitiatorInitiator() {
        assertInvalid(WORKED_REQUEST, StartupFrame.Kind.REPLY, 24, 512, StartupFrameReason.INITIATOR_INITIATOR);
    }

    @Test
    void rejectsReplyWhereRequestExpectedAsResponderResponder() {
        assertInvalid(WORKED_REPLY, StartupFrame.Kind.REQUEST, 20, 512, StartupFrameReason.RESPONDER_RESPONDER);
    }

    @Test
    void rejectsUnsupportedRevisions() {
        assertInvalid(REQ_KEY + "40 00 0000", StartupFrame.Kind.REQUEST, 20, 512, StartupFrameReason.UNSUPPORTED_REVISION);
        assertInvalid(REQ_KEY + "40 03 0000", StartupFrame.Kind.REQUEST, 20, 512, StartupFrameReason.UNSUPPORTED_REVISION);
    }

    @Test
    void rejectsPdLengthAbove512() {
        assertInvalid(REQ_KEY + "40 01 0201" + Hex.zeros(513), StartupFrame.Kind.REQUEST, 533, 512,
                StartupFrameReason.PD_LENGTH_TOO_LONG);
    }

    @Test
    void rejectsPdLengthAboveLocalLimit() {
        assertInvalid(REQ_KEY + "40 01 0101" + Hex.zeros(257), StartupFrame.Kind.REQUEST, 277,
                MpaSettings.LINUX_PRIVATE_DATA_LIMIT, StartupFrameReason.PD_LENGTH_EXCEEDS_LIMIT);
    }

    @Test
    void rejectsPrivateDataShorterThanPdLength() {
        assertInvalid(REQ_KEY + "40 01 0008 01020304", StartupFrame.Kind.REQUEST, 24, 512,
                StartupFrameReason.PRIVATE_DATA_TRUNCATED);
        assertInvalid(REQ_KEY + "40 01", StartupFrame.Kind.REQUEST, 18, 512, StartupFrameReason.PRIVATE_DATA_TRUNCATED);
    }

    @Test
    void rejectsEnhancedFlagWithRevision1() {
        assertInvalid(REQ_KEY + "50 01 0004 8010c010", StartupFrame.Kind.REQUEST, 24, 512,
                StartupFrameReason.ENHANCED_WITH_OLD_REVISION);
    }

    @Test
    void rejectsEnhancedFlagWithoutRoomForTheWord() {
        assertInvalid(REQ_KEY + "50 02 0002 8010", StartupFrame.Kind.REQUEST, 22, 512,
                StartupFrameReason.ENHANCED_DATA_MISSING);
    }

    @Test
    void enhancedWordRoundTripsAndIgnoresRtrFlagsWithoutA() {
        EnhancedSetup e = new EnhancedSetup(true, RtrForm.ALL, 0x3FFF, 5);
        assertThat(e.toWord()).isEqualTo(0xFFFF_C005);
        assertThat(EnhancedSetup.fromWord(e.toWord())).isEqualTo(e);
        assertThat(e.supports(RtrForm.SEND)).isTrue();
        // A=0: B, C and D are ignored on receive and sent as zero (RFC 6581 §9.2).
        EnhancedSetup cs = EnhancedSetup.fromWord(0x4001_C002);
        assertThat(cs).isEqualTo(new EnhancedSetup(false, 0, 1, 2));
        assertThat(new EnhancedSetup(false, RtrForm.ALL, 1, 2).toWord()).isEqualTo(0x0001_0002);
        assertThat(cs.supports(RtrForm.WRITE)).isFalse();
    }

    @Test
    void enhancedSetupRejectsOutOfRangeArguments() {
        assertThatThrownBy(() -> new EnhancedSetup(true, 0, 0x4000, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IRD");
        assertThatThrownBy(() -> new EnhancedSetup(true, 0, 0, -1)).hasMessageContaining("ORD");
        assertThatThrownBy(() -> new EnhancedSetup(true, 1, 0, 0)).hasMessageContaining("rtrFlags");
    }

    @Test
    void keyWriterWritesBothKeys() {
        MemorySegment seg = MemorySegment.ofArray(new byte[20]);
        StartupFrame f = new StartupFrame().wrap(seg, 0).kind(StartupFrame.Kind.REPLY);
        assertThat(Hex.of(seg, 0, 16)).isEqualTo(Hex.normalize(REP_KEY));
        f.kind(StartupFrame.Kind.REQUEST);
        assertThat(new String(seg.asSlice(0, 16).toArray(ValueLayout.JAVA_BYTE))).isEqualTo("MPA ID Req Frame");
    }

    @Test
    void rtrSupportIsPerForm() {
        EnhancedSetup sendOnly = new EnhancedSetup(true, RtrForm.SEND.flag(), 16, 16);
        assertThat(sendOnly.toWord()).isEqualTo(0xC010_0010);
        assertThat(sendOnly.supports(RtrForm.SEND)).isTrue();
        assertThat(sendOnly.supports(RtrForm.WRITE)).isFalse();
        assertThat(sendOnly.supports(RtrForm.READ)).isFalse();
    }

    @Test
    void flyweightAtAnOffsetAndUnwrapped() {
        MemorySegment seg = Hex.segment("ffffffff" + WORKED_REQUEST);
        StartupFrame f = new StartupFrame().wrap(seg, 4);
        assertThat(f.segment()).isSameAs(seg);
        assertThat(f.offset()).isEqualTo(4);
        assertThat(f.kind()).isEqualTo(StartupFrame.Kind.REQUEST);
        assertThat(f.pdLength()).isEqualTo(4);
        assertThat(f.toString()).contains("kind=REQUEST");
        assertThat(new StartupFrame().toString()).isEqualTo("StartupFrame[unwrapped]");
    }
}
