package io.jrnic.core;

import io.jrnic.api.AddressType;
import io.jrnic.api.StagState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
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
     * <p>A placement never waits and takes no lock. A placement is either one copy by the RX engine
     * (entered and exited within one call) or a direct placement: the link reads the rest of the
     * FPDU from the socket straight into the memory, across several reads and event loop turns, so
     * it is {@link #arm armed} for the event loop thread. A revocation made on that very thread (a
     * Send with Invalidate, or a completion handler run by the loop) cannot wait for it and does not.
     *
     * <p>Thread safety: thread safe. {@link #arm}/{@link #disarm} are called on the same thread.
     */
    static final class Fence {
        /** Placements of the current thread that are armed across event loop turns. */
        private static final ThreadLocal<ArrayList<Fence>> ARMED = ThreadLocal.withInitial(ArrayList::new);
        private static final Logger LOG = LoggerFactory.getLogger(Fence.class);
        /** Spins before a waiting revoker starts yielding its core. */
        private static final int SPINS = 128;
        /**
         * How long a revoker waits at most. A copy ends in microseconds; a direct placement waits
         * for the rest of one FPDU that the peer wrote whole (RFC 5044 §5.1). The bound exists for
         * liveness: an event loop blocked on a lock the revoker holds (an SQ Invalidate runs under
         * its QP's lock) would otherwise never finish the placement.
         */
        static final long MAX_WAIT_NANOS = 1_000_000_000L;

        private final AtomicInteger active = new AtomicInteger();

        /**
         * The fence of a region or window.
         *
         * @param entry the STag table entry
         * @return its fence
         */
        static Fence of(StagEntry entry) {
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
        boolean enter(StagEntry entry, StagBinding binding) {
            active.incrementAndGet();
            if (entry.binding != binding) {
                active.decrementAndGet();
                return false;
            }
            return true;
        }

        /** Ends a placement started by {@link #enter}. */
        void exit() {
            active.decrementAndGet();
        }

        /**
         * Marks an entered placement as armed on the current thread until {@link #disarm}: a
         * revocation on this thread will not wait for it.
         */
        void arm() {
            ARMED.get().add(this);
        }

        /** Ends an armed placement: the counterpart of {@link #arm} and {@link #enter}. */
        void disarm() {
            ArrayList<Fence> armed = ARMED.get();
            for (int i = armed.size() - 1; i >= 0; i--) {
                if (armed.get(i) == this) {
                    armed.remove(i);
                    break;
                }
            }
            active.decrementAndGet();
        }

        /** Placements in progress (tests). */
        int active() {
            return active.get();
        }

        /**
         * Waits until every placement that may still write under a revoked binding has ended,
         * except those armed on the calling thread. Call after the binding swap and without holding
         * the RNIC memory lock. Placements end within one segment copy or one socket read of an
         * FPDU already on its way, so this spins briefly and then yields, for at most
         * {@link #MAX_WAIT_NANOS} (then it logs a warning and gives up).
         *
         * @return true when no foreign placement is in progress any more, false if it gave up
         */
        boolean awaitPlacements() {
            int own = 0;
            for (Fence f : ARMED.get()) {
                if (f == this) {
                    own++;
                }
            }
            int spins = 0;
            long deadline = 0;
            while (active.get() > own) {
                if (++spins < SPINS) {
                    Thread.onSpinWait();
                    continue;
                }
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + MAX_WAIT_NANOS;
                } else if (now - deadline > 0) {
                    LOG.warn("revocation stopped waiting for {} placement(s) in progress after {} ms",
                            active.get() - own, MAX_WAIT_NANOS / 1_000_000);
                    return false;
                }
                Thread.yield();
            }
            return true;
        }
    }
}
