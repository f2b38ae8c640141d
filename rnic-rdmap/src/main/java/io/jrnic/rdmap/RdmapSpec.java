package io.jrnic.rdmap;

/**
 * The specification that defines an RDMAP opcode, so that the extensions can be switched on and off
 * per stream ({@link RdmapFeatures}).
 */
public enum RdmapSpec {
    /** RFC 5040, the base RDMA Protocol: opcodes 0x0-0x7. */
    RFC_5040("RFC 5040"),
    /** RFC 7306, Atomic Operations and Immediate Data: opcodes 0x8-0xB. */
    RFC_7306("RFC 7306"),
    /**
     * draft-talpey-rdma-commit-01, RDMA Flush, Verify and Atomic Write: opcodes 0xC-0x11. An expired
     * individual draft without IANA assignment; never enabled by default.
     */
    COMMIT_DRAFT("draft-talpey-rdma-commit-01");

    private final String reference;

    RdmapSpec(String reference) {
        this.reference = reference;
    }

    /** {@return the document name, e.g. {@code "RFC 7306"}} */
    public String reference() {
        return reference;
    }
}
