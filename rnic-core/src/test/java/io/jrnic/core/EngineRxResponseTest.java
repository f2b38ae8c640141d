package io.jrnic.core;

import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The requester's receive path for responses against a raw peer: what it checks again when an
 * Atomic Response arrives (RFC 7306 §5.2.2, Verbs §7.8) and that the WR completes exactly once.
 */
class EngineRxResponseTest extends EngineFixture {
    private Side a;

    @Test
    void atomicResultBufferClosedBeforeTheResponseFailsTheWrAndWritesNothing_A_ATOM_043() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion result = a.region(64, RIGHTS);
        java.lang.foreign.MemorySegment memory = a.memory(result);
        a.qp.postSend(new SendWorkRequest().wrId(9).fetchAdd(1).remote(0x1234_5601, 0x1000)
                .sge(result.stag(), a.base(result), 8));
        await(() -> !raw.received.isEmpty(), "the Atomic Request");
        result.close(); // deregistered while the atomic is outstanding (Verbs §7.8)
        raw.send(EngineAtomicsTest.atomicResponse(1, 1, 0x1122_3344_5566_7788L));
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(9);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertThat(memory.asSlice(0, 8).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(0);
        awaitState(a, QpState.ERROR);
        link.settle();
        assertThat(completions(a, 1)).hasSize(1); // completed once, not flushed again
    }
}
