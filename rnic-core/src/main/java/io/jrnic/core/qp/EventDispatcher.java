package io.jrnic.core.qp;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventHandler;
import io.jrnic.api.CompletionEventHandler;
import io.jrnic.api.Rnic;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;

/**
 * Delivers asynchronous events (Verbs 1.0 §8.3.3) and completion notifications (§8.2.5) outside
 * every internal lock: producers enqueue while holding their locks, and each public entry point
 * drains after releasing them. A single thread drains at a time, so events reach the handlers in
 * the order they were raised; a handler may call back into the RNIC (its own events are
 * delivered by the outer drain loop).
 *
 * <p>Thread safety: thread safe.
 */
public final class EventDispatcher {
    /** The RNIC the handlers are told about (Verbs §8.3.3: the handler receives the RNIC handle). */
    private final Rnic rnic;
    /** The completion handler registered under a CQ's handler id, or null. */
    private final IntFunction<CompletionEventHandler> completionHandlers;
    private final ConcurrentLinkedQueue<Object> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private volatile AsyncEventHandler asyncHandler;

    public EventDispatcher(Rnic rnic, IntFunction<CompletionEventHandler> completionHandlers) {
        this.rnic = rnic;
        this.completionHandlers = completionHandlers;
    }

    public void asyncHandler(AsyncEventHandler handler) {
        this.asyncHandler = handler;
    }

    /**
     * Queues an asynchronous event; it is lost if no handler is set at delivery (§8.3.3).
     *
     * @param event the event
     */
    void raise(AsyncEvent event) {
        pending.add(event);
    }

    /**
     * Queues a completion notification of an armed CQ.
     *
     * @param cq the CQ
     */
    void notify(SoftCompletionQueue cq) {
        pending.add(cq);
    }

    /**
     * Queues a task to run outside the locks, in order with the events (a connection's closed stage).
     *
     * @param task the task
     */
    void run(Runnable task) {
        pending.add(task);
    }

    /** Delivers everything queued; call only while holding no RNIC lock. */
    public void drain() {
        while (!pending.isEmpty()) {
            if (!draining.compareAndSet(false, true)) {
                return; // the draining thread will pick our items up
            }
            try {
                Object item;
                while ((item = pending.poll()) != null) {
                    deliver(item);
                }
            } finally {
                draining.set(false);
            }
        }
    }

    private void deliver(Object item) {
        if (item instanceof AsyncEvent event) {
            AsyncEventHandler handler = asyncHandler;
            if (handler != null) {
                handler.onAsyncEvent(rnic, event);
            }
        } else if (item instanceof Runnable task) {
            task.run();
        } else if (item instanceof SoftCompletionQueue cq && !cq.destroyed()) {
            CompletionEventHandler handler = completionHandlers.apply(cq.handlerId());
            if (handler != null) {
                handler.onCompletionEvent(rnic, cq);
            }
        }
    }
}
