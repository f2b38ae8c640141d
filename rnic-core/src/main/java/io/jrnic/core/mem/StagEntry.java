package io.jrnic.core.mem;

/**
 * An STag table entry: a memory region or a memory window with its 24-bit index and its current
 * {@link StagBinding}. State changes happen under the RNIC's memory lock; reads of
 * {@link #binding} are lock free.
 *
 * <p>Thread safety: thread safe (volatile binding, mutations under {@link MemoryManager#lock}).
 */
public abstract sealed class StagEntry permits SoftMemoryRegion, SoftMemoryWindow {
    /** The memory manager of the RNIC the entry belongs to: its verbs and its lock. */
    final MemoryManager manager;
    public final int index;
    public volatile StagBinding binding;

    StagEntry(MemoryManager manager, int index, StagBinding binding) {
        this.manager = manager;
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
