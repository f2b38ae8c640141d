package io.jrnic.core.wq;

/**
 * A FIFO of send WQEs linked through {@link SendWqe#txNext}, the WQEs themselves being the nodes
 * (nothing is allocated): the engine's inbox, its queue of SQ messages and its list of messages
 * awaiting the LLP, and the wire WQEs of one pass of the QP's SQ processing. A chain taken out of it
 * stays linked through {@code txNext} and ends at a null.
 *
 * <p>Thread safety: none; its owner's lock or thread.
 */
public final class SendWqeChain {
    private SendWqe head;
    private SendWqe tail;

    /** {@return whether the chain holds no WQE} */
    public boolean isEmpty() {
        return head == null;
    }

    /** {@return the oldest WQE, still in the chain, or null} */
    public SendWqe first() {
        return head;
    }

    /**
     * Appends one WQE (its {@code txNext} is cleared).
     *
     * @param w the WQE, in no chain
     */
    public void add(SendWqe w) {
        w.txNext = null;
        addAll(w, w);
    }

    /**
     * Appends a chain.
     *
     * @param first its first WQE
     * @param last  its last WQE, whose {@code txNext} is null
     */
    public void addAll(SendWqe first, SendWqe last) {
        if (tail == null) {
            head = first;
        } else {
            tail.txNext = first;
        }
        tail = last;
    }

    /** {@return the oldest WQE, removed (its {@code txNext} cleared), or null} */
    public SendWqe poll() {
        SendWqe w = head;
        if (w != null) {
            head = w.txNext;
            if (head == null) {
                tail = null;
            }
            w.txNext = null;
        }
        return w;
    }

    /**
     * Removes the WQEs from the oldest up to and including {@code last}.
     *
     * @param last a WQE of this chain
     * @return the first of them; they stay linked, up to {@code last}, whose {@code txNext} is null
     */
    public SendWqe takeThrough(SendWqe last) {
        SendWqe first = head;
        head = last.txNext;
        if (head == null) {
            tail = null;
        }
        last.txNext = null;
        return first;
    }

    /** {@return every WQE, removed: the first, still linked to the others, or null} */
    public SendWqe takeAll() {
        SendWqe first = head;
        head = null;
        tail = null;
        return first;
    }

    /** Forgets every WQE (their links are left as they are). */
    public void clear() {
        head = null;
        tail = null;
    }
}
