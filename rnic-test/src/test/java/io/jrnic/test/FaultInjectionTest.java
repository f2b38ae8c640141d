package io.jrnic.test;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionRequestHandler;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.IoTransport;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.VerbsException;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.test.FaultProxy.Direction;
import io.jrnic.test.FaultProxy.Fault;
import io.jrnic.test.FaultProxy.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault-injection judge (issue 13, docs/reliability.md "Fault injection"): many cases, each a
 * fresh connection between two RNICs through a {@link FaultProxy} that injects one fault (FIN, RST,
 * stall, delay, 1-byte slicing, half-close) at a seeded random point (during MPA setup, mid-FPDU
 * toward the passive end, mid-Read Response toward the active end, during the close), with mixed
 * verifiable traffic (Send, Send with Invalidate, Immediate Data, Write, Read, FetchAdd, CmpSwap,
 * Atomic Write, Flush, Verify). After each case: every work request posted completed exactly once,
 * with the statuses the Verbs allow (all success after a harmless fault; at most one error status
 * per queue pair besides flushes, V-ERR-59), each queue pair ended Idle (graceful close,
 * LLP_CLOSE_COMPLETE) or Error (with the affiliated event of the LLP failure or Terminate, Verbs
 * §9.5.3 Figure 37), no byte landed outside what was written, and every resource could be destroyed.
 * After the run: no thread left, no netty buffer leaked (paranoid detection, LeakRecorder), RNIC
 * memory freed.
 *
 * <p>Size and seed: {@code -Djrnic.fault.cases=1000} (default), {@code -Djrnic.fault.seed=...}
 * (default fixed), {@code -Djrnic.fault.case=N} runs case N of that seed alone; a failing case
 * prints its seed, index and fault. A stall in the stream runs with a short progress timeout
 * ({@link #STALL_PROGRESS_TIMEOUT}) and must end by itself at every end with work outstanding (LLP
 * Connection Lost, everything flushed once); the judge ends from outside only what the timeout
 * rightly leaves alone: a stall with no work outstanding (idle), a stall during the setup (the
 * setup timeout's) or at the close (the close timeout's).
 */
class FaultInjectionTest {
    private static final int CASES = Integer.getInteger("jrnic.fault.cases", 1000);
    private static final long SEED = Long.getLong("jrnic.fault.seed", 0x13FA_0017L);
    private static final int ONLY = Integer.getInteger("jrnic.fault.case", -1);
    private static final boolean VERBOSE = Boolean.getBoolean("jrnic.fault.verbose");
    private static final String ONLY_KIND = System.getProperty("jrnic.fault.only"); // e.g. "STALL CLOSE"
    private static final int WORKERS = Integer.getInteger("jrnic.fault.parallel", 4);
    /** The sockets (AUTO: epoll where it loads); {@code -Djrnic.fault.ioTransport=NIO} runs the cases on NIO. */
    private static final IoTransport TRANSPORT = IoTransport.valueOf(System.getProperty("jrnic.fault.ioTransport", "AUTO"));
    private static final int CASES_PER_PAIR = 100;
    private static final Traffic.Sizes SIZES = new Traffic.Sizes(256 << 10, 8 << 10, 64 << 10, 64 << 10, 32, 16 << 10, 16);
    private static final int RECEIVES = 24;
    private static final long WAIT_MS = 5_000;
    /**
     * ConnectionSettings.progressTimeout of the STALL cases, both ends (the other cases keep the
     * default 60 s, so that a loaded machine never turns a harmless fault into a timeout).
     */
    static final Duration STALL_PROGRESS_TIMEOUT = Duration.ofMillis(300);

    /** Where in the connection's life the fault hits. */
    enum Phase {
        /** Within the MPA Request/Reply/RTR bytes. */
        SETUP,
        /** Somewhere in the stream toward the passive end: Sends, Writes, requests, mostly mid-FPDU. */
        FPDU,
        /** Somewhere in the stream toward the active end: mostly Read Response payload. */
        READ_RESPONSE,
        /** At the FIN of one direction during the graceful close. */
        CLOSE
    }

    record Case(int index, long seed, Phase phase, Fault fault, boolean abortStall) {
        @Override
        public String toString() {
            return "case " + index + " (-Djrnic.fault.seed=" + SEED + " -Djrnic.fault.case=" + index + ", case seed "
                    + seed + "): " + phase + ", " + fault + (fault.kind() == Kind.STALL
                    ? (abortStall ? ", if not by the progress timeout ended by abort" : ", if not by the progress timeout ended by reset") : "");
        }
    }

    static Case plan(int index) {
        long seed = SEED * 0x9E37_79B9_7F4A_7C15L + index;
        Random r = new Random(seed);
        Kind kind = Kind.values()[r.nextInt(Kind.values().length)];
        int p = r.nextInt(100);
        Phase phase = p < 20 ? Phase.SETUP : p < 55 ? Phase.FPDU : p < 85 ? Phase.READ_RESPONSE : Phase.CLOSE;
        Direction direction = switch (phase) {
            case FPDU -> Direction.TO_PASSIVE;
            case READ_RESPONSE -> Direction.TO_ACTIVE;
            default -> r.nextBoolean() ? Direction.TO_PASSIVE : Direction.TO_ACTIVE;
        };
        long offset = switch (phase) {
            case SETUP -> r.nextInt(48); // MPA frame 20 bytes + RFC 6581 IRD/ORD 4, then the RTR FPDU
            case FPDU -> 48 + r.nextInt(16_000); // the traffic carries about 20 KB each way
            case READ_RESPONSE -> 24 + r.nextInt(16_000);
            case CLOSE -> Fault.AT_CLOSE;
        };
        Duration delay = kind == Kind.DELAY ? Duration.ofMillis(1 + r.nextInt(50)) : Duration.ZERO;
        int slice = kind == Kind.SLICE ? 1 + r.nextInt(4096) : 0;
        return new Case(index, seed, phase, new Fault(kind, direction, offset, delay, slice), r.nextBoolean());
    }

    /** Outcome counts for the report: per fault kind and phase. */
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final List<MemorySegment> freedAtClose = new CopyOnWriteArrayList<>();
    private final AtomicInteger fired = new AtomicInteger();
    private final AtomicInteger workRequests = new AtomicInteger();
    private final Queue<String> slowest = new ConcurrentLinkedQueue<>();

    @Test
    void everyWorkRequestCompletesExactlyOnceWhateverTheFault() throws Exception {
        Set<Thread> before = liveThreads();
        long start = System.nanoTime();
        List<Integer> indices = new ArrayList<>();
        if (ONLY >= 0) {
            indices.add(ONLY);
        } else {
            for (int i = 0; i < CASES; i++) {
                Case c = plan(i);
                if (ONLY_KIND == null || ONLY_KIND.equals(c.fault().kind() + " " + c.phase())) {
                    indices.add(i);
                }
            }
        }
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < Math.min(WORKERS, indices.size()); w++) {
            workers.add(pool.submit(() -> {
                Worker worker = null;
                try {
                    int done = 0;
                    for (int i; (i = next.getAndIncrement()) < indices.size() && failures.size() < 10; ) {
                        if (worker == null || done++ % CASES_PER_PAIR == 0) {
                            if (worker != null) {
                                worker.close();
                            }
                            worker = new Worker();
                        }
                        Case c = plan(indices.get(i));
                        long t0 = System.nanoTime();
                        try {
                            worker.run(c);
                            slowest.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms " + c);
                        } catch (Throwable t) {
                            failures.add(c + ": " + t);
                            t.printStackTrace();
                        }
                    }
                } finally {
                    if (worker != null) {
                        worker.close();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(30, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("fault injection: %d cases (seed %d), %d faults fired, %d work requests, %d ms, %d workers%n",
                indices.size(), SEED, fired.get(), workRequests.get(), millis, WORKERS);
        new TreeMap<>(outcomes).forEach((k, v) -> System.out.println("  " + k + ": " + v));
        slowest.stream().sorted(Comparator.comparingLong((String l) -> Long.parseLong(l.substring(0, l.indexOf(' ')))).reversed())
                .limit(8).forEach(l -> System.out.println("  slow: " + l));
        assertThat(failures).as("failing cases").isEmpty();

        // nothing leaks: RNIC memory freed by Close RNIC (Verbs §9.2.1.3), no thread left, no netty buffer
        assertThat(freedAtClose).allSatisfy(m -> assertThat(m.scope().isAlive()).as("RNIC memory freed").isFalse());
        assertNoThreadLeft(before);
        assertNoNettyLeak();
    }

    /** Two RNICs, a listener on the passive one, and the case being run (for the listener). */
    private final class Worker implements AutoCloseable {
        final Rnic a;
        final Rnic b;
        final ConnectionManager.Listener listener;
        final AtomicReference<CaseRun> current = new AtomicReference<>();
        final Map<Integer, BlockingQueue<AsyncEventType>> eventsA = new ConcurrentHashMap<>();
        final Map<Integer, BlockingQueue<AsyncEventType>> eventsB = new ConcurrentHashMap<>();
        final ConnectionSettings settings = new ConnectionSettings().crc(CrcMode.OPTIONAL)
                .setupTimeout(Duration.ofSeconds(3)).closeTimeout(Duration.ofSeconds(2));
        final ConnectionSettings stallSettings = new ConnectionSettings().crc(CrcMode.OPTIONAL)
                .setupTimeout(Duration.ofSeconds(3)).closeTimeout(Duration.ofSeconds(2))
                .progressTimeout(STALL_PROGRESS_TIMEOUT);
        /** The passive side's settings come from its listener: one listener per setting. */
        final ConnectionManager.Listener stallListener;

        Worker() throws Exception {
            RnicConfig config = new RnicConfig().readLimits(16, 16).ioTransport(TRANSPORT);
            a = Rnic.open(config);
            b = Rnic.open(config);
            a.setAsyncEventHandler((r, e) -> record(eventsA, e));
            b.setAsyncEventHandler((r, e) -> record(eventsB, e));
            InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            ConnectionRequestHandler handler = new ConnectionRequestHandler() {
                @Override
                public void onRequest(ConnectionRequest request) {
                    CaseRun run = current.get();
                    if (run == null) {
                        request.reject(null);
                        return;
                    }
                    request.accept(run.passive.qp, null).whenComplete((c, e) -> {
                        if (e != null) {
                            run.passiveConnection.completeExceptionally(e);
                        } else {
                            run.passiveConnection.complete(c);
                        }
                    });
                }

                @Override
                public void onSetupFailed(SocketAddress remote, ConnectionException failure) {
                    CaseRun run = current.get();
                    if (run != null) {
                        run.passiveConnection.completeExceptionally(failure);
                    }
                }
            };
            listener = b.connectionManager().listen(any, settings, handler);
            stallListener = b.connectionManager().listen(any, stallSettings, handler);
        }

        private void record(Map<Integer, BlockingQueue<AsyncEventType>> events, AsyncEvent e) {
            BlockingQueue<AsyncEventType> q = e.resource() instanceof QueuePair ? events.get(e.qpId()) : null;
            if (q != null) {
                q.add(e.type());
            }
        }

        void run(Case c) throws Exception {
            Random r = new Random(c.seed() ^ 0x5EED);
            Traffic.Side active = side("active", a, c.seed());
            Traffic.Side passive = side("passive", b, ~c.seed());
            BlockingQueue<AsyncEventType> evA = new LinkedBlockingQueue<>();
            BlockingQueue<AsyncEventType> evB = new LinkedBlockingQueue<>();
            eventsA.put(active.qp.id(), evA);
            eventsB.put(passive.qp.id(), evB);
            CaseRun run = new CaseRun(c, active, passive, new Traffic(active, passive, SIZES, r, false));
            current.set(run);
            boolean stall = c.fault().kind() == Kind.STALL;
            try (FaultProxy proxy = FaultProxy.start((stall ? stallListener : listener).localAddress(), c.fault())) {
                run.execute(proxy, a, stall ? stallSettings : settings, evA, evB);
                if (proxy.fired()) {
                    fired.incrementAndGet();
                }
                String outcome = c.fault().kind() + " " + c.phase() + (proxy.fired() ? "" : " (not fired)") + ": active "
                        + run.endA + ", passive " + run.endB;
                count(outcome);
                if (VERBOSE) {
                    System.out.println("case " + c.index() + " " + c.fault() + " -> " + outcome);
                }
            } finally {
                current.set(null);
                eventsA.remove(active.qp.id());
                eventsB.remove(passive.qp.id());
            }
            workRequests.addAndGet(active.nextWrId > 0 ? (int) (active.nextWrId - 1 + passive.nextWrId - 1
                    + active.nextRecv - Traffic.RECV_BASE + passive.nextRecv - Traffic.RECV_BASE) : 0);
            if (!run.problems.isEmpty()) {
                StringBuilder report = new StringBuilder(c.toString());
                for (String p : run.problems) {
                    report.append("\n    ").append(p);
                }
                report.append("\n    events: active ").append(evA).append(", passive ").append(evB);
                report.append("\n    completions: ").append(run.traffic.trace());
                failures.add(report.toString());
                System.out.println("FAILED " + report);
            }
            // every resource can be destroyed: nothing still holds the QP, CQ, regions or PD
            for (Traffic.Side s : List.of(active, passive)) {
                s.destroy();
                try {
                    s.src.query();
                    failures.add(c + ": " + s.name + " region still valid after deregistration");
                } catch (VerbsException expected) {
                    // Verbs §9.2.6.3: INVALID_STAG_INDEX after deallocation
                }
            }
        }

        private Traffic.Side side(String name, Rnic rnic, long seed) {
            ProtectionDomain pd = rnic.allocatePd();
            CompletionQueue cq = rnic.createCq(256);
            QueuePair qp = pd.createQueuePair(new QueuePairConfig().depths(64, 64).sges(4, 4, 4, 0)
                    .readDepths(8, 8).cqs(cq, cq));
            Traffic.Side s = new Traffic.Side(name, rnic, pd, cq, qp, SIZES, seed);
            return s;
        }

        @Override
        public void close() {
            listener.close();
            stallListener.close();
            freedAtClose.add(a.allocateMemory(64, 64));
            freedAtClose.add(b.allocateMemory(64, 64));
            b.close();
            a.close();
        }
    }

    private void count(String key) {
        outcomes.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    /** One case: the connection attempt, the traffic, the fault, the end, the checks. */
    private static final class CaseRun {
        final Case c;
        final Traffic.Side active;
        final Traffic.Side passive;
        final Traffic traffic;
        final CompletableFuture<Connection> passiveConnection = new CompletableFuture<>();
        final List<String> problems = new ArrayList<>();
        boolean flushedIdleA;
        boolean flushedIdleB;
        String endA = "?";
        String endB = "?";

        CaseRun(Case c, Traffic.Side active, Traffic.Side passive, Traffic traffic) {
            this.c = c;
            this.active = active;
            this.passive = passive;
            this.traffic = traffic;
        }

        void execute(FaultProxy proxy, Rnic a, ConnectionSettings settings,
                     BlockingQueue<AsyncEventType> evA, BlockingQueue<AsyncEventType> evB) throws Exception {
            Fault fault = c.fault();
            traffic.postReceives(RECEIVES); // Idle QPs: receives first, the peer may send at once (Verbs §6.6.1.1)
            CompletableFuture<Connection> activeSetup = a.connectionManager()
                    .connect(active.qp, proxy.localAddress(), settings, null).toCompletableFuture();
            if (fault.kind() == Kind.STALL && c.phase() == Phase.SETUP) {
                // a stalled setup would end at the setup timeout (rnic-core's own tests cover that
                // timer); here the network ends it: once the stall holds, the proxy resets both sockets
                CompletableFuture<Void> both = CompletableFuture.allOf(activeSetup, passiveConnection);
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                while (!both.isDone() && !proxy.awaitFired(20, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
                    // wait for the stall to hold (or for the setup to get past it)
                }
                if (proxy.fired()) {
                    try {
                        both.get(100, TimeUnit.MILLISECONDS);
                    } catch (ExecutionException | TimeoutException held) {
                        proxy.close();
                    }
                }
            }
            Connection ca = outcome(activeSetup, "active setup");
            Connection cb = outcome(passiveConnection, "passive setup");
            boolean aborted = false;
            if (ca != null && cb != null) {
                Random r = new Random(c.seed());
                traffic.post(6 + r.nextInt(12), r.nextInt(4));
                // with a harmless fault (or none) everything completes; a cut ends it all in Error
                // a QP back in Idle processes nothing more (Verbs §6.2.1): no use waiting for it
                boolean complete = traffic.reap(false, fault.kind() == Kind.STALL ? 300 : WAIT_MS);
                if (!complete && !(fault.kind() == Kind.STALL && proxy.fired())
                        && !idleWithWork(active) && !idleWithWork(passive)) {
                    problems.add("work still outstanding " + WAIT_MS + " ms after the last completion without a stall: "
                            + traffic.outstanding() + " WRs; " + traffic.describe());
                }
                if (complete && active.qp.state() == QpState.RTS && active.outstanding.isEmpty()) {
                    ca.disconnect(); // graceful close (Verbs §6.6.2.1): the CLOSE phase faults hit it
                }
            }
            boolean stalled = fault.kind() == Kind.STALL
                    && (proxy.fired() || (fault.atClose() && proxy.awaitFired(500, TimeUnit.MILLISECONDS)));
            boolean endedByTimeout = false;
            if (stalled && c.phase() != Phase.SETUP && !fault.atClose() && ca != null && cb != null) {
                // A stall in the stream ends by itself (ConnectionSettings.progressTimeout, 300 ms
                // here): every end with work outstanding resets its connection, goes to Error with
                // LLP Connection Lost and flushes what it still owed. Work outstanding shows as an SQ
                // work request not completed on one end or the other (a response owed is its peer's
                // Read, atomic or commit request), so once every SQ work request completed, an end
                // still in RTS had nothing outstanding, and the timeout rightly leaves it alone.
                if (!traffic.reapSends(WAIT_MS)) {
                    problems.add("SQ work still outstanding " + WAIT_MS + " ms into a stall with a "
                            + STALL_PROGRESS_TIMEOUT.toMillis() + " ms progress timeout: " + traffic.describe());
                }
                // (an end may be Closing: the traffic completed before the stall, the judge began the
                // close, and the stall holds the FIN; the close timeout's to end, not the progress
                // timeout's, docs/engine.md)
                endedByTimeout = active.qp.counters().progressTimeouts() + passive.qp.counters().progressTimeouts() > 0;
                if (!endedByTimeout && (active.qp.state() == QpState.ERROR || passive.qp.state() == QpState.ERROR)) {
                    problems.add("a stall ended (" + active.qp.state() + "/" + passive.qp.state()
                            + ") but no progress timeout fired");
                }
            }
            if (stalled && endedByTimeout) {
                // The timed-out end reset its socket; the proxy's stalled pump does not read that end
                // (reading would be progress), so it cannot pass the reset on as a network would: an
                // idle peer still in RTS gets it now (LLP Connection Reset), a timed-out one has gone.
                proxy.close();
            } else if (stalled) {
                // what the progress timeout leaves to others: the application (Modify to Error,
                // Verbs §6.6.2.3) or the network (the proxy resets the sockets)
                if (c.abortStall()) {
                    for (Connection conn : new Connection[]{ca, cb}) {
                        if (conn != null && conn.queuePair().state() == QpState.RTS) {
                            conn.abort();
                            aborted = true;
                        }
                    }
                }
                proxy.close();
            }
            QpState sa = closed(ca, "active");
            QpState sb = closed(cb, "passive");
            // a queue pair whose setup failed stays Idle (jrnic: unreserved, reusable); Modify to
            // Error flushes what was posted to it (Verbs §6.2.4)
            for (Traffic.Side s : List.of(active, passive)) {
                if ((s == active ? ca : cb) == null) {
                    if (s.qp.state() != QpState.IDLE) {
                        problems.add(s.name + " setup failed but its QP is " + s.qp.state() + ", not IDLE");
                    }
                    s.qp.modify(new QueuePairModification().nextState(QpState.ERROR));
                }
            }
            // a QP back in Idle (a graceful close that came before the traffic was posted) keeps
            // what was posted to it queued (Verbs §6.2.1, V-QPS-7): Modify to Error flushes it
            for (Traffic.Side s : List.of(active, passive)) {
                if ((s == active ? ca : cb) != null && s.qp.state() == QpState.IDLE && !s.outstanding.isEmpty()) {
                    s.qp.modify(new QueuePairModification().nextState(QpState.ERROR));
                    if (s == active) {
                        flushedIdleA = true;
                    } else {
                        flushedIdleB = true;
                    }
                }
            }
            if (!traffic.reap(true, WAIT_MS)) {
                problems.add("lost completions: " + traffic.outstanding() + " WRs never completed; active "
                        + active.outstanding.keySet() + " rq " + active.receives + ", passive "
                        + passive.outstanding.keySet() + " rq " + passive.receives);
            }
            traffic.drain();
            problems.addAll(traffic.failures());
            boolean survived = ca != null && cb != null && sa == QpState.IDLE && sb == QpState.IDLE;
            if (fault.benign() || !proxy.fired()) {
                // a delay, a slicing or a fault that never fired: nothing may fail
                if (ca == null || cb == null) {
                    problems.add("setup failed under a harmless fault (or none)");
                } else if (!survived) {
                    problems.add("harmless fault (or none) but the QPs ended " + sa + " / " + sb);
                }
                for (WorkCompletion wc : traffic.log()) {
                    if (wc.status() != WorkCompletionStatus.SUCCESS
                            && !(wc.opcode() == Opcode.RECEIVE && wc.status() == WorkCompletionStatus.FLUSHED)) {
                        problems.add("harmless fault (or none) but " + wc);
                        break;
                    }
                }
            }
            traffic.checkPlaced(survived);
            // V-ERR-59: one error completion per episode, everything else flushed
            for (Traffic.Side s : List.of(active, passive)) {
                long errors = traffic.log().stream().filter(wc -> wc.qpId() == s.qp.id()
                        && wc.status() != WorkCompletionStatus.SUCCESS && wc.status() != WorkCompletionStatus.FLUSHED).count();
                if (errors > 1) {
                    problems.add(s.name + " has " + errors + " error completions (V-ERR-59 allows one)");
                }
            }
            // a reset is never a normal close: each end it reached must be in Error (Verbs §6.2.4;
            // docs/engine.md: RTS -> LLP_CONNECTION_RESET, Closing -> LLP_CONNECTION_LOST). An RST at
            // an offset reaches both ends; an RST or a held FIN at the close reaches the receiver of
            // that direction (its peer may have finished its own close already)
            if (proxy.fired() && (fault.kind() == Kind.RST || (fault.kind() == Kind.STALL && fault.atClose()))) {
                for (Direction d : Direction.values()) {
                    boolean reached = !fault.atClose() ? fault.kind() == Kind.RST : d == fault.direction();
                    Connection conn = d == Direction.TO_ACTIVE ? ca : cb;
                    Traffic.Side s = d == Direction.TO_ACTIVE ? active : passive;
                    if (reached && conn != null && s.qp.state() != QpState.ERROR) {
                        problems.add(s.name + " QP is " + s.qp.state() + " after " + fault + ": a reset is no graceful close");
                    }
                }
            }
            endA = checkEnd(ca, sa, evA, aborted, flushedIdleA, "active");
            endB = checkEnd(cb, sb, evB, aborted, flushedIdleB, "passive");
            for (Traffic.Side s : List.of(active, passive)) {
                long timeouts = s.qp.counters().progressTimeouts();
                String end = s == active ? endA : endB;
                if (timeouts > 1 || (timeouts == 1 && !(s.qp.state() == QpState.ERROR
                        && end.contains(AsyncEventType.LLP_CONNECTION_LOST.toString())))) {
                    problems.add(s.name + ": " + timeouts + " progress timeouts, QP " + s.qp.state() + " " + end
                            + " (one at most, ending in Error with LLP_CONNECTION_LOST)");
                }
                if (timeouts == 1) {
                    if (s == active) {
                        endA += " (timed out)";
                    } else {
                        endB += " (timed out)";
                    }
                }
            }
        }

        /**
         * An end back in Idle that still owes completions: its SQ work, or receives for messages
         * its peer posted (Sends the peer then flushed never arrive). {@link Traffic#reap} stops
         * waiting for such an end, and so does the judge: Idle processes nothing (Verbs §6.2.1).
         */
        private boolean idleWithWork(Traffic.Side s) {
            return s.qp.state() == QpState.IDLE && traffic.owes(s);
        }

        private <T> T outcome(CompletableFuture<T> stage, String what) throws InterruptedException {
            try {
                return stage.get(WAIT_MS * 2, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof ConnectionException)) {
                    problems.add(what + " failed with " + e.getCause() + " instead of a ConnectionException");
                }
                return null;
            } catch (TimeoutException e) {
                problems.add(what + " neither completed nor failed within " + WAIT_MS * 2 + " ms");
                return null;
            }
        }

        private QpState closed(Connection conn, String who) throws InterruptedException {
            if (conn == null) {
                return null;
            }
            try {
                return conn.closed().toCompletableFuture().get(WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                problems.add(who + " closed() completed exceptionally: " + e.getCause());
            } catch (TimeoutException e) {
                problems.add(who + " connection still open " + WAIT_MS + " ms after the fault and the end of the traffic: "
                        + conn.queuePair().state());
                conn.abort();
            }
            return conn.queuePair().state();
        }

        /** The end state and its event (Verbs §9.5.3, Figure 37), as a word for the outcome table. */
        private String checkEnd(Connection conn, QpState state, BlockingQueue<AsyncEventType> events,
                                boolean aborted, boolean flushedIdle, String who) throws InterruptedException {
            if (conn == null) {
                return "setup failed";
            }
            QpState now = flushedIdle ? QpState.IDLE : conn.queuePair().state();
            if (now != state || (now != QpState.IDLE && now != QpState.ERROR)) {
                problems.add(who + " QP is " + now + " after its stream closed (" + state + ")");
            }
            Set<AsyncEventType> seen = new HashSet<>();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (true) {
                List<AsyncEventType> arrived = new ArrayList<>();
                events.drainTo(arrived);
                seen.addAll(arrived);
                boolean ok = now == QpState.IDLE ? seen.contains(AsyncEventType.LLP_CLOSE_COMPLETE)
                        : aborted || seen.stream().anyMatch(t -> t != AsyncEventType.LLP_CLOSE_COMPLETE);
                if (ok) {
                    break;
                }
                long left = deadline - System.nanoTime();
                AsyncEventType t = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
                if (t == null) {
                    problems.add(who + " QP " + now + " without its affiliated event (events: " + seen + ")");
                    break;
                }
                seen.add(t);
            }
            if (now == QpState.IDLE && seen.stream().anyMatch(t -> t != AsyncEventType.LLP_CLOSE_COMPLETE)) {
                problems.add(who + " QP closed gracefully but also reported " + seen);
            }
            return now + (aborted ? " (aborted)" : "") + (flushedIdle ? " (then flushed)" : "") + " " + new TreeSet<>(seen);
        }
    }

    static Set<Thread> liveThreads() {
        return new HashSet<>(Thread.getAllStackTraces().keySet());
    }

    /** Threads started since {@code before} that are still alive, after a bounded wait for each to end. */
    static void assertNoThreadLeft(Set<Thread> before) throws InterruptedException {
        List<String> left = new ArrayList<>();
        for (Thread t : liveThreads()) {
            if (!before.contains(t) && t.isAlive() && !jdkVirtualThreadMachinery(t)) {
                t.join(Duration.ofSeconds(3)); // netty's global helpers end after their idle period
                if (t.isAlive()) {
                    left.add(t.getName());
                }
            }
        }
        assertThat(left).as("threads left running").isEmpty();
    }

    /**
     * The JDK's own threads behind virtual threads (the FaultProxy's): the carriers of the default
     * scheduler and its pollers, started once per JVM and kept.
     */
    private static boolean jdkVirtualThreadMachinery(Thread t) {
        String name = t.getName();
        return t.getClass().getName().equals("jdk.internal.misc.CarrierThread")
                || name.equals("MasterPoller") || name.equals("VirtualThread-unblocker")
                || name.endsWith("-delayScheduler") || name.startsWith("Read-Poller") || name.startsWith("Write-Poller");
    }

    /**
     * Netty reports a leak when a tracked buffer was collected without its release, at the next
     * buffer it tracks. To know that the reports of everything collected so far are in, a canary
     * buffer is leaked on purpose: after a collection, buffers are tracked until the canary's
     * report arrives (bounded); any other report is a leak of the run. One more connection first,
     * so that a connection's path runs after the run's garbage was collected too.
     */
    static void assertNoNettyLeak() throws Exception {
        System.gc();
        try (Rnic a = Rnic.open(new RnicConfig()); Rnic b = Rnic.open(new RnicConfig())) {
            ProtectionDomain pdA = a.allocatePd();
            ProtectionDomain pdB = b.allocatePd();
            CompletionQueue cqA = a.createCq(16);
            CompletionQueue cqB = b.createCq(16);
            QueuePair qpA = pdA.createQueuePair(new QueuePairConfig().cqs(cqA, cqA));
            QueuePair qpB = pdB.createQueuePair(new QueuePairConfig().cqs(cqB, cqB));
            CompletableFuture<Connection> passive = new CompletableFuture<>();
            try (ConnectionManager.Listener l = b.connectionManager().listen(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), new ConnectionSettings(),
                    req -> req.accept(qpB, null).whenComplete((c, e) -> passive.complete(c)))) {
                Connection ca = a.connectionManager().connect(qpA, l.localAddress(), new ConnectionSettings(), null)
                        .toCompletableFuture().get(10, TimeUnit.SECONDS);
                passive.get(10, TimeUnit.SECONDS);
                ca.close();
            }
        }
        ReferenceQueue<Object> collected = new ReferenceQueue<>();
        PhantomReference<Object> canary = leakCanary(collected);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (LeakRecorder.leaks().stream().noneMatch(l -> l.contains(CANARY)) && System.nanoTime() < deadline) {
            System.gc();
            collected.remove(50); // bounded wait for the collection of the canary
            Unpooled.directBuffer(1).release(); // netty reads its queue of collected buffers when it tracks one
        }
        assertThat(canary.refersTo(null)).isTrue();
        assertThat(LeakRecorder.detectors()).as("LeakRecorder installed (-Dio.netty.customResourceLeakDetector)")
                .isPositive();
        assertThat(LeakRecorder.leaks()).as("the canary's report (leak detection works)").anyMatch(l -> l.contains(CANARY));
        assertThat(LeakRecorder.leaks()).as("netty leak reports").allMatch(l -> l.contains(CANARY));
    }

    static final String CANARY = "jrnic-leak-canary";

    /** A tracked buffer that is never released, and a reference that tells when it was collected. */
    private static PhantomReference<Object> leakCanary(ReferenceQueue<Object> queue) {
        ByteBuf buffer = Unpooled.directBuffer(1).touch(CANARY); // netty tracks direct buffers of its unpooled allocator, not heap ones
        return new PhantomReference<>(buffer, queue);
    }
}
