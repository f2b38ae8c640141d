package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;

/**
 * A mutable (segment, offset) pair through which a {@link PlacementHandler} names where payload
 * goes, so that no object is created per FPDU.
 *
 * <p>Thread safety: not thread-safe; owned by one deframer.
 */
public final class PlacementTarget {

    private MemorySegment segment;
    private long offset;

    /**
     * Names the target.
     *
     * @param segment the memory that receives the payload
     * @param offset  where the first payload byte goes
     */
    public void set(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
    }

    /** The target segment, or {@code null} if none was set. */
    public MemorySegment segment() {
        return segment;
    }

    /** The offset of the first payload byte. */
    public long offset() {
        return offset;
    }

    void clear() {
        segment = null;
        offset = 0;
    }
}
