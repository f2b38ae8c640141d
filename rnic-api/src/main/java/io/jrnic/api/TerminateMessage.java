package io.jrnic.api;

/**
 * The Terminate message a QP sent or received, kept for Query QP in Terminate and Error
 * (Verbs 1.0 §6.2.2.3, §9.2.5.2, V-VERB-QueryQP-3).
 *
 * @param terminateControl  Layer&lt;&lt;12 | EType&lt;&lt;8 | Error Code (RFC 5040 §4.8)
 * @param locallyGenerated  true when this QP generated it, false when it came from the peer
 * @param headers           copied DDP/RDMAP headers carried by the message (may be empty)
 */
public record TerminateMessage(int terminateControl, boolean locallyGenerated, byte[] headers) {
    /** Layer RDMA, EType Local Catastrophic Error, Code none: the Modify-to-Terminate message (Fig. 12). */
    public static final int LOCAL_CATASTROPHIC = 0x0000;

    /**
     * Copies the header bytes.
     *
     * @param terminateControl the control bits
     * @param locallyGenerated who generated it
     * @param headers          header bytes (copied)
     */
    public TerminateMessage {
        headers = headers == null ? new byte[0] : headers.clone();
    }

    /**
     * The Layer field (RFC 5040 §4.8).
     *
     * @return 0 RDMAP, 1 DDP, 2 LLP
     */
    public int layer() {
        return (terminateControl >>> 12) & 0xF;
    }

    /**
     * The EType field.
     *
     * @return the error type
     */
    public int errorType() {
        return (terminateControl >>> 8) & 0xF;
    }

    /**
     * The Error Code field.
     *
     * @return the code
     */
    public int errorCode() {
        return terminateControl & 0xFF;
    }

    /**
     * The name of the {@link #layer()} (RFC 5040 §4.8 Figure 9).
     *
     * @return {@code "RDMAP"}, {@code "DDP"}, {@code "LLP"} (MPA), or {@code "Unassigned"}
     */
    public String layerName() {
        return TerminateCodes.layerName(layer());
    }

    /**
     * The Error Type Name of the {@link #errorType()} within its layer, as RFC 6580 §3 registers it
     * (RFC 5040 Figure 9, RFC 5041 §7.2, RFC 5044 §8), e.g. {@code "Remote Protection Error"} or
     * {@code "Untagged Buffer Error"}.
     *
     * @return the name, or {@code "Unassigned"} for a type no registry lists
     */
    public String errorTypeName() {
        return TerminateCodes.typeName(layer(), errorType());
    }

    /**
     * The Error Code Name of the {@link #errorCode()}, as RFC 6580 §3 registers it, e.g.
     * {@code "Invalid MSN - MSN range is not valid"}.
     *
     * @return the name; the empty string when the error is registered by its type alone (RDMAP
     *         Local Catastrophic Error, whose code may be anything; DDP Local Catastrophic); or
     *         {@code "Unassigned"} for a code no registry lists
     */
    public String errorCodeName() {
        return TerminateCodes.codeName(layer(), errorType(), errorCode());
    }

    /**
     * The error in words with its wire values, e.g.
     * {@code "DDP 1/2/0x03 Untagged Buffer Error: Invalid MSN - MSN range is not valid"}.
     *
     * @return the description
     */
    public String describe() {
        String code = errorCodeName();
        return String.format("%s %d/%d/0x%02x %s%s", layerName(), layer(), errorType(), errorCode(), errorTypeName(),
                code.isEmpty() ? "" : ": " + code);
    }

    /**
     * The copied DDP/RDMAP headers.
     *
     * @return a copy of the header bytes
     */
    @Override
    public byte[] headers() {
        return headers.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TerminateMessage t && t.terminateControl == terminateControl
                && t.locallyGenerated == locallyGenerated && java.util.Arrays.equals(t.headers, headers);
    }

    @Override
    public int hashCode() {
        return terminateControl * 31 + (locallyGenerated ? 1 : 0) + java.util.Arrays.hashCode(headers);
    }

    @Override
    public String toString() {
        return "TerminateMessage[" + describe() + (locallyGenerated ? ", local" : ", remote") + ", "
                + headers.length + " header bytes]";
    }
}
