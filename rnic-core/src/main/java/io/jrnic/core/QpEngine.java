package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.rdmap.IwarpErrors;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The per-QP iWARP protocol engine: the {@link QpTransport} a {@link SoftQueuePair} drives, running
 * RDMAP (RFC 5040) over DDP (RFC 5041) over an {@link FpduLink} (MPA, RFC 5044). Shaped like Linux
 * siw: a transmit state machine ({@link QpTxEngine}: SQ messages, Read Responses, the Terminate), a
 * receive state machine ({@link QpRxEngine}: validation, direct placement, delivery), the IRD and
 * ORD queues ({@link InboundReadQueue}, {@link OutstandingReads}) and a first-error latch
 * ({@link TerminateLatch}).
 *
 * <pre>
 *  QP (any thread, under its lock)          engine (the link's event loop)
 *  transmit/terminate/close/reset ──inbox──► run(): drain inbox, Terminate?, TX pump (≤ 16 FPDUs)
 *                                             ├─► FpduLink.send(header, payload slice) ... flush
 *  Upcalls ◄── sendCompleted (onSent / last   ◄─┤ Listener: onWritable, onSent, onClosed
 *              Read Response placed), receive  ◄─┤ QpRxEngine: PlacementHandler (header first)
 *              Completed, terminateReceived, remoteError, closeCompleted, connectionFailed ...
 * </pre>
 *
 * Everything protocol-related runs on {@link FpduLink#executor()}. The QP's calls only enqueue
 * (under a short inbox lock, no allocation) and schedule the engine; upcalls are made from the
 * event loop with no engine lock held, so the QP may call back into the engine synchronously.
 * Fairness among QPs sharing a loop: one run sends at most {@link #FPDU_BUDGET} FPDUs and then
 * reschedules itself behind the other tasks of the loop.
 *
 * <p>Thread safety: the {@link QpTransport} methods may be called from any thread; everything else
 * is confined to the link's executor.
 */
public final class QpEngine implements QpTransport {
    /** FPDUs sent per run before the engine yields the event loop to other QPs. */
    static final int FPDU_BUDGET = 16;

    final FpduLink link;
    final Executor executor;
    final RdmapFeatures features = RdmapFeatures.RFC_5040;
    final TerminateLatch latch = new TerminateLatch();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable runTask = this::run;
    private final FpduLink.Listener listener = new LinkListener();

    Upcalls upcalls;
    SoftQueuePair qp;
    StagTable stags;
    QpTxEngine tx;
    QpRxEngine rx;

    // inbox: written by the QP under its lock, drained by the loop (guarded by inboxLock)
    private final Object inboxLock = new Object();
    private SendWqe inboxHead;
    private SendWqe inboxTail;
    private TerminateMessage terminateRequest;
    private volatile boolean closeRequested;
    private volatile boolean resetRequested;
    private volatile boolean established = true;

    // loop state
    private boolean started;
    private boolean linkClosed;
    private boolean closing;
    private boolean terminating;
    private boolean dead;
    /** Set while a receive completion is being reported (the Terminate of a failed invalidation). */
    boolean deliveryContext;

    /**
     * Creates an engine for one connected QP.
     *
     * @param link the established FPDU link
     */
    public QpEngine(FpduLink link) {
        if (link == null) {
            throw new IllegalArgumentException("link must not be null");
        }
        this.link = link;
        this.executor = link.executor();
    }

    @Override
    public boolean established() {
        return established;
    }

    /**
     * Associates the engine with its QP and starts the link on its event loop. A stream message is
     * not supported by an FPDU link (the connection manager owns the MPA startup frames) and is
     * ignored.
     *
     * @throws IllegalArgumentException if the upcalls do not belong to a jrnic QP, or on a second start
     */
    @Override
    public void start(Upcalls upcalls, MemorySegment streamMessage) {
        SoftQueuePair owner = SoftQueuePair.owner(upcalls);
        if (owner == null) {
            throw new IllegalArgumentException("QpEngine needs the upcalls of a jrnic queue pair");
        }
        if (this.upcalls != null) {
            throw new IllegalArgumentException("QpEngine already started");
        }
        this.upcalls = upcalls;
        this.qp = owner;
        this.stags = owner.rnic().stags;
        this.tx = new QpTxEngine(this, owner.rnic().config().maxOrd(), owner.rnic().config().maxIrd());
        this.rx = new QpRxEngine(this);
        executor.execute(this::startOnLoop);
    }

    private void startOnLoop() {
        if (resetRequested) {
            dead = true;
            link.abort();
            return;
        }
        tx.resetMsns(link.firstOutboundSendMsn(), link.firstOutboundReadRequestMsn());
        rx.prime(link.firstInboundSendMsn(), link.firstInboundReadRequestMsn());
        link.start(rx, listener);
        started = true;
        run();
    }

    /**
     * Hands a wire WQE to the TX engine in SQ order. Its SGEs are resolved now, at its SQ position,
     * so that later memory operations of the same SQ (Bind, Fast-Register, Invalidate Local STag)
     * cannot change what it sends (Verbs §8.2.2: WRs take effect in SQ order).
     */
    @Override
    public void transmit(SendWqe wqe) {
        if (!wqe.inline && !wqe.opcode.isRead()) {
            for (int i = 0; i < wqe.sgeCount; i++) {
                if (wqe.lengths[i] != 0) {
                    wqe.sgeMemory[i] = stags.resolveMemory(wqe.stags[i], wqe.tos[i]);
                    wqe.sgeOffset[i] = stags.resolveOffset(wqe.stags[i], wqe.tos[i]);
                }
            }
        }
        wqe.txNext = null;
        synchronized (inboxLock) {
            if (inboxTail == null) {
                inboxHead = wqe;
            } else {
                inboxTail.txNext = wqe;
            }
            inboxTail = wqe;
        }
        schedule();
    }

    @Override
    public void close() {
        closeRequested = true;
        schedule();
    }

    @Override
    public void terminate(TerminateMessage message) {
        if (deliveryContext && rx != null && !latch.isSet()
                && message.terminateControl() != TerminateMessage.LOCAL_CATASTROPHIC) {
            // the QP failed the receive being completed (e.g. Send with Invalidate, RFC 5040 §5.3):
            // the Terminate carries that Send's DDP header (RFC 5040 §7.1 case 2)
            rx.latchDelivered(errorFor(message.terminateControl()));
        }
        synchronized (inboxLock) {
            if (terminateRequest == null) {
                terminateRequest = message;
            }
        }
        closeRequested = true;
        schedule();
    }

    @Override
    public void reset() {
        resetRequested = true;
        established = false;
        schedule();
    }

    @Override
    public boolean remoteReadsInProgress() {
        QpTxEngine t = tx;
        return t != null && t.ird.size() > 0;
    }

    /**
     * Payload bytes the receive path copied from link buffers into their target (staging copies).
     *
     * @return bytes (read on the event loop for an exact value)
     */
    public long bytesCopied() {
        QpRxEngine r = rx;
        return r == null ? 0 : r.bytesCopied;
    }

    /**
     * Payload bytes the receive path handed to the link as direct placement targets.
     *
     * @return bytes (read on the event loop for an exact value)
     */
    public long bytesPlacedDirect() {
        QpRxEngine r = rx;
        return r == null ? 0 : r.bytesPlacedDirect;
    }

    // ---- loop ---------------------------------------------------------------------------------

    void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            executor.execute(runTask);
        }
    }

    private void run() {
        scheduled.set(false);
        if (!started || dead) {
            return;
        }
        if (resetRequested) {
            die();
            link.abort();
            return;
        }
        SendWqe w;
        TerminateMessage term;
        synchronized (inboxLock) {
            w = inboxHead;
            inboxHead = null;
            inboxTail = null;
            term = terminateRequest;
        }
        while (w != null) {
            SendWqe next = w.txNext;
            tx.enqueue(w);
            w = next;
        }
        if (term != null && !terminating) {
            terminating = true;
            closing = true;
            rx.stop(); // RFC 5040 §5.4: nothing more is processed on the stream
            if (linkClosed) {
                upcalls.closeCompleted();
                return;
            }
            tx.sendTerminate(errorFor(term.terminateControl())); // V-TERM-2: after the last whole segment
            link.flush();
            link.close(); // R-TERM-034: graceful close so the Terminate is delivered
            return;
        }
        if (terminating) {
            return; // R-TERM-026: nothing after the Terminate
        }
        if (!linkClosed) {
            int sent = tx.pump(FPDU_BUDGET);
            if (sent > 0) {
                link.flush();
            }
            if (dead) {
                return;
            }
            if (tx.hasWork() && !tx.blocked) {
                schedule();
            }
        }
        if (closeRequested && !closing) {
            // Verbs §6.2.3: a graceful close comes with an empty SQ; after a received Terminate
            // (V-QPS-38) whatever is still queued is not sent (R-TERM-027) and the QP flushes it
            closing = true;
            rx.closing = true;
            tx.clear();
            if (linkClosed) {
                upcalls.closeCompleted();
            } else {
                link.close();
            }
        }
    }

    /** The Terminate's error: the latched one when it is what the QP sends, else the QP's code. */
    IwarpError errorFor(int controlBits) {
        IwarpError latched = latch.error();
        if (latched != null && latched.terminateCodeBits() == controlBits) {
            return latched;
        }
        IwarpError e = IwarpErrors.fromCodeBits(controlBits);
        return e != null ? e : new RawError(controlBits);
    }

    /**
     * Latches a receive-path error and asks the QP to terminate (Verbs §8.3.3 Figure 24); the QP
     * hands the message back through {@link #terminate}.
     */
    void remoteError(IwarpError error, AsyncEventType event) {
        TerminateMessage m = new TerminateMessage(error.terminateCodeBits(), true, latch.headerBytes());
        upcalls.remoteError(event, m);
    }

    /** An error while building an outbound message (V-TERM-8): the WQE fails, the QP terminates. */
    void localFailure(SendWqe w) {
        upcalls.sendCompleted(w, WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR);
    }

    private void die() {
        dead = true;
        established = false;
        if (tx != null) {
            tx.clear();
        }
        if (rx != null) {
            rx.stop();
        }
    }

    boolean closeAsked() {
        return closeRequested;
    }

    private final class LinkListener implements FpduLink.Listener {
        @Override
        public void onWritable() {
            tx.blocked = false;
            schedule();
        }

        @Override
        public void onSent(long token) {
            if (!dead) {
                tx.onSent(token);
            }
        }

        @Override
        public void onClosed(FpduLink.Closure closure) {
            linkClosed = true;
            established = false;
            if (dead) {
                return;
            }
            switch (closure) {
                case LOCAL_ABORT -> die();
                case LOCAL_CLOSE, REMOTE_CLOSE -> {
                    if (closing) {
                        die();
                        upcalls.closeCompleted();
                    } else if (closeRequested) {
                        schedule(); // the close request is served by run(), which reports the end
                    } else if (closure == FpduLink.Closure.REMOTE_CLOSE) {
                        upcalls.remoteClosed(); // Verbs §6.2.2.2: FIN without a Terminate
                    }
                }
                default -> {
                    // RFC 5040 §6.2.1 LLP abortive termination: everything outstanding is flushed by the QP
                    die();
                    upcalls.connectionFailed(closure == FpduLink.Closure.REMOTE_RESET);
                }
            }
        }
    }

    /** A Terminate code the registries do not name (e.g. a Verbs-only value): sent as it is. */
    record RawError(int bits) implements IwarpError {
        @Override
        public TerminateLayer layer() {
            for (TerminateLayer l : TerminateLayer.values()) {
                if (l.wireValue() == (bits >>> 12 & 0xF)) {
                    return l;
                }
            }
            return TerminateLayer.RDMAP;
        }

        @Override
        public int errorType() {
            return bits >>> 8 & 0xF;
        }

        @Override
        public int errorCode() {
            return bits & 0xFF;
        }

        @Override
        public String describe() {
            return "Terminate code 0x" + Integer.toHexString(bits);
        }
    }

    @Override
    public String toString() {
        return "QpEngine[" + (qp == null ? "unbound" : qp) + "]";
    }
}
