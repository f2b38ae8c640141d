package io.jrnic.core;

import io.jrnic.api.AddressType;
import io.jrnic.api.StagState;

import java.lang.foreign.MemorySegment;

/**
 * Immutable snapshot of what an STag currently maps (Verbs 1.0 §7.2): key, state, PD, bound QP,
 * rights, addressing and memory. A region or window swaps its whole binding in one volatile
 * write, so a concurrent access sees either the old or the new mapping, never a mix
 * (§7.3.2.3, V-MR-54), and the receive path reads it without locking or allocating.
 *
 * @param key          8-bit consumer key
 * @param state        Valid, Invalid or Free
 * @param pd           PD the STag is associated with (for a bound window: the PD of its QP)
 * @param qpId         QP a window is bound to, -1 otherwise
 * @param rights       {@link io.jrnic.api.AccessRights} bits (0 while Invalid)
 * @param addressType  VA-based or zero-based
 * @param baseTo       TO of the first byte
 * @param length       bytes covered
 * @param memory       the bytes (region memory or a window's slice of it)
 * @param parent       for a bound window, the region it is bound to; otherwise null
 */
record StagBinding(int key, StagState state, SoftProtectionDomain pd, int qpId, int rights, AddressType addressType,
                   long baseTo, long length, MemorySegment memory, SoftMemoryRegion parent) {

    /**
     * An Invalid binding that keeps only the PD (Verbs §7.8: PD and PBL size survive invalidation).
     *
     * @param key the last key (not compared while Invalid)
     * @param pd  the PD
     * @return the binding
     */
    static StagBinding invalid(int key, SoftProtectionDomain pd) {
        return new StagBinding(key, StagState.INVALID, pd, -1, 0, AddressType.VA_BASED, 0, 0, MemorySegment.NULL, null);
    }

    /**
     * Whether {@code [to, to + len)} lies inside this binding, at byte granularity and without
     * wrapping (Verbs §7.6.3, §7.10.2). Callers check wrap first.
     *
     * @param to  first TO
     * @param len length (positive)
     * @return true when inside
     */
    boolean contains(long to, long len) {
        long offset = to - baseTo;
        return Long.compareUnsigned(to, baseTo) >= 0
                && Long.compareUnsigned(offset, length) <= 0
                && Long.compareUnsigned(len, length - offset) <= 0;
    }

    /**
     * Byte offset of {@code to} inside {@link #memory()}: TO - base TO (zero-based regions have base 0).
     *
     * @param to the TO
     * @return the offset
     */
    long offsetOf(long to) {
        return to - baseTo;
    }

    /**
     * Whether {@code to + len} wraps past 2^64 - 1 (Verbs Fig. 36 Wrap Error).
     *
     * @param to  first TO
     * @param len length (positive)
     * @return true on wrap
     */
    static boolean wraps(long to, long len) {
        return Long.compareUnsigned(to, -len) > 0;
    }
}
