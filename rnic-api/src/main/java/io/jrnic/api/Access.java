package io.jrnic.api;

/**
 * The access rights by name, for code that prefers a type to the {@code int} bits of
 * {@link AccessRights}: {@code AccessRights.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)}, or
 * {@link MemoryRegistration#access(Access...)}. The data path keeps the bits.
 *
 * <p>Thread safety: immutable.
 */
public enum Access {
    /** {@link AccessRights#LOCAL_READ}: the region may be the source of Sends and RDMA Writes (Verbs §7.4.1). */
    LOCAL_READ(AccessRights.LOCAL_READ),
    /** {@link AccessRights#LOCAL_WRITE}: the region may be the sink of Receives and RDMA Reads (Verbs §7.4.1). */
    LOCAL_WRITE(AccessRights.LOCAL_WRITE),
    /** {@link AccessRights#REMOTE_READ}: the peer may RDMA Read the region (Verbs §7.4.2). */
    REMOTE_READ(AccessRights.REMOTE_READ),
    /** {@link AccessRights#REMOTE_WRITE}: the peer may RDMA Write the region (Verbs §7.4.2). */
    REMOTE_WRITE(AccessRights.REMOTE_WRITE),
    /** {@link AccessRights#REMOTE_ATOMIC}: the peer's RFC 7306 atomics may target the region. */
    REMOTE_ATOMIC(AccessRights.REMOTE_ATOMIC),
    /** {@link AccessRights#BIND_WINDOW}: memory windows may be bound to the region (Verbs §7.3.2). */
    BIND_WINDOW(AccessRights.BIND_WINDOW),
    /** {@link AccessRights#FLUSHABLE_PERSISTENT} (draft-talpey-rdma-commit-01 §2.4). */
    FLUSHABLE_PERSISTENT(AccessRights.FLUSHABLE_PERSISTENT),
    /** {@link AccessRights#FLUSHABLE_GLOBAL} (draft-talpey-rdma-commit-01 §2.4). */
    FLUSHABLE_GLOBAL(AccessRights.FLUSHABLE_GLOBAL),
    /** {@link AccessRights#VERIFIABLE} (draft-talpey-rdma-commit-01 §2.4). */
    VERIFIABLE(AccessRights.VERIFIABLE);

    private final int bit;

    Access(int bit) {
        this.bit = bit;
    }

    /**
     * The {@link AccessRights} bit of this right.
     *
     * @return the bit
     */
    public int bit() {
        return bit;
    }
}
