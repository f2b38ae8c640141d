package io.jrnic.core;

import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Verbs §5.1.4 (V-RNIC-12): Close RNIC frees every resource the consumer created, and for a queue
 * pair that is a Destroy QP (§6.1.4, V-QP-33): its LLP stream is disassociated and reset, also a
 * stream the connection manager does not own, so the peer learns at once instead of waiting on a
 * stream nobody will ever serve again.
 */
class RnicCloseTest extends EngineFixture {

    @Test
    void closeRnicDestroysEveryQpAndResetsItsStream_V_RNIC_12_V_QP_33() {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side a = p[0];
        Side b = p[1];
        QueuePair spare = a.pd.createQueuePair(qpConfig(a));
        FakeTransport stream = new FakeTransport();
        spare.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(stream));
        a.qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(0, 0, 0));

        a.rnic.close();

        assertThat(stream.resets).as("the spare QP's stream was reset").isEqualTo(1);
        awaitState(b, QpState.ERROR); // the engine's link was reset: the peer's QP leaves RTS
        assertThat(b.eventTypes()).isNotEmpty();
        assertThatThrownBy(a.qp::query).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
    }
}
