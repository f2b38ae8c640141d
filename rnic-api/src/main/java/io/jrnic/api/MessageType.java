package io.jrnic.api;

/**
 * The RDMAP messages on the wire, by opcode (RFC 5040 §4.1 Figure 4, RFC 7306 §4.1,
 * draft-talpey-rdma-commit-01 §3.1): the keys of the per-message {@link Counters}. The
 * {@link #ordinal()} equals the {@link #wireValue()}.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum MessageType {
    /** RDMA Write (0x0). */
    RDMA_WRITE("RDMA Write"),
    /** RDMA Read Request (0x1). */
    READ_REQUEST("RDMA Read Request"),
    /** RDMA Read Response (0x2). */
    READ_RESPONSE("RDMA Read Response"),
    /** Send (0x3). */
    SEND("Send"),
    /** Send with Invalidate (0x4). */
    SEND_INVALIDATE("Send with Invalidate"),
    /** Send with Solicited Event (0x5). */
    SEND_SE("Send with Solicited Event"),
    /** Send with Solicited Event and Invalidate (0x6). */
    SEND_SE_INVALIDATE("Send with Solicited Event and Invalidate"),
    /** Terminate (0x7). */
    TERMINATE("Terminate"),
    /** Immediate Data (0x8, RFC 7306). */
    IMMEDIATE_DATA("Immediate Data"),
    /** Immediate Data with Solicited Event (0x9, RFC 7306). */
    IMMEDIATE_DATA_SE("Immediate Data with Solicited Event"),
    /** Atomic Request (0xA, RFC 7306): FetchAdd and CmpSwap. */
    ATOMIC_REQUEST("Atomic Request"),
    /** Atomic Response (0xB, RFC 7306). */
    ATOMIC_RESPONSE("Atomic Response"),
    /** RDMA Flush Request (0xC, commit draft). */
    FLUSH_REQUEST("RDMA Flush Request"),
    /** RDMA Flush Response (0xD, commit draft). */
    FLUSH_RESPONSE("RDMA Flush Response"),
    /** RDMA Verify Request (0xE, commit draft). */
    VERIFY_REQUEST("RDMA Verify Request"),
    /** RDMA Verify Response (0xF, commit draft). */
    VERIFY_RESPONSE("RDMA Verify Response"),
    /** Atomic Write Request (0x10, commit draft). */
    ATOMIC_WRITE_REQUEST("Atomic Write Request"),
    /** Atomic Write Response (0x11, commit draft). */
    ATOMIC_WRITE_RESPONSE("Atomic Write Response");

    private static final MessageType[] VALUES = values();

    private final String messageName;

    MessageType(String messageName) {
        this.messageName = messageName;
    }

    /**
     * The RDMAP opcode on the wire.
     *
     * @return 0x0 to 0x11
     */
    public int wireValue() {
        return ordinal();
    }

    /**
     * The message name of the defining specification.
     *
     * @return e.g. {@code "RDMA Read Request"}
     */
    public String messageName() {
        return messageName;
    }

    /**
     * The message with this opcode.
     *
     * @param wireValue the RDMAP opcode
     * @return the message, or null for an unassigned opcode
     */
    public static MessageType fromWire(int wireValue) {
        return wireValue >= 0 && wireValue < VALUES.length ? VALUES[wireValue] : null;
    }
}
