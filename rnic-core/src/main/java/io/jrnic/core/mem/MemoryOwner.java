package io.jrnic.core.mem;

import java.lang.foreign.MemorySegment;

/**
 * What the memory classes ask of the RNIC that owns them: whether it is still open, and memory
 * from its arena. The memory classes own this interface and the RNIC implements it, so that they
 * depend on nothing above them (issue 10: one-way layers, notifications go upward through
 * interfaces the lower layer owns).
 *
 * <p>Thread safety: implementations are thread safe; {@link #checkOpen()} is called under the
 * memory lock ({@link MemoryManager#lock}), so it must not take a lock of its own that is ever held
 * while the memory lock is taken.
 */
public interface MemoryOwner {
    /**
     * Throws when the RNIC is closed: every memory verb fails then (Verbs 1.0 §9.2.1.3).
     *
     * @throws io.jrnic.api.VerbsException INVALID_RNIC_HANDLE when the RNIC is closed
     */
    void checkOpen();

    /**
     * Memory from the RNIC's arena, freed when the RNIC closes ({@link io.jrnic.api.Rnic#allocateMemory}).
     *
     * @param byteSize  bytes
     * @param alignment alignment in bytes
     * @return the memory
     * @throws io.jrnic.api.VerbsException INVALID_RNIC_HANDLE when the RNIC is closed
     */
    MemorySegment allocateMemory(long byteSize, long alignment);
}
