package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.RemoteAtomics;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RFC 7306 atomics and Immediate Data between two RNICs over loopback TCP (netty transport, MPA
 * negotiated by the connection manager): the same operations as the in-memory engine tests, end to
 * end through the real transport.
 */
class AtomicsLoopbackTest extends LoopbackFixture {

    @Test
    void atomicsAndImmediateDataOverTcp_A_ATOM_043_A_ATOM_053_A_IMM_001() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        Buffer rb = b.buffer(64);
        qpB.postReceive(new ReceiveWorkRequest().wrId(77).sge(rb.stag(), rb.to(), 64));
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        MemorySegment counter = b.rnic.allocateMemory(64, 8);
        MemoryRegion target = b.pd.registerMemory(counter, RIGHTS | AccessRights.REMOTE_ATOMIC);
        RemoteAtomics.writeResult(counter, 0, 40);
        Buffer result = a.buffer(64);
        long to = target.query().baseTo();
        qpA.postSend(new SendWorkRequest().wrId(1).fetchAdd(2).remote(target.stag(), to)
                .sge(result.stag(), result.to(), 8));
        qpA.postSend(new SendWorkRequest().wrId(2).compareSwap(42, 1000).remote(target.stag(), to)
                .sge(result.stag(), result.to() + 8, 8));
        qpA.postSend(new SendWorkRequest().wrId(3).immediateData(0x7766_5544_3322_1100L, true));
        List<WorkCompletion> wcs = a.completions(3);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(wcs).extracting(WorkCompletion::opcode)
                .containsExactly(Opcode.ATOMIC_FETCH_ADD, Opcode.ATOMIC_CMP_SWAP, Opcode.IMMEDIATE_DATA_SE);
        assertThat(RemoteAtomics.read(result.memory(), 0)).isEqualTo(40L);
        assertThat(RemoteAtomics.read(result.memory(), 8)).isEqualTo(42L);
        assertThat(RemoteAtomics.read(counter, 0)).isEqualTo(1000L);
        WorkCompletion received = b.completions(1).getFirst();
        assertThat(received.wrId()).isEqualTo(77L);
        assertThat(received.opcode()).isEqualTo(Opcode.IMMEDIATE_DATA_SE);
        assertThat(received.immediateData()).isEqualTo(0x7766_5544_3322_1100L);
        assertThat(a.events).isEmpty();
        assertThat(b.events).isEmpty();
    }
}
