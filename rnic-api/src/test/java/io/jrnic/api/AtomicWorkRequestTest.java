package io.jrnic.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The RFC 7306 fields of {@link SendWorkRequest} and {@link WorkCompletion}, and the new opcodes. */
class AtomicWorkRequestTest {

    @Test
    void plainFormsUseTheRfcDefaultMasks_A_ATOM_019_AMB_22() {
        SendWorkRequest add = new SendWorkRequest().fetchAdd(5);
        assertThat(add.opcode()).isEqualTo(Opcode.ATOMIC_FETCH_ADD);
        assertThat(add.addOrSwapData()).isEqualTo(5L);
        assertThat(add.addOrSwapMask()).isZero();
        assertThat(add.compareData()).isZero();
        assertThat(add.compareMask()).isEqualTo(SendWorkRequest.ALL_ONES);
        SendWorkRequest swap = new SendWorkRequest().compareSwap(3, 4);
        assertThat(swap.opcode()).isEqualTo(Opcode.ATOMIC_CMP_SWAP);
        assertThat(swap.compareData()).isEqualTo(3L);
        assertThat(swap.addOrSwapData()).isEqualTo(4L);
        assertThat(swap.compareMask()).isEqualTo(-1L);
        assertThat(swap.addOrSwapMask()).isEqualTo(-1L);
    }

    @Test
    void maskedFormsAndResetKeepTheirFields() {
        SendWorkRequest wr = new SendWorkRequest().compareSwap(1, 2, 3, 4);
        assertThat(wr.compareData()).isEqualTo(1L);
        assertThat(wr.compareMask()).isEqualTo(2L);
        assertThat(wr.addOrSwapData()).isEqualTo(3L);
        assertThat(wr.addOrSwapMask()).isEqualTo(4L);
        wr.fetchAdd(9, 0x80L);
        assertThat(wr.compareData()).isZero();
        assertThat(wr.compareMask()).isEqualTo(-1L);
        assertThat(wr.addOrSwapMask()).isEqualTo(0x80L);
        wr.immediateData(0x1122L, true);
        assertThat(wr.opcode()).isEqualTo(Opcode.IMMEDIATE_DATA_SE);
        assertThat(wr.immediateData()).isEqualTo(0x1122L);
        wr.reset();
        assertThat(wr.opcode()).isNull();
        assertThat(wr.addOrSwapData()).isZero();
        assertThat(wr.addOrSwapMask()).isZero();
        assertThat(wr.compareMask()).isEqualTo(-1L);
        assertThat(wr.immediateData()).isZero();
    }

    @Test
    void opcodeClassification() {
        assertThat(Opcode.ATOMIC_FETCH_ADD.isAtomic()).isTrue();
        assertThat(Opcode.ATOMIC_CMP_SWAP.consumesOrd()).isTrue();
        assertThat(Opcode.RDMA_READ.consumesOrd()).isTrue();
        assertThat(Opcode.SEND.consumesOrd()).isFalse();
        assertThat(Opcode.IMMEDIATE_DATA_SE.isImmediateData()).isTrue();
        assertThat(Opcode.IMMEDIATE_DATA.isWire()).isTrue();
        assertThat(Opcode.ATOMIC_FETCH_ADD.isWire()).isTrue();
        assertThat(Opcode.IMMEDIATE_DATA.isSend()).isFalse();
        assertThat(Opcode.ATOMIC_CMP_SWAP.isRead()).isFalse();
    }

    @Test
    void completionCarriesImmediateDataUntilTheNextSet_A_IMM_004() {
        WorkCompletion wc = new WorkCompletion().set(1, Opcode.IMMEDIATE_DATA, WorkCompletionStatus.SUCCESS, 0, null,
                false, 0).immediateData(0xABL);
        assertThat(wc.hasImmediateData()).isTrue();
        assertThat(wc.immediateData()).isEqualTo(0xABL);
        assertThat(wc.toString()).contains("imm=0xab");
        wc.set(2, Opcode.RECEIVE, WorkCompletionStatus.SUCCESS, 4, null, false, 0);
        assertThat(wc.hasImmediateData()).isFalse();
        assertThat(wc.immediateData()).isZero();
    }
}
