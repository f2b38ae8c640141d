package io.jrnic.core;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Shared set-up: an open RNIC with one PD and one CQ, an async event recorder and helpers. */
abstract class VerbsFixture {
    private static final AtomicInteger NAMES = new AtomicInteger();

    SoftRnic rnic;
    ProtectionDomain pd;
    CompletionQueue cq;
    final List<AsyncEvent> events = new CopyOnWriteArrayList<>();

    RnicConfig config() {
        return new RnicConfig().name("test-" + getClass().getSimpleName() + "-" + NAMES.incrementAndGet())
                .ioTransport(io.jrnic.core.transport.TestIoTransport.CHOICE);
    }

    @BeforeEach
    void openRnic() {
        rnic = SoftRnic.open(config());
        rnic.setAsyncEventHandler((r, e) -> events.add(e));
        pd = rnic.allocatePd();
        cq = rnic.createCq(256);
    }

    @AfterEach
    void closeRnic() {
        rnic.close();
    }

    QueuePairConfig qpConfig() {
        return new QueuePairConfig().cqs(cq, cq).depths(16, 16);
    }

    QueuePair qp() {
        return pd.createQueuePair(qpConfig());
    }

    /** Moves an Idle QP to RTS on a fresh fake transport. */
    FakeTransport toRts(QueuePair qp) {
        FakeTransport t = new FakeTransport();
        qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(t));
        return t;
    }

    List<WorkCompletion> drain(CompletionQueue q) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (q.poll(wc)) {
            out.add(new WorkCompletion().copyFrom(wc));
        }
        return out;
    }
}
