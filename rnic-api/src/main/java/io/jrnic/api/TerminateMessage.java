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
        return "TerminateMessage[0x" + Integer.toHexString(terminateControl) + (locallyGenerated ? ", local" : ", remote")
                + ", " + headers.length + " header bytes]";
    }
}
