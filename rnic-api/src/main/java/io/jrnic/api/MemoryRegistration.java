package io.jrnic.api;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A builder for RI-Register Non-Shared Memory Region (Verbs 1.0 §7.3.2.2, §9.2.6.2), in place of
 * the positional arguments of {@link ProtectionDomain#registerMemory(MemorySegment, int, int,
 * AddressType, long, boolean, VerifyHash)}; from {@link ProtectionDomain#registration(MemorySegment)}.
 * Defaults: VA-based at the segment's address, key 0, the Remote Access Flag set exactly when a
 * remote right is asked for, {@link VerifyHash#SHA_256}.
 *
 * <pre>{@code
 * MemoryRegion mr = pd.registration(rnic.allocateMemory(1 << 20, 4096))
 *         .access(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.LOCAL_READ, Access.REMOTE_READ)
 *         .register();
 * }</pre>
 *
 * <p>Thread safety: not thread safe; confine to one thread.
 */
public final class MemoryRegistration {
    private final ProtectionDomain pd;
    private final MemorySegment memory;
    private int accessRights;
    private int key;
    private AddressType addressType = AddressType.VA_BASED;
    private long virtualAddress;
    private boolean virtualAddressSet;
    private Boolean remoteAccess;
    private VerifyHash verifyHash = VerifyHash.SHA_256;

    MemoryRegistration(ProtectionDomain pd, MemorySegment memory) {
        this.pd = Objects.requireNonNull(pd, "pd");
        this.memory = Objects.requireNonNull(memory, "memory");
    }

    /**
     * Adds rights by name.
     *
     * @param rights the rights (Figure 18 combinations only, checked by {@link #register()})
     * @return this
     */
    public MemoryRegistration access(Access... rights) {
        this.accessRights |= AccessRights.of(rights);
        return this;
    }

    /**
     * Sets the rights as {@link AccessRights} bits (replacing those added before).
     *
     * @param accessRights the bits
     * @return this
     */
    public MemoryRegistration accessRights(int accessRights) {
        this.accessRights = accessRights;
        return this;
    }

    /**
     * The consumer STag key (Verbs §7.2: the low 8 bits of the STag).
     *
     * @param key the key (low 8 bits used)
     * @return this
     */
    public MemoryRegistration key(int key) {
        this.key = key;
        return this;
    }

    /**
     * Zero-based: the first byte has TO 0 (Verbs §7.6.1.2).
     *
     * @return this
     */
    public MemoryRegistration zeroBased() {
        this.addressType = AddressType.ZERO_BASED;
        return this;
    }

    /**
     * VA-based with the TO of the first byte (Verbs §7.6.1.1); it must have the same offset within
     * a page as the segment's address. Default: the segment's address.
     *
     * @param virtualAddress the TO of the first byte
     * @return this
     */
    public MemoryRegistration virtualAddress(long virtualAddress) {
        this.addressType = AddressType.VA_BASED;
        this.virtualAddress = virtualAddress;
        this.virtualAddressSet = true;
        return this;
    }

    /**
     * The Remote Access Flag (Verbs §7.4): without it no remote right can ever be set, by
     * reregistration or a window binding either. Default: set when a remote right is asked for.
     *
     * @param remoteAccess the flag
     * @return this
     */
    public MemoryRegistration remoteAccess(boolean remoteAccess) {
        this.remoteAccess = remoteAccess;
        return this;
    }

    /**
     * The hash an RDMA Verify of the region computes (draft-talpey-rdma-commit-01 §2.4).
     *
     * @param verifyHash the hash
     * @return this
     */
    public MemoryRegistration verifyHash(VerifyHash verifyHash) {
        this.verifyHash = Objects.requireNonNull(verifyHash, "verifyHash");
        return this;
    }

    /**
     * Registers the region.
     *
     * @return the region, Valid
     * @throws VerbsException INVALID_ACCESS_RIGHTS, INVALID_VA, INVALID_LENGTH, INVALID_PBL_ENTRY,
     *                        INSUFFICIENT_RESOURCES, INVALID_PD_ID
     */
    public MemoryRegion register() {
        boolean flag = remoteAccess != null ? remoteAccess : (accessRights & AccessRights.REMOTE_MASK) != 0;
        long va = addressType == AddressType.ZERO_BASED ? 0 : virtualAddressSet ? virtualAddress : memory.address();
        return pd.registerMemory(memory, accessRights, key, addressType, va, flag, verifyHash);
    }
}
