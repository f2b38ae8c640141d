package io.jrnic.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.wire.IwarpError;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing (Jazzer) of RDMAP's receive side: {@link RdmapValidator} on any DDP header
 * and {@link TerminateDecoder} (strict and lenient) on any Terminate message. The corpus is under
 * {@code src/test/resources/io/jrnic/rdmap/RdmapFuzzTestInputs/} (docs/reliability.md).
 */
class RdmapFuzzTest {

    private static final RdmapFeatures[] FEATURES = {
        RdmapFeatures.RFC_5040, RdmapFeatures.RFC_7306, RdmapFeatures.ALL, RdmapFeatures.RDMAC};

    /**
     * The validator. Input: byte 0 the stream's features (0 RFC 5040, 1 RFC 7306, 2 everything,
     * 3 RDMAC); bytes 1-4 the message length DDP reports for {@link RdmapValidator#validateLength};
     * the rest a DDP header, 14 or 18 bytes by its T bit (zeros when the input is shorter).
     *
     * <p>Invariants: no exception; the verdict is one of RDMAP 0/2/0x05, 0/2/0x06, 0/2/0xFF (RFC
     * 5040 §7.2, checklist AMB-30) and agrees with an independent reading of RFC 5040 §4.2-§4.8 and
     * §5 for the base opcodes: RV first, then an assigned and enabled opcode, then its T flag and
     * queue, then single-segment control messages; an accepted header names an opcode the stream
     * enables.
     */
    @FuzzTest(maxDuration = "30s")
    void validator(byte[] input) {
        if (input.length < 6) {
            return;
        }
        RdmapFeatures features = FEATURES[(input[0] & 0xFF) % FEATURES.length];
        long messageLength = Integer.toUnsignedLong((input[1] & 0xFF) << 24 | (input[2] & 0xFF) << 16
                | (input[3] & 0xFF) << 8 | input[4] & 0xFF);
        byte[] header = Arrays.copyOf(Arrays.copyOfRange(input, 5, input.length), UntaggedHeaderFlyweight.HEADER_LENGTH);
        MemorySegment segment = MemorySegment.ofArray(header);
        int ddpControl = header[0] & 0xFF;
        DdpHeaderFlyweight ddp = DdpHeaderFlyweight.isTagged(ddpControl)
                ? new TaggedHeaderFlyweight().wrap(segment, 0) : new UntaggedHeaderFlyweight().wrap(segment, 0);

        RdmapValidator validator = new RdmapValidator(features);
        RdmapError error = validator.validate(ddp);
        assertThat(error).isIn(null, RdmapError.INVALID_RDMAP_VERSION, RdmapError.UNEXPECTED_OPCODE,
                RdmapError.OPERATION_UNSPECIFIED);
        if (error != null) {
            assertThat(error.terminateCodeBits() >>> 8).isEqualTo(0x02);      // Layer 0, EType 2
        }
        int rdmapControl = header[1] & 0xFF;
        int queue = ddp instanceof UntaggedHeaderFlyweight u ? u.queueNumber() : 0;
        int mo = ddp instanceof UntaggedHeaderFlyweight u ? u.messageOffset() : 0;
        if (rdmapControl >>> 6 != features.version()) {
            assertThat(error).isEqualTo(RdmapError.INVALID_RDMAP_VERSION);
            assertThat(validator.opcode()).isNull();
            return;
        }
        if (error == null) {
            RdmapOpcode op = validator.opcode();
            assertThat(op).isNotNull();
            assertThat(features.enables(op)).isTrue();
            assertThat(op.tagged()).isEqualTo(ddp.tagged());
            RdmapError lengthError = RdmapValidator.validateLength(op, messageLength);
            assertThat(lengthError).isIn(null, RdmapError.OPERATION_UNSPECIFIED);
            // Re-encoding the accepted header gives the input back but for the reserved bits.
            MemorySegment again = MemorySegment.ofArray(new byte[UntaggedHeaderFlyweight.HEADER_LENGTH]);
            RdmapMessageEncoder encoder = new RdmapMessageEncoder(features);
            if (op.tagged()) {
                TaggedHeaderFlyweight t = (TaggedHeaderFlyweight) ddp;
                encoder.taggedHeader(again, 0, op, t.last(), t.stag(), t.taggedOffset());
            } else {
                UntaggedHeaderFlyweight u = (UntaggedHeaderFlyweight) ddp;
                encoder.untaggedHeader(again, 0, op, u.last(), u.rsvdUlpWord(), u.msn(), u.messageOffset());
                if (!op.carriesInvalidateStag()) {
                    again.set(ValueLayout.JAVA_INT_UNALIGNED, 2, segment.get(ValueLayout.JAVA_INT_UNALIGNED, 2));
                }
            }
            // DDP control: T and L kept; reserved 0x3C not, and DV is DDP's to check (RFC 5041 §4.1),
            // the encoder writes the stream's. RDMAP control: reserved bits not kept.
            int rsv = features.commitDraft() ? RdmapControl.EXTENDED_RSV_MASK : RdmapControl.RSV_MASK;
            int ddpKept = ~(DdpHeaderFlyweight.RESERVED_MASK | DdpHeaderFlyweight.DV_MASK) & 0xFF;
            assertThat(again.get(ValueLayout.JAVA_BYTE, 0) & ddpKept).isEqualTo(ddpControl & ddpKept);
            assertThat(again.get(ValueLayout.JAVA_BYTE, 1) & 0xFF).isEqualTo(rdmapControl & ~rsv);
            byte[] rest = again.asSlice(2, ddp.headerLength() - 2).toArray(ValueLayout.JAVA_BYTE);
            assertThat(rest).isEqualTo(Arrays.copyOfRange(header, 2, ddp.headerLength()));
        }
        if (features.rfc7306() || features.commitDraft()) {
            return;
        }
        // RFC 5040 alone: opcodes 0-7 with their fixed T flag and QN (RFC 5040 §4.2-§4.8, §5).
        int opcode = rdmapControl & 0x0F;
        boolean tagged = ddp.tagged();
        RdmapError expected;
        if (opcode > 7) {
            expected = RdmapError.UNEXPECTED_OPCODE;
        } else {
            boolean wantTagged = opcode == 0 || opcode == 2;
            int wantQueue = opcode == 1 ? 1 : opcode == 7 ? 2 : 0;
            if (tagged != wantTagged || !tagged && queue != wantQueue) {
                expected = RdmapError.UNEXPECTED_OPCODE;
            } else if ((opcode == 1 || opcode == 7) && (!ddp.last() || mo != 0)) {
                expected = RdmapError.OPERATION_UNSPECIFIED;       // Read Request, Terminate: one segment
            } else {
                expected = null;
            }
        }
        assertThat(error).isEqualTo(expected);
    }

    /**
     * The Terminate decoder. Input: byte 0 bit 0 whether the Terminate is the peer's first FPDU; the
     * rest the Terminate header (after the DDP header) as DDP delivers it.
     *
     * <p>Invariants: no exception; shorter than 4 bytes is 0/2/0xFF for both decoders; the lenient
     * decoder takes anything longer, and every part it reports lies inside the message; a strict
     * success names a registered error (RFC 6580 §3) with exactly the parts M, D and R announce (RFC
     * 5040 §4.8), the lenient decoder reading RFC bit order agrees with it, and a Terminate whose
     * parts are those RFC 5040 Figure 10 asks for encodes back to the same bytes.
     */
    @FuzzTest(maxDuration = "30s")
    void terminateDecoder(byte[] input) {
        if (input.length < 1) {
            return;
        }
        boolean firstFpdu = (input[0] & 1) != 0;
        int length = input.length - 1;
        // Some room after the message: a decoder must not read past 'length'.
        byte[] buffer = Arrays.copyOf(input, input.length + 64);
        Arrays.fill(buffer, input.length, buffer.length, (byte) 0xEE);
        MemorySegment segment = MemorySegment.ofArray(buffer);

        TerminateDecoder strict = TerminateDecoder.strict();
        TerminateDecoder lenient = TerminateDecoder.lenient();
        RdmapError strictResult = strict.decode(segment, 1, length, firstFpdu);
        RdmapError lenientResult = lenient.decode(segment, 1, length, firstFpdu);
        if (length < TerminateHeaderFlyweight.MIN_LENGTH) {
            assertThat(strictResult).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
            assertThat(lenientResult).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
            return;
        }
        assertThat(lenientResult).isNull();
        assertThat(strictResult).isIn(null, RdmapError.OPERATION_UNSPECIFIED);
        checkParts(lenient, length);
        checkParts(strict, length);
        int b2 = input[3] & 0xFF;
        // Bit order rule 1 (docs/rdmap.md): header bits of only one order decide.
        if ((b2 & 0xE0) != 0 && (b2 & 0x07) == 0) {
            assertThat(lenient.bitOrder()).isEqualTo(TerminateDecoder.BitOrder.RFC_5040);
        } else if ((b2 & 0xE0) == 0 && (b2 & 0x07) != 0) {
            assertThat(lenient.bitOrder()).isEqualTo(TerminateDecoder.BitOrder.LINUX_SIW);
        }
        // The strict verdict, read from RFC 5040 §4.8 apart from the decoder: a registered error
        // (RFC 6580 §3) and exactly the parts M, D and R announce, the DDP header's length by its T bit.
        boolean m = (b2 & 0x80) != 0;
        boolean d = (b2 & 0x40) != 0;
        boolean r = (b2 & 0x20) != 0;
        int b0 = input[1] & 0xFF;
        boolean registered = IwarpErrors.fromWire(b0 >>> 4, b0 & 0xF, input[2] & 0xFF) != null;
        int expectedLength = 4 + (m || d ? 2 : 0) + (r ? ReadRequestHeaderFlyweight.HEADER_LENGTH : 0);
        if (d && length > 6) {
            expectedLength += (input[1 + 6] & 0x80) != 0 ? 14 : 18;
        }
        boolean strictValid = registered && (!d || length > 6) && length == expectedLength;
        assertThat(strictResult == null).as("strict verdict").isEqualTo(strictValid);
        if (strictResult != null) {
            return;
        }
        IwarpError error = strict.error();
        assertThat(error).isNotNull();
        // The raw fields are the wire's; the error is their registry entry (RDMAP's Local
        // Catastrophic Error takes any code, R-ERR-001, so its constant may carry another code).
        assertThat(strict.layer() << 12 | strict.errorType() << 8 | strict.errorCode())
                .isEqualTo((input[1] & 0xFF) << 8 | input[2] & 0xFF);
        assertThat(error).isSameAs(IwarpErrors.fromWire(strict.layer(), strict.errorType(), strict.errorCode()));
        int word = segment.get(RdmapHeaderFlyweight.INT_BE, 1);
        assertThat(TerminateHeaderFlyweight.length(word, strict.ddpHeaderLength())).isEqualTo(length);
        if (lenient.bitOrder() == TerminateDecoder.BitOrder.RFC_5040) {
            assertThat(lenient.error()).isSameAs(error);
            assertThat(lenient.ddpHeaderLength()).isEqualTo(strict.ddpHeaderLength());
            assertThat(lenient.hasRdmaHeader()).isEqualTo(strict.hasRdmaHeader());
            assertThat(lenient.ddpSegmentLength()).isEqualTo(strict.ddpSegmentLength());
        }
        reencode(strict, error, word, Arrays.copyOfRange(input, 1, input.length));
    }

    /** Every part a decoder reports lies within the message, and its flyweights can be read. */
    private static void checkParts(TerminateDecoder d, int length) {
        if (d.hasDdpHeader()) {
            assertThat(d.ddpHeaderOffset()).isGreaterThanOrEqualTo(1 + 6);
            assertThat(d.ddpHeaderOffset() + d.ddpHeaderLength()).isLessThanOrEqualTo(1 + length);
            DdpHeaderFlyweight h = d.ddpHeaderTagged() ? d.wrapDdpHeader(new TaggedHeaderFlyweight())
                    : d.wrapDdpHeader(new UntaggedHeaderFlyweight());
            assertThat(h.headerLength()).isEqualTo(d.ddpHeaderLength());
        }
        if (d.hasRdmaHeader()) {
            assertThat(d.rdmaHeaderOffset() + ReadRequestHeaderFlyweight.HEADER_LENGTH).isLessThanOrEqualTo(1 + length);
            ReadRequestHeaderFlyweight r = d.wrapRdmaHeader(new ReadRequestHeaderFlyweight());
            assertThat(r.readSize()).isEqualTo(r.readSize());
        }
        if (d.segmentLengthValid() || d.ddpHeaderIncluded()) {
            assertThat(d.ddpSegmentLength()).isBetween(-1, 0xFFFF);
        }
    }

    /**
     * Encodes the decoded Terminate again with {@link TerminateHeaderFlyweight#encode} when its M, D
     * and R are what RFC 5040 Figure 10 prescribes for its error and parts; the bytes must match
     * (reserved bits are sent as zero, so only a word without them can match).
     */
    private static void reencode(TerminateDecoder d, IwarpError error, int word, byte[] message) {
        if ((word & TerminateHeaderFlyweight.RESERVED_MASK) != 0 || error.terminateCodeBits() != word >>> 16) {
            return;
        }
        DdpHeaderFlyweight ddp = null;
        if (d.hasDdpHeader()) {
            ddp = d.ddpHeaderTagged() ? d.wrapDdpHeader(new TaggedHeaderFlyweight())
                    : d.wrapDdpHeader(new UntaggedHeaderFlyweight());
        }
        ReadRequestHeaderFlyweight read = d.hasRdmaHeader() ? d.wrapRdmaHeader(new ReadRequestHeaderFlyweight()) : null;
        boolean readRequest = ddp != null && !ddp.tagged()
                && (ddp.rsvdUlp() & RdmapControl.OPCODE_MASK) == RdmapOpcode.READ_REQUEST.wireValue();
        int hdrCt = word & (TerminateHeaderFlyweight.M_FLAG | TerminateHeaderFlyweight.D_FLAG | TerminateHeaderFlyweight.R_FLAG);
        if (hdrCt != TerminateHeaderFlyweight.headerControl(error, ddp != null, read != null && readRequest)
                || read != null && !readRequest) {
            return;
        }
        MemorySegment out = MemorySegment.ofArray(new byte[TerminateHeaderFlyweight.MAX_LENGTH]);
        int n = new TerminateHeaderFlyweight().wrap(out, 0).encode(error, ddp, Math.max(0, d.ddpSegmentLength()), read);
        assertThat(out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(message);
    }
}
