package io.jrnic.core;

import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.StagState;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static io.jrnic.api.AccessRights.LOCAL_READ;
import static io.jrnic.api.AccessRights.LOCAL_WRITE;
import static io.jrnic.api.AccessRights.REMOTE_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * V-MR-122 over loopback TCP (Verbs §7.8): an incoming Send with Invalidate needs a remote right on
 * the receiving QP (inbound Read or Write enabled) and on the STag. Refused: the receive completes
 * with the invalidate error, the STag stays Valid, and the peer gets the Terminate 0/1/0x09
 * ("STag cannot be Invalidated", RFC 5040 §5.3/§7.2, AMB-06).
 */
class RemoteInvalidateLoopbackTest extends LoopbackFixture {
    private static final ConnectionSettings SETTINGS = new ConnectionSettings();

    private QueuePair qpB(boolean inboundRead, boolean inboundWrite) {
        return b.pd.createQueuePair(new QueuePairConfig().cqs(b.cq, b.cq).depths(256, 256).sges(4, 4, 4, 64)
                .readDepths(4, 4).access(inboundRead, inboundWrite, true));
    }

    private Buffer exposed(int rights) {
        MemorySegment m = b.rnic.allocateMemory(4096, 4096);
        return new Buffer(b.pd.registerMemory(m, rights, 0, AddressType.VA_BASED, m.address(), true), m);
    }

    /** a sends a Send with Invalidate of {@code stag} into a receive b posted; b's receive completion. */
    private WorkCompletion sendWithInvalidate(Pair p, int stag) {
        Buffer dst = b.buffer(64);
        p.qpB().postReceive(new ReceiveWorkRequest().wrId(1).sge(dst.stag(), dst.to(), 64));
        p.qpA().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND_INVALIDATE).invalidateStag(stag));
        return b.completions(1).getFirst();
    }

    private void assertRefused(Pair p, WorkCompletion rx, Buffer target) {
        assertThat(rx.status()).isEqualTo(WorkCompletionStatus.INVALIDATE_STAG_PD_OR_ACCESS_ERROR);
        assertThat(target.mr().query().state()).isEqualTo(StagState.VALID);
        // Query QP, not the state alone: the receive's error completion becomes visible (to this thread's
        // CQ poll) just before the QP enters Terminate, both under the QP's lock, which Query QP takes
        assertThat(p.qpB().query().state()).isIn(QpState.TERMINATE, QpState.ERROR);
        assertThat(p.qpB().query().terminateMessage().terminateControl()).isEqualTo(0x0109);
        a.awaitEvent(AsyncEventType.TERMINATE_MESSAGE_RECEIVED, p.qpA());
        TerminateMessage received = p.qpA().query().terminateMessage();
        assertThat(received.locallyGenerated()).isFalse();
        assertThat(received.terminateControl()).as("Terminate received over TCP").isEqualTo(0x0109);
    }

    @Test
    void aQpWithoutInboundReadOrWriteRefusesRemoteInvalidation_V_MR_122() throws Exception {
        Pair p = connect(SETTINGS, SETTINGS, a.qp(), qpB(false, false), null, null);
        Buffer target = exposed(LOCAL_READ | LOCAL_WRITE | REMOTE_WRITE);
        assertRefused(p, sendWithInvalidate(p, target.stag()), target);
    }

    @Test
    void anStagWithoutARemoteRightIsNotRemotelyInvalidated_V_MR_122_V_MR_85() throws Exception {
        Pair p = connect(SETTINGS, SETTINGS, a.qp(), qpB(true, true), null, null);
        Buffer target = exposed(LOCAL_READ | LOCAL_WRITE);
        assertRefused(p, sendWithInvalidate(p, target.stag()), target);
    }

    @Test
    void oneInboundRightOnTheQpAndOneRemoteRightOnTheStagAreEnough_V_MR_122() throws Exception {
        Pair p = connect(SETTINGS, SETTINGS, a.qp(), qpB(false, true), null, null);
        Buffer target = exposed(LOCAL_READ | LOCAL_WRITE | REMOTE_WRITE);
        WorkCompletion rx = sendWithInvalidate(p, target.stag());
        assertThat(rx.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(rx.stagInvalidated()).isTrue();
        assertThat(rx.invalidatedStag()).isEqualTo(target.stag());
        assertThat(target.mr().query().state()).isEqualTo(StagState.INVALID);
        assertThat(p.qpB().state()).isEqualTo(QpState.RTS);
    }
}
