package io.jrnic.core;

import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.core.engine.RemoteAtomics;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An Atomic Request waits at the IRD behind a Read Response (RFC 7306 §5.4 rule 5: it executes only
 * once every earlier queue-1 request generated its response). Its target STag is checked again when
 * it reaches the head, as a Read Response's source is before each segment: a Reregister in the
 * meantime that took the Remote Atomic right, moved the region's VA away from the target, or put
 * other memory under the same STag makes the QP terminate instead of executing it (RFC 7306 §8.1
 * case 1, V-TERM-9, A-ATOM-070). The Reregister runs on the event loop right after a Read Response
 * segment ({@link TxStopPointTest.HookLink}), as another thread's verb would land there.
 */
class QpTxEngineAtomicRecheckTest extends EngineFixture {
    private static final int SIZE = 16 * 1024;
    private static final int CHUNK = 1448 - 14;
    private static final int RESPONSE_FPDUS = (SIZE + CHUNK - 1) / CHUNK;

    private void atomicAfterReregister(int rights, boolean sameMemory, long vaShift, String terminateCode,
                                       AsyncEventType event) {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        TxStopPointTest.HookLink hook = new TxStopPointTest.HookLink(link.a);
        Side a = side(hook);
        MemoryRegion source = a.region(SIZE, RIGHTS);
        MemoryRegion target = a.region(64, EngineAtomicsTest.ATOMIC);
        MemorySegment counter = a.memory(target);
        RemoteAtomics.writeResult(counter, 0, 5);
        // other memory at the same page offset as the VA (Verbs §7.3.2.3 requires it), holding 5 too
        MemorySegment other = a.rnic.allocateMemory(64 + 4096, 4096).asSlice(a.base(target) & 0xFFF, 64);
        RemoteAtomics.writeResult(other, 0, 5);
        hook.after(2, n -> target.reregister(a.pd, sameMemory ? target.memory() : other, rights, target.key(),
                AddressType.VA_BASED, a.base(target) + vaShift, true));

        raw.send(Wire.readRequest(1, 0x0000_7801, 0, SIZE, source.stag(), a.base(source)),
                EngineAtomicsTest.fetchAdd(2, 9, target.stag(), a.base(target), 1, 0));

        await(() -> raw.closure != null, "the LLP close after the Terminate");
        awaitState(a, QpState.ERROR);
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        // the whole Read Response, then the Terminate instead of the Atomic Response, M=D=R=0
        assertThat(raw.received).hasSize(RESPONSE_FPDUS + 1);
        assertThat(raw.received.subList(0, RESPONSE_FPDUS)).allMatch(u -> (u[1] & 0x0F) == Wire.READ_RESPONSE);
        assertBytes(raw.received.getLast(), Wire.TERMINATE_HEADER + " " + terminateCode);
        assertThat(a.eventTypes()).containsExactly(event);
        assertThat(RemoteAtomics.read(counter, 0)).as("never executed").isEqualTo(5);
        assertThat(RemoteAtomics.read(other, 0)).as("never executed").isEqualTo(5);
    }

    @Test
    void atomicWhoseTargetLostTheRemoteAtomicRightIsNotExecuted_A_ATOM_070() {
        atomicAfterReregister(RIGHTS, true, 0, "01020000", AsyncEventType.IRRQ_ACCESS_RIGHTS);
    }

    @Test
    void atomicWhoseTargetIsNoLongerInTheRegionIsNotExecuted_A_ATOM_070() {
        atomicAfterReregister(EngineAtomicsTest.ATOMIC, true, 4096, "01010000", AsyncEventType.IRRQ_BASE_BOUNDS);
    }

    @Test
    void atomicWhoseStagNowMapsOtherMemoryIsNotExecuted_A_ATOM_070() {
        atomicAfterReregister(EngineAtomicsTest.ATOMIC, false, 0, "01000000", AsyncEventType.IRRQ_INVALID_STAG);
    }

    /**
     * The application closes the arena under the registered target while the atomic waits: its
     * memory is gone, a local catastrophic error of the stream (Verbs §8.3.3 Figure 24), checked
     * before the STag; nothing is executed and the Terminate goes instead of the Atomic Response.
     */
    @Test
    void atomicWhoseTargetMemoryWasFreedIsLocalCatastrophicAndNotExecuted_A_ATOM_070() {
        link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        raw = new RawPeer(link.b);
        TxStopPointTest.HookLink hook = new TxStopPointTest.HookLink(link.a);
        Side a = side(hook);
        MemoryRegion source = a.region(SIZE, RIGHTS);
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        MemorySegment m = arena.allocate(64, 8);
        MemoryRegion target = a.pd.registerMemory(m, EngineAtomicsTest.ATOMIC);
        hook.after(2, n -> arena.close());

        raw.send(Wire.readRequest(1, 0x0000_7801, 0, SIZE, source.stag(), a.base(source)),
                EngineAtomicsTest.fetchAdd(2, 9, target.stag(), a.base(target), 1, 0));

        await(() -> raw.closure != null, "the LLP close after the Terminate");
        awaitState(a, QpState.ERROR);
        assertThat(raw.received).hasSize(RESPONSE_FPDUS + 1);
        assertThat(raw.received.subList(0, RESPONSE_FPDUS)).allMatch(u -> (u[1] & 0x0F) == Wire.READ_RESPONSE);
        // RDMAP, remote operation, catastrophic localized (0/2/0x07, as a Read Response source freed)
        assertBytes(raw.received.getLast(), Wire.TERMINATE_HEADER + " 02070000");
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC);
    }
}
