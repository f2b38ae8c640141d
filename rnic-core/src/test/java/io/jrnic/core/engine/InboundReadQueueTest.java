package io.jrnic.core.engine;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The responder's IRD queue alone (issue 10): the FIFO of validated inbound requests whose
 * responses go out in request order (RFC 5040 §5.5 rule 11, R-READ-017/029; RFC 7306 §5.4 rule 8:
 * atomics and the commit draft's requests share it), its capacity, the slot kinds and what each
 * slot keeps.
 */
class InboundReadQueueTest {
    private final MemorySegment memory = MemorySegment.ofArray(new byte[256]);

    @Test
    void requestsAreAnsweredInTheOrderTheyWereDelivered_R_READ_029() {
        InboundReadQueue q = new InboundReadQueue(4);
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.add(0x101, 0x1000, 10, memory, 0, 0x201, 0x2000)).isTrue();
        assertThat(q.add(0x102, 0x1100, 20, memory, 16, 0x202, 0x2100)).isTrue();
        assertThat(q.add(0x103, 0x1200, 30, memory, 32)).isTrue();
        assertThat(q.size()).isEqualTo(3);

        assertThat(q.headKind()).isEqualTo(InboundReadQueue.READ);
        assertThat(q.headSinkStag()).isEqualTo(0x101);
        assertThat(q.headSinkTo()).isEqualTo(0x1000);
        assertThat(q.headSize()).isEqualTo(10);
        assertThat(q.headSource()).isSameAs(memory);
        assertThat(q.headSourceOffset()).isZero();
        assertThat(q.headSourceStag()).isEqualTo(0x201); // checked again before each segment (V-TERM-9)
        assertThat(q.headSourceTo()).isEqualTo(0x2000);
        q.pop();
        assertThat(q.headSinkStag()).isEqualTo(0x102);
        assertThat(q.headSourceOffset()).isEqualTo(16);
        q.pop();
        assertThat(q.headSinkStag()).isEqualTo(0x103);
        assertThat(q.headSourceStag()).isZero(); // added without a source STag: not checked again
        q.pop();
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.size()).isZero();
    }

    @Test
    void aFullRingRefusesAndWrapsAroundOnceTheHeadIsAnswered_R_READ_044() {
        InboundReadQueue q = new InboundReadQueue(2);
        assertThat(q.add(1, 0, 1, memory, 0)).isTrue();
        assertThat(q.add(2, 0, 2, memory, 0)).isTrue();
        assertThat(q.add(3, 0, 3, memory, 0)).isFalse(); // the IRD check is the caller's; the ring only refuses
        assertThat(q.addAtomic(0, 1, memory, 0, 4, 0, 0, 0, 0, 0)).isFalse();
        assertThat(q.addCommit(InboundReadQueue.FLUSH, 5, 0, 8, memory, 0, 0, 0, null, 0, 0, memory, 0)).isFalse();
        assertThat(q.size()).isEqualTo(2);
        q.pop();
        assertThat(q.add(3, 0, 3, memory, 0)).isTrue(); // into the freed slot, behind 2
        assertThat(q.headSinkStag()).isEqualTo(2);
        q.pop();
        assertThat(q.headSinkStag()).isEqualTo(3);
        assertThat(q.size()).isEqualTo(1);
    }

    @Test
    void aZeroCapacityStillHoldsOneRequest() {
        InboundReadQueue q = new InboundReadQueue(0);
        assertThat(q.add(1, 0, 1, memory, 0)).isTrue();
        assertThat(q.add(2, 0, 1, memory, 0)).isFalse();
    }

    @Test
    void theHeadKeepsTheBytesAlreadySentAndANewSlotStartsAtZero() {
        InboundReadQueue q = new InboundReadQueue(1);
        q.add(1, 0, 5000, memory, 0);
        assertThat(q.headSent()).isZero();
        q.headSent(1434); // one Read Response segment went out
        assertThat(q.headSent()).isEqualTo(1434);
        q.pop();
        q.add(2, 0, 100, memory, 0);
        assertThat(q.headSent()).isZero(); // the reused slot starts afresh
    }

    @Test
    void atomicSlotsKeepTheirOperandsAndRequestId_RFC_7306_A_ATOM_044() {
        InboundReadQueue q = new InboundReadQueue(4);
        q.add(1, 0, 8, memory, 0);
        assertThat(q.addAtomic(1, 0xCAFE, memory, 8, 0x301, 0x3000, 11, 12, 13, 14)).isTrue();
        q.pop(); // the Read before it is answered first (RFC 7306 §5.4 rule 8)
        assertThat(q.headKind()).isEqualTo(InboundReadQueue.ATOMIC);
        assertThat(q.headAopcode()).isEqualTo(1);
        assertThat(q.headRequestId()).isEqualTo(0xCAFE); // reflected in the Atomic Response
        assertThat(q.headAddOrSwapData()).isEqualTo(11);
        assertThat(q.headAddOrSwapMask()).isEqualTo(12);
        assertThat(q.headCompareData()).isEqualTo(13);
        assertThat(q.headCompareMask()).isEqualTo(14);
        assertThat(q.headSize()).isEqualTo(8);
        assertThat(q.headSourceOffset()).isEqualTo(8);
        assertThat(q.headSourceStag()).isEqualTo(0x301);
        assertThat(q.headSourceTo()).isEqualTo(0x3000);
    }

    @Test
    void commitSlotsCopyTheHashAndTheRequestHeader_C_AW_046() {
        InboundReadQueue q = new InboundReadQueue(4);
        byte[] hash = new byte[32];
        Arrays.fill(hash, (byte) 0x77);
        byte[] ddp = new byte[18];
        Arrays.fill(ddp, (byte) 0x42);
        MemorySegment hashSegment = MemorySegment.ofArray(hash);
        MemorySegment ddpSegment = MemorySegment.ofArray(ddp);
        q.addCommit(InboundReadQueue.FLUSH, 0x401, 0x4000, 64, memory, 0, 3, 0, null, 0, 0, ddpSegment, 0);
        q.addCommit(InboundReadQueue.VERIFY, 0x402, 0x4100, 128, memory, 64, 0, 0, hashSegment, 0, 32, ddpSegment, 0);
        q.addCommit(InboundReadQueue.ATOMIC_WRITE, 0x403, 0x4200, 8, memory, 8, 0, 0x1122334455667788L, null, 0, 0,
                ddpSegment, 0);
        Arrays.fill(hash, (byte) 0); // the slot has its own copies
        Arrays.fill(ddp, (byte) 0);

        assertThat(q.headKind()).isEqualTo(InboundReadQueue.FLUSH);
        assertThat(q.headFlags()).isEqualTo(3);
        assertThat(q.headHashLength()).isZero();
        assertThat(q.headSinkStag()).isZero(); // no tagged response
        assertThat(q.headSourceStag()).isEqualTo(0x401);
        assertThat(q.headRequestHeader().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(0x42);
        q.pop();
        assertThat(q.headKind()).isEqualTo(InboundReadQueue.VERIFY);
        assertThat(q.headHashLength()).isEqualTo(32);
        assertThat(Arrays.copyOf(q.headHash(), 32)).containsOnly(0x77);
        assertThat(q.headSize()).isEqualTo(128);
        q.pop();
        assertThat(q.headKind()).isEqualTo(InboundReadQueue.ATOMIC_WRITE);
        assertThat(q.headData()).isEqualTo(0x1122334455667788L);
        assertThat(q.headSourceTo()).isEqualTo(0x4200);
    }

    @Test
    void clearEmptiesTheRingAndItIsUsableAgain() {
        InboundReadQueue q = new InboundReadQueue(2);
        q.add(1, 0, 1, memory, 0);
        q.addAtomic(0, 7, memory, 0, 2, 0, 0, 0, 0, 0);
        q.clear();
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.size()).isZero();
        assertThat(q.add(3, 0, 1, memory, 0)).isTrue();
        assertThat(q.add(4, 0, 1, memory, 0)).isTrue();
        assertThat(q.headKind()).isEqualTo(InboundReadQueue.READ); // a reused atomic slot is a Read again
        assertThat(q.headSinkStag()).isEqualTo(3);
    }

    @Test
    void everyKindOfRequestCountsAgainstTheIrdUntilItsResponseIsDone_R_READ_044_AMB_11() {
        InboundReadQueue q = new InboundReadQueue(3);
        MemorySegment ddp = MemorySegment.ofArray(new byte[18]);
        for (int round = 0; round < 3; round++) { // the ring wraps: head and tail both move on
            assertThat(q.add(1, 0, 8, memory, 0)).isTrue();
            assertThat(q.size()).isEqualTo(1);
            assertThat(q.addAtomic(0, 2, memory, 0, 3, 0, 0, 0, 0, 0)).isTrue();
            assertThat(q.size()).isEqualTo(2);
            assertThat(q.addCommit(InboundReadQueue.VERIFY, 4, 0, 8, memory, 0, 0, 0, null, 0, 0, ddp, 0))
                    .isTrue();
            assertThat(q.size()).as("round %d, full", round).isEqualTo(3);
            assertThat(q.add(5, 0, 8, memory, 0)).as("round %d, beyond the ring", round).isFalse();
            assertThat(q.addCommit(InboundReadQueue.FLUSH, 6, 0, 8, memory, 0, 0, 0, null, 0, 0, ddp, 0))
                    .isFalse();
            q.pop();
            assertThat(q.size()).isEqualTo(2);
            assertThat(q.isEmpty()).isFalse();
            q.pop();
            q.pop();
            assertThat(q.size()).isZero();
            assertThat(q.isEmpty()).isTrue();
        }
    }

    @Test
    void aRingSizedForTheIrdDoublesUpToTheRnicsMaximumKeepingTheOrder() {
        // sized for the QP's IRD of 2 at the start; a Modify QP raised it (the IRD check is the caller's)
        InboundReadQueue q = new InboundReadQueue(2, 8);
        assertThat(q.capacity()).isEqualTo(2);
        assertThat(q.add(1, 0x10, 1, memory, 0)).isTrue();
        assertThat(q.add(2, 0x20, 2, memory, 0)).isTrue();
        q.pop();
        assertThat(q.add(3, 0x30, 3, memory, 0)).isTrue(); // wraps around: 2 at slot 1, 3 at slot 0
        assertThat(q.addAtomic(0, 7, memory, 8, 4, 0x40, 11, 12, 13, 14)).isTrue(); // full: grows to 4
        assertThat(q.capacity()).isEqualTo(4);
        for (int stag = 5; stag <= 9; stag++) {
            assertThat(q.add(stag, 0x10L * stag, stag, memory, 0)).isTrue();
        }
        assertThat(q.capacity()).isEqualTo(8);
        assertThat(q.add(10, 0, 10, memory, 0)).as("the RNIC's maximum IRD").isFalse();
        assertThat(q.size()).isEqualTo(8);
        int[] order = {2, 3, 0, 5, 6, 7, 8, 9};
        for (int expected : order) {
            if (expected == 0) {
                assertThat(q.headKind()).isEqualTo(InboundReadQueue.ATOMIC);
                assertThat(q.headRequestId()).isEqualTo(7);
                assertThat(q.headSourceOffset()).isEqualTo(8);
                assertThat(q.headSourceTo()).isEqualTo(0x40);
                assertThat(q.headAddOrSwapData()).isEqualTo(11);
                assertThat(q.headCompareMask()).isEqualTo(14);
            } else {
                assertThat(q.headKind()).isEqualTo(InboundReadQueue.READ);
                assertThat(q.headSinkStag()).isEqualTo(expected);
                assertThat(q.headSinkTo()).isEqualTo(0x10L * expected);
                assertThat(q.headSize()).isEqualTo(expected);
            }
            q.pop();
        }
        assertThat(q.isEmpty()).isTrue();
    }
}
