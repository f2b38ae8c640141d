package io.jrnic.core;

import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RnicConfig;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

/**
 * Engines on the deterministic single-threaded {@link LoopLinkPair.Loop}: each {@link #side} is an
 * RNIC with a PD, a CQ and a QP moved to RTS over one end of a {@link LoopLinkPair}. The RNICs are
 * closed after each test. Used where a test needs exact control of the event loop (allocation
 * budgets, fairness, the inline TX path).
 */
abstract class LoopEngineFixture {
    final List<SoftRnic> rnics = new ArrayList<>();
    final LoopLinkPair.Loop loop = new LoopLinkPair.Loop();

    /** A side whose CQ has no completion handler. */
    EngineFixture.Side side(FpduLink link) {
        return side(link, -1);
    }

    /**
     * A side over the link.
     *
     * @param completionHandler the CQ's completion handler identifier, or -1 for none
     */
    EngineFixture.Side side(FpduLink link, int completionHandler) {
        EngineFixture.Side s = new EngineFixture.Side();
        s.rnic = SoftRnic.open(new RnicConfig().name(getClass().getSimpleName() + "-" + rnics.size() + "-"
                + System.identityHashCode(this)));
        rnics.add(s.rnic);
        s.pd = s.rnic.allocatePd();
        s.cq = completionHandler < 0 ? s.rnic.createCq(4096) : s.rnic.createCq(4096, completionHandler);
        s.qp = s.pd.createQueuePair(new QueuePairConfig().cqs(s.cq, s.cq).depths(64, 64).readDepths(4, 4));
        s.engine = new QpEngine(link);
        s.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(s.engine));
        loop.runAll();
        return s;
    }

    @AfterEach
    void closeRnics() {
        for (SoftRnic r : rnics) {
            r.close();
        }
        loop.runAll();
    }
}
