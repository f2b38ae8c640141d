package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.WorkCompletion;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.FpduHandler;
import org.junit.jupiter.api.AfterEach;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two full {@link SoftRnic}s whose QPs run {@link QpEngine}s over a {@link MemoryLinkPair}, or one
 * RNIC against a raw peer that reads and writes FPDUs directly (to check exact wire bytes and to
 * inject malformed messages). Waiting is bounded and sleep-free: the helpers drain both event loops
 * until a condition holds or ten seconds passed.
 */
abstract class EngineFixture {
    private static final AtomicInteger NAMES = new AtomicInteger();
    static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;

    MemoryLinkPair link;
    final List<Side> sides = new ArrayList<>();
    RawPeer raw;
    /** The progress timeout of the next engines (ConnectionSettings.progressTimeout); zero: none. */
    java.time.Duration progressTimeout = java.time.Duration.ZERO;
    /** The extensions the next RNICs offer; null: the RnicConfig default (all). */
    java.util.Set<io.jrnic.api.RnicExtension> extensions;

    /** One RNIC with a PD, a CQ, a QP on an engine, and its async events. */
    static final class Side {
        SoftRnic rnic;
        ProtectionDomain pd;
        CompletionQueue cq;
        QueuePair qp;
        QpEngine engine;
        final List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        final List<WorkCompletion> completions = new ArrayList<>();
        final AtomicInteger notifications = new AtomicInteger();

        MemoryRegion region(int size, int rights) {
            MemorySegment m = rnic.allocateMemory(size == 0 ? 1 : size, 8);
            return pd.registerMemory(m, rights);
        }

        MemorySegment memory(MemoryRegion mr) {
            return rnic.stags.resolveMemory(mr.stag(), mr.query().baseTo());
        }

        long base(MemoryRegion mr) {
            return mr.query().baseTo();
        }

        List<AsyncEventType> eventTypes() {
            return events.stream().map(AsyncEvent::type).toList();
        }
    }

    QueuePairConfig qpConfig(Side s) {
        return new QueuePairConfig().cqs(s.cq, s.cq).depths(64, 64).sges(4, 4, 4, 64).readDepths(4, 4);
    }

    Side side(FpduLink l) {
        Side s = new Side();
        RnicConfig config = new RnicConfig().name("engine-" + NAMES.incrementAndGet());
        if (extensions != null) {
            config.extensions(extensions);
        }
        s.rnic = SoftRnic.open(config);
        s.rnic.setAsyncEventHandler((r, e) -> s.events.add(e));
        s.pd = s.rnic.allocatePd();
        int handler = s.rnic.setCompletionEventHandler(0, (r, cq) -> s.notifications.incrementAndGet());
        s.cq = s.rnic.createCq(1024, handler);
        s.qp = s.pd.createQueuePair(qpConfig(s));
        s.engine = new QpEngine(l, java.time.Duration.ofSeconds(10), progressTimeout);
        s.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(s.engine));
        sides.add(s);
        return s;
    }

    /** Two connected RNICs: side A and side B. */
    Side[] pair(MemoryLinkPair.Options options) {
        return connect(new MemoryLinkPair(options));
    }

    /** Two RNICs over a prepared link pair. */
    Side[] connect(MemoryLinkPair pair) {
        link = pair;
        return new Side[] {side(link.a), side(link.b)};
    }

    /** One RNIC on link side A, a raw peer on side B. */
    Side withRawPeer(MemoryLinkPair.Options options) {
        link = new MemoryLinkPair(options);
        raw = new RawPeer(link.b);
        return side(link.a);
    }

    /**
     * Waits until side {@code a} sent the raw peer its Terminate, went to Error and closed the LLP
     * gracefully (the Terminate goes before the FIN); the Terminate is the only FPDU the peer got.
     *
     * @return the Terminate's ULPDU
     */
    byte[] awaitOnlyTerminate(Side a) {
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the LLP close");
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        assertThat(raw.received).hasSize(1);
        return raw.received.getFirst();
    }

    @AfterEach
    void tearDown() {
        for (Side s : sides) {
            s.rnic.close();
        }
        if (link != null) {
            link.close();
        }
    }

    /**
     * How long {@link #await} waits: ten seconds, unless the environment variable
     * JRNIC_TEST_AWAIT_MS says otherwise. A mutation run (docs/reliability.md) sets it to a
     * second or two, so that a mutant which loses an event fails the test before PIT's timeout
     * (normal time x 1.25 + 4 s), which would cost a fresh test JVM per such mutant.
     */
    private static final long AWAIT_NANOS = java.util.Optional.ofNullable(System.getenv("JRNIC_TEST_AWAIT_MS"))
            .map(Long::parseLong).orElse(10_000L) * 1_000_000L;

    /** Waits (bounded, no sleeping) until the condition holds, letting both event loops run. */
    void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + AWAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            link.a.barrier();
            link.b.barrier();
            Thread.onSpinWait();
        }
    }

    /** Polls the side's CQ into its completion list until it holds n entries. */
    List<WorkCompletion> completions(Side s, int n) {
        await(() -> {
            WorkCompletion wc = new WorkCompletion();
            while (s.cq.poll(wc)) {
                s.completions.add(new WorkCompletion().copyFrom(wc));
            }
            return s.completions.size() >= n;
        }, n + " completions on " + s.qp);
        return s.completions;
    }

    /** Waits for the state, then lets both loops finish what they were doing (events are raised after it). */
    void awaitState(Side s, QpState state) {
        await(() -> s.qp.state() == state, s.qp + " reaching " + state);
        link.settle();
    }

    static void fill(MemorySegment m, long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[(int) Math.min(m.byteSize(), 1 << 16)];
        for (long at = 0; at < m.byteSize(); at += b.length) {
            r.nextBytes(b);
            int n = (int) Math.min(b.length, m.byteSize() - at);
            MemorySegment.copy(b, 0, m, ValueLayout.JAVA_BYTE, at, n);
        }
    }

    static byte[] bytes(MemorySegment m, long offset, long length) {
        return m.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    static byte[] hex(String s) {
        String h = s.replace(" ", "");
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.length; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(String.format("%02x", b[i] & 0xFF));
        }
        return sb.toString();
    }

    /** A peer that speaks raw ULPDUs: records what arrives and sends what a test crafts. */
    static final class RawPeer implements FpduHandler, FpduLink.Listener {
        final MemoryLinkPair.Endpoint endpoint;
        final List<byte[]> received = new CopyOnWriteArrayList<>();
        volatile FpduLink.Closure closure;
        volatile DeframeFault fault;

        RawPeer(MemoryLinkPair.Endpoint endpoint) {
            this.endpoint = endpoint;
            endpoint.executor.execute(() -> endpoint.start(this, this));
        }

        void send(byte[]... ulpdus) {
            endpoint.inject(ulpdus);
        }

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            received.add(bytes(segment, offset, length));
        }

        @Override
        public void onError(DeframeFault f) {
            fault = f;
        }

        @Override
        public void onWritable() {
        }

        @Override
        public void onSent(long token) {
        }

        @Override
        public void onClosed(FpduLink.Closure c) {
            closure = c;
        }
    }

    static void assertBytes(byte[] actual, String expectedHex) {
        assertThat(hex(actual)).isEqualTo(hex(hex(expectedHex)));
    }
}
