package io.jrnic.core;

import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A protection domain (Verbs 1.0 §5.2). It counts the QPs, S-RQs, regions and windows that use
 * it so that Deallocate PD can refuse while any remains (V-PD-15).
 *
 * <p>Thread safety: thread safe.
 */
final class SoftProtectionDomain implements ProtectionDomain {
    final SoftRnic rnic;
    private final int id;
    final AtomicInteger users = new AtomicInteger();
    volatile boolean closed;

    SoftProtectionDomain(SoftRnic rnic, int id) {
        this.rnic = rnic;
        this.id = id;
    }

    @Override
    public int id() {
        return id;
    }

    void checkUsable() {
        rnic.checkOpen();
        if (closed) {
            throw new VerbsException(VerbsStatus.INVALID_PD_ID, "PD " + id + " was deallocated");
        }
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment memory, int accessRights, int key, AddressType addressType,
                                       long virtualAddress, boolean remoteAccess) {
        checkUsable();
        return rnic.memory.register(this, memory, accessRights, key, addressType, virtualAddress, remoteAccess);
    }

    @Override
    public MemoryRegion allocateMemoryRegion(long length, int accessRights, int key, AddressType addressType) {
        checkUsable();
        MemorySegment memory = rnic.allocateMemory(length, rnic.pageSize());
        return rnic.memory.register(this, memory, accessRights, key, addressType, memory.address(),
                (accessRights & io.jrnic.api.AccessRights.REMOTE_MASK) != 0);
    }

    @Override
    public MemoryRegion allocateRegionStag(int maxPblEntries, boolean remoteAccess) {
        checkUsable();
        return rnic.memory.allocateStag(this, maxPblEntries, remoteAccess);
    }

    @Override
    public MemoryRegion registerSharedMemory(int existingStag, int accessRights, int key, AddressType addressType,
                                             long virtualAddress) {
        checkUsable();
        return rnic.memory.registerShared(this, existingStag, accessRights, key, addressType, virtualAddress);
    }

    @Override
    public MemoryWindow allocateWindow() {
        checkUsable();
        return rnic.memory.allocateWindow(this);
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWrs, int maxSge, int limit) {
        checkUsable();
        return rnic.createSrq(this, maxWrs, maxSge, limit);
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) {
        checkUsable();
        return rnic.createQp(this, config);
    }

    @Override
    public void close() {
        rnic.deallocatePd(this);
    }

    @Override
    public String toString() {
        return "PD[" + id + "]";
    }
}
