package io.jrnic.core.mem;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.ResourceQuota;
import io.jrnic.api.StagState;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.VerifyHash;
import io.jrnic.api.WorkCompletionStatus;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Memory management of one RNIC (Verbs 1.0 chapter 7, §9.2.6): registration, shared regions,
 * reregistration, STag allocation and deallocation, and the SQ-ordered memory operations
 * (Fast-Register, Bind, Invalidate Local STag) with every check the spec names. In Java the
 * "physical buffer list" of a region is the native address range of its {@link MemorySegment};
 * its pages (of {@link io.jrnic.api.RnicConfig#pageSize()}) are the PBL entries.
 *
 * <p>It knows the RNIC only as its {@link MemoryOwner} (open check, arena) and a QP only as a
 * {@link QpMemoryView}: memory is the lowest layer of rnic-core (issue 10).
 *
 * <p>Thread safety: every STag state change runs under {@link #lock}, which this class owns; so do
 * the region and window counts, the {@link SoftProtectionDomain.MemoryLedger ledger}, the fields of
 * {@link SoftMemoryRegion} and {@link SoftMemoryWindow} other than their binding, and the bound
 * window count of each QP ({@link QpMemoryView#addBoundWindows}). Lock order: QP lock, then
 * {@link #lock}.
 */
public final class MemoryManager {
    /** A thread that never runs, so it owns no confined arena (see {@link #accessibleFromAnyThread}). */
    private static final Thread NO_OWNER = Thread.ofVirtual().unstarted(() -> { });

    /** The RNIC's memory lock: guards every STag state change (see the class comment). */
    public final Object lock = new Object();
    /** Per-PD memory accounting, present only with a memory quota (R-SEC-024); guarded by {@link #lock}. */
    public final SoftProtectionDomain.MemoryLedger ledger;
    /** The per-PD quota the {@link #ledger} enforces. */
    final ResourceQuota pdQuota;
    private final MemoryOwner owner;
    private final StagTable table;
    private final long pageSize;
    private final int maxPblEntries;
    private final int maxMrs;
    private final int maxMws;
    private int regions;
    private int windows;

    /**
     * Creates the memory manager of one RNIC.
     *
     * @param owner         the RNIC: open check and arena
     * @param table         the RNIC's STag table
     * @param pageSize      page size (a power of two), the PBL entry size
     * @param maxPblEntries PBL entries a region may have
     * @param maxMrs        regions the RNIC may hold
     * @param maxMws        windows the RNIC may hold
     * @param pdQuota       per-PD quota; a {@link #ledger} is kept only when it limits memory
     */
    public MemoryManager(MemoryOwner owner, StagTable table, long pageSize, int maxPblEntries, int maxMrs, int maxMws,
                  ResourceQuota pdQuota) {
        this.owner = owner;
        this.table = table;
        this.pageSize = pageSize;
        this.maxPblEntries = maxPblEntries;
        this.maxMrs = maxMrs;
        this.maxMws = maxMws;
        this.pdQuota = pdQuota;
        this.ledger = pdQuota.limitsMemory() ? new SoftProtectionDomain.MemoryLedger() : null;
    }

    /**
     * Throws when the RNIC is closed ({@link MemoryOwner#checkOpen()}).
     */
    void checkOpen() {
        owner.checkOpen();
    }

    /**
     * Memory for a region the RNIC allocates itself, page aligned, from the RNIC's arena.
     *
     * @param byteSize bytes
     * @return the memory
     */
    MemorySegment allocate(long byteSize) {
        return owner.allocateMemory(byteSize, pageSize);
    }

    /**
     * Page size: the size of a PBL entry.
     *
     * @return bytes
     */
    long pageSize() {
        return pageSize;
    }

    /**
     * PBL entries a region may have.
     *
     * @return the limit
     */
    int maxPblEntries() {
        return maxPblEntries;
    }

    static VerbsException error(VerbsStatus status, String message) {
        return new VerbsException(status, message);
    }

    /**
     * Maximum region length: PBL entries times page size.
     *
     * @return bytes
     */
    public long maxRegionSize() {
        return maxPblEntries * pageSize;
    }

    /**
     * Pages covered by the native range of {@code memory} (the region's PBL entry count).
     *
     * @param memory the memory
     * @return number of pages
     */
    long pblEntries(MemorySegment memory) {
        if (memory.byteSize() == 0) {
            return 0;
        }
        long fbo = memory.address() & (pageSize - 1);
        return (fbo + memory.byteSize() + pageSize - 1) / pageSize;
    }

    /**
     * Whether every thread may access the memory: true for global, automatic and shared arenas,
     * false for a confined arena, which only its owner thread may touch. The RNIC reads and writes
     * registered memory from its event loops (placement, Read Responses, atomics), so a confined
     * segment would register and then fail at the first remote access with a
     * {@link WrongThreadException} on the loop (issue 9 item 8).
     *
     * @param memory the memory
     * @return whether a thread other than its owner can access it
     */
    public static boolean accessibleFromAnyThread(MemorySegment memory) {
        return memory.isAccessibleBy(NO_OWNER);
    }

    /**
     * Throws the registration error of memory that is not accessible from any thread.
     *
     * @param memory the memory (native, not null)
     * @param what   what the memory is for, for the message
     */
    public static void checkAccessibleFromAnyThread(MemorySegment memory, String what) {
        if (!accessibleFromAnyThread(memory)) {
            throw error(VerbsStatus.INVALID_PBL_ENTRY, what + " must be accessible from any thread (a global, automatic"
                    + " or shared arena): the RNIC's event loops read and write it, and a confined arena's memory"
                    + " is only accessible from its owner thread " + memory);
        }
    }

    private static void checkKey(int key) {
        if (key < 0 || key > 0xFF) {
            throw new IllegalArgumentException("STag key must be 0..255, was " + key);
        }
    }

    private SoftProtectionDomain pdOf(ProtectionDomain pd) {
        if (!(pd instanceof SoftProtectionDomain spd) || spd.manager != this || spd.closed) {
            throw error(VerbsStatus.INVALID_PD_ID, "PD " + pd + " is not an allocated PD of this RNIC");
        }
        return spd;
    }

    /**
     * Validates a registration's inputs (Verbs §7.3, §7.4, §7.6.1, Figure 18) and throws the
     * Figure 33 status of the first problem.
     */
    private void validate(MemorySegment memory, int rights, AddressType type, long va, boolean remoteAccess) {
        if (memory == null || type == null) {
            throw new NullPointerException("memory and address type are required");
        }
        if (!memory.isNative()) {
            throw error(VerbsStatus.INVALID_PBL_ENTRY, "memory must be a native (off-heap) segment: " + memory);
        }
        checkAccessibleFromAnyThread(memory, "registered memory");
        if (!AccessRights.isValidRegionCombination(rights)) {
            throw error(VerbsStatus.INVALID_ACCESS_RIGHTS, "invalid region rights " + AccessRights.describe(rights)
                    + " (Verbs Figure 18)");
        }
        if ((rights & AccessRights.REMOTE_MASK) != 0 && !remoteAccess) {
            throw error(VerbsStatus.INVALID_ACCESS_RIGHTS, "remote rights need the Remote Access Flag (Verbs §7.4)");
        }
        if (AccessRights.has(rights, AccessRights.FLUSHABLE_PERSISTENT) && !memory.isMapped()) {
            // draft-talpey-rdma-commit-01 §2.4: memory that cannot be persisted may be refused Flushable
            throw error(VerbsStatus.INVALID_ACCESS_RIGHTS, "FLUSHABLE_PERSISTENT needs file-mapped memory");
        }
        if (memory.byteSize() > maxRegionSize() || pblEntries(memory) > maxPblEntries) {
            throw error(VerbsStatus.INVALID_LENGTH, "region of " + memory.byteSize() + " bytes exceeds "
                    + maxPblEntries + " pages");
        }
        if (type == AddressType.VA_BASED) {
            // Verbs §7.6.1.1: VA mod page size must equal the first byte offset
            if ((va & (pageSize - 1)) != (memory.address() & (pageSize - 1))) {
                throw error(VerbsStatus.INVALID_VA, "VA 0x" + Long.toHexString(va) + " and memory address 0x"
                        + Long.toHexString(memory.address()) + " differ in page offset");
            }
            if (memory.byteSize() > 0 && StagBinding.wraps(va, memory.byteSize())) {
                throw error(VerbsStatus.INVALID_VA, "VA + length wraps past 2^64");
            }
        }
    }

    private static StagBinding validBinding(int key, SoftProtectionDomain pd, int rights, AddressType type, long va,
                                            MemorySegment memory, VerifyHash verifyHash) {
        long base = type == AddressType.ZERO_BASED ? 0 : va;
        return new StagBinding(key, StagState.VALID, pd, -1, rights, type, base, memory.byteSize(), memory, null,
                verifyHash);
    }

    private int reserveRegionIndex() {
        if (regions >= maxMrs) {
            throw error(VerbsStatus.INSUFFICIENT_RESOURCES, "RNIC region limit " + maxMrs + " reached");
        }
        int index = table.reserve();
        if (index < 0) {
            throw error(VerbsStatus.INSUFFICIENT_RESOURCES, "STag table full");
        }
        regions++;
        return index;
    }

    /** RI-Register Non-Shared Memory Region (Verbs §7.3.2.2). */
    public SoftMemoryRegion register(SoftProtectionDomain pd, MemorySegment memory, int rights, int key, AddressType type,
                              long va, boolean remoteAccess, VerifyHash verifyHash) {
        Objects.requireNonNull(verifyHash, "verifyHash");
        checkKey(key);
        synchronized (lock) {
            checkOpen();
            pdOf(pd);
            validate(memory, rights, type, va, remoteAccess);
            int index = reserveRegionIndex();
            SoftMemoryRegion mr = new SoftMemoryRegion(this, index, validBinding(key, pd, rights, type, va, memory, verifyHash),
                    remoteAccess, (int) pblEntries(memory));
            pd.users.incrementAndGet();
            table.publish(mr);
            return mr;
        }
    }

    /** Allocate Non-Shared Memory Region STag (Verbs §7.3.2.1): Invalid until Fast-Register. */
    public SoftMemoryRegion allocateStag(SoftProtectionDomain pd, int maxPbl, boolean remoteAccess) {
        synchronized (lock) {
            checkOpen();
            pdOf(pd);
            if (maxPbl < 1 || maxPbl > maxPblEntries) {
                throw error(VerbsStatus.INVALID_LENGTH, "PBL size " + maxPbl + " outside 1.." + maxPblEntries);
            }
            int index = reserveRegionIndex();
            SoftMemoryRegion mr = new SoftMemoryRegion(this, index, StagBinding.invalid(0, pd), remoteAccess, maxPbl);
            pd.users.incrementAndGet();
            table.publish(mr);
            return mr;
        }
    }

    /** Register Shared Memory Region (Verbs §7.3.2.4). */
    SoftMemoryRegion registerShared(SoftProtectionDomain pd, int existingStag, int rights, int key,
                                    AddressType type, long va, VerifyHash verifyHash) {
        Objects.requireNonNull(verifyHash, "verifyHash");
        checkKey(key);
        synchronized (lock) {
            checkOpen();
            pdOf(pd);
            StagEntry e = table.lookup(existingStag);
            if (!(e instanceof SoftMemoryRegion existing)) {
                throw error(VerbsStatus.INVALID_STAG_INDEX, "0x" + Integer.toHexString(existingStag)
                        + " is not a memory region STag (STag 0 and windows are refused, V-MR-27, V-MW-4)");
            }
            StagBinding b = existing.binding;
            if (b.state() != StagState.VALID) {
                throw error(VerbsStatus.INVALID_STAG_INDEX, "input region must be Valid (V-MR-55)");
            }
            if (b.key() != (existingStag & 0xFF)) {
                throw error(VerbsStatus.INVALID_STAG_INDEX, "key of 0x" + Integer.toHexString(existingStag)
                        + " does not match the region's key (V-MR-57)");
            }
            boolean remote = (rights & AccessRights.REMOTE_MASK) != 0;
            validate(b.memory(), rights, type, va, remote);
            int index = reserveRegionIndex();
            SoftMemoryRegion mr = new SoftMemoryRegion(this, index, validBinding(key, pd, rights, type, va, b.memory(),
                    verifyHash),
                    remote, existing.maxPblEntries);
            mr.shared = true;
            existing.shared = true; // V-MR-60: permanently Shared, nothing else changes
            pd.users.incrementAndGet();
            table.publish(mr);
            return mr;
        }
    }

    /**
     * RI-Reregister Non-Shared Memory Region (Verbs §7.3.2.3). The old mapping is revoked: when
     * this returns, no placement writes the old memory any more (R-SEC-016), even when the
     * reregistration failed and deallocated the region (V-MR-51).
     */
    int reregister(SoftMemoryRegion mr, ProtectionDomain newPd, MemorySegment memory, int rights, int key,
                   AddressType type, long va, boolean remoteAccess, VerifyHash verifyHash) {
        Objects.requireNonNull(verifyHash, "verifyHash"); // before anything changes: the region stays
        try {
            return reregisterLocked(mr, newPd, memory, rights, key, type, va, remoteAccess, verifyHash);
        } finally {
            mr.fence.awaitPlacements();
        }
    }

    private int reregisterLocked(SoftMemoryRegion mr, ProtectionDomain newPd, MemorySegment memory, int rights,
                                 int key, AddressType type, long va, boolean remoteAccess, VerifyHash verifyHash) {
        checkKey(key);
        synchronized (lock) {
            checkOpen();
            StagBinding old = mr.binding;
            if (old.state() == StagState.FREE || mr.shared) {
                throw error(VerbsStatus.INVALID_STAG_INDEX, "only a Non-Shared region can be reregistered (V-MR-47)");
            }
            if (mr.boundWindows > 0) {
                throw error(VerbsStatus.MWS_STILL_BOUND_TO_REGION, mr.boundWindows + " windows bound (V-MR-48)");
            }
            SoftProtectionDomain pd;
            try {
                pd = pdOf(newPd);
                validate(memory, rights, type, va, remoteAccess);
                if (ledger != null) {
                    // R-SEC-024: a Reregister must not take its PD beyond the PD's fair share either
                    pd.checkReregister(mr, memory.byteSize());
                }
            } catch (VerbsException | NullPointerException ex) {
                // V-MR-51: any other failure (INSUFFICIENT_RESOURCES included, Verbs §7.3.2.3)
                // deallocates the region and registers nothing
                freeRegion(mr);
                throw ex;
            }
            old.pd().users.decrementAndGet();
            pd.users.incrementAndGet();
            mr.remoteAccess = remoteAccess;
            mr.maxPblEntries = (int) pblEntries(memory);
            // one volatile swap (V-MR-54): memory and Verify hash change together
            mr.binding = validBinding(key, pd, rights, type, va, memory, verifyHash);
            return mr.stag();
        }
    }

    /**
     * Deallocate STag of a region (Verbs §7.9); returns once no placement writes its memory any
     * more (R-SEC-016).
     */
    public void deallocate(SoftMemoryRegion mr) {
        synchronized (lock) {
            checkOpen();
            if (mr.binding.state() == StagState.FREE) {
                throw error(VerbsStatus.INVALID_STAG_INDEX, "region already deallocated");
            }
            if (mr.boundWindows > 0) {
                throw error(VerbsStatus.MWS_STILL_BOUND_TO_REGION, mr.boundWindows + " windows bound (V-MR-131)");
            }
            freeRegion(mr);
        }
        mr.fence.awaitPlacements(); // outside the memory lock: a placing event loop may need it
    }

    private void freeRegion(SoftMemoryRegion mr) {
        StagBinding b = mr.binding;
        b.pd().users.decrementAndGet();
        mr.binding = new StagBinding(b.key(), StagState.FREE, b.pd(), -1, 0, b.addressType(), 0, 0,
                MemorySegment.NULL, null, VerifyHash.SHA_256);
        table.release(mr.index);
        regions--;
    }

    /** Allocate Memory Window (Verbs §7.10.1). */
    public SoftMemoryWindow allocateWindow(SoftProtectionDomain pd) {
        synchronized (lock) {
            checkOpen();
            pdOf(pd);
            if (windows >= maxMws) {
                throw error(VerbsStatus.INSUFFICIENT_RESOURCES, "RNIC window limit " + maxMws + " reached");
            }
            int index = table.reserve();
            if (index < 0) {
                throw error(VerbsStatus.INSUFFICIENT_RESOURCES, "STag table full");
            }
            windows++;
            SoftMemoryWindow mw = new SoftMemoryWindow(this, index, pd);
            pd.users.incrementAndGet();
            table.publish(mw);
            return mw;
        }
    }

    /**
     * Deallocate STag of a window: allowed while bound, implicitly unbinding (Verbs §7.10.5);
     * returns once no placement writes through the window any more (R-SEC-016).
     */
    public void deallocate(SoftMemoryWindow mw) {
        deallocateLocked(mw);
        mw.fence.awaitPlacements();
    }

    private void deallocateLocked(SoftMemoryWindow mw) {
        synchronized (lock) {
            checkOpen();
            StagBinding b = mw.binding;
            if (b.state() == StagState.FREE) {
                throw error(VerbsStatus.INVALID_STAG_INDEX, "window already deallocated");
            }
            unbind(mw);
            mw.allocationPd.users.decrementAndGet();
            mw.binding = new StagBinding(b.key(), StagState.FREE, mw.allocationPd, -1, 0, b.addressType(), 0, 0,
                    MemorySegment.NULL, null, VerifyHash.SHA_256);
            table.release(mw.index);
            windows--;
        }
    }

    private static void unbind(SoftMemoryWindow mw) {
        StagBinding b = mw.binding;
        if (b.state() == StagState.VALID) {
            b.parent().boundWindows--;
            mw.boundQp.addBoundWindows(-1);
            mw.boundQp = null;
        }
    }

    /**
     * Fast-Register work request (Verbs §7.3.2.5, Figure 23 Fast-Register errors).
     *
     * @param qp          the processing QP
     * @param regionStag  the region's STag: index of an Invalid region, new key
     * @param memory      the memory to map (the PBL)
     * @param va          the virtual address of its first byte (VA-based)
     * @param addressType VA-based or zero-based
     * @param rights      the access rights
     * @param verifyHash  the region's Verify hash, null for the default (C-VERIFY-002)
     * @return null on success, else the completion status
     */
    public WorkCompletionStatus fastRegister(QpMemoryView qp, int regionStag, MemorySegment memory, long va,
                                      AddressType addressType, int rights, VerifyHash verifyHash) {
        if (!qp.privileged()) {
            return WorkCompletionStatus.QP_NOT_PRIVILEGED; // V-MR-67
        }
        synchronized (lock) {
            StagEntry e = table.lookup(regionStag);
            if (!(e instanceof SoftMemoryRegion mr) || mr.shared) {
                return WorkCompletionStatus.INVALID_STAG; // V-MR-63: STag 0, windows, Shared regions
            }
            StagBinding b = mr.binding;
            if (b.state() == StagState.FREE) {
                return WorkCompletionStatus.INVALID_STAG;
            }
            if (b.pd() != qp.pd()) {
                return WorkCompletionStatus.INVALID_PD_ID;
            }
            if (b.state() != StagState.INVALID) {
                return WorkCompletionStatus.STAG_NOT_INVALID; // V-MR-64
            }
            if (memory == null || !memory.isNative() || !accessibleFromAnyThread(memory)) {
                return WorkCompletionStatus.INVALID_PBL_ENTRY; // a confined arena is refused at PostSQ already
            }
            if (!AccessRights.isValidRegionCombination(rights)
                    || ((rights & AccessRights.REMOTE_MASK) != 0 && !mr.remoteAccess)
                    || (AccessRights.has(rights, AccessRights.FLUSHABLE_PERSISTENT) && !memory.isMapped())) {
                return WorkCompletionStatus.INVALID_ACCESS_RIGHTS; // V-MR-66
            }
            if (memory.byteSize() > maxRegionSize()) {
                return WorkCompletionStatus.INVALID_LENGTH;
            }
            if (pblEntries(memory) > mr.maxPblEntries) {
                return WorkCompletionStatus.PBL_TOO_LONG; // V-MR-65
            }
            if (addressType == AddressType.VA_BASED
                    && ((va & (pageSize - 1)) != (memory.address() & (pageSize - 1))
                    || (memory.byteSize() > 0 && StagBinding.wraps(va, memory.byteSize())))) {
                return WorkCompletionStatus.INVALID_VIRTUAL_ADDRESS;
            }
            mr.binding = validBinding(regionStag & 0xFF, b.pd(), rights, addressType, va, memory,
                    verifyHash == null ? VerifyHash.SHA_256 : verifyHash); // C-VERIFY-002
            return null;
        }
    }

    /**
     * Bind Memory Window work request, with every check of Verbs §7.10.6.1 (V-MW-39).
     *
     * @param qp          the processing QP
     * @param windowStag  the window's STag: index of an Invalid window, new key
     * @param regionStag  the region to bind to
     * @param va          the window's first byte, a VA inside the region
     * @param len         the window's length
     * @param addressType VA-based or zero-based
     * @param rights      the window's access rights
     * @return null on success, else the completion status
     */
    public WorkCompletionStatus bind(QpMemoryView qp, int windowStag, int regionStag, long va, long len,
                              AddressType addressType, int rights) {
        if (!qp.bindWindows()) {
            return WorkCompletionStatus.ACCESS_VIOLATION; // V-MW-12: QP without Bind enable
        }
        synchronized (lock) {
            StagEntry we = table.lookup(windowStag);
            if (!(we instanceof SoftMemoryWindow mw) || mw.binding.state() == StagState.FREE) {
                return WorkCompletionStatus.INVALID_WINDOW;
            }
            StagBinding wb = mw.binding;
            if (wb.state() != StagState.INVALID) {
                return WorkCompletionStatus.STAG_NOT_INVALID; // V-MW-23
            }
            if (wb.pd() != qp.pd()) {
                return WorkCompletionStatus.INVALID_PD_ID; // V-MW-10
            }
            if (regionStag >>> 8 == 0) {
                return WorkCompletionStatus.INVALID_REGION; // V-MW-9: STag 0
            }
            StagEntry re = table.lookup(regionStag);
            if (!(re instanceof SoftMemoryRegion mr)) {
                return WorkCompletionStatus.INVALID_REGION;
            }
            StagBinding rb = mr.binding;
            if (rb.state() != StagState.VALID || rb.key() != (regionStag & 0xFF)) {
                return WorkCompletionStatus.INVALID_REGION;
            }
            if (rb.pd() != qp.pd()) {
                return WorkCompletionStatus.INVALID_PD_ID;
            }
            if (!AccessRights.has(rb.rights(), AccessRights.BIND_WINDOW)) {
                return WorkCompletionStatus.ACCESS_VIOLATION;
            }
            if (rb.addressType() == AddressType.ZERO_BASED) {
                return WorkCompletionStatus.INVALID_REGION; // V-MR-100, Figure 19
            }
            if (!AccessRights.isValidWindowCombination(rights, rb.rights())) {
                return WorkCompletionStatus.ACCESS_VIOLATION; // Figure 20
            }
            if (len < 0) {
                return WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION;
            }
            if (len > 0 && StagBinding.wraps(va, len)) {
                return WorkCompletionStatus.WRAP_ERROR;
            }
            if (!(len == 0 ? Long.compareUnsigned(va - rb.baseTo(), rb.length()) <= 0
                    && Long.compareUnsigned(va, rb.baseTo()) >= 0 : rb.contains(va, len))) {
                return WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION; // V-MW-13
            }
            MemorySegment slice = rb.memory().asSlice(rb.offsetOf(va), len);
            long base = addressType == AddressType.ZERO_BASED ? 0 : va;
            mr.boundWindows++;
            qp.addBoundWindows(1);
            mw.boundQp = qp;
            mw.binding = new StagBinding(windowStag & 0xFF, StagState.VALID, qp.pd(), qp.id(), rights,
                    addressType, base, len, slice, mr, rb.verifyHash()); // a window verifies with its region's hash
            return null;
        }
    }

    /**
     * Invalidate Local STag (and the invalidation half of RDMA Read with Invalidate), Verbs §7.8
     * and §7.10.4 checks (V-MR-121, V-MW-45). On success it returns once no placement writes the
     * STag's memory any more (R-SEC-016, {@link StagBinding.Fence}).
     *
     * @param qp   the processing QP
     * @param stag the STag to invalidate
     * @return null on success, else the completion status
     */
    public WorkCompletionStatus invalidateLocal(QpMemoryView qp, int stag) {
        WorkCompletionStatus st;
        StagEntry revoked;
        synchronized (lock) {
            st = invalidateLocalLocked(qp, stag);
            revoked = st == null ? table.lookup(stag) : null;
        }
        if (revoked != null) {
            StagBinding.Fence.of(revoked).awaitPlacements(); // R-SEC-016
        }
        return st;
    }

    private WorkCompletionStatus invalidateLocalLocked(QpMemoryView qp, int stag) {
        synchronized (lock) {
            if (stag >>> 8 == 0) {
                return WorkCompletionStatus.INVALID_STAG; // V-MR-26: STag 0 is always Valid
            }
            StagEntry e = table.lookup(stag);
            if (e == null || e.binding.state() == StagState.FREE) {
                return WorkCompletionStatus.INVALID_STAG;
            }
            StagBinding b = e.binding;
            boolean valid = b.state() == StagState.VALID;
            if (valid && b.key() != (stag & 0xFF)) {
                return WorkCompletionStatus.INVALID_STAG; // the key is only meaningful while Valid (§7.2)
            }
            if (e instanceof SoftMemoryRegion mr) {
                if (mr.shared) {
                    return WorkCompletionStatus.INVALID_STAG; // V-MR-114
                }
                if (b.pd() != qp.pd()) {
                    return WorkCompletionStatus.INVALID_PD_ID;
                }
                if (mr.boundWindows > 0) {
                    return WorkCompletionStatus.ACCESS_VIOLATION; // Fig. 23: MR with a bound window
                }
                mr.binding = StagBinding.invalid(b.key(), b.pd());
                return null;
            }
            SoftMemoryWindow mw = (SoftMemoryWindow) e;
            if (valid ? b.qpId() != qp.id() : b.pd() != qp.pd()) {
                return WorkCompletionStatus.INVALID_PD_ID; // V-MW-30, V-MW-31
            }
            unbind(mw);
            mw.binding = StagBinding.invalid(b.key(), qp.pd()); // V-MW-32: back to the QP's PD
            return null;
        }
    }

    /**
     * Invalidation requested by an incoming Send with Invalidate (Verbs §7.8, §7.10.6.3, §8.2.2.1
     * rule 1; RFC 5040 §5.3): the local checks plus the remote-right requirement of V-MR-122. On
     * success it returns once no other placement writes the STag's memory (R-SEC-016).
     *
     * @param qp   the receiving QP (its PD is used even for S-RQ WQEs, V-SRQ-27)
     * @param stag the STag named by the peer
     * @return null on success, else why it was refused (completion status and Terminate code)
     */
    public InvalidateRefusal invalidateRemote(QpMemoryView qp, int stag) {
        InvalidateRefusal refusal;
        StagEntry revoked;
        synchronized (lock) {
            refusal = invalidateRemoteLocked(qp, stag);
            revoked = refusal == null ? table.lookup(stag) : null;
        }
        if (revoked != null) {
            // R-SEC-016; on the receiving QP's own loop its own placements have ended already
            StagBinding.Fence.of(revoked).awaitPlacements();
        }
        return refusal;
    }

    private InvalidateRefusal invalidateRemoteLocked(QpMemoryView qp, int stag) {
        synchronized (lock) {
            StagEntry e = stag >>> 8 == 0 ? null : table.lookup(stag);
            if (e == null || e.binding.state() == StagState.FREE) {
                return InvalidateRefusal.UNKNOWN_STAG; // includes STag 0 (V-MR-26)
            }
            StagBinding b = e.binding;
            if (b.state() == StagState.VALID && b.key() != (stag & 0xFF)) {
                return InvalidateRefusal.UNKNOWN_STAG;
            }
            if (!qp.inboundRead() && !qp.inboundWrite()) {
                return InvalidateRefusal.QP_WITHOUT_REMOTE_ACCESS;
            }
            if (e instanceof SoftMemoryRegion mr) {
                if (mr.shared) {
                    return InvalidateRefusal.SHARED_REGION;
                }
                if (b.pd() != qp.pd()) {
                    return InvalidateRefusal.REGION_OF_OTHER_PD;
                }
                if (b.state() == StagState.VALID && (b.rights() & AccessRights.REMOTE_MASK) == 0) {
                    return InvalidateRefusal.REGION_WITHOUT_REMOTE_RIGHTS;
                }
                if (mr.boundWindows > 0) {
                    return InvalidateRefusal.REGION_WITH_BOUND_WINDOWS;
                }
                mr.binding = StagBinding.invalid(b.key(), b.pd());
                return null;
            }
            SoftMemoryWindow mw = (SoftMemoryWindow) e;
            if (b.state() == StagState.VALID ? b.qpId() != qp.id() : b.pd() != qp.pd()) {
                return InvalidateRefusal.WINDOW_OF_OTHER_QP;
            }
            unbind(mw);
            mw.binding = StagBinding.invalid(b.key(), qp.pd());
            return null;
        }
    }

    /**
     * Snapshot of every live entry, for Close RNIC. It walks the table's slots: an index has random
     * bits above its slot (R-SEC-018), so looking the slots up as STags would miss almost every
     * entry.
     *
     * @param capacity the table's capacity (slots 1 .. capacity)
     * @return the live entries
     */
    public List<StagEntry> liveEntries(int capacity) {
        List<StagEntry> live = new ArrayList<>();
        for (int i = 1; i <= capacity; i++) {
            StagEntry e = table.atSlot(i);
            if (e != null) {
                live.add(e);
            }
        }
        return live;
    }
}
