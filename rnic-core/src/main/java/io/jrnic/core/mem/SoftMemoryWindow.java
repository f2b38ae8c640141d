package io.jrnic.core.mem;

import io.jrnic.api.MemoryWindow;
import io.jrnic.api.MemoryWindowAttributes;
import io.jrnic.api.StagState;
import io.jrnic.api.VerbsStatus;

/**
 * A memory window in the STag table (Verbs 1.0 §7.10). While Valid its binding names the QP it
 * is bound to and the parent region; while Invalid it belongs to a PD.
 *
 * <p>Thread safety: thread safe; mutations happen in {@link MemoryManager} under its
 * {@link MemoryManager#lock}, which also guards {@link #boundQp}.
 */
public final class SoftMemoryWindow extends StagEntry implements MemoryWindow {
    /** The PD given at allocation, charged for the window's lifetime (Deallocate PD checks it). */
    final SoftProtectionDomain allocationPd;
    /** The QP the window is bound to while Valid, else null. */
    public QpMemoryView boundQp;
    /** Placements in progress into this STag's memory; revocations wait for them (R-SEC-016). */
    final StagBinding.Fence fence = new StagBinding.Fence();

    SoftMemoryWindow(MemoryManager manager, int index, SoftProtectionDomain pd) {
        super(manager, index, StagBinding.invalid(0, pd));
        this.allocationPd = pd;
    }

    @Override
    public MemoryWindowAttributes query() {
        synchronized (manager.lock) {
            manager.checkOpen();
            StagBinding b = binding;
            if (b.state() == StagState.FREE) {
                throw MemoryManager.error(VerbsStatus.INVALID_STAG_INDEX, "window was deallocated");
            }
            return new MemoryWindowAttributes(stag(), b.state(), b.pd().id(), b.qpId(), b.rights(), b.addressType(),
                    b.baseTo(), b.length(), b.parent() == null ? 0 : b.parent().stag());
        }
    }

    @Override
    public void close() {
        manager.deallocate(this);
    }

    @Override
    public String toString() {
        return "MemoryWindow[stag=0x" + Integer.toHexString(stag()) + ", " + binding.state() + "]";
    }
}
