package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Random;

/**
 * Coverage-guided fuzzing (Jazzer) of MPA startup: the incremental {@link StartupFrameParser} the
 * transport feeds from the socket, and {@link MpaNegotiator}'s judgement of a peer's Request or
 * Reply. In a plain build the methods replay the committed corpus under
 * {@code src/test/resources/io/jrnic/mpa/StartupFrameFuzzTestInputs/}; with {@code JAZZER_FUZZ=1}
 * they fuzz (docs/reliability.md). Input layouts are described per method; seeds come from
 * {@link MpaFuzzSeeds}.
 */
class StartupFrameFuzzTest {

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    /**
     * The parser, fed the stream whole and in random splits. Input: byte 0 bit 0 the expected kind
     * (0 Request, 1 Reply); byte 1 the local private data limit (0xFF means 512, else twice the
     * value); byte 2 the seed of the split; the rest the bytes arriving from TCP.
     *
     * <p>Invariants: no exception; the verdict, the reason and the bytes taken do not depend on the
     * split; a rejection is MPA 2/0/0x04 (RFC 5044 §8) and is made as soon as the 20-byte header is
     * in, taking no byte more; acceptance agrees with an independent reading of RFC 5044 §7.1.1 and
     * RFC 6581 §6 and consumes exactly {@code 20 + PD_Length} bytes, whose encoding from the parsed
     * fields gives the input back.
     */
    @FuzzTest(maxDuration = "30s")
    void parser(byte[] input) {
        if (input.length < 3) {
            return;
        }
        StartupFrame.Kind expected = (input[0] & 1) == 0 ? StartupFrame.Kind.REQUEST : StartupFrame.Kind.REPLY;
        int limit = (input[1] & 0xFF) == 0xFF ? StartupFrame.MAX_PRIVATE_DATA_LENGTH : (input[1] & 0xFF) * 2;
        Random split = new Random(input[2]);
        byte[] stream = Arrays.copyOfRange(input, 3, input.length);
        MemorySegment bytes = MemorySegment.ofArray(stream);

        StartupFrameParser whole = new StartupFrameParser(expected, limit);
        int takenWhole = whole.consume(bytes, 0, stream.length);
        StartupFrameParser pieces = new StartupFrameParser(expected, limit);
        int takenPieces = feedInPieces(pieces, bytes, split);

        assertThat(takenWhole).isEqualTo(whole.received()).isLessThanOrEqualTo(stream.length);
        assertThat(takenPieces).isEqualTo(takenWhole);
        assertThat(pieces.state()).isEqualTo(whole.state());
        assertThat(pieces.reason()).isEqualTo(whole.reason());

        StartupFrameReason oracle = headerVerdict(stream, expected, limit);
        switch (whole.state()) {
            case INVALID -> {
                // RFC 5044 §8: an improperly formatted startup frame is Layer 2, EType 0, code 0x04.
                assertThat(whole.reason()).isNotNull();
                assertThat(whole.reason().error().terminateCodeBits()).isEqualTo(0x2004);
                assertThat(whole.received()).isEqualTo(StartupFrame.HEADER_LENGTH);
                assertThat(oracle).isNotNull();
            }
            case NEED_MORE -> {
                assertThat(whole.reason()).isNull();
                assertThat(whole.received()).isEqualTo(stream.length);
                assertThat(stream.length < StartupFrame.HEADER_LENGTH || oracle == null).isTrue();
            }
            case COMPLETE -> {
                assertThat(oracle).isNull();
                StartupFrame frame = whole.frame();
                assertThat(whole.received()).isEqualTo(frame.frameLength());
                assertThat(frame.validate(expected, whole.received(), limit)).isNull();
                byte[] parsed = frame.segment().asSlice(frame.offset(), whole.received()).toArray(ValueLayout.JAVA_BYTE);
                assertThat(parsed).isEqualTo(Arrays.copyOf(stream, whole.received()));
                assertThat(reencode(frame)).isEqualTo(parsed);
                // The same parser, reset, reads the same frame again (a connection reuses it).
                whole.reset();
                assertThat(whole.consume(bytes, 0, stream.length)).isEqualTo(takenWhole);
                assertThat(whole.state()).isEqualTo(StartupFrameParser.State.COMPLETE);
            }
            default -> throw new AssertionError(whole.state());
        }
    }

    /**
     * The negotiator on both sides. Input: byte 0 the local settings' switches (bit 0 the role: 0
     * Responder judging a Request, 1 Initiator judging a Reply; bits 1-2 the CRC policy; bit 3 M
     * requested; bit 4 M requests honoured; bit 5 revision 2; bit 6 peer-to-peer; bit 7 IRD/ORD
     * negotiated); byte 1 bits 0-2 the RTR forms (Write, Read, Send); bytes 2-5 IRD cap, IRD, ORD and
     * required ORD (each masked to 0..127); the rest the peer's frame, judged with as many bytes as
     * it holds.
     *
     * <p>Invariants: no exception; a malformed frame, as {@link StartupFrame#validate} finds it, is
     * closed with MPA 2/0/0x04 and its reason; a Terminate is only the RFC 6581 §8 setup errors
     * 2/0/0x06 or 2/0/0x07; the IRD/ORD rules of RFC 6581 §9.1 hold; a Responder's decision can be
     * written as a Reply that an Initiator parses and that matches the Request's S (RFC 6581 §10) and
     * carries R=1 exactly when rejecting (RFC 5044 §7.1.2 rule 2).
     */
    @FuzzTest(maxDuration = "30s")
    void negotiator(byte[] input) {
        if (input.length < 6) {
            return;
        }
        MpaSettings settings = settings(input);
        if (settings == null) {
            return;                       // the switches name no valid local configuration
        }
        boolean initiator = (input[0] & 1) != 0;
        byte[] frameBytes = Arrays.copyOfRange(input, 6, input.length);
        // At least the 20-byte header, so that the flyweight's reads stay inside the segment; what
        // is missing counts as not yet arrived through 'available'.
        MemorySegment frameSegment = MemorySegment.ofArray(Arrays.copyOf(frameBytes,
                Math.max(frameBytes.length, StartupFrame.MAX_FRAME_LENGTH)));
        StartupFrame frame = new StartupFrame().wrap(frameSegment, 0);
        MpaNegotiator negotiator = new MpaNegotiator(settings);
        StartupFrame.Kind kind = initiator ? StartupFrame.Kind.REPLY : StartupFrame.Kind.REQUEST;
        StartupFrameReason malformed = frame.validate(kind, frameBytes.length, StartupFrame.MAX_PRIVATE_DATA_LENGTH);

        Negotiation n = initiator ? negotiator.onReply(frame, frameBytes.length)
                : negotiator.onRequest(frame, frameBytes.length);
        assertThat(n.outcome()).isNotNull();
        if (malformed != null) {
            assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.CLOSE);
            assertThat(n.failure()).isEqualTo(NegotiationFailure.INVALID_FRAME);
            assertThat(n.frameReason()).isEqualTo(malformed);
            assertThat(n.error().terminateCodeBits()).isEqualTo(0x2004);
            return;
        }
        boolean sentEnhanced = settings.revision() == StartupFrame.REVISION_2;
        if (initiator ? frame.enhanced() != sentEnhanced : frame.enhanced() && !sentEnhanced) {
            // RFC 6581 §10: a Reply's S must match the Request's; an unenhanced Responder treats an
            // enhanced Request as improperly formatted.
            assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.CLOSE);
            assertThat(n.failure()).isEqualTo(NegotiationFailure.INVALID_FRAME);
        }
        if (initiator && n.failure() != NegotiationFailure.INVALID_FRAME && frame.reject()) {
            assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.PEER_REJECTED);       // RFC 5044 §7.1.2 rule 3
        }
        if (n.failure() == NegotiationFailure.INVALID_FRAME) {
            // Valid on its own but not for this endpoint (RFC 6581 §10: S mismatch or unenhanced).
            assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.CLOSE);
            assertThat(n.frameReason()).isIn(StartupFrameReason.ENHANCED_MISMATCH, StartupFrameReason.UNSUPPORTED_REVISION);
            assertThat(n.error().terminateCodeBits()).isEqualTo(0x2004);
            return;
        }
        MpaParameters p = n.parameters();
        assertThat(p).isNotNull();
        assertThat(p.crc()).isEqualTo(frame.crc() || settings.crcPolicy().sendC());    // RFC 5044 §7.1.1 "C"
        assertThat(p.markersOnSend()).isEqualTo(frame.markers());                        // RFC 5044 §7.1.1 "M"
        assertThat(p.markersOnReceive()).isEqualTo(settings.requestMarkers());
        assertThat(p.ird()).isBetween(0, Math.max(settings.ird(), settings.irdCap()));
        if (n.outcome() == Negotiation.Outcome.TERMINATE) {
            assertThat(initiator).isTrue();
            assertThat(n.error()).isIn(MpaError.INSUFFICIENT_IRD, MpaError.NO_MATCHING_RTR);
            assertThat(n.error().terminateCodeBits() >>> 8).isEqualTo(0x20);
        }
        if (initiator) {
            assertThat(n.outcome()).isIn(EnumSet.of(Negotiation.Outcome.ACCEPT, Negotiation.Outcome.PEER_REJECTED,
                    Negotiation.Outcome.TERMINATE, Negotiation.Outcome.CLOSE));
            if (n.outcome() == Negotiation.Outcome.ACCEPT && p.enhanced()) {
                EnhancedSetup peer = frame.enhancedSetup();
                // RFC 6581 §9.1: Initiator IRD >= Responder ORD; Initiator ORD <= Responder IRD.
                if (peer.ord() != EnhancedSetup.NO_NEGOTIATION) {
                    assertThat(p.ird()).isGreaterThanOrEqualTo(peer.ord()).isLessThanOrEqualTo(settings.irdCap());
                }
                if (peer.ird() != EnhancedSetup.NO_NEGOTIATION) {
                    assertThat(p.ord()).isLessThanOrEqualTo(peer.ird());
                }
                if (settings.peerToPeer()) {
                    assertThat(p.rtr()).isNotNull();                          // RFC 6581 §9.2
                    assertThat(p.rtrFlags() & p.rtr().flag()).isNotZero();
                }
            }
            return;
        }
        assertThat(n.outcome()).isIn(Negotiation.Outcome.ACCEPT, Negotiation.Outcome.REJECT);
        if (n.outcome() == Negotiation.Outcome.ACCEPT && p.enhanced()) {
            EnhancedSetup peer = frame.enhancedSetup();
            if (peer.ird() != EnhancedSetup.NO_NEGOTIATION) {
                assertThat(p.ord()).isLessThanOrEqualTo(peer.ird());       // Responder ORD <= Initiator IRD
            }
            assertThat(p.ird()).isLessThanOrEqualTo(Math.max(settings.ird(), settings.irdCap()));
        }
        MemorySegment reply = MemorySegment.ofArray(new byte[StartupFrame.MAX_FRAME_LENGTH]);
        int length = negotiator.writeReply(n, false, reply, 0, null, 0, 0);
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REPLY, StartupFrame.MAX_PRIVATE_DATA_LENGTH);
        assertThat(parser.consume(reply, 0, length)).isEqualTo(length);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.COMPLETE);
        assertThat(parser.frame().enhanced()).isEqualTo(frame.enhanced());
        assertThat(parser.frame().reject()).isEqualTo(n.outcome() == Negotiation.Outcome.REJECT);
    }

    private static MpaSettings settings(byte[] input) {
        int switches = input[0] & 0xFF;
        CrcPolicy[] policies = {CrcPolicy.OPTIONAL, CrcPolicy.REQUIRED, CrcPolicy.OFF, CrcPolicy.OPTIONAL};
        int forms = input[1] & 7;
        try {
            MpaSettings.Builder b = MpaSettings.builder()
                    .crcPolicy(policies[switches >>> 1 & 3])
                    .requestMarkers((switches & 0x08) != 0)
                    .acceptMarkerRequests((switches & 0x10) != 0)
                    .revision((switches & 0x20) != 0 ? StartupFrame.REVISION_2 : StartupFrame.REVISION_1)
                    .peerToPeer((switches & 0x40) != 0)
                    .negotiateIrdOrd((switches & 0x80) != 0)
                    .irdCap(input[2] & 0x7F)
                    .ird(input[3] & 0x7F)
                    .ord(input[4] & 0x7F)
                    .minOrd(input[5] & 0x7F);
            b.rtrForms(Arrays.stream(RtrForm.values()).filter(f -> (forms >> f.ordinal() & 1) != 0).toArray(RtrForm[]::new));
            return b.build();
        } catch (IllegalArgumentException invalidCombination) {
            return null;
        }
    }

    /** Feeds the whole stream in chunks of 1..64 bytes chosen by the random split. */
    private static int feedInPieces(StartupFrameParser parser, MemorySegment bytes, Random split) {
        int offset = 0;
        int taken = 0;
        while (offset < bytes.byteSize()) {
            int n = (int) Math.min(bytes.byteSize() - offset, 1 + split.nextInt(64));
            int t = parser.consume(bytes, offset, n);
            assertThat(t).isBetween(0, n);
            taken += t;
            offset += n;
        }
        return taken;
    }

    /**
     * An independent reading of the header rules (RFC 5044 §7.1.1, §7.1.2 rule 9; RFC 6581 §6, §9):
     * {@code null} when the first 20 bytes make an acceptable header (or are not all there yet),
     * else any non-null reason.
     */
    private static StartupFrameReason headerVerdict(byte[] s, StartupFrame.Kind expected, int limit) {
        if (s.length < StartupFrame.HEADER_LENGTH) {
            return null;
        }
        byte[] key = Arrays.copyOf(s, 16);
        byte[] want = expected == StartupFrame.Kind.REQUEST ? REQUEST_KEY : REPLY_KEY;
        if (!Arrays.equals(key, want)) {
            return StartupFrameReason.BAD_KEY;
        }
        int flags = s[16] & 0xFF;
        int rev = s[17] & 0xFF;
        int pd = (s[18] & 0xFF) << 8 | s[19] & 0xFF;
        if (rev != 1 && rev != 2 || pd > Math.min(512, limit)) {
            return StartupFrameReason.UNSUPPORTED_REVISION;
        }
        if ((flags & 0x10) != 0 && (rev != 2 || pd < 4)) {
            return StartupFrameReason.ENHANCED_DATA_MISSING;
        }
        return null;
    }

    /** Writes a frame from the parsed fields with the flyweight's setters. */
    private static byte[] reencode(StartupFrame parsed) {
        int length = parsed.frameLength();
        MemorySegment out = MemorySegment.ofArray(new byte[length]);
        StartupFrame frame = new StartupFrame().wrap(out, 0)
                .kind(parsed.kind())
                .flags(0)
                .markers(parsed.markers())
                .crc(parsed.crc())
                .reject(parsed.reject())
                .enhanced(parsed.enhanced())
                .revision(parsed.revision())
                .pdLength(parsed.pdLength());
        // Res bits are carried as received (never checked, RFC 5044 §7.1.1 "Res").
        frame.flags(frame.flags() | parsed.flags() & StartupFrame.FLAGS_RESERVED_MASK);
        if (parsed.enhanced()) {
            // RFC 6581 §9.2: B, C and D mean nothing when A=0, so the decoded word drops them.
            EnhancedSetup setup = parsed.enhancedSetup();
            frame.enhancedWord(setup.toWord() | (setup.peerToPeer() ? 0 : parsed.enhancedWord() & RtrForm.ALL));
        }
        MemorySegment.copy(parsed.segment(), parsed.ulpPrivateDataOffset(), out, frame.ulpPrivateDataOffset(),
                parsed.ulpPrivateDataLength());
        return out.toArray(ValueLayout.JAVA_BYTE);
    }
}
