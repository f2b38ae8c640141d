package io.jrnic.core.mem;

import io.jrnic.api.AccessRights;
import io.jrnic.api.StagState;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.rdmap.RdmapError;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The STag table of one RNIC: entries found by the 24-bit STag index (index 0 is STag 0 and is
 * never handed out, Verbs §7.2.1), keys compared exactly, plus the zero-allocation access checks
 * of Verbs §7.4 to §7.6 (local SGEs) and the request-target check of queue-1 requests. Incoming
 * tagged segments are checked where they are placed: {@code QpRxEngine.resolve} describes the
 * buffer, {@code DdpReceiver} checks the range (Verbs §7.6.3 / §7.10.6.2).
 *
 * <p>An index is a table slot in its low bits and random bits above them (RFC 5042 §5.1.2,
 * R-SEC-018: STags should not be predictable, so a peer cannot reach a region whose STag was never
 * advertised to it by counting). The slot keeps the lookup one array access; the full index stored
 * in the entry is compared, so a stale or guessed index with the right slot still fails. With a
 * table of 2^24 slots there are no random bits left; the default capacity leaves several.
 *
 * <p>Thread safety: allocation and release are synchronized; lookups and checks are lock free.
 */
public final class StagTable {
    private static final int INDEX_BITS = 24;

    private final AtomicReferenceArray<StagEntry> entries;
    private final int[] free;
    private int freeTop;
    private final MemorySegment physicalMemory;
    private final int slotBits;
    private final int slotMask;
    // registration path only (not the data path): a strong generator costs nothing that matters
    private final SecureRandom random = new SecureRandom();

    /**
     * Creates a table.
     *
     * @param capacity       number of usable indices (1 .. capacity)
     * @param physicalMemory the memory STag 0 exposes (TO = native address inside it)
     */
    public StagTable(int capacity, MemorySegment physicalMemory) {
        entries = new AtomicReferenceArray<>(capacity + 1);
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - i; // lowest index on top
        }
        freeTop = capacity;
        this.physicalMemory = physicalMemory;
        this.slotBits = 32 - Integer.numberOfLeadingZeros(capacity); // slots 1 .. capacity
        if (slotBits > INDEX_BITS) {
            throw new IllegalArgumentException("an STag table holds at most 2^24 - 1 entries, asked " + capacity);
        }
        this.slotMask = (1 << slotBits) - 1;
    }

    /**
     * Reserves an index (never 0, V-MR-19).
     *
     * @return the index, or -1 when the table is full
     */
    synchronized int reserve() {
        if (freeTop == 0) {
            return -1;
        }
        int slot = free[--freeTop];
        int randomBits = INDEX_BITS - slotBits;
        return randomBits == 0 ? slot : random.nextInt(1 << randomBits) << slotBits | slot;
    }

    /**
     * Publishes an entry at its reserved index.
     *
     * @param entry the entry
     */
    void publish(StagEntry entry) {
        entries.set(entry.index & slotMask, entry);
    }

    /**
     * Releases an index; later lookups of it fail until it is reused.
     *
     * @param index the index
     */
    synchronized void release(int index) {
        int slot = index & slotMask;
        entries.set(slot, null);
        free[freeTop++] = slot;
    }

    /**
     * The entry at an STag's index, whatever its key and state.
     *
     * @param stag the STag
     * @return the entry or null
     */
    public StagEntry lookup(int stag) {
        int index = stag >>> 8;
        int slot = index & slotMask;
        if (index == 0 || slot >= entries.length()) {
            return null;
        }
        StagEntry e = entries.get(slot);
        return e != null && e.index == index ? e : null;
    }

    /**
     * The entry in a table slot, whatever its index's random bits (Close RNIC walks every slot).
     *
     * @param slot the slot, 1 .. capacity
     * @return the entry or null
     */
    StagEntry atSlot(int slot) {
        return entries.get(slot);
    }

    /**
     * The Valid binding of an STag whose key matches exactly (Verbs §7.4: all 32 bits validated).
     *
     * @param stag the STag
     * @return the binding, or null when unknown, Invalid or the key differs
     */
    public StagBinding lookupValid(int stag) {
        StagEntry e = lookup(stag);
        if (e == null) {
            return null;
        }
        StagBinding b = e.binding;
        return b.state() == StagState.VALID && b.key() == (stag & 0xFF) ? b : null;
    }

    /**
     * Local access check of one SGE (Verbs §7.4.1, §7.6.3, §8.1.3.2, Fig. 36). Zero-length SGEs are
     * never validated (V-WR-42, V-MR-110).
     *
     * @param stag            the SGE STag
     * @param to              the SGE TO
     * @param length          the SGE length
     * @param pd              PD to compare with (the QP's, or the S-RQ's for S-RQ WQEs, V-SRQ-26)
     * @param stagZeroAllowed whether the QP has STag 0 enabled
     * @param right           LOCAL_READ (send/write source) or LOCAL_WRITE (receive sink)
     * @return null when allowed, else the completion status of the violation
     */
    public WorkCompletionStatus checkLocal(int stag, long to, long length, SoftProtectionDomain pd, boolean stagZeroAllowed,
                                    int right) {
        return resolveLocal(stag, to, length, pd, stagZeroAllowed, right, null, null, 0);
    }

    /**
     * {@link #checkLocal} of one SGE that is about to be sent, and, when it passes, where its bytes
     * are: {@code memory[i]} and {@code offset[i]}, from the binding just checked (one table lookup
     * for both, issue 11). A zero-length SGE is neither checked nor resolved.
     *
     * @param memory where the SGE's memory segment goes; null: check only ({@link #checkLocal})
     * @param offset where its offset in that segment goes (null with {@code memory})
     * @param i      the SGE's index in both
     * @return null when allowed (and resolved), else the completion status of the violation
     */
    public WorkCompletionStatus resolveLocal(int stag, long to, long length, SoftProtectionDomain pd,
                                             boolean stagZeroAllowed, int right, MemorySegment[] memory,
                                             long[] offset, int i) {
        if (length == 0) {
            return null;
        }
        if (StagBinding.wraps(to, length)) {
            return WorkCompletionStatus.WRAP_ERROR;
        }
        if (stag >>> 8 == 0) {
            WorkCompletionStatus st = checkStagZero(stag, to, length, stagZeroAllowed);
            if (st == null && memory != null) {
                memory[i] = physicalMemory;
                offset[i] = to - physicalMemory.address();
            }
            return st;
        }
        StagEntry e = lookup(stag);
        if (e == null) {
            return WorkCompletionStatus.INVALID_STAG;
        }
        StagBinding b = e.binding;
        WorkCompletionStatus st = checkEntry(e, b, stag, to, length, pd, right);
        if (st == null && memory != null) {
            memory[i] = b.memory();
            offset[i] = b.offsetOf(to);
        }
        return st;
    }

    /** Verbs §7.2.1: STag 0 has no key, no PD check, local read and write only, enabled per QP. */
    private WorkCompletionStatus checkStagZero(int stag, long to, long length, boolean stagZeroAllowed) {
        if (stag != 0 || !stagZeroAllowed) {
            return WorkCompletionStatus.INVALID_STAG;
        }
        long base = physicalMemory.address();
        long size = physicalMemory.byteSize();
        long off = to - base;
        return Long.compareUnsigned(to, base) >= 0 && Long.compareUnsigned(off, size) <= 0
                && Long.compareUnsigned(length, size - off) <= 0 ? null
                : WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION;
    }

    /** The checks of a local SGE against the entry its STag names and that entry's binding {@code b}. */
    private static WorkCompletionStatus checkEntry(StagEntry e, StagBinding b, int stag, long to, long length,
                                                   SoftProtectionDomain pd, int right) {
        if (b.state() != StagState.VALID || b.key() != (stag & 0xFF)) {
            return WorkCompletionStatus.INVALID_STAG;
        }
        if (e instanceof SoftMemoryWindow) {
            // V-WR-40: a window has no local rights, so it can never be an SGE
            return WorkCompletionStatus.ACCESS_VIOLATION;
        }
        if (b.pd() != pd) {
            return WorkCompletionStatus.INVALID_PD_ID;
        }
        if (!AccessRights.has(b.rights(), right)) {
            return WorkCompletionStatus.ACCESS_VIOLATION;
        }
        return b.contains(to, length) ? null : WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION;
    }

    /**
     * Resolves the memory of an SGE that passed {@link #checkLocal}.
     *
     * @param stag the STag
     * @param to   the TO
     * @return the memory segment and, via {@link #resolveOffset}, the offset
     */
    public MemorySegment resolveMemory(int stag, long to) {
        if (stag == 0) {
            return physicalMemory;
        }
        StagBinding b = lookupValid(stag);
        return b == null ? MemorySegment.NULL : b.memory();
    }

    /**
     * Offset of a TO inside {@link #resolveMemory(int, long)}.
     *
     * @param stag the STag
     * @param to   the TO
     * @return the offset
     */
    public long resolveOffset(int stag, long to) {
        if (stag == 0) {
            return to - physicalMemory.address();
        }
        StagBinding b = lookupValid(stag);
        return b == null ? 0 : b.offsetOf(to);
    }

    /**
     * RFC 5040 §7.2 / RFC 5042 §5 checks of the buffer a queue-1 request names -- a Read Request's
     * source, an RFC 7306 atomic's target, a commit draft request's target -- in the order the
     * Terminate reports them: valid STag with its key, this QP's PD (or a window bound to this QP),
     * the right, no TO wrap, in bounds. Like siw's {@code siw_check_mem} it knows the QP only by its
     * PD and number, and returns the error as a value.
     *
     * @param pd      the PD of the QP the request arrived on
     * @param qpId    the number of that QP (a window must be bound to it)
     * @param stag    the STag the request names
     * @param to      the TO the request names
     * @param size    bytes the request reads or writes (positive)
     * @param allOf   the rights the request needs, every one of them
     * @param anyOf   rights of which the request needs at least one, or 0
     * @param enabled whether the QP allows the operation at all (inbound Reads / Writes); false is an
     *                access violation like a missing right
     * @return null when allowed, else the RDMAP error
     */
    public RdmapError checkRequestTarget(SoftProtectionDomain pd, int qpId, int stag, long to, long size, int allOf,
                                  int anyOf, boolean enabled) {
        StagEntry e = stag >>> 8 == 0 ? null : lookup(stag);
        StagBinding b = e == null ? null : e.binding;
        if (b == null || b.state() != StagState.VALID || b.key() != (stag & 0xFF)) {
            return RdmapError.INVALID_STAG;
        }
        if (e instanceof SoftMemoryWindow ? b.qpId() != qpId : b.pd() != pd) {
            return RdmapError.STAG_NOT_ASSOCIATED;
        }
        if (!enabled || !AccessRights.has(b.rights(), allOf) || anyOf != 0 && (b.rights() & anyOf) == 0) {
            return RdmapError.ACCESS_RIGHTS_VIOLATION;
        }
        if (StagBinding.wraps(to, size)) {
            return RdmapError.TO_WRAP;
        }
        return b.contains(to, size) ? null : RdmapError.BASE_OR_BOUNDS_VIOLATION;
    }
}
