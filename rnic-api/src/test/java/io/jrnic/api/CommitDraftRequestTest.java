package io.jrnic.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The commit draft's send work requests (draft-talpey-rdma-commit-01 §3.1): fields, reset, bad arguments. */
class CommitDraftRequestTest {
    @Test
    void flushKeepsRangeAndDisposition_C_FLUSH_017_C_FLUSH_018() {
        SendWorkRequest wr = new SendWorkRequest().flush(0x1234_5601, 0x1000, -1,
                SendWorkRequest.FLUSH_PERSISTENCE | SendWorkRequest.FLUSH_GLOBAL_VISIBILITY);
        assertThat(wr.opcode()).isEqualTo(Opcode.RDMA_FLUSH);
        assertThat(wr.remoteStag()).isEqualTo(0x1234_5601);
        assertThat(wr.remoteTo()).isEqualTo(0x1000);
        assertThat(wr.remoteLength() & 0xFFFF_FFFFL).isEqualTo(0xFFFF_FFFFL); // 4 GiB - 1 (C-FLUSH-018)
        assertThat(wr.flushFlags()).isEqualTo(3);
        wr.reset();
        assertThat(wr.opcode()).isNull();
        assertThat(wr.remoteLength()).isZero();
        assertThat(wr.flushFlags()).isZero();
    }

    @Test
    void flushRefusesUndefinedFlagBits_C_FLUSH_017() {
        assertThatThrownBy(() -> new SendWorkRequest().flush(1, 0, 8, 0x04))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0x4");
    }

    @Test
    void verifyTakesAnOptionalHashOfBoundedLength_C_VERIFY_013() {
        byte[] hash = new byte[32];
        SendWorkRequest wr = new SendWorkRequest().verify(7, 8, 9, hash);
        assertThat(wr.opcode()).isEqualTo(Opcode.RDMA_VERIFY);
        assertThat(wr.expectedHash()).isSameAs(hash);
        assertThat(new SendWorkRequest().verify(7, 8, 9, null).expectedHash()).isNull();
        assertThatThrownBy(() -> new SendWorkRequest().verify(7, 8, 9, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..64");
        assertThatThrownBy(() -> new SendWorkRequest().verify(7, 8, 9, new byte[65]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("had 65");
    }

    @Test
    void atomicWriteIsEightBytes_C_AW_014() {
        SendWorkRequest wr = new SendWorkRequest().atomicWrite(5, 64, 0x0102_0304_0506_0708L);
        assertThat(wr.opcode()).isEqualTo(Opcode.ATOMIC_WRITE);
        assertThat(wr.remoteLength()).isEqualTo(8);
        assertThat(wr.atomicWriteData()).isEqualTo(0x0102_0304_0506_0708L);
    }

    @Test
    void commitOperationsAreWireRequestsButNotReads() {
        assertThat(Opcode.values()).filteredOn(Opcode::isCommitDraft)
                .containsExactly(Opcode.RDMA_FLUSH, Opcode.RDMA_VERIFY, Opcode.ATOMIC_WRITE);
        for (Opcode op : new Opcode[] {Opcode.RDMA_FLUSH, Opcode.RDMA_VERIFY, Opcode.ATOMIC_WRITE}) {
            assertThat(op.isWire()).isTrue();
            assertThat(op.isRead()).isFalse();
            assertThat(op.isSend()).isFalse();
        }
    }
}
