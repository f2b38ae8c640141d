package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Untagged delivery against a raw peer (RFC 5040 §5.3, RFC 5041 §5.3): where a Send's payload lands
 * across the receive SGEs, the Invalidate STag it carries, and the exact Terminate of each failure.
 */
class EngineRxSendTest extends EngineFixture {
    private Side a;

    private void engineWithRawPeer() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
    }

    private byte[] awaitTerminate() {
        return awaitOnlyTerminate(a);
    }

    private static byte[] payload(int length, int value) {
        byte[] p = new byte[length];
        Arrays.fill(p, (byte) value);
        return p;
    }

    @Test
    void sendWithInvalidateOfStagIndexZeroFailsTheReceive_V_MR_26_R_SEND_022() {
        engineWithRawPeer();
        MemoryRegion mr = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(3).sge(mr.stag(), a.base(mr), 64));
        // index 0, key 0x12: STag 0 (whatever its key) is never remotely invalidated
        byte[] s = Wire.untagged(Wire.SEND_INVALIDATE, true, 0x0000_0012, 0, 1, 0, payload(16, 0x5A));
        raw.send(s);
        byte[] t = awaitTerminate();
        assertBytes(t, Wire.TERMINATE_HEADER + " 0100c000 0010 " + hex(Arrays.copyOf(s, 18)));
        List<WorkCompletion> wcs = completions(a, 1);
        assertThat(wcs.getFirst().status()).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        link.settle();
        assertThat(completions(a, 1)).hasSize(1);
    }
}
