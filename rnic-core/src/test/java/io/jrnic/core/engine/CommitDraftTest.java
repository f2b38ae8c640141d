package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.mem.MemoryFixture;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.rdmap.RdmapControl;
import io.jrnic.rdmap.RdmapFeatures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The commit draft's static PostSQ checks over a {@link FakeQpContext} (issue 10): which RDMAP
 * features a stream gets ({@code features}), the immediate errors of posting ({@code checkPost},
 * Verbs §8.2.1) and the checks when the WQE is processed ({@code checkRequest}, Verbs Figure 23),
 * with and without each extension (draft-talpey-rdma-commit-01; RFC 7306 §1.1: no negotiation on
 * the wire, an RNIC without the extension refuses its operations).
 */
class CommitDraftTest {
    private static final Opcode[] OPS = {Opcode.RDMA_FLUSH, Opcode.RDMA_VERIFY, Opcode.ATOMIC_WRITE};
    private static final RnicExtension[] EXTENSIONS = {RnicExtension.RDMA_FLUSH, RnicExtension.RDMA_VERIFY,
            RnicExtension.ATOMIC_WRITE};

    private final FakeRnic mem = new FakeRnic();
    private final SoftProtectionDomain pd = mem.pd();
    private final FakeQpContext qp = new FakeQpContext(1, pd, mem.table);

    @AfterEach
    void close() {
        mem.close();
    }

    @Test
    void theDraftsOpcodesAreOnWhenAnyOfItsExtensionsIsOffered() {
        assertThat(CommitDraft.features(qp, false)).isEqualTo(RdmapFeatures.RFC_5040);
        assertThat(CommitDraft.features(qp, true)).isEqualTo(RdmapFeatures.RFC_7306);
        qp.offering(RnicExtension.ATOMICS, RnicExtension.IMMEDIATE_DATA); // RFC 7306 alone: not the draft
        assertThat(CommitDraft.features(qp, true)).isEqualTo(RdmapFeatures.RFC_7306);
        for (RnicExtension x : EXTENSIONS) {
            qp.offering(x);
            assertThat(CommitDraft.features(qp, false)).as("%s", x)
                    .isEqualTo(new RdmapFeatures(RdmapControl.VERSION_IETF, false, true));
            assertThat(CommitDraft.features(qp, true)).as("%s with RFC 7306", x)
                    .isEqualTo(new RdmapFeatures(RdmapControl.VERSION_IETF, true, true));
        }
    }

    @Test
    void postingWithoutTheExtensionIsAnInvalidOperationType_C_FLUSH_031() {
        for (int i = 0; i < OPS.length; i++) {
            Opcode op = OPS[i];
            qp.offering(); // none
            assertThat(status(op, 0)).as("%s, nothing offered", op).isEqualTo(VerbsStatus.INVALID_OPERATION_TYPE);
            for (RnicExtension other : EXTENSIONS) {
                qp.offering(other, RnicExtension.ATOMICS, RnicExtension.IMMEDIATE_DATA);
                VerbsStatus expected = other == EXTENSIONS[i] ? null : VerbsStatus.INVALID_OPERATION_TYPE;
                assertThat(status(op, 0)).as("%s with %s", op, other).isEqualTo(expected);
            }
        }
    }

    @Test
    void flushAndAtomicWriteTakeNoSgeAndVerifyOneHashSink() {
        qp.offering(EXTENSIONS);
        assertThat(status(Opcode.RDMA_FLUSH, 0)).isNull();
        assertThat(status(Opcode.RDMA_FLUSH, 1)).isEqualTo(VerbsStatus.INVALID_SGL_LENGTH);
        assertThat(status(Opcode.ATOMIC_WRITE, 0)).isNull();
        assertThat(status(Opcode.ATOMIC_WRITE, 1)).isEqualTo(VerbsStatus.INVALID_SGL_LENGTH);
        assertThat(status(Opcode.RDMA_VERIFY, 0)).isNull();
        assertThat(status(Opcode.RDMA_VERIFY, 1)).isNull();
        assertThat(status(Opcode.RDMA_VERIFY, 2)).isEqualTo(VerbsStatus.INVALID_SGL_LENGTH);
        // the extension is checked first: without it, the SGE count does not matter
        qp.offering();
        assertThat(status(Opcode.RDMA_VERIFY, 2)).isEqualTo(VerbsStatus.INVALID_OPERATION_TYPE);
    }

    @Test
    void aNonCommitOpcodeIsAProgrammingError() {
        assertThatThrownBy(() -> CommitDraft.checkPost(qp, Opcode.RDMA_READ, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ordZeroCannotCarryAQueueOneRequest_V_IRD_9() {
        qp.offering(EXTENSIONS);
        SendWqe flush = wqe(new SendWorkRequest().wrId(1).flush(0x1234_5600, 0, 64, 0));
        assertThat(CommitDraft.checkRequest(qp, flush, 0)).isEqualTo(WorkCompletionStatus.ZERO_RDMA_READ_RESOURCES);
        assertThat(CommitDraft.checkRequest(qp, flush, 1)).isNull();
    }

    @Test
    void theRemoteStagMayBeZeroOnlyForAnEmptyFlushOrVerify_C_FLUSH_056() {
        assertThat(CommitDraft.checkRequest(qp, wqe(new SendWorkRequest().flush(0, 0, 0, 0)), 4)).isNull();
        assertThat(CommitDraft.checkRequest(qp, wqe(new SendWorkRequest().verify(0, 0, 0, null)), 4)).isNull();
        assertThat(CommitDraft.checkRequest(qp, wqe(new SendWorkRequest().flush(0x42, 0, 64, 0)), 4))
                .isEqualTo(WorkCompletionStatus.INVALID_STAG); // index 0, key 0x42: still STag 0's index
        assertThat(CommitDraft.checkRequest(qp, wqe(new SendWorkRequest().verify(0, 0, 16, null)), 4))
                .isEqualTo(WorkCompletionStatus.INVALID_STAG);
        assertThat(CommitDraft.checkRequest(qp, wqe(new SendWorkRequest().atomicWrite(0, 0, 1)), 4))
                .isEqualTo(WorkCompletionStatus.INVALID_STAG); // always 8 bytes: never empty
        // the remote STag itself is the responder's to check: any non-zero index passes here
        assertThat(CommitDraft.checkRequest(qp, wqe(new SendWorkRequest().atomicWrite(0x1234_5600, 0, 1)), 4))
                .isNull();
    }

    @Test
    void theVerifyHashSinkIsCheckedLikeAnyLocalSge_Verbs_Figure_23() {
        MemoryRegion sink = region(pd, AccessRights.LOCAL_WRITE);
        MemoryRegion readOnly = region(pd, AccessRights.LOCAL_READ);
        MemoryRegion foreign = region(mem.pd(), AccessRights.LOCAL_WRITE);
        assertThat(CommitDraft.checkRequest(qp, verify(sink, 32), 4)).isNull();
        assertThat(CommitDraft.checkRequest(qp, verify(readOnly, 32), 4))
                .isEqualTo(WorkCompletionStatus.ACCESS_VIOLATION);
        assertThat(CommitDraft.checkRequest(qp, verify(foreign, 32), 4))
                .isEqualTo(WorkCompletionStatus.INVALID_PD_ID);
        assertThat(CommitDraft.checkRequest(qp, verify(sink, (int) MemoryFixture.PAGE + 1), 4))
                .isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
    }

    private VerbsStatus status(Opcode op, int sges) {
        try {
            CommitDraft.checkPost(qp, op, sges);
            return null;
        } catch (VerbsException e) {
            return e.status();
        }
    }

    private MemoryRegion region(SoftProtectionDomain in, int rights) {
        return in.registerMemory(mem.memory(1), rights);
    }

    private SendWqe verify(MemoryRegion sink, int length) {
        return wqe(new SendWorkRequest().verify(0x1234_5600, 0, 64, null).sge(sink.stag(), sink.query().baseTo(),
                length));
    }

    private static SendWqe wqe(SendWorkRequest wr) {
        SendWqe w = new SendWqe(2, 0);
        w.copyFrom(wr, true);
        return w;
    }
}
