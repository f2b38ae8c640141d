package io.jrnic.core.mem;

/**
 * What the memory checks need to know about a QP, and nothing more (Verbs 1.0 §7.10, §8.1.3,
 * RFC 5040 §8.1.1): its protection domain, its QP number (a bound window names it), its enables,
 * and the count of windows bound to it. The memory classes own this interface and the QP
 * implements it, so that memory does not depend on the QP class (issue 10, like siw's
 * {@code siw_check_mem}, which takes a PD and the memory). Tests give a fake.
 *
 * <p>Thread safety: the enables, the PD and the number are fixed for a QP's lifetime and read
 * from any thread; {@link #addBoundWindows} is called only under {@link MemoryManager#lock}.
 */
public interface QpMemoryView {
    /**
     * The QP's PD: regions and unbound windows it uses must be of it (Verbs §7.4, §7.10.6.1).
     *
     * @return the PD
     */
    SoftProtectionDomain pd();

    /**
     * The QP number: a window bound by this QP carries it (Verbs §7.10.6.1, V-MW-30).
     *
     * @return the QP number
     */
    int id();

    /**
     * Whether the QP belongs to a Privileged Consumer: Fast-Register and STag 0 (V-MR-67).
     *
     * @return the flag
     */
    boolean privileged();

    /**
     * Whether Bind Memory Window is enabled on the QP (V-MW-12).
     *
     * @return the flag
     */
    boolean bindWindows();

    /**
     * Whether inbound RDMA Reads are enabled (a Send with Invalidate needs a remote enable, V-MR-122).
     *
     * @return the flag
     */
    boolean inboundRead();

    /**
     * Whether inbound RDMA Writes are enabled.
     *
     * @return the flag
     */
    boolean inboundWrite();

    /**
     * Adds to the number of windows bound to the QP, which Destroy QP checks (V-QP-35). Called
     * under {@link MemoryManager#lock}; the QP reads the count under that lock too.
     *
     * @param delta +1 for a bind, -1 for an unbind
     */
    void addBoundWindows(int delta);
}
