package io.jrnic.core.engine;

import io.jrnic.api.QpState;
import io.jrnic.api.RnicExtension;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.mem.StagTable;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link QpContext} with settable facts, for the engine on its own (issue 10): no SoftRnic, no
 * SoftQueuePair. The STag table and the PD are real (from {@code MemoryFixture.FakeRnic}), so
 * registrations and the remote-access checks of RFC 5042 §5 are the production ones; everything
 * else is a plain field. Defaults: RTS, inbound Read and Write enabled, IRD = ORD = 4, not
 * privileged, no extension offered, no S-RQ.
 *
 * <p>Thread safety: the fields the engine reads from its loop while a test changes them are volatile.
 */
final class FakeQpContext implements QpContext {
    String rnicName = "fake";
    int qpId;
    final SoftProtectionDomain pd;
    final StagTable stags;
    final QpCounters counters = new QpCounters();
    volatile boolean privileged;
    volatile boolean inboundRead = true;
    volatile boolean inboundWrite = true;
    volatile int ird = 4;
    volatile QpState state = QpState.RTS;
    int maxOrd = 4;
    int maxIrd = 4;
    final Set<RnicExtension> extensions = EnumSet.noneOf(RnicExtension.class);
    PersistenceExecutor persistence;
    SharedReceiveWait sharedReceiveWait;
    /** Calls of {@link #terminateClosing} and {@link #terminateClosed}. */
    final AtomicInteger terminateClosing = new AtomicInteger();
    final AtomicInteger terminateClosed = new AtomicInteger();

    FakeQpContext(int qpId, SoftProtectionDomain pd, StagTable stags) {
        this.qpId = qpId;
        this.pd = pd;
        this.stags = stags;
    }

    /** Offers these extensions (replacing the set). */
    FakeQpContext offering(RnicExtension... offered) {
        extensions.clear();
        extensions.addAll(Set.of(offered));
        return this;
    }

    @Override
    public String rnicName() {
        return rnicName;
    }

    @Override
    public int qpId() {
        return qpId;
    }

    @Override
    public SoftProtectionDomain pd() {
        return pd;
    }

    @Override
    public boolean privileged() {
        return privileged;
    }

    @Override
    public boolean inboundRead() {
        return inboundRead;
    }

    @Override
    public boolean inboundWrite() {
        return inboundWrite;
    }

    @Override
    public int ird() {
        return ird;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public StagTable stags() {
        return stags;
    }

    @Override
    public QpCounters trafficCounters() {
        return counters;
    }

    @Override
    public int maxOrd() {
        return maxOrd;
    }

    @Override
    public int maxIrd() {
        return maxIrd;
    }

    @Override
    public boolean offers(RnicExtension extension) {
        return extensions.contains(extension);
    }

    @Override
    public PersistenceExecutor persistence() {
        return persistence;
    }

    @Override
    public SharedReceiveWait sharedReceiveWait() {
        return sharedReceiveWait;
    }

    @Override
    public void terminateClosing(QpEngine engine) {
        terminateClosing.incrementAndGet();
    }

    @Override
    public void terminateClosed(QpEngine engine) {
        terminateClosed.incrementAndGet();
    }
}
