package io.jrnic.core.mem;

import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.SharedReceiveQueue;

/**
 * The verbs a protection domain hands upward to the RNIC that created it: creating QPs and S-RQs
 * in it and deallocating it (Verbs 1.0 §5.2, §9.2.3). A PD only counts its users; the queues, the
 * limits and the resource lock belong to the RNIC. The memory classes own this interface and the
 * RNIC implements it (issue 10: the PD does not know the RNIC class).
 *
 * <p>Thread safety: implementations are thread safe.
 */
public interface ProtectionDomainOwner {
    /**
     * Create QP in {@code pd} (Verbs §9.2.5.1).
     *
     * @param pd     the PD, checked usable by the implementation
     * @param config the QP attributes
     * @return the QP
     */
    QueuePair createQueuePair(SoftProtectionDomain pd, QueuePairConfig config);

    /**
     * Create S-RQ in {@code pd} (Verbs §9.2.4.1).
     *
     * @param pd     the PD, checked usable by the implementation
     * @param maxWrs depth
     * @param maxSge SGEs per WQE
     * @param limit  S-RQ limit (0 = disarmed)
     * @return the S-RQ
     */
    SharedReceiveQueue createSharedReceiveQueue(SoftProtectionDomain pd, int maxWrs, int maxSge, int limit);

    /**
     * Deallocate PD (Verbs §9.2.3.2): refused while anything uses it (V-PD-15).
     *
     * @param pd the PD
     */
    void deallocate(SoftProtectionDomain pd);
}
