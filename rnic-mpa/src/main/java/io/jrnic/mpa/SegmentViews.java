package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A small cache of whole-segment {@link ByteBuffer} views, matched by segment identity, for the
 * NIO APIs that take buffers (CRC32C, socket reads and writes). {@code asByteBuffer()} makes a new
 * object per call; the data path alternates between a few segments (framing bytes, reassembly
 * buffer, registered regions), so a handful of cached views keeps it allocation-free. The caller
 * sets position and limit of a returned view before each use. Replacement is round robin.
 *
 * <p>Thread safety: not thread safe; one per owner (a connection's event loop, a CRC instance).
 */
public final class SegmentViews {
    private final MemorySegment[] segments;
    private final ByteBuffer[] views;
    private int nextVictim;

    /**
     * Creates a cache.
     *
     * @param capacity how many segment views it keeps, at least 1
     */
    public SegmentViews(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("view cache capacity must be >= 1, was " + capacity);
        }
        segments = new MemorySegment[capacity];
        views = new ByteBuffer[capacity];
    }

    /**
     * The view of the whole segment, created on first use. The segment must be at most 2 GiB
     * ({@link MemorySegment#asByteBuffer()}).
     *
     * @param segment the segment
     * @return its cached view; position and limit are whatever the last user left
     */
    public ByteBuffer of(MemorySegment segment) {
        for (int i = 0; i < segments.length; i++) {
            if (segments[i] == segment) {
                return views[i];
            }
        }
        int i = nextVictim;
        nextVictim = (i + 1) % segments.length;
        segments[i] = segment;
        views[i] = segment.asByteBuffer();
        return views[i];
    }

    /** Drops every view, so that no segment (and its arena's memory) is kept reachable. */
    public void clear() {
        Arrays.fill(segments, null);
        Arrays.fill(views, null);
    }
}
