package io.jrnic.core.engine;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.link.DrivableExecutor;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.mem.StagBinding;
import io.jrnic.core.mem.StagTable;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.core.wq.SendWqeChain;
import io.jrnic.rdmap.IwarpErrors;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The per-QP iWARP protocol engine: the {@link QpTransport} a queue pair drives, running
 * RDMAP (RFC 5040) over DDP (RFC 5041) over an {@link FpduLink} (MPA, RFC 5044). Shaped like Linux
 * siw: a transmit state machine ({@link QpTxEngine}: SQ messages, Read Responses, the Terminate), a
 * receive state machine ({@link QpRxEngine}: validation, direct placement, delivery), the IRD and
 * ORD queues ({@link InboundReadQueue}, {@link OutstandingReads}) and a first-error latch
 * ({@link TerminateLatch}).
 *
 * <pre>
 *  QP (any thread, under its lock)          engine (the link's event loop)
 *  transmit/terminate/close/reset ──inbox──► doWork(): inbox, Terminate?, TX pump (≤ 16 FPDUs)
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
 * reschedules itself behind the other tasks of the loop. A run that stops at its budget with more
 * to send leaves the flush to the next ({@link FpduLink#flushMoreFollows()}): a post list of small
 * messages leaves in one TCP write rather than one per run.
 *
 * <p>Thread safety: the {@link QpTransport} methods may be called from any thread; everything else
 * is confined to the link's executor.
 */
public final class QpEngine implements QpTransport {
    /** FPDUs sent per run before the engine yields the event loop to other QPs. */
    public static final int FPDU_BUDGET = 16;
    private static final Logger LOG = LoggerFactory.getLogger(QpEngine.class);
    /** ConnectionSettings' default closeTimeout, for an engine built without one. */
    private static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Slack on top of closeTimeout when Close RNIC waits for a Terminate's graceful close: the link's
     * own timer starts a little later (at the engine's turn) and resets the connection at its expiry.
     */
    private static final long CLOSE_WAIT_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(1);

    public final FpduLink link;
    public final Executor executor;
    /** How long the link's graceful close may take (ConnectionSettings.closeTimeout). */
    private final long closeTimeoutNanos;
    /** ConnectionSettings.progressTimeout: no progress this long with work outstanding = lost; 0 = none. */
    private final long progressTimeoutNanos;
    /** The progress check, allocated once; runs on the loop every quarter of the timeout. */
    private final Runnable progressCheck = this::checkProgress;
    /** The link's periodic timer running {@link #progressCheck}, or null (no timeout, or stopped). */
    private Future<?> progressTimer;
    /** Signs of progress the link reports to the listener (onSent, onWritable) and WQEs taken in. */
    private long progressEvents;
    /** The progress sum the last check saw. */
    private long progressSeen = -1;
    /** When the last check saw progress, no outstanding work, or a pause of our own. */
    private long stalledSince;
    /** Completed when the link reports its closure (once, on the loop); allocated once per connection. */
    private final CompletableFuture<Void> linkEnded = new CompletableFuture<>();
    /** When Close RNIC stops waiting for this link: set when the QP generates its Terminate. */
    private volatile long terminateCloseDeadline;
    /**
     * The RDMAP opcodes this stream accepts and sends: RFC 5040, plus RFC 7306 when the RNIC offers
     * {@link RnicExtension#ATOMICS} or {@link RnicExtension#IMMEDIATE_DATA}, plus the commit draft's
     * when it offers one of its extensions (set at {@link #start}, {@link CommitDraft#features}).
     * There is no negotiation on the wire (RFC 7306 §1.1): an RNIC without the extension answers the
     * opcodes with 0/2/0x06 Unexpected OpCode (A-ATOM-003).
     */
    RdmapFeatures features = RdmapFeatures.RFC_5040;
    /** The RNIC offers RFC 7306 atomics: Atomic Requests and Responses are accepted. */
    boolean atomicsEnabled;
    /** The RNIC offers RFC 7306 Immediate Data: Immediate Data messages are accepted. */
    boolean immediateEnabled;
    final TerminateLatch latch = new TerminateLatch();
    /** A run is queued on the loop, or owed by a poster ({@link #postedRun}). */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /**
     * Polling mode: a post handed work over ({@link #transmitPosted}) and set {@link #scheduled}
     * without queuing the run; the poster's {@link #progress()} runs it, or queues it if another
     * thread holds the loop. Any thread's progress() may take it over: at worst two runs, of which
     * the second finds nothing to do.
     */
    private volatile boolean postedRun;
    private final Runnable runTask = this::scheduledRun;
    private final Runnable loopTurn = () -> ranNow = false;
    private final FpduLink.Listener listener = new LinkListener();

    Upcalls upcalls;
    /** What the engine knows of its QP (the one-way seam: the engine never reaches the QP itself). */
    QpContext qp;
    StagTable stags;
    public QpTxEngine tx;
    public QpRxEngine rx;
    /** RDMA Flush, Verify and Atomic Write (draft-talpey-rdma-commit-01), both sides. */
    public CommitDraft commit;
    /** The QP's traffic counters; this engine's loop is their writer (docs/observability.md). */
    QpCounters counters;

    // inbox: written by the QP under its lock, drained by the loop (guarded by inboxLock)
    private final Object inboxLock = new Object();
    private final SendWqeChain inbox = new SendWqeChain();
    /**
     * The Terminate the QP asked for: set once, under inboxLock (the first request wins); volatile,
     * so that every run reads it without the lock (issue 11: two reads per run).
     */
    private volatile TerminateMessage terminateRequest;
    private volatile boolean closeRequested;
    private volatile boolean resetRequested;
    /**
     * The link refused an FPDU (the socket would block) and has not reported writable since: what
     * is queued waits for the socket. Written by the loop at the end of a run and on writability,
     * read by posting threads in polling mode ({@link #progress()}).
     */
    private volatile boolean sendBlocked;
    private volatile boolean established = true;

    /** The link's event-loop thread, known once the engine started on it (the latency path). */
    private volatile Thread loopThread;

    // loop state
    private boolean started;
    /** A run is in progress (re-entrant calls from its upcalls only schedule). */
    private boolean running;
    /** An immediate run happened in this turn of the loop: the next transmits schedule. */
    private boolean ranNow;
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
        this(link, DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * Creates an engine for one connected QP whose link closes gracefully within this time (the
     * connection's {@code ConnectionSettings.closeTimeout}): it bounds how long Close RNIC waits for
     * a Terminate to be delivered ({@link #awaitTerminateClose()}).
     *
     * @param link         the established FPDU link
     * @param closeTimeout the link's close timeout
     */
    public QpEngine(FpduLink link, Duration closeTimeout) {
        this(link, closeTimeout, Duration.ZERO);
    }

    /**
     * Creates an engine for one connected QP with the connection's close and progress timeouts
     * ({@code ConnectionSettings.progressTimeout}): when work is outstanding and no FPDU moves in
     * either direction for the progress timeout, the connection is treated as lost (the link is
     * reset, the QP told {@link Upcalls#connectionFailed}(false)). The link must then implement
     * {@link FpduLink#schedulePeriodic}.
     *
     * @param link            the established FPDU link
     * @param closeTimeout    the link's close timeout
     * @param progressTimeout the progress timeout; {@link Duration#ZERO} for none
     */
    public QpEngine(FpduLink link, Duration closeTimeout, Duration progressTimeout) {
        if (link == null) {
            throw new IllegalArgumentException("link must not be null");
        }
        if (progressTimeout == null || progressTimeout.isNegative()) {
            throw new IllegalArgumentException("progress timeout must be zero or positive: " + progressTimeout);
        }
        this.link = link;
        this.executor = link.executor();
        this.closeTimeoutNanos = closeTimeout.toNanos();
        this.progressTimeoutNanos = progressTimeout.toNanos();
    }

    @Override
    public boolean established() {
        return established;
    }

    /**
     * Associates the engine with its QP and starts the link on its event loop. The link is already
     * in MPA Full Operation, so there is no streaming mode left to send a Stream Message Buffer in:
     * the connection manager sends it before the MPA Request on an adopted socket
     * ({@code ConnectionManager.connect(qp, socketChannel, ...)}), and the QP refuses
     * a Modify to RTS that names one with this engine (docs/connection-management.md). A non-null
     * message here is therefore not sent.
     *
     * @throws IllegalArgumentException on a second start
     */
    @Override
    public void start(QpContext context, Upcalls upcalls, MemorySegment streamMessage) {
        if (context == null || upcalls == null) {
            throw new IllegalArgumentException("QpEngine needs the QP's context and upcalls");
        }
        if (this.upcalls != null) {
            throw new IllegalArgumentException("QpEngine already started");
        }
        this.upcalls = upcalls;
        this.qp = context;
        this.counters = context.trafficCounters();
        this.stags = context.stags();
        this.atomicsEnabled = context.offers(RnicExtension.ATOMICS);
        this.immediateEnabled = context.offers(RnicExtension.IMMEDIATE_DATA);
        this.features = CommitDraft.features(context, atomicsEnabled || immediateEnabled);
        this.commit = new CommitDraft(this, context);
        this.tx = new QpTxEngine(this, context.maxOrd(), context.ird(), context.maxIrd());
        this.rx = new QpRxEngine(this);
        executor.execute(this::startOnLoop);
    }

    private void startOnLoop() {
        if (resetRequested && !terminateRequested()) {
            // reset before the link ever started, and no Terminate to deliver (a generated one goes
            // out first: doWork() sends it, then resets, see resetLink)
            dead = true;
            link.abort();
            return;
        }
        loopThread = Thread.currentThread();
        tx.resetMsns(link.firstOutboundSendMsn(), link.firstOutboundReadRequestMsn());
        rx.prime(link.firstInboundSendMsn(), link.firstInboundReadRequestMsn());
        link.start(rx, listener);
        started = true;
        if (progressTimeoutNanos > 0) {
            // one timer for the connection: the data path only counts, the check runs 4 times per timeout
            stalledSince = System.nanoTime();
            progressTimer = link.schedulePeriodic(progressCheck, Math.max(progressTimeoutNanos / 4, 1));
        }
        doWork();
    }

    /**
     * Hands a wire WQE to the TX engine in SQ order. Its SGEs are resolved now, at its SQ position,
     * so that later memory operations of the same SQ (Bind, Fast-Register, Invalidate Local STag)
     * cannot change what it sends (Verbs §8.2.2: WRs take effect in SQ order).
     */
    @Override
    public void transmit(SendWqe wqe) {
        wqe.txNext = null;
        transmitAll(wqe);
    }

    /** {@inheritDoc} One hand-over to the inbox and one wake-up for the whole chain. */
    @Override
    public void transmitAll(SendWqe first) {
        handOver(first);
        if (onLoop() && !running && !ranNow) {
            runNow(); // already on the loop (e.g. a reply posted from a completion handler): no task hop
        } else {
            schedule();
        }
    }

    /**
     * {@inheritDoc} Polling mode, off the loop: no task is queued; the run is marked as owed to the
     * poster's {@link #progress()} (the {@code scheduled} flag still says a run is coming, so
     * that nothing else queues one meanwhile). That saves a post the loop's task queue and two
     * clock reads (issue 11: 8-byte Send round trips, docs/transport.md "Polling mode").
     */
    @Override
    public void transmitPosted(SendWqe first) {
        if (onLoop() || !(executor instanceof DrivableExecutor)) {
            transmitAll(first);
            return;
        }
        handOver(first);
        if (scheduled.compareAndSet(false, true)) {
            postedRun = true;
        }
    }

    /** Resolves the chain's SGEs at their SQ position and puts the chain into the inbox. */
    private void handOver(SendWqe first) {
        SendWqe last = first;
        for (SendWqe w = first; w != null; w = w.txNext) {
            resolveSges(w);
            last = w;
        }
        synchronized (inboxLock) {
            inbox.addAll(first, last);
        }
    }

    /** Resolves the SGEs of a WQE the QP's checks did not resolve (an engine test's, say). */
    private void resolveSges(SendWqe wqe) {
        if (!wqe.inline && !wqe.opcode.consumesOrd() && !wqe.sgesResolved) {
            for (int i = 0; i < wqe.sgeCount; i++) {
                if (wqe.lengths[i] != 0) {
                    resolveSge(wqe, i);
                }
            }
        }
    }

    /** Resolves SGE i with one table lookup ({@link StagTable#resolveMemory} and {@code resolveOffset} in one). */
    private void resolveSge(SendWqe wqe, int i) {
        int stag = wqe.stags[i];
        long to = wqe.tos[i];
        if (stag == 0) {
            wqe.sgeMemory[i] = stags.resolveMemory(0, to);
            wqe.sgeOffset[i] = stags.resolveOffset(0, to);
            return;
        }
        StagBinding b = stags.lookupValid(stag);
        wqe.sgeMemory[i] = b == null ? MemorySegment.NULL : b.memory();
        wqe.sgeOffset[i] = b == null ? 0 : b.offsetOf(to);
    }

    /**
     * The latency path: a WQE posted on the link's own event loop, outside a run, is sent at once
     * instead of through a scheduled task. The run is the ordinary one (inbox in SQ order, at most
     * {@link #FPDU_BUDGET} FPDUs, the rest rescheduled), so ordering and exactly-once completion are
     * those of a scheduled run. Fairness: at most one immediate run per turn of the loop, so that a
     * chain of replies posted from completion handlers (two QPs answering each other on one loop)
     * cannot keep the loop from its other tasks: the run queues a (preallocated) task that marks the
     * loop's next turn, and until it ran, posts take the scheduled path. A receive completion being
     * delivered around it is not this run's business: its Terminate context is set aside meanwhile.
     */
    private void runNow() {
        ranNow = true;
        executor.execute(loopTurn);
        boolean delivering = deliveryContext;
        deliveryContext = false;
        try {
            doWork();
        } finally {
            deliveryContext = delivering;
        }
    }

    /** Whether the calling thread runs the link's executor now (its event loop, or a drive of it). */
    private boolean onLoop() {
        return executor instanceof DrivableExecutor d ? d.inExecutor() : Thread.currentThread() == loopThread;
    }

    @Override
    public void progress() {
        if (executor instanceof DrivableExecutor d) {
            if (!d.drivesOnPoll()) {
                // Event-loop mode, posts on the caller: the I/O thread serves the sockets and runs what a
                // holder leaves queued. A post runs on this thread only while the socket takes bytes;
                // while it would block, the I/O thread resumes the sends at the writability anyway, and a
                // poster taking the loop to find the socket full would only delay it (64 KiB streams).
                if (postedRun) {
                    postedRun = false;
                    if (sendBlocked || !d.tryRun(runTask)) {
                        queueRun();
                    }
                }
                return;
            }
            if (postedRun) {
                postedRun = false;
                if (!d.tryRun(runTask)) {
                    queueRun(); // another thread runs the loop now: it, or the next drive, runs ours
                }
            }
            if (scheduled.get()) {
                d.runQueued(); // polling mode: the poster frames and writes what it posted (or a run left)
            }
            if (sendBlocked) {
                // The socket would block: FPDUs wait in the link's outbound buffer for it to drain. A
                // poster that keeps posting without polling its CQ must still move them (the loop's
                // I/O pass sees the socket writable and flushes), or the socket idles until the next
                // CQ poll, or the I/O thread's takeover, while the work queues up (issue 11).
                d.drive();
            }
        }
    }

    @Override
    public DrivableExecutor driver() {
        return executor instanceof DrivableExecutor d ? d : null;
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
        boolean first;
        synchronized (inboxLock) {
            first = terminateRequest == null;
            if (first) {
                terminateRequest = message;
            }
        }
        if (first && qp != null) {
            // from now on Close RNIC lets this link's graceful close deliver the Terminate
            terminateCloseDeadline = System.nanoTime() + closeTimeoutNanos + CLOSE_WAIT_MARGIN_NANOS;
            qp.terminateClosing(this);
        }
        closeRequested = true;
        schedule();
    }

    /**
     * Close RNIC (Verbs §5.1.4) after this QP generated a Terminate: waits until the link has
     * closed, which the Terminate's graceful close does at the peer's FIN, or with a reset when
     * closeTimeout expires (RFC 5040 §6.2.1, R-TERM-034; issue 9 item 2; see
     * {@link SoftRnic}'s close). Bounded by closeTimeout (plus a margin) from the Terminate's
     * request; returns at once if the link has closed. Call off the event loop.
     */
    public void awaitTerminateClose() {
        long left = terminateCloseDeadline - System.nanoTime();
        try {
            linkEnded.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.warn("{}: the graceful close after the Terminate did not end in time; closing the RNIC anyway", this);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("never completed exceptionally", e);
        }
    }

    /** Whether the link has reported its closure. */
    public boolean linkEnded() {
        return linkEnded.isDone();
    }

    @Override
    public void reset() {
        resetRequested = true;
        established = false;
        schedule();
    }

    @Override
    public void receivePosted() {
        QpRxEngine r = rx;
        if (r != null) {
            r.receivePosted();
        }
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
            queueRun();
        }
    }

    /** Queues the run that {@code scheduled} announces. */
    private void queueRun() {
        try {
            executor.execute(runTask);
        } catch (RejectedExecutionException e) {
            // The link's event loop has terminated (its transport closed): the link's closure
            // ran on it first and took the QP to Error, whose flush completes every WQE; a
            // poster racing that must not see the executor's exception.
            scheduled.set(false);
        }
    }

    private void scheduledRun() {
        ranNow = false;
        doWork();
    }

    /**
     * The engine's work, like an Aeron agent's {@code doWork()}: takes the WQEs the QP handed over
     * (in SQ order), sends a Terminate if one was asked for, sends at most {@link #FPDU_BUDGET}
     * FPDUs, and serves a close or reset request. The receive side is driven by the link, which
     * delivers inbound FPDUs to the engine on the same thread.
     *
     * <p><b>Single writer.</b> All of a QP's protocol state belongs to one thread at a time: the
     * caller must be the thread that owns the link, {@link FpduLink#executor()}'s: its event loop,
     * which runs this when scheduled by {@link #transmit} and the other requests, or at once for a
     * WQE posted on the loop itself; or, in polling mode, whichever thread holds the loop's slot
     * (a poster's {@link #progress()} through {@link DrivableExecutor#tryRun}, a CQ poll's drive,
     * the I/O thread). The method assumes nothing else about its caller.
     */
    void doWork() {
        scheduled.set(false);
        if (!started || dead) {
            return;
        }
        running = true;
        try {
            runOnce();
        } finally {
            running = false;
        }
    }

    private void runOnce() {
        if (resetRequested) {
            resetLink();
            return;
        }
        SendWqe w;
        synchronized (inboxLock) {
            w = inbox.takeAll();
        }
        while (w != null) {
            SendWqe next = w.txNext;
            tx.enqueue(w);
            progressEvents++; // new work starts its own wait for the peer
            w = next;
        }
        if (terminating) {
            return; // R-TERM-026: nothing after the Terminate
        }
        if (terminateNow()) {
            return;
        }
        if (!linkClosed && !closeRequested) {
            // TX stops by itself at the next segment boundary once a stop is requested (V-TERM-7)
            int sent = tx.pump(FPDU_BUDGET);
            if (dead) {
                return; // V-TERM-4: the stream was reset; nothing more goes out
            }
            // A run that stopped at its budget with more to send is followed at once by the next
            // (scheduled below): small FPDUs may wait for it and leave in one write
            // (FpduLink.flushMoreFollows). Nothing is stranded: that next run sends at least one
            // FPDU (then flushes or hands on again), or serves a Terminate (flushes), a close
            // (flushes before the FIN) or a reset (the stream and what it held are gone).
            if (sent == FPDU_BUDGET && tx.hasWork() && !tx.blocked) {
                link.flushMoreFollows();
            } else if (sent > 0) {
                link.flush();
            }
            if (resetRequested) {
                resetLink(); // Modify to Error during the run: what was handed to the LLP went, then the reset
                return;
            }
            if (terminateNow()) {
                return; // the QP asked for a Terminate during the run (V-TERM-7, V-TERM-9, V-TERM-10)
            }
            if (tx.hasWork() && !tx.blocked) {
                schedule();
            }
            if (sendBlocked != tx.blocked) {
                sendBlocked = tx.blocked;
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

    /**
     * Sends the Terminate the QP asked for, if it asked: after the last whole segment (V-TERM-2),
     * then a graceful close so that it is delivered (R-TERM-034).
     *
     * @return whether a Terminate request was served
     */
    private boolean terminateNow() {
        TerminateMessage term = terminateRequest;
        if (term == null) {
            return false;
        }
        terminating = true;
        closing = true;
        rx.stop(); // RFC 5040 §5.4: nothing more is processed on the stream
        if (linkClosed) {
            upcalls.closeCompleted();
            return true;
        }
        tx.sendTerminate(errorFor(term.terminateControl()));
        JfrEvents.terminateSent(qp.rnicName(), qp.qpId(), term);
        link.flush();
        link.close();
        return true;
    }

    private boolean terminateRequested() {
        return terminateRequest != null;
    }

    /**
     * The QP asked for an LLP reset (Destroy QP, Modify to Error, a Bad Close). A Terminate the QP
     * generated before must still reach the peer (RFC 5040 §6.2.1; issue 9 item 2): the reset may
     * have overtaken the engine's turn to send it (the application destroys the QP as soon as it
     * sees the error completion, e.g. from the completion handler on this loop), or the Terminate
     * may still wait in the link's or the kernel's queue behind FPDUs a slow peer has not read. An
     * RST would drop those queues. So when a Terminate was generated and the link is up, the
     * Terminate is sent if it was not yet, and the link keeps (or starts) its graceful close
     * instead of being reset: FIN after the Terminate, closed at the peer's FIN, and reset only when
     * {@code closeTimeout} expires (Verbs §6.2.3, V-QPS-48). Destroy QP allows this: the LLP reset
     * is a MAY (Verbs §6.1.4, V-QP-33). The engine is dead either way: nothing else is sent or
     * reported. Without a Terminate (Modify RTS to Error, V-QPS-39), the reset is immediate.
     */
    private void resetLink() {
        boolean terminate = !linkClosed && (terminating || terminateRequested());
        if (terminate && !terminating) {
            terminateNow(); // sends it after the last whole segment and starts the graceful close
        }
        die();
        if (!terminate) {
            link.abort();
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

    /**
     * A Terminate that failed validation arrived (RFC 5040 §5.4): the QP reports the error and
     * closes; no Terminate answers it (R-TERM-048). Logged, since the peer's fault is otherwise only
     * visible as the event.
     */
    void invalidTerminateReceived(IwarpError error, TerminateMessage received, AsyncEventType event) {
        LOG.warn("invalid Terminate from the peer on {} ({}): {}; closing without answering it (RFC 5040 §5.4)",
                link, error.describe(), received);
        terminateReceived(received, error.describe());
        upcalls.terminateReceived(received, event);
    }

    /**
     * Counts a Terminate from the peer and raises io.jrnic.TerminateReceived, before the QP is told.
     *
     * @param validationError what it failed (RFC 5040 §7.1), or null for a valid Terminate
     */
    void terminateReceived(TerminateMessage message, String validationError) {
        counters.add(io.jrnic.api.internal.CounterLayout.TERMINATES_RECEIVED, 1);
        JfrEvents.terminateReceived(qp.rnicName(), qp.qpId(), message, validationError);
    }

    /** An FPDU failed its MPA CRC (RFC 5044 §8): counted, and io.jrnic.CrcError. */
    void crcError() {
        counters.add(io.jrnic.api.internal.CounterLayout.CRC_ERRORS, 1);
        JfrEvents.crcError(qp.rnicName(), qp.qpId());
    }

    /** An error while building an outbound message (V-TERM-8): the WQE fails, the QP terminates. */
    void localFailure(SendWqe w) {
        upcalls.sendCompleted(w, WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR);
    }

    /**
     * Whether the QP asked outbound processing to stop (Terminate, Modify to Error or Terminate, a
     * close): read by TX before every segment (Verbs §6.4 #3, #6; V-TERM-7, V-TERM-10). Volatile
     * reads, so a request made on another thread stops TX within one segment.
     */
    boolean stopRequested() {
        return closeRequested || resetRequested;
    }

    /**
     * The link failed while framing a segment (Verbs §6.4 #1, V-TERM-4): part of the segment may
     * already be in the stream, so no Terminate may follow it. The stream is reset at once (queued
     * FPDUs are dropped) and the QP goes to Error with the WQE, if any, failed.
     *
     * @param w     the SQ WQE whose segment failed, or null for a Read Response
     * @param cause what the link threw
     */
    void streamFailure(SendWqe w, RuntimeException cause) {
        LOG.warn("outbound segment failed on {}; resetting the stream (Verbs §6.4 #1)", link, cause);
        die();
        link.abort();
        upcalls.streamAborted(w, WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR);
    }

    /**
     * An error while building a Read Response (Verbs §6.4 #5, V-TERM-9): TX has stopped before the
     * bad segment; the QP raises the event and hands back the Terminate (its code, no copied
     * headers: the error is not in an inbound segment), which goes instead of the rest of the
     * response. If the QP is no longer in RTS, TX stays stopped and the close in progress ends it.
     *
     * @param event the IRRQ event (its Terminate code is sent)
     */
    void responseFailure(AsyncEventType event) {
        upcalls.remoteError(event);
    }

    /**
     * The progress timeout's check, on the loop (issue 13; docs/engine.md "Progress timeout"). The
     * data path only counts: FPDUs the LLP took whole ({@link FpduLink#fpdusWritten()}), FPDUs
     * received (the QP's counter), the link's onSent and onWritable, WQEs taken in. This check,
     * four times per timeout, compares the sum with the last one. The clock restarts when it
     * changed, when nothing is outstanding (an idle connection never times out), when reception is
     * paused for our own application's receive WQE (V-WRP-66: not the peer's stall), while a Flush
     * forces to persistence here (our disk, not the peer), and once a close or Terminate is under
     * way (closeTimeout bounds that). So the loss is reported between the timeout and 1.25 times
     * it after the last progress.
     */
    private void checkProgress() {
        if (dead || linkClosed) {
            stopProgressTimer();
            return;
        }
        long now = System.nanoTime();
        long progress = progressEvents + link.fpdusWritten()
                + counters.get(io.jrnic.api.internal.CounterLayout.FPDUS_RECEIVED);
        if (progress != progressSeen || !tx.outstanding() || rx.holding() || commit.persisting() || closing
                || closeRequested) {
            progressSeen = progress;
            stalledSince = now;
            return;
        }
        if (now - stalledSince >= progressTimeoutNanos) {
            progressTimedOut(now - stalledSince);
        }
    }

    /**
     * No progress for the progress timeout with work outstanding: the peer is treated as gone, as if
     * TCP had given up on it (RFC 5040 §6.2.1 LLP abortive termination). No Terminate: a stalled
     * peer would not read it. The link is reset (queued FPDUs dropped) and the QP takes the same
     * path as a lost connection: LLP Connection Lost, Error, every outstanding WQE flushed once.
     */
    private void progressTimedOut(long stalledNanos) {
        LOG.warn("{}: no progress for {} ms with work outstanding (progress timeout {} ms); "
                        + "treating the connection as lost", this, TimeUnit.NANOSECONDS.toMillis(stalledNanos),
                TimeUnit.NANOSECONDS.toMillis(progressTimeoutNanos));
        // observability (docs/observability.md): counted and recorded before die() clears the queues
        counters.add(io.jrnic.api.internal.CounterLayout.PROGRESS_TIMEOUTS, 1);
        JfrEvents.progressTimeout(qp.rnicName(), qp.qpId(), stalledNanos, progressTimeoutNanos,
                tx.messagesNotTaken(), tx.ord.size(), tx.ird.size());
        die();
        link.abort();
        upcalls.connectionFailed(false);
    }

    private void stopProgressTimer() {
        Future<?> t = progressTimer;
        if (t != null) {
            progressTimer = null;
            t.cancel(false);
        }
    }

    private void die() {
        stopProgressTimer();
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
            progressEvents++;
            tx.blocked = false;
            sendBlocked = false;
            schedule();
        }

        @Override
        public void onSent(long token) {
            progressEvents++;
            if (!dead) {
                // netty may report this from inside its own flush: a WQE posted from the completion
                // must then take the scheduled path, not write into the flush in progress
                boolean was = running;
                running = true;
                try {
                    tx.onSent(token);
                } finally {
                    running = was;
                }
            }
        }

        @Override
        public void onClosed(FpduLink.Closure closure) {
            linkClosed = true;
            established = false;
            stopProgressTimer();
            linkEnded.complete(null);
            qp.terminateClosed(QpEngine.this); // once per connection: no longer waited for
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
                        schedule(); // the close request is served by doWork(), which reports the end
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
        return "QpEngine[" + (qp == null ? "unbound" : qp.rnicName() + " QP " + qp.qpId()) + "]";
    }
}
