package io.jrnic.core;

/**
 * An STag table entry: a memory region or a memory window with its 24-bit index and its current
 * {@link StagBinding}. State changes happen under the RNIC's memory lock; reads of
 * {@link #binding} are lock free.
 *
 * <p>Thread safety: thread safe (volatile binding, mutations under {@link SoftRnic#memoryLock}).
 */
abstract sealed class StagEntry permits SoftMemoryRegion, SoftMemoryWindow {
    final SoftRnic rnic;
    final int index;
    volatile StagBinding binding;

    StagEntry(SoftRnic rnic, int index, StagBinding binding) {
        this.rnic = rnic;
        this.index = index;
        this.binding = binding;
    }

    /**
     * The current STag: index &lt;&lt; 8 | key (Verbs §7.2).
     *
     * @return the STag
     */
    public final int stag() {
        return index << 8 | binding.key();
    }
}
