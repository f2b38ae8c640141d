package io.jrnic.core.engine;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.core.mem.StagTable;
import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the engine sends for a Write's SGE: the bytes its STag and TO name, resolved when the WQE is
 * handed over (QpEngine.transmit): for a registered region the TO's offset from the region's base
 * TO, for STag 0 (Verbs §7.2.1) the physical memory at the TO as a native address. A WQE whose SGEs
 * the QP's checks already resolved (StagTable.resolveLocal) is sent from there.
 */
class SgeResolutionTest {
    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE;

    private final Arena arena = Arena.ofShared();
    private final EnginePair pair = new EnginePair();

    @AfterEach
    void tearDown() {
        pair.close();
        arena.close();
    }

    @Test
    void aRegisteredSgeSendsTheBytesAtItsOffsetFromTheBaseTo_V_MR_94() {
        MemorySegment source = pair.memA.memory(1);
        MemoryRegion src = pair.pdA.registerMemory(source, AccessRights.LOCAL, 0, AddressType.VA_BASED, 0x7000_0000L,
                false);
        fill(source, 100, 32, (byte) 0x41);
        MemorySegment sink = pair.memB.memory(1);

        writeAndSettle(pair.memA.table, src.stag(), 0x7000_0000L + 100, 32, sink);

        assertThat(sink.asSlice(0, 32).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x41);
    }

    @Test
    void aStagZeroSgeSendsThePhysicalMemoryAtItsTo_V_MR_16() {
        MemorySegment physical = arena.allocate(4096, 4096);
        fill(physical, 256, 32, (byte) 0x5A);
        MemorySegment sink = pair.memB.memory(1);

        writeAndSettle(new StagTable(64, physical), 0, physical.address() + 256, 32, sink);

        assertThat(sink.asSlice(0, 32).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x5A);
    }

    @Test
    void anSgeTheQpsChecksResolvedIsSentFromWhereTheyResolvedItWithoutAnotherLookup() {
        MemorySegment source = pair.memA.memory(1);
        MemoryRegion src = pair.pdA.registerMemory(source, AccessRights.LOCAL);
        fill(source, 0, 32, (byte) 0x41);
        MemorySegment elsewhere = arena.allocate(4096, 4096);
        fill(elsewhere, 64, 32, (byte) 0x7E);
        MemorySegment sink = pair.memB.memory(1);

        writeAndSettle(pair.memA.table, src.stag(), src.query().baseTo(), 32, sink, w -> {
            w.sgeMemory[0] = elsewhere;   // as the QP's resolveLocal left them
            w.sgeOffset[0] = 64;
            w.sgesResolved = true;
        });

        assertThat(sink.asSlice(0, 32).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x7E);
    }

    /** One Write from (stag, to) on side A into the start of {@code sink} on side B. */
    private void writeAndSettle(StagTable tableA, int stag, long to, int length, MemorySegment sink) {
        writeAndSettle(tableA, stag, to, length, sink, w -> { });
    }

    private void writeAndSettle(StagTable tableA, int stag, long to, int length, MemorySegment sink,
                                java.util.function.Consumer<SendWqe> beforeHandOver) {
        pair.start(tableA);
        MemoryRegion dst = pair.pdB.registerMemory(sink, RIGHTS);

        SendWqe w = new SendWqe(1, 0);
        w.copyFrom(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(stag, to, length)
                .remote(dst.stag(), dst.query().baseTo()), true);
        w.inFlight = true;
        beforeHandOver.accept(w);
        pair.a.transmit(w);
        pair.link.settle();

        assertThat(pair.upcallsB.names()).as("the peer").isEmpty();
        assertThat(pair.upcallsA.names()).containsExactly("sendCompleted");
        assertThat(pair.upcallsA.calls.getFirst().status()).isEqualTo(io.jrnic.api.WorkCompletionStatus.SUCCESS);
    }

    private static void fill(MemorySegment memory, long offset, int length, byte value) {
        memory.asSlice(offset, length).fill(value);
    }
}
