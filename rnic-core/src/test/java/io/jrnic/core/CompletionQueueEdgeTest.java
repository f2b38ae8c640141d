package io.jrnic.core;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.NotifyType;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * CQ edges the conformance walk found untested (surviving PIT mutants of SoftCompletionQueue):
 * every CQ verb on a destroyed CQ, and the exact bounds of Modify CQ.
 */
class CompletionQueueEdgeTest extends VerbsFixture {

    private static void assertStatus(Runnable r, VerbsStatus status) {
        assertThatThrownBy(r::run).isInstanceOf(VerbsException.class)
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(status);
    }

    @Test
    void destroyedCqRefusesEveryVerb_V_CQ_27_V_ERR_36_V_ERR_41() {
        CompletionQueue c = rnic.createCq(4);
        c.close();
        // Verbs §9.5.1.3 Figure 30, §9.5.1.8 Figure 35: an invalid CQ handle is an Immediate Error
        assertStatus(() -> c.poll(new WorkCompletion()), VerbsStatus.INVALID_CQ_HANDLE);
        assertStatus(() -> c.poll(new WorkCompletion[] {new WorkCompletion()}, 0, 1), VerbsStatus.INVALID_CQ_HANDLE);
        assertStatus(() -> c.requestNotification(NotifyType.NEXT_COMPLETION), VerbsStatus.INVALID_CQ_HANDLE);
        assertStatus(() -> c.resize(2), VerbsStatus.INVALID_CQ_HANDLE);
    }

    @Test
    void resizeAcceptsExactlyTheCompletionsOnItAndTheRnicMaximum_V_CQ_19_V_CQ_20_V_CQ_23() {
        try (SoftRnic r = SoftRnic.open(config().cqLimits(2, 8, 2))) {
            ProtectionDomain p = r.allocatePd();
            CompletionQueue c = r.createCq(4);
            QueuePair qp = p.createQueuePair(new QueuePairConfig().cqs(c, c).depths(4, 4));
            for (int i = 0; i < 3; i++) {
                qp.postReceive(new ReceiveWorkRequest().wrId(i).sge(0x1234_5600, 0, 0)); // zero length: never checked
            }
            qp.modify(new QueuePairModification().nextState(QpState.ERROR)); // three Flushed completions
            // V-CQ-23: fewer entries than completions on the CQ is refused; exactly as many is fine
            assertStatus(() -> c.resize(2), VerbsStatus.SHRINK_TOO_MANY_ELEMENTS);
            assertThat(c.resize(3)).isEqualTo(3);
            // the RNIC's maximum is allowed, one more is not
            assertStatus(() -> c.resize(9), VerbsStatus.CQ_DEPTH_EXCEEDS_CAPABILITY);
            assertThat(c.resize(8)).isEqualTo(8);
            // V-CQ-20: nothing lost on the way
            WorkCompletion[] out = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
                new WorkCompletion()};
            assertThat(c.poll(out, 0, 4)).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(out[i].wrId()).isEqualTo(i);
                assertThat(out[i].status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            }
        }
    }
}
