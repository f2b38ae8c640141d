package io.jrnic.api;

/**
 * Output of Query Memory Window (Verbs 1.0 §9.2.6.8) plus binding details.
 *
 * @param stag         the STag (index and key)
 * @param state        Valid (bound) or Invalid
 * @param pdId         the PD ID the window is associated with (the PD of its QP while bound)
 * @param boundQpId    the QP ID it is bound to, or -1 when Invalid
 * @param accessRights remote rights of the binding (0 when Invalid)
 * @param addressType  addressing of the binding
 * @param baseTo       TO of the first byte of the window
 * @param length       window length
 * @param regionStag   STag of the region it is bound to, or 0
 */
public record MemoryWindowAttributes(int stag, StagState state, int pdId, int boundQpId, int accessRights,
                                     AddressType addressType, long baseTo, long length, int regionStag) {
}
