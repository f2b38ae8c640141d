package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An error while creating an outbound message (RFC 5040 §7.1 case 1, Verbs §6.4 V-TERM-8): the
 * request is not sent; a Terminate with the error and no copied headers goes instead, and the work
 * request completes in error. Here the registered memory of a Write went away (its arena was
 * closed by the application) before the engine read it.
 */
class EngineLocalFailureTest extends EngineFixture {

    @Test
    void writeFromVanishedMemorySendsATerminateInsteadOfTheWrite_R_TERM_044_V_TERM_8() {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults());
        Arena arena = Arena.ofShared();
        MemorySegment source = arena.allocate(4096, 4096);
        MemoryRegion mr = a.pd.registerMemory(source, AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE, 0x21,
                AddressType.VA_BASED, source.address(), false);
        arena.close(); // the application frees the memory under a registered region

        a.qp.postSend(new SendWorkRequest().wrId(77).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(mr.stag(), source.address(), 1024).remote(0x0000_4401, 0x1000));

        await(() -> !raw.received.isEmpty(), "the Terminate");
        byte[] t = raw.received.getFirst();
        // untagged QN 2 MSN 1, control: RDMAP layer, local catastrophic, M=D=R=0, nothing copied
        assertBytes(t, Wire.TERMINATE_HEADER + " 00000000");
        assertThat(raw.received).hasSize(1); // the Write itself never left
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().wrId()).isEqualTo(77);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.LOCAL_QP_CATASTROPHIC_ERROR);
        awaitState(a, QpState.ERROR);
    }
}
