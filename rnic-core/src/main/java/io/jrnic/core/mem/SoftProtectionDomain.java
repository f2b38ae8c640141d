package io.jrnic.core.mem;

import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ResourceQuota;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.StagState;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.VerifyHash;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A protection domain (Verbs 1.0 §5.2). It counts the QPs, S-RQs, regions and windows that use
 * it so that Deallocate PD can refuse while any remains (V-PD-15), and it is the consumer the
 * per-PD {@link ResourceQuota} applies to (RFC 5040 §8.1.2 item 6, docs/verbs.md "Fair share"):
 * QPs and S-RQs are counted here by the RNIC that creates them, regions, windows and registered
 * bytes by the {@link MemoryManager}'s {@link MemoryLedger} when a memory quota is set. The PD
 * knows the RNIC only as its {@link ProtectionDomainOwner}: QPs, S-RQs and Deallocate PD are
 * handed up to it, memory verbs down to the {@link MemoryManager} (issue 10).
 *
 * <p>Thread safety: thread safe. {@link #qps}, {@link #srqs} and {@link #closed} are written under
 * the owner's resource lock; the ledger is guarded by {@link MemoryManager#lock}.
 */
public final class SoftProtectionDomain implements ProtectionDomain {
    /** The memory manager of the RNIC: memory verbs, open check, quota ledger. */
    final MemoryManager manager;
    private final ProtectionDomainOwner owner;
    private final int id;
    public final AtomicInteger users = new AtomicInteger();
    public volatile boolean closed;
    /** QPs created in this PD and not destroyed (quota {@link ResourceQuota#maxQps()}). */
    public int qps;
    /** S-RQs created in this PD and not destroyed (quota {@link ResourceQuota#maxSrqs()}). */
    public int srqs;

    public SoftProtectionDomain(MemoryManager manager, ProtectionDomainOwner owner, int id) {
        this.manager = manager;
        this.owner = owner;
        this.id = id;
    }

    @Override
    public int id() {
        return id;
    }

    public void checkUsable() {
        manager.checkOpen();
        if (closed) {
            throw new VerbsException(VerbsStatus.INVALID_PD_ID, "PD " + id + " was deallocated");
        }
    }

    /**
     * Refuses a create verb that would take this PD beyond one of its quotas (R-SEC-024).
     *
     * @param used  what the PD holds now
     * @param limit the quota value
     * @param name  the quota's name, for the message
     * @throws VerbsException INSUFFICIENT_RESOURCES naming the quota
     */
    public void checkQuota(long used, long limit, String name) {
        if (used > limit) {
            throw new VerbsException(VerbsStatus.INSUFFICIENT_RESOURCES, "PD " + id + " quota " + name + "="
                    + limit + " would be exceeded (" + used + " requested, R-SEC-024)");
        }
    }

    /**
     * Refuses a Reregister that would take this PD, the region's new PD, beyond its region or byte
     * quota (R-SEC-024, RFC 5040 §8.1.2 item 6; Verbs §7.3.2.3 and Figure 33 allow INSUFFICIENT
     * RESOURCES for RI-Reregister): a region moved in from another PD is one more region here and
     * brings its new charge; a region staying here is checked only for the bytes it grows by, so a
     * Reregister that moves nothing in and grows nothing is never refused. Called by the
     * {@link MemoryManager} under its lock, with a {@link MemoryLedger}.
     *
     * @param mr        the region being reregistered (not Free, not Shared)
     * @param newLength its new length in bytes
     * @throws VerbsException INSUFFICIENT_RESOURCES naming the quota
     */
    void checkReregister(SoftMemoryRegion mr, long newLength) {
        MemoryLedger ledger = manager.ledger;
        ResourceQuota q = manager.pdQuota;
        MemoryLedger.Usage u = ledger.usage(this);
        StagBinding b = mr.binding;
        long reserve = ledger.reserve(mr);
        boolean movingIn = b.pd() != this;
        long before = movingIn ? 0 : Math.max(reserve, b.length()); // as MemoryLedger.usage charges it
        long after = Math.max(reserve, newLength);
        if (movingIn) {
            checkQuota(u.regions() + 1L, q.maxMrs(), "maxMrs");
        }
        if (after > before) {
            checkQuota(u.bytes() - before + after, q.maxRegisteredBytes(), "maxRegisteredBytes");
        }
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment memory, int accessRights, int key, AddressType addressType,
                                       long virtualAddress, boolean remoteAccess, VerifyHash verifyHash) {
        checkUsable();
        long bytes = memory == null ? 0 : memory.byteSize();
        return charged(1, 0, bytes, 0, false, () -> manager.register(this, memory, accessRights, key, addressType,
                virtualAddress, remoteAccess, verifyHash));
    }

    @Override
    public MemoryRegion allocateMemoryRegion(long length, int accessRights, int key, AddressType addressType) {
        checkUsable();
        // checked before the RNIC's arena gives memory away, and again atomically with the registration
        charged(1, 0, length, 0, false, () -> null);
        MemorySegment memory = manager.allocate(length);
        return charged(1, 0, length, 0, false, () -> manager.register(this, memory, accessRights, key,
                addressType, memory.address(), (accessRights & io.jrnic.api.AccessRights.REMOTE_MASK) != 0,
                VerifyHash.SHA_256));
    }

    @Override
    public MemoryRegion allocateRegionStag(int maxPblEntries, boolean remoteAccess) {
        checkUsable();
        if (maxPblEntries < 1 || maxPblEntries > manager.maxPblEntries()) {
            return manager.allocateStag(this, maxPblEntries, remoteAccess); // INVALID_LENGTH first
        }
        // a Fast-Register may map up to maxPblEntries pages: that is what the STag reserves
        long reserve = maxPblEntries * manager.pageSize();
        return charged(1, 0, reserve, reserve, false, () -> manager.allocateStag(this, maxPblEntries,
                remoteAccess));
    }

    @Override
    public MemoryRegion registerSharedMemory(int existingStag, int accessRights, int key, AddressType addressType,
                                             long virtualAddress, VerifyHash verifyHash) {
        checkUsable();
        // the memory is already registered: a Shared region counts as a region, not as bytes
        return charged(1, 0, 0, 0, true, () -> manager.registerShared(this, existingStag, accessRights, key,
                addressType, virtualAddress, verifyHash));
    }

    @Override
    public MemoryWindow allocateWindow() {
        checkUsable();
        return charged(0, 1, 0, 0, false, () -> manager.allocateWindow(this));
    }

    /**
     * Runs a memory create verb under the PD's memory quota: checks that {@code regions},
     * {@code windows} and {@code bytes} more fit, creates, and charges the new entry (R-SEC-024).
     * Without a memory quota it only creates.
     */
    private <T extends StagEntry> T charged(int regions, int windows, long bytes, long reserve, boolean shared,
                                            Supplier<T> create) {
        MemoryLedger ledger = manager.ledger;
        if (ledger == null) {
            return create.get();
        }
        synchronized (manager.lock) {
            ResourceQuota q = manager.pdQuota;
            MemoryLedger.Usage u = ledger.usage(this);
            if (regions > 0) {
                checkQuota(u.regions() + (long) regions, q.maxMrs(), "maxMrs");
            }
            if (windows > 0) {
                checkQuota(u.windows() + (long) windows, q.maxMws(), "maxMws");
            }
            if (bytes > 0) {
                checkQuota(u.bytes() + bytes, q.maxRegisteredBytes(), "maxRegisteredBytes");
            }
            T entry = create.get();
            if (entry != null) {
                ledger.add(entry, reserve, shared);
            }
            return entry;
        }
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWrs, int maxSge, int limit) {
        checkUsable();
        return owner.createSharedReceiveQueue(this, maxWrs, maxSge, limit);
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) {
        checkUsable();
        return owner.createQueuePair(this, config);
    }

    @Override
    public void close() {
        owner.deallocate(this);
    }

    @Override
    public String toString() {
        return "PD[" + id + "]";
    }

    /**
     * The regions and windows of an RNIC with a memory quota, each with what it is charged, so that
     * the usage of a PD can be summed when it creates the next one. Usage is computed rather than
     * counted: deallocation and Reregister (which may move a region to another PD, Verbs §7.3.2.3)
     * happen in the {@link MemoryManager}, and an entry is charged to whichever PD owns it now.
     * Computing costs one pass over the RNIC's live entries per create verb, and only with a quota.
     *
     * <p>Thread safety: guarded by {@link MemoryManager#lock}.
     */
    static final class MemoryLedger {
        /** What one PD holds. */
        record Usage(int regions, int windows, long bytes) {
        }

        private record Charge(StagEntry entry, long reserve, boolean shared) {
        }

        private final ArrayList<Charge> charges = new ArrayList<>();

        void add(StagEntry entry, long reserve, boolean shared) {
            charges.add(new Charge(entry, reserve, shared));
        }

        /**
         * What {@code entry} was charged at the least, whatever its length: the PBL an STag
         * allocated for Fast-Register reserves; 0 for other entries and unknown ones.
         *
         * @param entry a region or window
         * @return bytes
         */
        long reserve(StagEntry entry) {
            for (Charge c : charges) {
                if (c.entry == entry) {
                    return c.reserve;
                }
            }
            return 0;
        }

        /**
         * Sums what {@code pd} holds and forgets deallocated entries.
         *
         * @param pd the PD
         * @return its usage
         */
        Usage usage(SoftProtectionDomain pd) {
            int regions = 0;
            int windows = 0;
            long bytes = 0;
            for (int i = charges.size() - 1; i >= 0; i--) {
                Charge c = charges.get(i);
                StagBinding b = c.entry.binding;
                if (b.state() == StagState.FREE) {
                    int last = charges.size() - 1;
                    charges.set(i, charges.get(last));
                    charges.remove(last);
                } else if (c.entry instanceof SoftMemoryWindow w) {
                    if (w.allocationPd == pd) {
                        windows++;
                    }
                } else if (b.pd() == pd) {
                    regions++;
                    bytes += c.shared ? 0 : Math.max(c.reserve, b.length());
                }
            }
            return new Usage(regions, windows, bytes);
        }
    }
}
