package io.jrnic.core.wq;

import io.jrnic.api.ScatterGatherList;

/**
 * What send and receive WQEs share: the scatter/gather list copied from the consumer's work
 * request at post time (Verbs 1.0 §8.1.3.2), in preallocated primitive arrays so that posting
 * allocates nothing. The engine reads the arrays directly.
 *
 * <p>Thread safety: written by the posting thread under the queue's lock, then read by the engine
 * after the hand-off; not thread safe by itself.
 */
public abstract sealed class WorkQueueElement permits SendWqe, ReceiveWqe {
    public final int[] stags;
    public final long[] tos;
    public final int[] lengths;
    public int sgeCount;
    /** Sum of the SGE lengths, computed once at the copy (the engine reads it per message). */
    private long totalLength;

    WorkQueueElement(int maxSge) {
        stags = new int[maxSge];
        tos = new long[maxSge];
        lengths = new int[maxSge];
    }

    /** Copies the SGEs of a work request (its count was validated against the queue's maximum). */
    final void copySges(ScatterGatherList sgl) {
        sgeCount = sgl.sgeCount();
        long total = 0;
        for (int i = 0; i < sgeCount; i++) {
            stags[i] = sgl.sgeStag(i);
            tos[i] = sgl.sgeTo(i);
            int length = sgl.sgeLength(i);
            lengths[i] = length;
            total += length & 0xFFFF_FFFFL;
        }
        totalLength = total;
    }

    /**
     * Number of SGEs.
     *
     * @return the count
     */
    public final int sgeCount() {
        return sgeCount;
    }

    /**
     * STag of SGE {@code i}.
     *
     * @param i index below {@link #sgeCount()}
     * @return the STag
     */
    public final int sgeStag(int i) {
        return stags[i];
    }

    /**
     * TO of SGE {@code i}.
     *
     * @param i index
     * @return the TO
     */
    public final long sgeTo(int i) {
        return tos[i];
    }

    /**
     * Length of SGE {@code i}, an unsigned 32-bit value.
     *
     * @param i index
     * @return the length
     */
    public final int sgeLength(int i) {
        return lengths[i];
    }

    /**
     * Sum of the SGE lengths: the message length of a send, the capacity of a receive
     * (Verbs §8.1.3.2).
     *
     * @return bytes
     */
    public final long totalLength() {
        return totalLength;
    }
}
