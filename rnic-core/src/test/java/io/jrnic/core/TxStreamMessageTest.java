package io.jrnic.core;

import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.core.engine.QpEngine;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Stream Message Buffer of Modify QP Idle to RTS (Verbs §6.2.1.2, V-QPS-14) with an MPA stream:
 * a {@link QpEngine} runs on a stream that is already in iWARP mode (MPA Full Operation), so there
 * is no streaming mode left to send the message in. The message belongs before the MPA Request
 * (ConnectionManager.connect on an adopted socket); a Modify that names one with an engine is an
 * Immediate Error and leaves the QP Idle and usable.
 */
class TxStreamMessageTest extends EngineFixture {

    @Test
    void streamMessageOnAnMpaStreamIsAnImmediateError_V_QPS_14() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        Side s = new Side();
        s.rnic = SoftRnic.open(new RnicConfig().name("tx-stream-message"));
        sides.add(s);
        s.pd = s.rnic.allocatePd();
        s.cq = s.rnic.createCq(16, 0);
        s.qp = s.pd.createQueuePair(qpConfig(s));
        s.engine = new QpEngine(link.a);
        MemorySegment message = MemorySegment.ofArray("LAST STREAMING MESSAGE".getBytes());

        assertThatThrownBy(() -> s.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(s.engine)
                .streamMessage(message)))
                .isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_MODIFIER))
                .hasMessageContaining("before the MPA Request");
        assertThat(s.qp.state()).isEqualTo(QpState.IDLE);

        // the same engine is still unused: without the message the QP enters RTS on it and works
        s.qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(s.engine));
        s.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND));
        await(() -> !raw.received.isEmpty(), "the Send");
        assertBytes(raw.received.getFirst(), "41 43 00000000 00000000 00000001 00000000"); // nothing before it
    }
}
