package io.jrnic.api;

/**
 * Per-consumer quota of RNIC resources (RFC 5040 §8.1.2 item 6, RFC 5042 §6.4.1: the Privileged
 * Resource Manager SHOULD prevent a local peer from allocating more than its fair share). The
 * consumer is the protection domain: RFC 5042 §6.4.1 assumes a unique PD for each untrusted local
 * ULP. Every PD of an RNIC gets the quota of {@link RnicConfig#pdQuota(ResourceQuota)}; a create
 * or register verb that would exceed it fails with {@link VerbsStatus#INSUFFICIENT_RESOURCES} and
 * a message naming the quota. CQs are created on the RNIC, not in a PD (Verbs 1.0 §9.2.3), so the
 * RNIC's {@link RnicConfig#maxCqs()} bounds them.
 *
 * <p>Thread safety: immutable.
 *
 * @param maxQps             QPs per PD
 * @param maxSrqs            S-RQs per PD
 * @param maxMrs             memory regions (including Shared and Fast-Register STags) per PD
 * @param maxMws             memory windows allocated in the PD
 * @param maxRegisteredBytes bytes of the PD's Non-Shared regions: their length, or for an STag
 *                           allocated for Fast-Register its maximum PBL size times the page size
 */
public record ResourceQuota(int maxQps, int maxSrqs, int maxMrs, int maxMws, long maxRegisteredBytes) {
    /** No quota: only the RNIC-wide maxima apply (the default). */
    public static final ResourceQuota UNLIMITED = new ResourceQuota(Integer.MAX_VALUE, Integer.MAX_VALUE,
            Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);

    /**
     * Validates the quota.
     *
     * @param maxQps             QPs per PD
     * @param maxSrqs            S-RQs per PD
     * @param maxMrs             memory regions per PD
     * @param maxMws             memory windows per PD
     * @param maxRegisteredBytes registered bytes per PD
     * @throws IllegalArgumentException for a negative value
     */
    public ResourceQuota {
        if (maxQps < 0 || maxSrqs < 0 || maxMrs < 0 || maxMws < 0 || maxRegisteredBytes < 0) {
            throw new IllegalArgumentException("quota values must not be negative");
        }
    }

    /**
     * Whether regions, windows or registered bytes are limited (they are then tracked per PD).
     *
     * @return true when any memory quota is below its unlimited value
     */
    public boolean limitsMemory() {
        return maxMrs != Integer.MAX_VALUE || maxMws != Integer.MAX_VALUE || maxRegisteredBytes != Long.MAX_VALUE;
    }

    /**
     * A copy with another QP quota.
     *
     * @param n QPs per PD
     * @return the new quota
     */
    public ResourceQuota withMaxQps(int n) {
        return new ResourceQuota(n, maxSrqs, maxMrs, maxMws, maxRegisteredBytes);
    }

    /**
     * A copy with another S-RQ quota.
     *
     * @param n S-RQs per PD
     * @return the new quota
     */
    public ResourceQuota withMaxSrqs(int n) {
        return new ResourceQuota(maxQps, n, maxMrs, maxMws, maxRegisteredBytes);
    }

    /**
     * A copy with another region quota.
     *
     * @param n regions per PD
     * @return the new quota
     */
    public ResourceQuota withMaxMrs(int n) {
        return new ResourceQuota(maxQps, maxSrqs, n, maxMws, maxRegisteredBytes);
    }

    /**
     * A copy with another window quota.
     *
     * @param n windows per PD
     * @return the new quota
     */
    public ResourceQuota withMaxMws(int n) {
        return new ResourceQuota(maxQps, maxSrqs, maxMrs, n, maxRegisteredBytes);
    }

    /**
     * A copy with another registered-bytes quota.
     *
     * @param n bytes per PD
     * @return the new quota
     */
    public ResourceQuota withMaxRegisteredBytes(long n) {
        return new ResourceQuota(maxQps, maxSrqs, maxMrs, maxMws, n);
    }
}
