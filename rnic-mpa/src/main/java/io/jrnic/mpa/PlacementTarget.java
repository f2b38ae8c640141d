package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;

/**
 * A mutable (segment, offset) pair through which a {@link PlacementHandler} names where payload
 * goes, so that no object is created per FPDU.
 *
 * <p>Thread safety: not thread-safe; owned by one deframer.
 */
public final class PlacementTarget {

    /**
     * Brackets every write into a target, so that its owner can revoke the target in the middle of
     * an FPDU (RFC 5040 §8.1.1 (6): once remote access is revoked, no further byte may land).
     * {@link FpduDeframer} calls {@link #enter} before each copy into the target and before the
     * transport reads socket data into it ({@link FpduDeframer#beginDirect()}), and {@link #exit}
     * right after; nothing else happens in between, in particular no callback, so a revoker that
     * waits for sections in progress waits for one memory copy or one socket read at most. Once
     * {@link #enter} refuses, the rest of the FPDU's payload is consumed without being written
     * anywhere (it still counts for the CRC), and the handler learns of it from its own state.
     */
    public interface Guard {
        /**
         * Starts a write into the target.
         *
         * @return false when the target was revoked: then nothing is held and nothing may be written
         */
        boolean enter();

        /** Ends a write started by a successful {@link #enter}. */
        void exit();
    }

    private MemorySegment segment;
    private long offset;
    private Guard guard;

    /** Creates an empty target; the deframer's resolver {@link #set}s it for each FPDU. */
    public PlacementTarget() {
    }

    /**
     * Names the target, never revoked while the FPDU is placed.
     *
     * @param segment the memory that receives the payload
     * @param offset  where the first payload byte goes
     */
    public void set(MemorySegment segment, long offset) {
        set(segment, offset, null);
    }

    /**
     * Names a target that may be revoked while the FPDU is placed.
     *
     * @param segment the memory that receives the payload
     * @param offset  where the first payload byte goes
     * @param guard   brackets each write into it, or {@code null}
     */
    public void set(MemorySegment segment, long offset, Guard guard) {
        this.segment = segment;
        this.offset = offset;
        this.guard = guard;
    }

    /** {@return the guard of the target, or {@code null}} */
    public Guard guard() {
        return guard;
    }

    /** {@return the target segment, or {@code null} if none was set} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return the offset of the first payload byte} */
    public long offset() {
        return offset;
    }

    void clear() {
        segment = null;
        offset = 0;
        guard = null;
    }
}
