package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zero-based Tagged Offsets over real loopback TCP (Verbs §7.5.1, §7.10.2, V-MR-99, V-MW-14): the
 * peer addresses a zero-based region or window from TO 0 = its first byte, whatever its memory's
 * address, and the window's length bounds it (RFC 5041 §7.2: beyond it is a base-or-bounds error).
 */
class ZeroBasedLoopbackTest extends LoopbackFixture {

    @Test
    void zeroBasedRegionAndWindowAreAddressedFromTheirFirstByte_V_MR_99_V_MW_14() throws Exception {
        Pair p = connect(new ConnectionSettings());
        MemorySegment m = b.rnic.allocateMemory(4096, 4096);
        // a zero-based region over bytes 100.. of the memory, and a zero-based window over bytes
        // 200..299 of a VA-based region (Figure 19: windows bind to VA-based regions only)
        MemoryRegion zero = b.pd.registerMemory(m.asSlice(100, 1000), RIGHTS, 7, AddressType.ZERO_BASED, 0, true);
        MemoryRegion va = b.pd.registerMemory(m, RIGHTS | AccessRights.BIND_WINDOW);
        MemoryWindow mw = b.pd.allocateWindow();
        p.qpB().postSend(new SendWorkRequest().wrId(1).bind(mw.stag(), va.stag(), m.address() + 200, 100,
                AddressType.ZERO_BASED, AccessRights.REMOTE_WRITE | AccessRights.REMOTE_READ));
        assertThat(b.completions(1)).extracting(WorkCompletion::status).containsExactly(WorkCompletionStatus.SUCCESS);

        Buffer src = a.buffer(16);
        src.memory().fill((byte) 0x11);
        p.qpA().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), 16)
                .remote(zero.stag(), 10));
        Buffer src2 = a.buffer(16);
        src2.memory().fill((byte) 0x22);
        p.qpA().postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_WRITE).sge(src2.stag(), src2.to(), 16)
                .remote(mw.stag(), 5));
        // Reads come back after the Writes were placed (RFC 5040 §5.5) and bring the same bytes
        Buffer back = a.buffer(32);
        p.qpA().postSend(new SendWorkRequest().wrId(4).opcode(Opcode.RDMA_READ).sge(back.stag(), back.to(), 16)
                .remote(zero.stag(), 10));
        p.qpA().postSend(new SendWorkRequest().wrId(5).opcode(Opcode.RDMA_READ)
                .sge(back.stag(), back.to() + 16, 16).remote(mw.stag(), 5));
        assertThat(a.completions(4)).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(m, 110, 16)).containsOnly((byte) 0x11);
        assertThat(bytes(m, 205, 16)).containsOnly((byte) 0x22);
        assertThat(bytes(m, 100, 10)).containsOnly((byte) 0);
        assertThat(bytes(m, 200, 5)).containsOnly((byte) 0);
        assertThat(bytes(back.memory(), 0, 16)).containsOnly((byte) 0x11);
        assertThat(bytes(back.memory(), 16, 16)).containsOnly((byte) 0x22);

        // the window ends at its TO 100: 16 bytes at TO 95 are out of bounds (1/1/0x01)
        p.qpA().postSend(new SendWorkRequest().wrId(6).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), 16)
                .remote(mw.stag(), 95));
        b.awaitEvent(AsyncEventType.TAGGED_BASE_BOUNDS, p.qpB());
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TAGGED_BASE_BOUNDS);
        a.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, p.qpA());
        assertThat(p.qpA().query().terminateMessage().terminateControl()).isEqualTo(0x1101);
        assertThat(bytes(m, 295, 16)).as("nothing placed past the window").containsOnly((byte) 0);
    }
}
