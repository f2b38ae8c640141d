package io.jrnic.api;

import java.lang.foreign.MemorySegment;

/**
 * Input modifiers of Modify QP (Verbs 1.0 §6.1.3 Figures 4 and 5, §9.2.5.3). Only the
 * attributes set are changed; which ones are allowed depends on the transition. Reusable via
 * {@link #clear()}.
 *
 * <p>Thread safety: not thread safe.
 */
public final class QueuePairModification {
    /** Marker of an attribute that is not being modified. */
    public static final int UNSET = -1;

    private QpState nextState;
    private int ord = UNSET;
    private int ird = UNSET;
    private int sqDepth = UNSET;
    private int rqDepth = UNSET;
    private int rqLimit = UNSET;
    private boolean armRqLimit;
    private LlpStreamHandle llpStream;
    private MemorySegment streamMessage;

    /** Creates an empty modification (next state must be set). */
    public QueuePairModification() {
    }

    /**
     * Resets every field to "not modified".
     *
     * @return this
     */
    public QueuePairModification clear() {
        nextState = null;
        ord = UNSET;
        ird = UNSET;
        sqDepth = UNSET;
        rqDepth = UNSET;
        rqLimit = UNSET;
        armRqLimit = false;
        llpStream = null;
        streamMessage = null;
        return this;
    }

    /**
     * Next QP state (required, Figure 4).
     *
     * @param nextState the state
     * @return this
     */
    public QueuePairModification nextState(QpState nextState) {
        this.nextState = nextState;
        return this;
    }

    /**
     * New ORD.
     *
     * @param ord the ORD
     * @return this
     */
    public QueuePairModification ord(int ord) {
        this.ord = ord;
        return this;
    }

    /**
     * New IRD.
     *
     * @param ird the IRD
     * @return this
     */
    public QueuePairModification ird(int ird) {
        this.ird = ird;
        return this;
    }

    /**
     * New queue depths ({@link #UNSET} keeps one).
     *
     * @param sqDepth SQ depth
     * @param rqDepth RQ depth
     * @return this
     */
    public QueuePairModification depths(int sqDepth, int rqDepth) {
        this.sqDepth = sqDepth;
        this.rqDepth = rqDepth;
        return this;
    }

    /**
     * New QP RQ Limit (S-RQ attached QPs only).
     *
     * @param rqLimit the limit
     * @return this
     */
    public QueuePairModification rqLimit(int rqLimit) {
        this.rqLimit = rqLimit;
        return this;
    }

    /**
     * Arms (or re-arms) the QP RQ Limit event.
     *
     * @return this
     */
    public QueuePairModification armRqLimit() {
        this.armRqLimit = true;
        return this;
    }

    /**
     * LLP Stream Handle (Idle to RTS only, required there).
     *
     * @param llpStream the handle
     * @return this
     */
    public QueuePairModification llpStream(LlpStreamHandle llpStream) {
        this.llpStream = llpStream;
        return this;
    }

    /**
     * Stream Message Buffer: the last streaming-mode message to send before iWARP mode (Idle to
     * RTS only, optional).
     *
     * @param streamMessage the bytes
     * @return this
     */
    public QueuePairModification streamMessage(MemorySegment streamMessage) {
        this.streamMessage = streamMessage;
        return this;
    }

    /**
     * Next state.
     *
     * @return the state or null
     */
    public QpState nextState() {
        return nextState;
    }

    /**
     * ORD.
     *
     * @return ORD or {@link #UNSET}
     */
    public int ord() {
        return ord;
    }

    /**
     * IRD.
     *
     * @return IRD or {@link #UNSET}
     */
    public int ird() {
        return ird;
    }

    /**
     * SQ depth.
     *
     * @return depth or {@link #UNSET}
     */
    public int sqDepth() {
        return sqDepth;
    }

    /**
     * RQ depth.
     *
     * @return depth or {@link #UNSET}
     */
    public int rqDepth() {
        return rqDepth;
    }

    /**
     * QP RQ Limit.
     *
     * @return limit or {@link #UNSET}
     */
    public int rqLimit() {
        return rqLimit;
    }

    /**
     * Whether to arm the QP RQ Limit.
     *
     * @return the flag
     */
    public boolean armRqLimitRequested() {
        return armRqLimit;
    }

    /**
     * LLP Stream Handle.
     *
     * @return the handle or null
     */
    public LlpStreamHandle llpStream() {
        return llpStream;
    }

    /**
     * Stream Message Buffer.
     *
     * @return the bytes or null
     */
    public MemorySegment streamMessage() {
        return streamMessage;
    }
}
