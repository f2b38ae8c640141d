package io.jrnic.rdmap;

/**
 * The RDMAP opcode table (RFC 5040 §4.1-4.2 Figures 4 and 5, RFC 7306 §4.1-4.2 Figures 2 and 3,
 * draft-talpey-rdma-commit-01 §3.1), one row per message, in the style of Linux siw's
 * {@code iwarp_pktinfo[]}: every property that drives transmit and receive processing is a column
 * here, and lookups by wire value go through an array.
 *
 * <table>
 * <caption>Columns</caption>
 * <tr><th>wire</th><th>message</th><th>T</th><th>QN</th><th>RDMAP header after DDP header</th></tr>
 * <tr><td>0x0</td><td>RDMA Write</td><td>1</td><td>-</td><td>0, ULP payload</td></tr>
 * <tr><td>0x1</td><td>RDMA Read Request</td><td>0</td><td>1</td><td>28</td></tr>
 * <tr><td>0x2</td><td>RDMA Read Response</td><td>1</td><td>-</td><td>0, ULP payload</td></tr>
 * <tr><td>0x3-0x6</td><td>Send, Send with Invalidate, with SE, with SE and Invalidate</td>
 *     <td>0</td><td>0</td><td>0, ULP payload</td></tr>
 * <tr><td>0x7</td><td>Terminate</td><td>0</td><td>2</td><td>4 or more</td></tr>
 * <tr><td>0x8, 0x9</td><td>Immediate Data (with SE)</td><td>0</td><td>0</td><td>8</td></tr>
 * <tr><td>0xA</td><td>Atomic Request</td><td>0</td><td>1</td><td>52</td></tr>
 * <tr><td>0xB</td><td>Atomic Response</td><td>0</td><td>3</td><td>12</td></tr>
 * <tr><td>0xC</td><td>RDMA Flush Request</td><td>0</td><td>1</td><td>20</td></tr>
 * <tr><td>0xD</td><td>RDMA Flush Response</td><td>0</td><td>3</td><td>0</td></tr>
 * <tr><td>0xE</td><td>RDMA Verify Request</td><td>0</td><td>1</td><td>16 + hash</td></tr>
 * <tr><td>0xF</td><td>RDMA Verify Response</td><td>0</td><td>3</td><td>hash</td></tr>
 * <tr><td>0x10</td><td>Atomic Write Request</td><td>0</td><td>1</td><td>24</td></tr>
 * <tr><td>0x11</td><td>Atomic Write Response</td><td>0</td><td>3</td><td>0</td></tr>
 * </table>
 *
 * Decisions (docs/rdmap.md): Atomic Response is 12 bytes (RFC 7306 Figure 6; its §4 text says 32);
 * 0xF is Verify Response only with the commit draft enabled (RFC 6580 lists it as "Reserved
 * (Experimental)"); Atomic Write Response is 0x11 (the draft's message table says 10000b by
 * mistake). Immutable and thread-safe.
 */
public enum RdmapOpcode {
    // wire, name, spec, QN (or TAGGED), RDMAP header length, flags, response wire value

    /** RDMA Write (RFC 5040 §4.3, §5.1). */
    RDMA_WRITE(0x0, "RDMA Write", RdmapSpec.RFC_5040, RdmapOpcode.TAGGED, 0,
            Flags.PAYLOAD, Flags.NONE),
    /** RDMA Read Request (RFC 5040 §4.4, §5.2.1). */
    READ_REQUEST(0x1, "RDMA Read Request", RdmapSpec.RFC_5040, 1, ReadRequestHeaderFlyweight.HEADER_LENGTH,
            Flags.ORD_IRD, 0x2),
    /** RDMA Read Response (RFC 5040 §4.5, §5.2.2). */
    READ_RESPONSE(0x2, "RDMA Read Response", RdmapSpec.RFC_5040, RdmapOpcode.TAGGED, 0,
            Flags.PAYLOAD | Flags.RESPONSE, Flags.NONE),
    /** Send (RFC 5040 §4.6, §5.3). */
    SEND(0x3, "Send", RdmapSpec.RFC_5040, 0, 0,
            Flags.PAYLOAD, Flags.NONE),
    /** Send with Invalidate (RFC 5040 §4.7, §5.3). */
    SEND_INVALIDATE(0x4, "Send with Invalidate", RdmapSpec.RFC_5040, 0, 0,
            Flags.PAYLOAD | Flags.INVALIDATE, Flags.NONE),
    /** Send with Solicited Event (RFC 5040 §4.6, §5.3). */
    SEND_SE(0x5, "Send with Solicited Event", RdmapSpec.RFC_5040, 0, 0,
            Flags.PAYLOAD | Flags.SOLICITED, Flags.NONE),
    /** Send with Solicited Event and Invalidate (RFC 5040 §4.7, §5.3). */
    SEND_SE_INVALIDATE(0x6, "Send with Solicited Event and Invalidate", RdmapSpec.RFC_5040, 0, 0,
            Flags.PAYLOAD | Flags.SOLICITED | Flags.INVALIDATE, Flags.NONE),
    /** Terminate (RFC 5040 §4.8, §5.4): a 4-byte control word plus optional copied headers. */
    TERMINATE(0x7, "Terminate", RdmapSpec.RFC_5040, 2, TerminateHeaderFlyweight.MIN_LENGTH,
            Flags.VARIABLE, Flags.NONE),
    /** Immediate Data (RFC 7306 §6). */
    IMMEDIATE_DATA(0x8, "Immediate Data", RdmapSpec.RFC_7306, 0, ImmediateDataHeaderFlyweight.HEADER_LENGTH,
            0, Flags.NONE),
    /** Immediate Data with Solicited Event (RFC 7306 §6). */
    IMMEDIATE_DATA_SE(0x9, "Immediate Data with Solicited Event", RdmapSpec.RFC_7306, 0,
            ImmediateDataHeaderFlyweight.HEADER_LENGTH, Flags.SOLICITED, Flags.NONE),
    /** Atomic Request (RFC 7306 §5.2.1). */
    ATOMIC_REQUEST(0xA, "Atomic Request", RdmapSpec.RFC_7306, 1, AtomicRequestHeaderFlyweight.HEADER_LENGTH,
            Flags.ORD_IRD, 0xB),
    /** Atomic Response (RFC 7306 §5.2.2): 12 bytes, per Figure 6. */
    ATOMIC_RESPONSE(0xB, "Atomic Response", RdmapSpec.RFC_7306, 3, AtomicResponseHeaderFlyweight.HEADER_LENGTH,
            Flags.RESPONSE, Flags.NONE),
    /** RDMA Flush Request (draft-talpey-rdma-commit-01 §3.1.1.1). */
    FLUSH_REQUEST(0xC, "RDMA Flush Request", RdmapSpec.COMMIT_DRAFT, 1, FlushRequestHeaderFlyweight.HEADER_LENGTH,
            Flags.ORD_IRD, 0xD),
    /** RDMA Flush Response (draft-talpey-rdma-commit-01 §3.1.1.2): no RDMAP header. */
    FLUSH_RESPONSE(0xD, "RDMA Flush Response", RdmapSpec.COMMIT_DRAFT, 3, 0,
            Flags.RESPONSE, Flags.NONE),
    /** RDMA Verify Request (draft-talpey-rdma-commit-01 §3.1.2.1): 16 bytes plus an optional hash. */
    VERIFY_REQUEST(0xE, "RDMA Verify Request", RdmapSpec.COMMIT_DRAFT, 1, VerifyRequestHeaderFlyweight.FIXED_LENGTH,
            Flags.ORD_IRD | Flags.VARIABLE, 0xF),
    /** RDMA Verify Response (draft-talpey-rdma-commit-01 §3.1.2.2): the hash only. */
    VERIFY_RESPONSE(0xF, "RDMA Verify Response", RdmapSpec.COMMIT_DRAFT, 3, 0,
            Flags.RESPONSE | Flags.VARIABLE, Flags.NONE),
    /** Atomic Write Request (draft-talpey-rdma-commit-01 §3.1.3.1). */
    ATOMIC_WRITE_REQUEST(0x10, "Atomic Write Request", RdmapSpec.COMMIT_DRAFT, 1,
            AtomicWriteRequestHeaderFlyweight.HEADER_LENGTH, Flags.ORD_IRD, 0x11),
    /** Atomic Write Response (draft-talpey-rdma-commit-01 §3.1.3.2): no RDMAP header; 0x11, not 0x10. */
    ATOMIC_WRITE_RESPONSE(0x11, "Atomic Write Response", RdmapSpec.COMMIT_DRAFT, 3, 0,
            Flags.RESPONSE, Flags.NONE);

    /** {@link #queueNumber()} of the tagged messages, which have no queue number. */
    public static final int TAGGED = -1;

    /** Number of entries of the wire-value table: every value a 5-bit opcode can take. */
    public static final int WIRE_VALUES = 32;

    private static final RdmapOpcode[] BY_WIRE = new RdmapOpcode[WIRE_VALUES];

    static {
        for (RdmapOpcode op : values()) {
            BY_WIRE[op.wireValue] = op;
        }
    }

    private final int wireValue;
    private final String messageName;
    private final RdmapSpec spec;
    private final int queueNumber;
    private final int headerLength;
    private final int flags;
    private final int responseWireValue;

    RdmapOpcode(int wireValue, String messageName, RdmapSpec spec, int queueNumber, int headerLength, int flags,
                int responseWireValue) {
        this.wireValue = wireValue;
        this.messageName = messageName;
        this.spec = spec;
        this.queueNumber = queueNumber;
        this.headerLength = headerLength;
        this.flags = flags;
        this.responseWireValue = responseWireValue;
    }

    /**
     * {@return the opcode with this wire value, or {@code null} if the value is unassigned
     * (0x12-0x1F, or anything outside 0..0x1F)} Which opcodes a stream accepts is decided by {@link
     * RdmapFeatures}.
     *
     * @param wireValue the 5-bit opcode field
     */
    public static RdmapOpcode fromWire(int wireValue) {
        return wireValue >= 0 && wireValue < WIRE_VALUES ? BY_WIRE[wireValue] : null;
    }

    /**
     * {@return the opcode value on the wire (4 bits, or 5 bits for the commit draft's 0x10 and
     * 0x11)}
     */
    public int wireValue() {
        return wireValue;
    }

    /** {@return the message name used by the defining specification} */
    public String messageName() {
        return messageName;
    }

    /** {@return the specification that defines this opcode} */
    public RdmapSpec spec() {
        return spec;
    }

    /** {@return whether the message uses the DDP tagged buffer model (T=1)} */
    public boolean tagged() {
        return queueNumber == TAGGED;
    }

    /**
     * {@return the untagged queue number, or {@link #TAGGED} (-1) for tagged messages (RFC 7306
     * §10.2)}
     */
    public int queueNumber() {
        return queueNumber;
    }

    /**
     * {@return the length of the RDMAP header that follows the DDP header; for the variable-length
     * messages ({@link #variableLength()}) the length of the fixed part}
     */
    public int headerLength() {
        return headerLength;
    }

    /**
     * {@return whether the RDMAP header has a variable part: Terminate, Verify Request and Verify
     * Response}
     */
    public boolean variableLength() {
        return (flags & Flags.VARIABLE) != 0;
    }

    /**
     * {@return whether the message carries ULP payload (RFC 5040 Figure 5)} Exactly these messages
     * may span several DDP segments; all others are a single segment with L=1 and MO=0.
     */
    public boolean ulpPayload() {
        return (flags & Flags.PAYLOAD) != 0;
    }

    /** {@return whether the Invalidate STag field (DDP RsvdULP[8:39]) is valid (RFC 5040 §4.1)} */
    public boolean carriesInvalidateStag() {
        return (flags & Flags.INVALIDATE) != 0;
    }

    /** {@return whether the message may raise a solicited event at the Data Sink} */
    public boolean solicitedEvent() {
        return (flags & Flags.SOLICITED) != 0;
    }

    /**
     * {@return whether the message is a request that takes an ORD slot at the requester and an IRD
     * slot at the responder (Read, Atomic, Flush, Verify, Atomic Write Requests; RFC 7306 §5.2,
     * draft §2.1)}
     */
    public boolean consumesOrdIrd() {
        return (flags & Flags.ORD_IRD) != 0;
    }

    /** {@return whether the message answers a request: Read Response and the QN 3 responses} */
    public boolean isResponse() {
        return (flags & Flags.RESPONSE) != 0;
    }

    /**
     * {@return for a request that {@link #consumesOrdIrd()}, the opcode of its response; otherwise
     * null}
     */
    public RdmapOpcode response() {
        return responseWireValue == Flags.NONE ? null : BY_WIRE[responseWireValue];
    }

    /**
     * {@return whether the opcode only fits the commit draft's 5-bit opcode field (0x10, 0x11), so
     * that it must never be sent unless both peers enabled the draft}
     */
    public boolean needsExtendedOpcode() {
        return (wireValue & ~RdmapControl.OPCODE_MASK) != 0;
    }

    /**
     * {@return the RDMAP control byte for this opcode and RDMAP version, reserved bits zero}
     *
     * @param rdmapVersion the RDMAP version (RV): 1 for IETF, 0 for RDMAC
     */
    public int controlByte(int rdmapVersion) {
        return RdmapControl.encode(rdmapVersion, wireValue);
    }

    @Override
    public String toString() {
        return String.format("%s(0x%x %s)", name(), wireValue, messageName);
    }

    /** Bits of the {@code flags} column. */
    private static final class Flags {
        static final int PAYLOAD = 1;
        static final int VARIABLE = 1 << 1;
        static final int INVALIDATE = 1 << 2;
        static final int SOLICITED = 1 << 3;
        static final int ORD_IRD = 1 << 4;
        static final int RESPONSE = 1 << 5;
        /** {@code responseWireValue} of opcodes that expect no response. */
        static final int NONE = -1;
    }
}
