package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerifyHash;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.CommitDraft;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commit draft's data path allocates nothing in steady state: Write, Flush to global
 * visibility, Verify with an expected hash and Atomic Write, requester and responder, on the
 * deterministic single-threaded loop ({@link LoopLinkPair}). (Flush to persistence calls
 * {@code MemorySegment.force()}, a system call on a slice, and is not part of this budget.)
 */
class CommitDraftAllocationTest extends LoopEngineFixture {
    @Test
    void steadyStateFlushVerifyAndAtomicWriteAllocateNothing_C_FLUSH_004_C_AW_012() {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, LoopLinkPair.newLog());
        EngineFixture.Side a = side(pair.a);
        EngineFixture.Side b = side(pair.b);
        MemoryRegion la = a.region(8192, EngineFixture.RIGHTS);
        MemoryRegion lb = b.region(8192, EngineFixture.RIGHTS | AccessRights.FLUSHABLE_GLOBAL | AccessRights.VERIFIABLE);
        EngineFixture.fill(a.memory(la), 3);
        byte[] expected = CommitDraft.hash(EngineFixture.bytes(a.memory(la), 0, 4096));
        SendWorkRequest write = new SendWorkRequest(1);
        SendWorkRequest flush = new SendWorkRequest(1);
        SendWorkRequest verify = new SendWorkRequest(1);
        SendWorkRequest atomicWrite = new SendWorkRequest(1);
        WorkCompletion[] batch = new WorkCompletion[8];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        long baseA = a.base(la);
        long baseB = b.base(lb);
        int sa = la.stag();
        int sb = lb.stag();
        int rounds = 2_000;
        long best = Long.MAX_VALUE;
        long completed = 0;
        for (int pass = 0; pass < 5; pass++) { // the first passes warm up class loading and the JIT
            long before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                a.qp.postSend(write.reset().wrId(i).opcode(Opcode.RDMA_WRITE).sge(sa, baseA, 4096).remote(sb, baseB));
                a.qp.postSend(flush.reset().wrId(i).flush(sb, baseB, 4096, SendWorkRequest.FLUSH_GLOBAL_VISIBILITY));
                a.qp.postSend(verify.reset().wrId(i).verify(sb, baseB, 4096, expected).sge(sa, baseA + 4096, 32));
                a.qp.postSend(atomicWrite.reset().wrId(i).atomicWrite(sb, baseB + 4096, i));
                loop.runAll();
                int n;
                while ((n = a.cq.poll(batch)) > 0) {
                    for (int k = 0; k < n; k++) {
                        if (batch[k].status() != WorkCompletionStatus.SUCCESS) {
                            throw new AssertionError("completion failed: " + batch[k]);
                        }
                    }
                    completed += n;
                }
            }
            best = Math.min(best, AllocationProbe.allocatedBytes() - before);
        }
        assertThat(completed).isEqualTo(5L * 4 * rounds);
        assertThat(b.memory(lb).get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(rounds - 1L);
        assertThat(EngineFixture.bytes(a.memory(la), 4096, 32)).isEqualTo(expected);
        assertThat(best).as("bytes allocated by the best pass of %d rounds", rounds).isLessThan(2048);
    }

    @Test
    void verifiesAlternatingBetweenAKeyedAndAPlainRegionAllocateNothing_C_VERIFY_002() throws Exception {
        LoopLinkPair pair = new LoopLinkPair(loop, 1448, LoopLinkPair.newLog());
        EngineFixture.Side a = side(pair.a);
        EngineFixture.Side b = side(pair.b);
        int rights = EngineFixture.RIGHTS | AccessRights.VERIFIABLE;
        MemoryRegion sink = a.region(128, EngineFixture.RIGHTS);
        MemorySegment hm = b.rnic.allocateMemory(4096, 8);
        MemorySegment dm = b.rnic.allocateMemory(4096, 8);
        byte[] key = {1, 2, 3, 4, 5, 6, 7, 8};
        MemoryRegion hmac = b.pd.registerMemory(hm, rights, 0, AddressType.VA_BASED, hm.address(), true,
                VerifyHash.of("HmacSHA512", key));
        MemoryRegion sha3 = b.pd.registerMemory(dm, rights, 0, AddressType.VA_BASED, dm.address(), true,
                VerifyHash.of("SHA3-256"));
        EngineFixture.fill(hm, 4);
        EngineFixture.fill(dm, 5);
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA512");
        mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA512"));
        byte[] expectedHmac = mac.doFinal(EngineFixture.bytes(hm, 0, 4096));
        byte[] expectedSha3 = java.security.MessageDigest.getInstance("SHA3-256")
                .digest(EngineFixture.bytes(dm, 0, 4096));
        SendWorkRequest v1 = new SendWorkRequest(1);
        SendWorkRequest v2 = new SendWorkRequest(1);
        WorkCompletion[] batch = new WorkCompletion[8];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        long sinkTo = a.base(sink);
        int rounds = 2_000;
        long best = Long.MAX_VALUE;
        long completed = 0;
        // More warm-up than above: two hashers and two response lengths take C2 longer to settle
        // (passes at 1-2 B per Verify were seen before it did, never a per-operation allocation,
        // which would cost at least 16 B x 4 000 Verifies per pass). Run until one pass of 4 000
        // Verifies stays within the budget, at most 40 passes.
        int passes = 0;
        for (int pass = 0; pass < 40 && (pass < 15 || best >= 2048); pass++) {
            passes++;
            long before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                a.qp.postSend(v1.reset().wrId(i).verify(hmac.stag(), hm.address(), 4096, expectedHmac)
                        .sge(sink.stag(), sinkTo, 64));
                a.qp.postSend(v2.reset().wrId(i).verify(sha3.stag(), dm.address(), 4096, expectedSha3)
                        .sge(sink.stag(), sinkTo + 64, 32));
                loop.runAll();
                int n;
                while ((n = a.cq.poll(batch)) > 0) {
                    for (int k = 0; k < n; k++) {
                        if (batch[k].status() != WorkCompletionStatus.SUCCESS) {
                            throw new AssertionError("completion failed: " + batch[k]);
                        }
                    }
                    completed += n;
                }
            }
            best = Math.min(best, AllocationProbe.allocatedBytes() - before);
        }
        assertThat(completed).isEqualTo((long) passes * 2 * rounds);
        assertThat(EngineFixture.bytes(a.memory(sink), 0, 64)).isEqualTo(expectedHmac);
        assertThat(EngineFixture.bytes(a.memory(sink), 64, 32)).isEqualTo(expectedSha3);
        assertThat(best).as("bytes allocated by the best pass of %d rounds", rounds).isLessThan(2048);
    }
}
