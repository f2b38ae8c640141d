package io.jrnic.core;

import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.core.qp.SoftQueuePair;
import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jrnic.api.AccessRights.LOCAL_READ;
import static io.jrnic.api.AccessRights.LOCAL_WRITE;
import static io.jrnic.api.AccessRights.REMOTE_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 9 item 8: memory of a confined arena is refused wherever the RNIC is handed memory
 * (register, reregister, Fast-Register, STag 0's physical memory) with a message naming the
 * problem. Registered memory is read and written by the RNIC's event loops, so a confined segment
 * used to register fine and then fail at the first remote access with a {@code WrongThreadException}
 * on the loop, the peer seeing only a reset.
 */
class ConfinedMemoryTest extends VerbsFixture {

    private static void assertRefused(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOf(VerbsException.class)
                .hasMessageContaining("accessible from any thread")
                .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_PBL_ENTRY);
    }

    @Test
    void registerAndReregisterRefuseConfinedMemory() {
        try (Arena confined = Arena.ofConfined(); Arena shared = Arena.ofShared()) {
            MemorySegment m = confined.allocate(4096, 4096);
            assertRefused(() -> pd.registerMemory(m, LOCAL_WRITE | REMOTE_WRITE));
            assertRefused(() -> pd.registerMemory(m.asSlice(100, 200), LOCAL_READ, 1, AddressType.ZERO_BASED, 0,
                    false));
            // the shared, global and automatic arenas every thread may use are accepted
            MemoryRegion mr = pd.registerMemory(shared.allocate(4096, 4096), LOCAL_WRITE | REMOTE_WRITE);
            pd.registerMemory(Arena.global().allocate(64), LOCAL_READ).close();
            pd.registerMemory(Arena.ofAuto().allocate(64), LOCAL_READ).close();
            // V-MR-51: a failed reregistration deallocates the region; the message still names the cause
            assertRefused(() -> mr.reregister(pd, m, LOCAL_WRITE, 0, AddressType.ZERO_BASED, 0, false));
        }
    }

    @Test
    void fastRegisterOfConfinedMemoryIsAnImmediateError() {
        SoftQueuePair qp = (SoftQueuePair) pd.createQueuePair(qpConfig().privileged(true));
        toRts(qp);
        MemoryRegion stag = pd.allocateRegionStag(4, true);
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment m = confined.allocate(4096, 4096);
            assertRefused(() -> qp.postSend(new SendWorkRequest().wrId(1).fastRegister(stag.stag(), m,
                    LOCAL_WRITE | REMOTE_WRITE, AddressType.VA_BASED, m.address())));
            assertThat(drain(cq)).isEmpty(); // nothing was posted
            assertThat(qp.state()).isEqualTo(QpState.RTS);
            // the SQ-time check stays behind it: a WQE carrying such memory never maps it
            SendWqe w = new SendWqe(4, 0);
            w.copyFrom(new SendWorkRequest().wrId(2).fastRegister(stag.stag(), m, LOCAL_WRITE,
                    AddressType.VA_BASED, m.address()), true);
            assertThat(rnic.memory.fastRegister(qp, w.regionStag, w.fastRegisterMemory, w.fastRegisterVirtualAddress,
                    w.addressType, w.accessRights, w.verifyHash)).isEqualTo(io.jrnic.api.WorkCompletionStatus.INVALID_PBL_ENTRY);
        }
    }

    @Test
    void physicalMemoryOfAConfinedArenaIsRefusedAtOpen() {
        try (Arena confined = Arena.ofConfined()) {
            assertThatThrownBy(() -> SoftRnic.open(config().physicalMemory(confined.allocate(4096))))
                    .isInstanceOf(VerbsException.class).hasMessageContaining("accessible from any thread")
                    .extracting(e -> ((VerbsException) e).status()).isEqualTo(VerbsStatus.INVALID_MODIFIER);
        }
    }
}
