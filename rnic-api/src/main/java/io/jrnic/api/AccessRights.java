package io.jrnic.api;

/**
 * Access rights of memory regions, memory windows and queue pairs as {@code int} bit flags (no
 * {@code EnumSet}, so they can travel through the hot path without allocation).
 *
 * <p>Verbs 1.0 §4 and §7.4 define Local Read, Local Write, Remote Read, Remote Write and the Bind
 * (window binding) right; RFC 7306 adds remote atomics; draft-talpey-rdma-commit-01 §2.4 adds the
 * Flushable (persistence / global visibility) and Verifiable attributes. The combination rules of
 * Verbs 1.0 Figure 18 (regions) and Figure 20 (windows) are implemented by
 * {@link #isValidRegionCombination(int)} and {@link #isValidWindowCombination(int, int)}.
 *
 * <p>Thread safety: stateless, all methods are pure functions.
 */
public final class AccessRights {
    /** Local Read: the region may be the data source of outgoing Send and RDMA Write (Verbs §7.4.1). */
    public static final int LOCAL_READ = 1;
    /** Local Write: the region may be the data sink of Receives (Verbs §7.4.1). */
    public static final int LOCAL_WRITE = 1 << 1;
    /** Remote Read: incoming RDMA Read Requests may read the region (Verbs §7.4.2). */
    public static final int REMOTE_READ = 1 << 2;
    /** Remote Write: incoming RDMA Writes and Read Responses may place into the region (Verbs §7.4.2). */
    public static final int REMOTE_WRITE = 1 << 3;
    /** Remote Atomic: incoming RFC 7306 atomic operations may target the region. */
    public static final int REMOTE_ATOMIC = 1 << 4;
    /** Memory Window Binding: windows may be bound to the region (Verbs §7.3.2, §7.10.6.1). */
    public static final int BIND_WINDOW = 1 << 5;
    /** Flushable to persistence (draft-talpey-rdma-commit-01 §2.4); needs persistable (mapped) memory. */
    public static final int FLUSHABLE_PERSISTENT = 1 << 6;
    /** Flushable to global visibility (draft-talpey-rdma-commit-01 §2.4). */
    public static final int FLUSHABLE_GLOBAL = 1 << 7;
    /** Verifiable: the peer may ask for a hash over the region (draft-talpey-rdma-commit-01 §2.4). */
    public static final int VERIFIABLE = 1 << 8;

    /** Both local rights. */
    public static final int LOCAL = LOCAL_READ | LOCAL_WRITE;
    /** Every right that only a remote peer exercises; they need the Remote Access Flag (Verbs §7.4). */
    public static final int REMOTE_MASK =
            REMOTE_READ | REMOTE_WRITE | REMOTE_ATOMIC | FLUSHABLE_PERSISTENT | FLUSHABLE_GLOBAL | VERIFIABLE;
    /** Every defined bit. */
    public static final int ALL = LOCAL | REMOTE_MASK | BIND_WINDOW;

    private AccessRights() {
    }

    /**
     * The bits of named rights.
     *
     * @param rights the rights
     * @return their bits or-ed together (0 for none)
     */
    public static int of(Access... rights) {
        int bits = 0;
        for (Access a : rights) {
            bits |= a.bit();
        }
        return bits;
    }

    /**
     * Whether {@code rights} contains every bit of {@code required}.
     *
     * @param rights   the rights held
     * @param required the rights needed
     * @return true when all of {@code required} is present
     */
    public static boolean has(int rights, int required) {
        return (rights & required) == required;
    }

    /**
     * Verbs 1.0 Figure 18 and §7.4.2: a region needs at least one local right; Remote Write needs
     * Local Write, Remote Read needs Local Read. Extensions: Remote Atomic reads and writes the
     * target so it needs both local rights; Flushable needs a remote data right (something must be
     * written or read remotely to be flushed); Verifiable reads the region so it needs Local Read.
     *
     * @param rights the requested rights
     * @return true when the combination may be registered
     */
    public static boolean isValidRegionCombination(int rights) {
        if ((rights & ~ALL) != 0 || (rights & LOCAL) == 0) {
            return false;
        }
        if (has(rights, REMOTE_WRITE) && !has(rights, LOCAL_WRITE)) {
            return false;
        }
        if (has(rights, REMOTE_READ) && !has(rights, LOCAL_READ)) {
            return false;
        }
        if (has(rights, REMOTE_ATOMIC) && !has(rights, LOCAL)) {
            return false;
        }
        if ((rights & (FLUSHABLE_PERSISTENT | FLUSHABLE_GLOBAL)) != 0
                && (rights & (REMOTE_READ | REMOTE_WRITE | REMOTE_ATOMIC)) == 0) {
            return false;
        }
        return !has(rights, VERIFIABLE) || has(rights, LOCAL_READ);
    }

    /**
     * Verbs 1.0 Figure 20 and §7.10.2: a window needs at least one remote right and only remote
     * rights; Remote Write needs the region's Local Write, Remote Read needs its Local Read. The
     * region's remote rights are irrelevant (V-MW-21). Extensions follow the region rules.
     *
     * @param windowRights the rights requested for the window
     * @param regionRights the rights of the underlying region
     * @return true when the window may be bound with these rights
     */
    public static boolean isValidWindowCombination(int windowRights, int regionRights) {
        if ((windowRights & ~REMOTE_MASK) != 0 || (windowRights & (REMOTE_READ | REMOTE_WRITE)) == 0) {
            return false;
        }
        if (has(windowRights, REMOTE_WRITE) && !has(regionRights, LOCAL_WRITE)) {
            return false;
        }
        if (has(windowRights, REMOTE_READ) && !has(regionRights, LOCAL_READ)) {
            return false;
        }
        if (has(windowRights, REMOTE_ATOMIC) && !has(regionRights, LOCAL)) {
            return false;
        }
        return !has(windowRights, VERIFIABLE) || has(regionRights, LOCAL_READ);
    }

    /**
     * Renders rights for messages and logs, e.g. {@code "LR|LW|RW"}.
     *
     * @param rights the rights
     * @return a short text form; {@code "none"} for zero
     */
    public static String describe(int rights) {
        if (rights == 0) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        String[] names = {"LR", "LW", "RR", "RW", "RA", "BIND", "FLUSH_P", "FLUSH_G", "VERIFY"};
        for (int i = 0; i < names.length; i++) {
            if ((rights & (1 << i)) != 0) {
                if (!sb.isEmpty()) {
                    sb.append('|');
                }
                sb.append(names[i]);
            }
        }
        if ((rights & ~ALL) != 0) {
            sb.append("|0x").append(Integer.toHexString(rights & ~ALL));
        }
        return sb.toString();
    }
}
