package io.jrnic.api;

/**
 * A completion queue (Verbs 1.0 §5.3, §9.2.3, §9.3.2): a preallocated ring of completion
 * entries. Polling copies entries into caller-owned {@link WorkCompletion} objects and allocates
 * nothing.
 *
 * <p>Thread safety: all methods are thread safe. Polling from several threads is allowed (each
 * entry is returned exactly once) but FIFO order is only observable with a single consumer.
 */
public interface CompletionQueue extends AutoCloseable {
    /**
     * Number of entries allocated (Query CQ, Verbs §9.2.3.2).
     *
     * @return the capacity
     */
    int capacity();

    /**
     * The Completion Event Handler Identifier (Query CQ).
     *
     * @return the identifier, 0 for none
     */
    int handlerId();

    /**
     * Poll for Completion (Verbs §9.3.2.1): fills {@code out} from the head of the CQ.
     *
     * @param out reusable completion object
     * @return true when a completion was returned, false when the CQ is empty
     */
    boolean poll(WorkCompletion out);

    /**
     * Batch poll: fills {@code out[offset .. offset+max)} from the head of the CQ.
     *
     * @param out    caller-owned completion objects (non-null in the range)
     * @param offset first index to fill
     * @param max    maximum number to return
     * @return number of completions returned (0 when empty)
     */
    int poll(WorkCompletion[] out, int offset, int max);

    /**
     * Batch poll into the whole array.
     *
     * @param out caller-owned completion objects
     * @return number of completions returned
     */
    default int poll(WorkCompletion[] out) {
        return poll(out, 0, out.length);
    }

    /**
     * Poll for Completion, waiting up to {@code timeout} for one (the blocking wait of librdmacm's
     * {@code rdma_get_send_comp} / {@code ibv_get_cq_event}, without arming or a handler). Wakes as
     * soon as a completion is added. Allocates nothing.
     *
     * <p>It does not wait for completions that cannot come: when the CQ is empty and a queue pair
     * using it has failed (is in Error: its outstanding work requests were all flushed to the CQ
     * and reaped), it throws INVALID_QP_STATE, at once or as soon as the queue pair fails. Destroy
     * that queue pair (or Modify it back to Idle) to wait on the CQ again. A graceful close
     * (Idle) is not a failure: {@link Connection#disconnect()} reports that.
     *
     * <p>Must not be called on an event loop of the RNIC (from a callback, see {@link Rnic}).
     *
     * @param out     reusable completion object
     * @param timeout how long to wait at most (0 or less: do not wait)
     * @param unit    the unit of {@code timeout}
     * @return true when a completion was returned, false when the timeout elapsed first
     * @throws InterruptedException if the thread is interrupted while waiting (or on entry)
     * @throws VerbsException       INVALID_QP_STATE when a queue pair of the CQ failed and the CQ
     *                              is empty; INVALID_CQ_HANDLE when the CQ is destroyed or
     *                              INVALID_RNIC_HANDLE when the RNIC is closed, before or while
     *                              waiting
     */
    boolean poll(WorkCompletion out, long timeout, java.util.concurrent.TimeUnit unit) throws InterruptedException;

    /**
     * Waits for the next completion without a time limit: {@link #poll(WorkCompletion, long,
     * java.util.concurrent.TimeUnit)} without the timeout (it still throws when a queue pair of the
     * CQ fails, or when the CQ is destroyed or the RNIC closed).
     *
     * @param out reusable completion object, filled on return
     * @return {@code out}
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws VerbsException       as {@link #poll(WorkCompletion, long, java.util.concurrent.TimeUnit)}
     */
    WorkCompletion take(WorkCompletion out) throws InterruptedException;

    /**
     * Request Completion Notification (Verbs §8.2.5, §9.3.2.2): one-shot arming; completions
     * already on the CQ do not trigger it; arming and insertion are atomic (no lost wake-up).
     *
     * @param type next completion or next solicited completion
     * @throws VerbsException INVALID_NOTIFY_TYPE for null, INVALID_CQ_HANDLE after destroy
     */
    void requestNotification(NotifyType type);

    /**
     * Modify CQ (resize, Verbs §5.3.3): atomic, loses no completion.
     *
     * @param minEntries new minimum number of entries
     * @return entries allocated
     * @throws VerbsException SHRINK_TOO_MANY_ELEMENTS, CQ_DEPTH_EXCEEDS_CAPABILITY
     */
    int resize(int minEntries);

    /**
     * Destroy CQ (Verbs §5.3.4).
     *
     * @throws VerbsException CQ_IN_USE while any work queue is associated (the CQ is kept)
     */
    @Override
    void close();
}
