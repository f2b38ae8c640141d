package io.jrnic.api;

/**
 * How the Tagged Offsets of a region or window are based (Verbs 1.0 §4, §7.6.1).
 *
 * <p>Thread safety: immutable.
 */
public enum AddressType {
    /** VA-based TO: the TO of the first byte is the virtual address supplied at registration. */
    VA_BASED,
    /** Zero-based TO: the TO of the first byte is 0. */
    ZERO_BASED
}
