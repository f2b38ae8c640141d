package io.jrnic.api;

import java.lang.foreign.MemorySegment;

/**
 * A memory region (Verbs 1.0 §7.1 to §7.9): STag = 24-bit index | 8-bit key (§7.2), base TO,
 * length, access rights, Non-Shared or Shared. {@link #close()} is Deallocate STag.
 *
 * <p>Thread safety: all methods are thread safe; accessors return the current value.
 */
public interface MemoryRegion extends AutoCloseable {
    /**
     * The current STag (index &lt;&lt; 8 | key).
     *
     * @return the STag
     */
    int stag();

    /**
     * The 24-bit STag index (RNIC chosen, never 0).
     *
     * @return the index
     */
    default int stagIndex() {
        return stag() >>> 8;
    }

    /**
     * The 8-bit consumer key.
     *
     * @return the key
     */
    default int key() {
        return stag() & 0xFF;
    }

    /**
     * The memory the region maps (empty while Invalid after Allocate STag).
     *
     * @return the segment
     */
    MemorySegment memory();

    /**
     * Query Memory Region (Verbs §9.2.6.3).
     *
     * @return a snapshot of the attributes
     * @throws VerbsException INVALID_STAG_INDEX after deallocation
     */
    MemoryRegionAttributes query();

    /**
     * RI-Reregister Non-Shared Memory Region (Verbs §7.3.2.3, §9.2.6.5): keeps the STag index,
     * replaces PD, memory, rights, addressing and key. Failing with INVALID_STAG_INDEX or
     * MWS_STILL_BOUND_TO_REGION leaves the registration unchanged; any other failure deallocates
     * the region (§7.3.2.3, V-MR-51).
     *
     * @param pd             the new PD
     * @param memory         the new native memory
     * @param accessRights   new rights
     * @param key            new key
     * @param addressType    VA-based or zero-based
     * @param virtualAddress base VA for VA-based
     * @param remoteAccess   new Remote Access Flag
     * @return the new STag
     */
    default int reregister(ProtectionDomain pd, MemorySegment memory, int accessRights, int key,
                           AddressType addressType, long virtualAddress, boolean remoteAccess) {
        return reregister(pd, memory, accessRights, key, addressType, virtualAddress, remoteAccess,
                VerifyHash.SHA_256);
    }

    /**
     * RI-Reregister Non-Shared Memory Region with a new Verify hash (C-VERIFY-002, C-ATTR-004):
     * like every other attribute, the hash is given anew; the overload without it sets
     * {@link VerifyHash#SHA_256}. It is swapped together with the mapping, so a Verify sees the old
     * memory with the old hash or the new memory with the new hash.
     *
     * @param pd             the new PD
     * @param memory         the new native memory
     * @param accessRights   new rights
     * @param key            new key
     * @param addressType    VA-based or zero-based
     * @param virtualAddress base VA for VA-based
     * @param remoteAccess   new Remote Access Flag
     * @param verifyHash     the new Verify hash
     * @return the new STag
     * @throws NullPointerException for a null {@code verifyHash} (the registration is then unchanged)
     */
    int reregister(ProtectionDomain pd, MemorySegment memory, int accessRights, int key, AddressType addressType,
                   long virtualAddress, boolean remoteAccess, VerifyHash verifyHash);

    /**
     * Deallocate STag (Verbs §7.9, §9.2.6.4).
     *
     * @throws VerbsException MWS_STILL_BOUND_TO_REGION (the region stays), INVALID_STAG_INDEX when
     *                        already deallocated
     */
    @Override
    void close();
}
