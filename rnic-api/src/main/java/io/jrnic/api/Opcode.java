package io.jrnic.api;

/**
 * Operation type of a work request and of its Work Completion (Verbs 1.0 §8.1, §9.3.1.1
 * Figure 27, §9.3.2.1).
 *
 * <p>Thread safety: immutable.
 */
public enum Opcode {
    /** Send. */
    SEND,
    /** Send with Solicited Event. */
    SEND_SE,
    /** Send with Invalidate (names a remote STag to invalidate). */
    SEND_INVALIDATE,
    /** Send with Solicited Event and Invalidate. */
    SEND_SE_INVALIDATE,
    /** RDMA Write. */
    RDMA_WRITE,
    /** RDMA Read. */
    RDMA_READ,
    /** RDMA Read with Invalidate Local STag (the local sink STag is invalidated after the read). */
    RDMA_READ_INVALIDATE,
    /** Bind Memory Window (local, SQ ordered). */
    BIND_MW,
    /** Fast-Register Non-Shared Memory Region (local, privileged). */
    FAST_REGISTER,
    /** Invalidate Local STag (local, SQ ordered). */
    INVALIDATE_LOCAL_STAG,
    /** Receive (RQ and S-RQ only). */
    RECEIVE,
    /**
     * RDMA Flush (draft-talpey-rdma-commit-01 §3.1.1): makes a remote {STag, TO, Length} range
     * persistent and/or globally visible; needs {@link RnicExtension#RDMA_FLUSH}.
     */
    RDMA_FLUSH,
    /**
     * RDMA Verify (draft-talpey-rdma-commit-01 §3.1.2): the peer hashes a remote range and compares
     * it with an optional expected hash; needs {@link RnicExtension#RDMA_VERIFY}.
     */
    RDMA_VERIFY,
    /**
     * Atomic Write (draft-talpey-rdma-commit-01 §3.1.3): 8 bytes placed atomically at an aligned
     * remote TO; needs {@link RnicExtension#ATOMIC_WRITE}.
     */
    ATOMIC_WRITE,
    /**
     * RFC 7306 §5.1.1 Atomic FetchAdd (masked when the WR names an add mask): adds to the 64-bit
     * value at the remote STag/TO; the original value lands in the WR's one 8-byte local SGE. Needs
     * {@link RnicExtension#ATOMICS}; consumes ORD like an RDMA Read (RFC 7306 §5.2).
     */
    ATOMIC_FETCH_ADD,
    /**
     * RFC 7306 §5.1.2 Atomic CmpSwap (masked when the WR names compare/swap masks): swaps the remote
     * 64-bit value if it matches; the original value lands in the WR's one 8-byte local SGE. Needs
     * {@link RnicExtension#ATOMICS}; consumes ORD like an RDMA Read.
     */
    ATOMIC_CMP_SWAP,
    /**
     * RFC 7306 §6 Immediate Data: 8 bytes of data that consume one receive WQE at the peer and
     * complete it (there is no RDMA Write with Immediate message: post an RDMA Write, then this).
     * On a receive completion this opcode says the completion carries immediate data. Needs
     * {@link RnicExtension#IMMEDIATE_DATA}.
     */
    IMMEDIATE_DATA,
    /** RFC 7306 §6 Immediate Data with Solicited Event (like Send with SE). */
    IMMEDIATE_DATA_SE;

    /**
     * Send Operation Types (Verbs §4, V-DEF-12).
     *
     * @return true for the four Send variants
     */
    public boolean isSend() {
        return this == SEND || this == SEND_SE || this == SEND_INVALIDATE || this == SEND_SE_INVALIDATE;
    }

    /**
     * RDMA Read Type work requests (Verbs §4, V-DEF-11).
     *
     * @return true for RDMA Read and RDMA Read with Invalidate Local STag
     */
    public boolean isRead() {
        return this == RDMA_READ || this == RDMA_READ_INVALIDATE;
    }

    /**
     * Whether the operation puts a message on the wire (handed to the transport).
     *
     * @return true for Send types, RDMA Write, RDMA Read types, atomics, Immediate Data and the
     *         commit draft's requests
     */
    public boolean isWire() {
        return isSend() || isRead() || this == RDMA_WRITE || isAtomic() || isImmediateData() || isCommitDraft();
    }

    /**
     * The requests of draft-talpey-rdma-commit-01: untagged on queue 1, answered on queue 3, and
     * counted against ORD like an RDMA Read (draft §2.1, §3.1.1.1).
     *
     * @return true for RDMA Flush, RDMA Verify and Atomic Write
     */
    public boolean isCommitDraft() {
        return this == RDMA_FLUSH || this == RDMA_VERIFY || this == ATOMIC_WRITE;
    }

    /**
     * RFC 7306 §5 Atomic Operations.
     *
     * @return true for FetchAdd and CmpSwap
     */
    public boolean isAtomic() {
        return this == ATOMIC_FETCH_ADD || this == ATOMIC_CMP_SWAP;
    }

    /**
     * RFC 7306 §6 Immediate Data messages.
     *
     * @return true for Immediate Data and Immediate Data with SE
     */
    public boolean isImmediateData() {
        return this == IMMEDIATE_DATA || this == IMMEDIATE_DATA_SE;
    }

    /**
     * Operations whose request consumes an ORD credit and waits for a response (RFC 5040 §6.1;
     * RFC 7306 §5.2: atomics share the Read Request queue and its ORD/IRD; the commit draft's
     * requests too, draft §3.1.1.1).
     *
     * @return true for RDMA Read types, atomics and the commit draft's requests
     */
    public boolean consumesOrd() {
        return isRead() || isAtomic() || isCommitDraft();
    }

    /**
     * Memory operations executed locally in SQ order (Verbs §8.1.2.3).
     *
     * @return true for Bind, Fast-Register and Invalidate Local STag
     */
    public boolean isLocalMemory() {
        return this == BIND_MW || this == FAST_REGISTER || this == INVALIDATE_LOCAL_STAG;
    }
}
