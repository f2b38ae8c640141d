package io.jrnic.core.mem;

import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryRegionAttributes;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.StagState;
import io.jrnic.api.VerifyHash;

import java.lang.foreign.MemorySegment;

/**
 * A memory region in the STag table (Verbs 1.0 §7.1 to §7.9). Besides its {@link StagBinding}
 * it keeps what survives invalidation (§7.8): the Remote Access Flag and the PBL size, plus
 * whether it is Shared and how many windows are bound to it.
 *
 * <p>Thread safety: thread safe; mutations happen in {@link MemoryManager} under its
 * {@link MemoryManager#lock}, which also guards the fields other than the binding.
 */
public final class SoftMemoryRegion extends StagEntry implements MemoryRegion {
    boolean shared;
    boolean remoteAccess;
    int maxPblEntries;
    public int boundWindows;
    /** Placements in progress into this STag's memory; revocations wait for them (R-SEC-016). */
    public final StagBinding.Fence fence = new StagBinding.Fence();

    SoftMemoryRegion(MemoryManager manager, int index, StagBinding binding, boolean remoteAccess, int maxPblEntries) {
        super(manager, index, binding);
        this.remoteAccess = remoteAccess;
        this.maxPblEntries = maxPblEntries;
    }

    @Override
    public MemorySegment memory() {
        return binding.memory();
    }

    @Override
    public MemoryRegionAttributes query() {
        synchronized (manager.lock) {
            manager.checkOpen();
            StagBinding b = binding;
            if (b.state() == StagState.FREE) {
                throw MemoryManager.error(io.jrnic.api.VerbsStatus.INVALID_STAG_INDEX, "region was deallocated");
            }
            return new MemoryRegionAttributes(stag(), b.state(), shared, b.pd().id(), remoteAccess, b.rights(),
                    b.addressType(), b.baseTo(), b.length(), maxPblEntries, boundWindows, b.verifyHash());
        }
    }

    @Override
    public int reregister(ProtectionDomain pd, MemorySegment memory, int accessRights, int key,
                          AddressType addressType, long virtualAddress, boolean remoteAccess, VerifyHash verifyHash) {
        return manager.reregister(this, pd, memory, accessRights, key, addressType, virtualAddress, remoteAccess,
                verifyHash);
    }

    @Override
    public void close() {
        manager.deallocate(this);
    }

    @Override
    public String toString() {
        return "MemoryRegion[stag=0x" + Integer.toHexString(stag()) + ", " + binding.state() + "]";
    }
}
