package io.jrnic.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiValuesTest {

    @Test
    void opcodeFamilies_V_DEF_11_V_DEF_12_V_WR_26() {
        assertThat(Opcode.values()).filteredOn(Opcode::isSend)
                .containsExactly(Opcode.SEND, Opcode.SEND_SE, Opcode.SEND_INVALIDATE, Opcode.SEND_SE_INVALIDATE);
        assertThat(Opcode.values()).filteredOn(Opcode::isRead)
                .containsExactly(Opcode.RDMA_READ, Opcode.RDMA_READ_INVALIDATE);
        assertThat(Opcode.values()).filteredOn(Opcode::isLocalMemory)
                .containsExactly(Opcode.BIND_MW, Opcode.FAST_REGISTER, Opcode.INVALIDATE_LOCAL_STAG);
        assertThat(Opcode.RECEIVE.isWire()).isFalse();
        assertThat(Opcode.RDMA_WRITE.isWire()).isTrue();
    }

    @Test
    void completionStatusesCoverFigure36_V_ERR_42_to_58() {
        assertThat(WorkCompletionStatus.values()).hasSize(25);
        assertThat(WorkCompletionStatus.SUCCESS.ordinal()).isZero();
        assertThat(WorkCompletionStatus.FLUSHED.ordinal()).isEqualTo(1);
    }

    @Test
    void asyncEventsCarryResourceAndTerminateCode_V_EV_1() {
        assertThat(AsyncEventType.LLP_INVALID_CRC.terminateCode()).isEqualTo(0x0202);
        assertThat(AsyncEventType.TAGGED_INVALID_STAG.terminateCode()).isEqualTo(0x1100);
        assertThat(AsyncEventType.IRRQ_WRAP.terminateCode()).isEqualTo(0x0104);
        assertThat(AsyncEventType.RNIC_CATASTROPHIC.terminateCode()).isEqualTo(0x0208);
        assertThat(AsyncEventType.BAD_CLOSE.terminateCode()).isEqualTo(AsyncEventType.NO_TERMINATE_CODE);
        assertThat(AsyncEventType.SRQ_LIMIT_REACHED.resourceType()).isEqualTo(ResourceType.SRQ);
        assertThat(AsyncEventType.CQ_OVERFLOW_DETECTED.resourceType()).isEqualTo(ResourceType.CQ);
        assertThat(AsyncEventType.QP_RQ_LIMIT_REACHED.resourceType()).isEqualTo(ResourceType.QP);
        assertThat(AsyncEventType.RNIC_CATASTROPHIC.resourceType()).isEqualTo(ResourceType.RNIC);
    }

    @Test
    void asyncEventRejectsMismatchedResource_V_VERB_SetAEH_2() {
        assertThatThrownBy(() -> new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, "not an srq"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SRQ_LIMIT_REACHED");
    }

    @Test
    void terminateMessageFields_V_TERM_16() {
        TerminateMessage t = new TerminateMessage(0x1102, false, new byte[] {1, 2});
        assertThat(t.layer()).isEqualTo(1);
        assertThat(t.errorType()).isEqualTo(1);
        assertThat(t.errorCode()).isEqualTo(2);
        assertThat(t.headers()).containsExactly(1, 2);
        assertThat(t).isEqualTo(new TerminateMessage(0x1102, false, new byte[] {1, 2}));
        assertThat(new TerminateMessage(TerminateMessage.LOCAL_CATASTROPHIC, true, null).headers()).isEmpty();
    }

    @Test
    void terminateMessageNamesItsErrorAndPrintsTheNames_V_TERM_16() {
        TerminateMessage msn = new TerminateMessage(0x1203, true, new byte[18]);
        assertThat(msn.layerName()).isEqualTo("DDP");
        assertThat(msn.errorTypeName()).isEqualTo("Untagged Buffer Error");
        assertThat(msn.errorCodeName()).isEqualTo("Invalid MSN - MSN range is not valid");
        assertThat(msn).hasToString("TerminateMessage[DDP 1/2/0x03 Untagged Buffer Error: Invalid MSN - MSN range is "
                + "not valid, local, 18 header bytes]");
        assertThat(new TerminateMessage(0x0206, false, null)).hasToString(
                "TerminateMessage[RDMAP 0/2/0x06 Remote Operation Error: Unexpected OpCode, remote, 0 header bytes]");
        assertThat(new TerminateMessage(0x2002, false, null).describe()).isEqualTo("LLP 2/0/0x02 MPA Error: MPA CRC Error");
        // RFC 5040 Figure 9: Local Catastrophic Error has no code, any value is acceptable
        TerminateMessage catastrophic = new TerminateMessage(0x0042, false, null);
        assertThat(catastrophic.errorCodeName()).isEmpty();
        assertThat(catastrophic.describe()).isEqualTo("RDMAP 0/0/0x42 Local Catastrophic Error");
        // RFC 6580 §3: what the registries do not list is Unassigned
        assertThat(new TerminateMessage(0x0220, false, null).errorCodeName()).isEqualTo("Unassigned");
        assertThat(new TerminateMessage(0x1500, false, null).errorTypeName()).isEqualTo("Unassigned");
        assertThat(new TerminateMessage(0x3000, false, null).describe())
                .isEqualTo("Unassigned 3/0/0x00 Unassigned: Unassigned");
    }

    @Test
    void workRequestsAreReusable_V_WR_3() {
        SendWorkRequest wr = new SendWorkRequest(2).wrId(7).opcode(Opcode.SEND).sge(0x100, 8, 16).sge(0x100, 24, 4);
        assertThat(wr.sgeCount()).isEqualTo(2);
        assertThat(wr.totalLength()).isEqualTo(20);
        assertThatThrownBy(() -> wr.sge(1, 2, 3)).isInstanceOf(IllegalStateException.class).hasMessageContaining("full");
        wr.reset();
        assertThat(wr.sgeCount()).isZero();
        assertThat(wr.opcode()).isNull();
        assertThat(wr.signaled()).isTrue();
        ReceiveWorkRequest rr = new ReceiveWorkRequest(1).wrId(3).sge(5, 6, 7);
        assertThat(rr.sgeStag(0)).isEqualTo(5);
        assertThat(rr.reset().sgeCount()).isZero();
        assertThatThrownBy(() -> new ReceiveWorkRequest(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void verbsExceptionCarriesStatusAndPostedCount_V_WRP_4() {
        VerbsException e = new VerbsException(VerbsStatus.TOO_MANY_WRS_POSTED, "full", 3);
        assertThat(e.status()).isEqualTo(VerbsStatus.TOO_MANY_WRS_POSTED);
        assertThat(e.postedCount()).isEqualTo(3);
        assertThat(e.getMessage()).startsWith("TOO_MANY_WRS_POSTED: full");
    }

    @Test
    void pollingSettingsAreCheckedAndTheSpinMayBeTurnedOff() {
        RnicConfig c = new RnicConfig();
        assertThat(c.pollingSpin()).isEqualTo(java.time.Duration.ofNanos(50_000));
        assertThat(c.callerTransmit()).as("posts transmit on the caller by default").isTrue();
        assertThat(c.callerTransmit(false).callerTransmit()).isFalse();
        c.callerTransmit(true);
        assertThat(c.pollingSpin(java.time.Duration.ZERO).pollingSpin()).isZero();
        assertThatThrownBy(() -> c.pollingSpin(java.time.Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollingSpin");
        assertThatThrownBy(() -> c.pollingSpin(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollingSpin");
        assertThatThrownBy(() -> c.pollingTakeover(java.time.Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollingTakeover");
    }

    @Test
    void ioThreadsAreAtLeastOne() {
        RnicConfig c = new RnicConfig();
        assertThat(c.ioThreads()).isBetween(1, 4);
        assertThat(c.ioThreads(1).ioThreads()).isEqualTo(1);
        assertThatThrownBy(() -> c.ioThreads(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ioThreads");
    }
}
