package io.jrnic.api;

/**
 * Protocol extensions beyond Verbs 1.0 that an RNIC may advertise in {@link RnicAttributes}.
 *
 * <p>Thread safety: immutable.
 */
public enum RnicExtension {
    /** RFC 7306 §5 atomic operations (FetchAdd, CmpSwap, masked variants). */
    ATOMICS,
    /** RFC 7306 §6 immediate data. */
    IMMEDIATE_DATA,
    /** draft-talpey-rdma-commit-01 RDMA Flush. */
    RDMA_FLUSH,
    /** draft-talpey-rdma-commit-01 RDMA Verify. */
    RDMA_VERIFY,
    /** draft-talpey-rdma-commit-01 Atomic Write. */
    ATOMIC_WRITE,
    /** Inline data in send work requests (a library extension, Verbs §9.3.1.1 has none). */
    INLINE_DATA
}
