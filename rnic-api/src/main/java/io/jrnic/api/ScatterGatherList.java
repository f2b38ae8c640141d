package io.jrnic.api;

/**
 * A reusable Scatter/Gather List (Verbs 1.0 §8.1.3.2): up to a fixed number of SGEs, each
 * (STag, TO, Length), held in primitive arrays so that filling and posting allocate nothing.
 *
 * <p>Thread safety: not thread safe.
 */
public class ScatterGatherList {
    private final int[] stags;
    private final long[] tos;
    private final int[] lengths;
    private int count;

    /**
     * Creates an SGL with room for {@code capacity} SGEs.
     *
     * @param capacity maximum SGEs (at least 1)
     */
    protected ScatterGatherList(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("SGL capacity must be >= 1, was " + capacity);
        }
        stags = new int[capacity];
        tos = new long[capacity];
        lengths = new int[capacity];
    }

    /**
     * Appends an SGE.
     *
     * @param stag   the STag (local key) of the region, or 0 for STag 0
     * @param to     the Tagged Offset of the first byte (VA for VA-based regions, offset for zero-based)
     * @param length bytes (0 to 2^31 - 1)
     * @throws IllegalStateException when the SGL is full
     */
    protected void appendSge(int stag, long to, int length) {
        if (count == stags.length) {
            throw new IllegalStateException("SGL full: capacity " + stags.length);
        }
        stags[count] = stag;
        tos[count] = to;
        lengths[count] = length;
        count++;
    }

    /** Removes every SGE. */
    protected void clearSges() {
        count = 0;
    }

    /**
     * Number of SGEs.
     *
     * @return the count
     */
    public int sgeCount() {
        return count;
    }

    /**
     * STag of SGE {@code i}.
     *
     * @param i index below {@link #sgeCount()}
     * @return the STag
     */
    public int sgeStag(int i) {
        return stags[i];
    }

    /**
     * TO of SGE {@code i}.
     *
     * @param i index
     * @return the TO
     */
    public long sgeTo(int i) {
        return tos[i];
    }

    /**
     * Length of SGE {@code i}.
     *
     * @param i index
     * @return the length
     */
    public int sgeLength(int i) {
        return lengths[i];
    }

    /**
     * Sum of the SGE lengths as an unsigned quantity.
     *
     * @return total bytes
     */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += lengths[i] & 0xFFFF_FFFFL;
        }
        return total;
    }
}
