package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.RemoteAtomics;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RDMAP queue 3 carries both RFC 7306 Atomic Responses and the commit draft's Flush / Verify /
 * Atomic Write Responses: one untagged queue, one MSN sequence (RFC 5041 §5.1, RFC 7306 §5.2.2,
 * AMB-35). Interleaved requests of both kinds complete in order at the requester, whose DDP checks
 * the queue-3 MSNs, and every operation took effect at the responder.
 */
class Queue3SharingTest extends EngineFixture {
    private static final int TARGET_RIGHTS = RIGHTS | AccessRights.REMOTE_ATOMIC | AccessRights.FLUSHABLE_GLOBAL
            | AccessRights.VERIFIABLE;

    @Test
    void atomicAndCommitResponsesShareOneMsnSequence_AMB_35() {
        Side[] s = pair(MemoryLinkPair.Options.defaults());
        Side a = s[0];
        Side b = s[1];
        MemoryRegion target = b.region(64, TARGET_RIGHTS);
        MemoryRegion results = a.region(8 * 16, RIGHTS);
        int rounds = 6;
        int posted = 0;
        for (int i = 0; i < rounds; i++) {
            a.qp.postSend(new SendWorkRequest().wrId(posted++).fetchAdd(1).remote(target.stag(), b.base(target))
                    .sge(results.stag(), a.base(results) + 8L * i, 8));
            a.qp.postSend(new SendWorkRequest().wrId(posted++).flush(target.stag(), b.base(target), 64,
                    SendWorkRequest.FLUSH_GLOBAL_VISIBILITY));
            a.qp.postSend(new SendWorkRequest().wrId(posted++).atomicWrite(target.stag(), b.base(target) + 8,
                    0x0100L + i));
        }
        List<WorkCompletion> wcs = completions(a, posted);
        for (int i = 0; i < posted; i++) {
            assertThat(wcs.get(i).wrId()).isEqualTo(i);
            assertThat(wcs.get(i).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        }
        for (int i = 0; i < rounds; i++) {
            assertThat(RemoteAtomics.read(a.memory(results), 8L * i)).as("FetchAdd %d saw the earlier ones", i)
                    .isEqualTo(i);
        }
        assertThat(RemoteAtomics.read(b.memory(target), 0)).isEqualTo(rounds);
        assertThat(RemoteAtomics.read(b.memory(target), 8)).isEqualTo(0x0100L + rounds - 1);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
    }
}
