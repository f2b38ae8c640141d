package io.jrnic.api;

/**
 * Fair-share policy of a shared receive queue (RFC 5040 §8.1.2 item 8, RFC 5042 §6.4.3.1): how
 * many of the S-RQ's WQEs one QP, and so one remote peer, may consume, and what happens when it
 * tries to take more. Two measures are checked on every WQE a QP takes from the S-RQ:
 * <ul>
 *   <li><b>in process</b>: WQEs the QP holds at once, taken for a Send whose completion has not
 *       been written yet. RFC 5042's "high-water" countermeasure: a peer that opens many Sends and
 *       never finishes them (the "arrival ordering" attack of Verbs §10.4.2) is caught here.</li>
 *   <li><b>share of the window</b>: of the last {@code window} WQEs taken from the S-RQ by any QP,
 *       how many this QP took. A flood of minimum-size Sends is caught here. Only checked while
 *       more than one QP is attached: a single consumer has nobody to be unfair to.</li>
 * </ul>
 * A QP that would exceed either limit has exceeded its fair share: it gets one
 * {@link AsyncEventType#SRQ_FAIR_SHARE_EXCEEDED} event (again only after it came back within its
 * share), and with {@link #terminate()} the WQE is refused, so that the Send finds no buffer: the
 * stream is terminated with the DDP error "Invalid MSN - no buffer available" (RFC 5041 §7.2,
 * 0x1202) while the WQE stays on the S-RQ for the other QPs.
 *
 * <p>Thread safety: immutable.
 *
 * @param maxInProcess WQEs one QP may hold in process at once, 0 for no limit
 * @param maxShare     fraction of the window one QP may take, in (0, 1]; 1 for no limit
 * @param window       number of most recent takes the share is measured over, 0 for the S-RQ's
 *                     current maximum WRs (its depth)
 * @param terminate    refuse the WQE (the stream is terminated) instead of only reporting
 */
public record SrqFairShare(int maxInProcess, double maxShare, int window, boolean terminate) {
    /** No limit: every QP may take every WQE (the Verbs 1.0 behaviour and the default). */
    public static final SrqFairShare UNLIMITED = new SrqFairShare(0, 1.0, 0, false);

    /**
     * Validates the policy.
     *
     * @param maxInProcess WQEs one QP may hold at once, 0 for no limit
     * @param maxShare     fraction of the window, in (0, 1]
     * @param window       takes the share is measured over, 0 for the S-RQ's depth
     * @param terminate    refuse (and so terminate) instead of only reporting
     * @throws IllegalArgumentException for a negative count or a share outside (0, 1]
     */
    public SrqFairShare {
        if (maxInProcess < 0 || window < 0) {
            throw new IllegalArgumentException("maxInProcess " + maxInProcess + " and window " + window
                    + " must not be negative");
        }
        if (!(maxShare > 0.0 && maxShare <= 1.0)) {
            throw new IllegalArgumentException("maxShare " + maxShare + " outside (0, 1]");
        }
    }

    /**
     * A share limit: one QP may take at most {@code maxShare} of the last S-RQ-depth takes.
     *
     * @param maxShare  fraction in (0, 1]
     * @param terminate refuse (terminate the stream) instead of only reporting
     * @return the policy
     */
    public static SrqFairShare share(double maxShare, boolean terminate) {
        return new SrqFairShare(0, maxShare, 0, terminate);
    }

    /**
     * An in-process limit: one QP may hold at most {@code maxInProcess} WQEs at once.
     *
     * @param maxInProcess the limit (at least 1)
     * @param terminate    refuse (terminate the stream) instead of only reporting
     * @return the policy
     */
    public static SrqFairShare inProcess(int maxInProcess, boolean terminate) {
        if (maxInProcess < 1) {
            throw new IllegalArgumentException("maxInProcess " + maxInProcess + " must be at least 1");
        }
        return new SrqFairShare(maxInProcess, 1.0, 0, terminate);
    }

    /**
     * Whether the policy limits anything.
     *
     * @return false for a policy equivalent to {@link #UNLIMITED}
     */
    public boolean limited() {
        return maxInProcess > 0 || maxShare < 1.0;
    }

    /**
     * The number of takes of a window one QP may have: {@code max(1, floor(maxShare * windowSize))}.
     *
     * @param windowSize the effective window (takes)
     * @return the limit
     */
    public int shareLimit(int windowSize) {
        return Math.max(1, (int) Math.floor(maxShare * windowSize));
    }
}
