package io.jrnic.test;

import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RemoteBuffer;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.test.RnicPair;
import io.jrnic.test.RnicTest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A user's integration test: an RDMA Write of 4 KiB lands in the peer's region. */
@RnicTest
class ReplicationTest {
    @Test
    void aWriteLandsAtThePeer(RnicPair pair) {
        MemoryRegion target = pair.passive().allocate(4096);     // Local + Remote Read/Write
        MemoryRegion note = pair.passive().allocate(16);
        pair.passive().qp().postReceive(new ReceiveWorkRequest().wrId(7)
                .sge(note.stag(), note.memory().address(), 16));
        MemoryRegion source = pair.active().allocate(4096);
        source.memory().fill((byte) 'j');
        pair.active().qp().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE)
                .sge(source.stag(), source.memory().address(), 4096)
                .remote(RemoteBuffer.of(target)));
        pair.active().qp().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND));
        pair.active().awaitSuccess(1);                           // bounded: fails the test after 10 s
        pair.active().awaitSuccess(2);
        // RFC 5040 §5.5 rules 5 and 9: the Write's bytes are there once a later Send is delivered
        pair.passive().awaitSuccess(7);
        assertEquals(-1, target.memory().mismatch(source.memory()));
    }
}
