package io.jrnic.bench.rping;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One soft RNIC with one protection domain, shared by the {@link RpingSession}s of a client or a
 * server: it routes completion notifications (by CQ) and affiliated asynchronous events (by QP) to
 * the session they concern.
 *
 * <p>Thread safety: thread safe; sessions register and leave from any thread.
 */
final class RpingNode implements AutoCloseable {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final Rnic rnic;
    private final ProtectionDomain pd;
    private final int completionHandler;
    private final Map<CompletionQueue, RpingSession> byCq = new ConcurrentHashMap<>();
    private final Map<QueuePair, RpingSession> byQp = new ConcurrentHashMap<>();

    /**
     * Opens the RNIC.
     *
     * @param role "client" or "server", part of the RNIC's name
     */
    RpingNode(String role) {
        rnic = Rnic.open(new RnicConfig().name("rping-" + role + "-" + NAMES.incrementAndGet()));
        rnic.setAsyncEventHandler((r, event) -> onEvent(event));
        pd = rnic.allocatePd();
        completionHandler = rnic.setCompletionEventHandler(0, (r, cq) -> {
            RpingSession s = byCq.get(cq);
            if (s != null) {
                s.signal();
            }
        });
    }

    private void onEvent(AsyncEvent event) {
        if (event.resource() instanceof QueuePair qp) {
            RpingSession s = byQp.get(qp);
            if (s != null) {
                s.onEvent(event);
            }
        }
    }

    /** @return the RNIC */
    Rnic rnic() {
        return rnic;
    }

    /** @return the protection domain every session uses */
    ProtectionDomain pd() {
        return pd;
    }

    /** @return the completion event handler identifier for the sessions' CQs */
    int completionHandler() {
        return completionHandler;
    }

    void register(RpingSession session, CompletionQueue cq, QueuePair qp) {
        byCq.put(cq, session);
        byQp.put(qp, session);
    }

    void unregister(CompletionQueue cq, QueuePair qp) {
        byCq.remove(cq);
        byQp.remove(qp);
    }

    /** Closes the RNIC (connections, listeners, memory). Must not run on an event loop. */
    @Override
    public void close() {
        rnic.close();
    }
}
