package io.jrnic.api;

/**
 * Output of Query Memory Region (Verbs 1.0 §9.2.6.3) plus the addressing attributes.
 *
 * @param stag          the STag (index and current key)
 * @param state         Valid or Invalid
 * @param shared        Shared (true) or Non-Shared region
 * @param pdId          the PD ID
 * @param remoteAccess  the Remote Access Flag
 * @param accessRights  {@link AccessRights} bits
 * @param addressType   VA-based or zero-based
 * @param baseTo        TO of the first byte
 * @param length        length in bytes
 * @param pblEntries    physical buffer entries allocated (pages)
 * @param boundWindows  number of windows currently bound to the region
 * @param verifyHash    the hash an RDMA Verify of the region computes (C-VERIFY-002, C-ATTR-004);
 *                      {@link VerifyHash#SHA_256} while Invalid (a Fast-Register sets it anew)
 */
public record MemoryRegionAttributes(int stag, StagState state, boolean shared, int pdId, boolean remoteAccess,
                                     int accessRights, AddressType addressType, long baseTo, long length,
                                     int pblEntries, int boundWindows, VerifyHash verifyHash) {
}
