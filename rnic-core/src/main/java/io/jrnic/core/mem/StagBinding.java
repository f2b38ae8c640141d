package io.jrnic.core.mem;

import io.jrnic.api.AddressType;
import io.jrnic.api.StagState;
import io.jrnic.api.VerifyHash;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

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
 * @param verifyHash   the hash an RDMA Verify of this STag computes: the region's, chosen at
 *                     registration; a window's is its region's (C-VERIFY-002, C-ATTR-004); SHA-256
 *                     while Invalid or Free
 */
public record StagBinding(int key, StagState state, SoftProtectionDomain pd, int qpId, int rights, AddressType addressType,
                   long baseTo, long length, MemorySegment memory, SoftMemoryRegion parent, VerifyHash verifyHash) {

    /**
     * An Invalid binding that keeps only the PD (Verbs §7.8: PD and PBL size survive invalidation).
     *
     * @param key the last key (not compared while Invalid)
     * @param pd  the PD
     * @return the binding
     */
    static StagBinding invalid(int key, SoftProtectionDomain pd) {
        return new StagBinding(key, StagState.INVALID, pd, -1, 0, AddressType.VA_BASED, 0, 0, MemorySegment.NULL, null,
                VerifyHash.SHA_256);
    }

    /**
     * Whether {@code [to, to + len)} lies inside this binding, at byte granularity and without
     * wrapping (Verbs §7.6.3, §7.10.2). Callers check wrap first.
     *
     * @param to  first TO
     * @param len length (positive)
     * @return true when inside
     */
    public boolean contains(long to, long len) {
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
    public long offsetOf(long to) {
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

    /**
     * The placement fence of one STag (RFC 5040 §8.1.1 (6), R-SEC-016): once the ULP has revoked
     * remote access (Invalidate, deregistration, window unbind or deallocation, Send with
     * Invalidate), the RNIC must not modify the buffer any more, not even with a segment that was
     * validated just before. Every placement into an STag's memory is bracketed by
     * {@link #enter} / {@link #exit}; a revocation swaps the binding first and then
     * {@link #awaitPlacements() waits} until the placements in progress have ended.
     *
     * <p>The two sides follow the Dekker pattern on sequentially consistent variables: placement
     * increments {@link #active} and then re-reads the entry's volatile binding; revocation writes
     * the binding and then reads {@link #active}. Either the revoker sees the placement (and
     * waits for it), or the placement sees the new binding (and places nothing).
     *
     * <p>A placement never waits and takes no lock, and a section between {@link #enter} and
     * {@link #exit} is one memory copy or one socket read and nothing else: the RX engine's copy of
     * a segment, or, for direct placement, each write of the deframer into the target and each read
     * of the transport into it ({@link io.jrnic.mpa.PlacementTarget.Guard}, entered and left per
     * read, never across an event loop turn or a callback). A revocation therefore waits at most for
     * one copy or one read in progress on another thread, never for the rest of an FPDU, and it can
     * run on any thread -- also an event loop, or under a QP's lock -- without deadlock: the bytes of
     * an FPDU that arrive after the revocation are consumed without being written (the segment then
     * fails as an invalid STag, 1/1/0x00).
     *
     * <p>Thread safety: thread safe.
     */
    public static final class Fence {
        /** Spins before a waiting revoker starts yielding its core. */
        private static final int SPINS = 128;

        private final AtomicInteger active = new AtomicInteger();

        /**
         * The fence of a region or window.
         *
         * @param entry the STag table entry
         * @return its fence
         */
        public static Fence of(StagEntry entry) {
            return switch (entry) {
                case SoftMemoryRegion r -> r.fence;
                case SoftMemoryWindow w -> w.fence;
            };
        }

        /**
         * Starts a placement into the memory of {@code entry} as validated under {@code binding}.
         *
         * @param entry   the STag table entry
         * @param binding the binding the segment was validated against
         * @return true when the placement may write; false when the binding was revoked in the
         *         meantime (then nothing is held and nothing may be written)
         */
        public boolean enter(StagEntry entry, StagBinding binding) {
            active.incrementAndGet();
            if (entry.binding != binding) {
                active.decrementAndGet();
                return false;
            }
            return true;
        }

        /** Ends a placement started by {@link #enter}. */
        public void exit() {
            active.decrementAndGet();
        }

        /** Placements in progress (tests). */
        public int active() {
            return active.get();
        }

        /**
         * Waits until every placement that may still write under a revoked binding has ended. Call
         * after the binding swap and without holding the RNIC memory lock. A placement section is
         * one copy or one socket read, so this spins briefly and then yields.
         */
        void awaitPlacements() {
            int spins = 0;
            while (active.get() > 0) {
                if (++spins < SPINS) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
    }
}
