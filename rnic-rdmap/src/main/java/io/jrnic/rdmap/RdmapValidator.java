package io.jrnic.rdmap;

import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;

/**
 * Receive-side checks of the RDMAP control field against the DDP header it arrived in, for one
 * stream's {@link RdmapFeatures} (RFC 5040 §7.2 items 2 and 3, RFC 7306 §8.2, draft §5.2). DDP has
 * already validated its own fields (version, QN range, MSN, MO, STag) before these run.
 *
 * <p>Checks of {@link #validate(int, int, int, int)}, in this order; the first failure is returned:
 * <ol>
 *   <li>RV equals the stream's version, else {@link RdmapError#INVALID_RDMAP_VERSION} 0/2/0x05
 *       (R-ERR-022, R-HDR-050);</li>
 *   <li>the opcode is assigned and enabled for the stream, else {@link RdmapError#UNEXPECTED_OPCODE}
 *       0/2/0x06 (R-ERR-021, A-ATOM-003, AMB-33, AMB-41);</li>
 *   <li>the T flag and, for untagged messages, the QN match the opcode's row, else
 *       {@link RdmapError#UNEXPECTED_OPCODE} (R-HDR-051). This cross-check is what rejects the
 *       commit draft's 0x10/0x11 on a stream without the draft, where the 4-bit opcode reads them
 *       as RDMA Write (must be tagged) and Read Request (must be QN 1) (AMB-15, AMB-40);</li>
 *   <li>a message without ULP payload is a single segment (L=1, MO=0), else
 *       {@link RdmapError#OPERATION_UNSPECIFIED} 0/2/0xFF (RFC 5040 §1.2: a Read Request is a single
 *       message segment; RFC 7306 §4.1 and the draft keep all other control fields as for it).</li>
 * </ol>
 * {@link #validateLength} then checks the message length once DDP reports it.
 *
 * <p>Immutable apart from the last decoded opcode ({@link #opcode()}). Allocation-free. Not
 * thread-safe: use one instance per thread.
 */
public final class RdmapValidator {

    private final RdmapFeatures features;
    private RdmapOpcode opcode;

    /**
     * A validator for a stream with these features.
     *
     * @param features the RDMAP features negotiated for the stream
     */
    public RdmapValidator(RdmapFeatures features) {
        if (features == null) {
            throw new IllegalArgumentException("features must not be null");
        }
        this.features = features;
    }

    /** {@return the stream's features} */
    public RdmapFeatures features() {
        return features;
    }

    /**
     * {@return the opcode of the last header passed to a {@code validate} method whose version
     * check passed and whose opcode bits are assigned and enabled, else {@code null}}
     */
    public RdmapOpcode opcode() {
        return opcode;
    }

    /**
     * Validates the RDMAP control field of a received DDP header; see the class comment.
     *
     * @param header the received DDP header
     * @return the error, or {@code null} if valid; {@link #opcode()} then holds the opcode
     */
    public RdmapError validate(DdpHeaderFlyweight header) {
        if (header instanceof UntaggedHeaderFlyweight untagged) {
            return validate(untagged.control(), untagged.rsvdUlp(), untagged.queueNumber(), untagged.messageOffset());
        }
        return validate(header.control(), header.rsvdUlp(), 0, 0);
    }

    /**
     * Validates raw header values; see the class comment.
     *
     * @param ddpControl    the DDP control byte (T, L, DV)
     * @param rdmapControl  the RDMAP control byte (RsvdULP[0:7])
     * @param queueNumber   the QN of an untagged segment; ignored for tagged ones
     * @param messageOffset the MO of an untagged segment; ignored for tagged ones
     * @return the error, or {@code null} if valid; {@link #opcode()} then holds the opcode
     */
    public RdmapError validate(int ddpControl, int rdmapControl, int queueNumber, int messageOffset) {
        opcode = null;
        if (RdmapControl.version(rdmapControl) != features.version()) {
            return RdmapError.INVALID_RDMAP_VERSION;
        }
        RdmapOpcode op = RdmapOpcode.fromWire(features.opcodeBits(rdmapControl));
        if (op == null || !features.enables(op)) {
            return RdmapError.UNEXPECTED_OPCODE;
        }
        opcode = op;
        boolean tagged = DdpHeaderFlyweight.isTagged(ddpControl);
        if (tagged != op.tagged() || !tagged && queueNumber != op.queueNumber()) {
            return RdmapError.UNEXPECTED_OPCODE;
        }
        if (!op.ulpPayload() && ((ddpControl & DdpHeaderFlyweight.L_FLAG) == 0 || messageOffset != 0)) {
            return RdmapError.OPERATION_UNSPECIFIED;
        }
        return null;
    }

    /**
     * Checks the length of a complete message after the DDP header, as DDP reports it, against the
     * opcode's RDMAP header:
     * <ul>
     *   <li>messages with ULP payload: any length;</li>
     *   <li>Terminate and Verify Request: at least the fixed part (4, 16); Verify Response: any;</li>
     *   <li>all others: exactly the header length, so Immediate Data carries exactly 8 bytes
     *       (RFC 7306 §6.3, A-IMM-013), a Read Request 28, an Atomic Request 52, an Atomic Response 12,
     *       a Flush Request 20, an Atomic Write Request 24, and Flush and Atomic Write Responses 0
     *       (AMB-45).</li>
     * </ul>
     * No code is registered for a wrong length; {@link RdmapError#OPERATION_UNSPECIFIED} 0/2/0xFF is
     * used (checklist AMB-30).
     *
     * @param opcode the opcode of the message
     * @param messageLength the DDP message length: MO plus the payload length of the L=1 segment
     * @return the error, or {@code null} if the length is valid
     */
    public static RdmapError validateLength(RdmapOpcode opcode, long messageLength) {
        if (opcode.ulpPayload()) {
            return messageLength >= 0 ? null : RdmapError.OPERATION_UNSPECIFIED;
        }
        boolean valid = opcode.variableLength()
                ? messageLength >= opcode.headerLength()
                : messageLength == opcode.headerLength();
        return valid ? null : RdmapError.OPERATION_UNSPECIFIED;
    }
}
