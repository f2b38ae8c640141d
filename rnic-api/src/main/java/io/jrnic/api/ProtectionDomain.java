package io.jrnic.api;

import java.lang.foreign.MemorySegment;

/**
 * A protection domain (Verbs 1.0 §5.2) and the factory of the resources associated with it:
 * memory regions, memory windows, S-RQs and QPs. Any PD can be used with any resource of the
 * same RNIC (V-PD-7).
 *
 * <p>Thread safety: all methods are thread safe.
 */
public interface ProtectionDomain extends AutoCloseable {
    /**
     * The PD ID, unique within the RNIC (V-PD-12).
     *
     * @return the id
     */
    int id();

    /**
     * Starts a registration of a native segment (RI-Register Non-Shared Memory Region, Verbs
     * §7.3.2.2) with named arguments: {@code pd.registration(segment).access(...).register()}.
     *
     * @param memory the caller's native segment (its bytes become the region)
     * @return the builder
     */
    default MemoryRegistration registration(MemorySegment memory) {
        return new MemoryRegistration(this, memory);
    }

    /**
     * RI-Register Non-Shared Memory Region (Verbs §7.3.2.2, §9.2.6.2) over a native segment.
     *
     * @param memory         the caller's native segment (its bytes become the region); it must be
     *                       accessible from any thread (global, automatic or shared arena): the
     *                       RNIC's event loops read and write it, so a confined arena's segment is
     *                       refused with INVALID_PBL_ENTRY
     * @param accessRights   {@link AccessRights} bits; Figure 18 combinations only
     * @param key            consumer STag key (low 8 bits used)
     * @param addressType    VA-based or zero-based TO
     * @param virtualAddress the TO of the first byte for VA-based (ignored for zero-based); must
     *                       have the same offset within a page as the segment's address (§7.6.1.1)
     * @param remoteAccess   the Remote Access Flag: without it no remote right can ever be set
     * @return the region, Valid
     * @throws VerbsException INVALID_ACCESS_RIGHTS, INVALID_VA, INVALID_LENGTH, INVALID_PBL_ENTRY,
     *                        INSUFFICIENT_RESOURCES, INVALID_PD_ID
     */
    default MemoryRegion registerMemory(MemorySegment memory, int accessRights, int key, AddressType addressType,
                                        long virtualAddress, boolean remoteAccess) {
        return registerMemory(memory, accessRights, key, addressType, virtualAddress, remoteAccess,
                VerifyHash.SHA_256);
    }

    /**
     * RI-Register Non-Shared Memory Region with the hash an RDMA Verify of the region (or of a
     * window bound to it) computes (draft-talpey-rdma-commit-01 §2.4, C-VERIFY-002, C-ATTR-004).
     * The other registration verbs use {@link VerifyHash#SHA_256}.
     *
     * @param memory         the caller's native segment (its bytes become the region)
     * @param accessRights   {@link AccessRights} bits; Figure 18 combinations only
     * @param key            consumer STag key (low 8 bits used)
     * @param addressType    VA-based or zero-based
     * @param virtualAddress the TO of the first byte for VA-based (ignored for zero-based)
     * @param remoteAccess   the Remote Access Flag
     * @param verifyHash     the region's Verify hash (checked when it was built)
     * @return the region, Valid; {@link MemoryRegionAttributes#verifyHash()} names the hash
     * @throws VerbsException       as {@link #registerMemory(MemorySegment, int, int, AddressType, long, boolean)}
     * @throws NullPointerException for a null {@code verifyHash}
     */
    MemoryRegion registerMemory(MemorySegment memory, int accessRights, int key, AddressType addressType,
                                long virtualAddress, boolean remoteAccess, VerifyHash verifyHash);

    /**
     * Registers a native segment VA-based at its own address, key 0, with the Remote Access Flag
     * set exactly when remote rights are requested.
     *
     * @param memory       the caller's native segment
     * @param accessRights {@link AccessRights} bits
     * @return the region, Valid
     */
    default MemoryRegion registerMemory(MemorySegment memory, int accessRights) {
        return registerMemory(memory, accessRights, 0, AddressType.VA_BASED, memory.address(),
                (accessRights & AccessRights.REMOTE_MASK) != 0);
    }

    /**
     * Allocates zeroed native memory from the RNIC and registers it (VA-based at its address, or
     * zero-based).
     *
     * @param length       bytes
     * @param accessRights {@link AccessRights} bits
     * @param key          consumer key
     * @param addressType  VA-based or zero-based
     * @return the region, Valid; the memory stays allocated until the RNIC closes, because shared
     *         regions may still use it
     */
    MemoryRegion allocateMemoryRegion(long length, int accessRights, int key, AddressType addressType);

    /**
     * Allocate Non-Shared Memory Region STag (Verbs §7.3.2.1, §9.2.6.1): an Invalid region STag
     * to be filled by a Fast-Register work request.
     *
     * @param maxPblEntries maximum pages the region may later cover
     * @param remoteAccess  the Remote Access Flag
     * @return the region, Invalid
     * @throws VerbsException INVALID_LENGTH when above the RNIC's PBL limit, INSUFFICIENT_RESOURCES
     */
    MemoryRegion allocateRegionStag(int maxPblEntries, boolean remoteAccess);

    /**
     * Register Shared Memory Region (Verbs §7.3.2.4, §9.2.6.6): a new region in this PD over the
     * memory of an existing one.
     *
     * @param existingStag   full STag (index and key) of the existing region; the key must match
     * @param accessRights   rights of the new region
     * @param key            key of the new STag
     * @param addressType    VA-based or zero-based
     * @param virtualAddress base VA for VA-based
     * @return the new shared region, Valid
     * @throws VerbsException INVALID_STAG_INDEX, INVALID_VA, INVALID_ACCESS_RIGHTS, INVALID_PD_ID
     */
    default MemoryRegion registerSharedMemory(int existingStag, int accessRights, int key, AddressType addressType,
                                              long virtualAddress) {
        return registerSharedMemory(existingStag, accessRights, key, addressType, virtualAddress, VerifyHash.SHA_256);
    }

    /**
     * Register Shared Memory Region with its own Verify hash: a shared region is a registration of
     * its own, so it does not inherit the existing region's hash (C-VERIFY-002, C-ATTR-004).
     *
     * @param existingStag   full STag (index and key) of the existing region; the key must match
     * @param accessRights   rights of the new region
     * @param key            key of the new STag
     * @param addressType    VA-based or zero-based
     * @param virtualAddress base VA for VA-based
     * @param verifyHash     the new region's Verify hash
     * @return the new shared region, Valid
     * @throws VerbsException       as {@link #registerSharedMemory(int, int, int, AddressType, long)}
     * @throws NullPointerException for a null {@code verifyHash}
     */
    MemoryRegion registerSharedMemory(int existingStag, int accessRights, int key, AddressType addressType,
                                      long virtualAddress, VerifyHash verifyHash);

    /**
     * Allocate Memory Window (Verbs §7.10.1, §9.2.6.7).
     *
     * @return the window, Invalid and associated with this PD
     */
    MemoryWindow allocateWindow();

    /**
     * Create S-RQ (Verbs §6.3.1, §9.2.4.1).
     *
     * @param maxWrs maximum outstanding WRs
     * @param maxSge maximum SGEs per WR
     * @param limit  S-RQ Limit; armed at creation when non-zero
     * @return the S-RQ
     * @throws VerbsException MAX_WRS_EXCEED_CAPABILITY, MAX_SGES_EXCEED_CAPABILITY, SRQ_LIMIT_OUT_OF_RANGE
     */
    SharedReceiveQueue createSharedReceiveQueue(int maxWrs, int maxSge, int limit);

    /**
     * Create QP (Verbs §6.1.1, §9.2.5.1) in this PD. The QP starts in Idle.
     *
     * @param config the initial attributes (copied)
     * @return the QP
     * @throws VerbsException per Figure 32
     */
    QueuePair createQueuePair(QueuePairConfig config);

    /**
     * Deallocate PD (Verbs §5.2.2, §9.2.2.2).
     *
     * @throws VerbsException PD_IN_USE while any QP, S-RQ, region or window uses it (the PD
     *                        stays allocated)
     */
    @Override
    void close();
}
