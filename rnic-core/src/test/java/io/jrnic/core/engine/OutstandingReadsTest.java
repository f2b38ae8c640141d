package io.jrnic.core.engine;

import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The requester's ORD queue alone (issue 10): Read, atomic and commit requests whose response is
 * awaited, oldest first. Responses arrive in request order (RFC 5040 §5.5 rule 11, R-READ-029;
 * RFC 7306 §5.4 rule 8), so the head is always the one answered; an atomic's head carries the
 * Request Identifier its response must reflect (RFC 7306 §5.2, A-ATOM-044).
 */
class OutstandingReadsTest {
    private static SendWqe wqe() {
        return new SendWqe(1, 0);
    }

    @Test
    void theHeadIsTheOldestRequest_R_READ_029() {
        OutstandingReads ord = new OutstandingReads(4);
        SendWqe r1 = wqe();
        SendWqe r2 = wqe();
        SendWqe r3 = wqe();
        assertThat(ord.add(r1)).isTrue();
        assertThat(ord.add(r2, OutstandingReads.ATOMIC, 77)).isTrue();
        assertThat(ord.add(r3, OutstandingReads.VERIFY)).isTrue();
        assertThat(ord.size()).isEqualTo(3);
        assertThat(ord.head()).isSameAs(r1);
        assertThat(ord.headKind()).isEqualTo(OutstandingReads.READ);
        assertThat(ord.poll()).isSameAs(r1);
        assertThat(ord.head()).isSameAs(r2);
        assertThat(ord.headKind()).isEqualTo(OutstandingReads.ATOMIC);
        assertThat(ord.headRequestId()).isEqualTo(77);
        assertThat(ord.poll()).isSameAs(r2);
        assertThat(ord.headKind()).isEqualTo(OutstandingReads.VERIFY);
        assertThat(ord.poll()).isSameAs(r3);
        assertThat(ord.isEmpty()).isTrue();
    }

    @Test
    void anEmptyQueueHasNoHeadAndAReadKind() {
        OutstandingReads ord = new OutstandingReads(2);
        assertThat(ord.head()).isNull();
        assertThat(ord.poll()).isNull();
        // a response with nothing outstanding is checked as a Read Response (then Unexpected OpCode)
        assertThat(ord.headKind()).isEqualTo(OutstandingReads.READ);
        assertThat(ord.size()).isZero();
    }

    @Test
    void aFullRingRefusesAndWrapsAround() {
        OutstandingReads ord = new OutstandingReads(2);
        SendWqe r1 = wqe();
        SendWqe r2 = wqe();
        SendWqe r3 = wqe();
        assertThat(ord.add(r1)).isTrue();
        assertThat(ord.add(r2, OutstandingReads.FLUSH)).isTrue();
        assertThat(ord.add(r3)).isFalse(); // beyond the RNIC's ORD: the SQ's ORD check failed upstream
        assertThat(ord.add(r3, OutstandingReads.ATOMIC, 1)).isFalse();
        assertThat(ord.poll()).isSameAs(r1);
        assertThat(ord.add(r3, OutstandingReads.ATOMIC_WRITE)).isTrue();
        assertThat(ord.poll()).isSameAs(r2);
        assertThat(ord.head()).isSameAs(r3);
        assertThat(ord.headKind()).isEqualTo(OutstandingReads.ATOMIC_WRITE);
        assertThat(new OutstandingReads(0).add(r1)).isTrue(); // at least one slot
    }

    @Test
    void theHeadKeepsTheResponseBytesPlacedAndANewSlotStartsAtZero() {
        OutstandingReads ord = new OutstandingReads(1);
        ord.add(wqe());
        ord.headReceived(1434);
        assertThat(ord.headReceived()).isEqualTo(1434);
        ord.poll();
        ord.add(wqe());
        assertThat(ord.headReceived()).isZero();
    }

    @Test
    void requestIdsBelongToTheirSlot_RFC_7306_A_ATOM_044() {
        OutstandingReads ord = new OutstandingReads(2);
        ord.add(wqe(), OutstandingReads.ATOMIC, 1);
        ord.add(wqe(), OutstandingReads.ATOMIC, 2);
        assertThat(ord.headRequestId()).isEqualTo(1);
        ord.poll();
        ord.add(wqe()); // a Read, in the slot the first atomic used: Request Identifier 0
        assertThat(ord.headRequestId()).isEqualTo(2);
        ord.poll();
        assertThat(ord.headRequestId()).isZero();
    }

    @Test
    void clearDropsEveryRequest() {
        OutstandingReads ord = new OutstandingReads(2);
        ord.add(wqe());
        ord.add(wqe(), OutstandingReads.ATOMIC, 3);
        ord.clear();
        assertThat(ord.isEmpty()).isTrue();
        assertThat(ord.head()).isNull();
        SendWqe again = wqe();
        assertThat(ord.add(again)).isTrue();
        assertThat(ord.head()).isSameAs(again);
    }

    @Test
    void theKindsAreTheIrdQueuesKinds() {
        // the requester's kind names the response expected; the responder's slot the response sent
        assertThat(OutstandingReads.READ).isEqualTo(InboundReadQueue.READ);
        assertThat(OutstandingReads.ATOMIC).isEqualTo(InboundReadQueue.ATOMIC);
        assertThat(OutstandingReads.FLUSH).isEqualTo(InboundReadQueue.FLUSH);
        assertThat(OutstandingReads.VERIFY).isEqualTo(InboundReadQueue.VERIFY);
        assertThat(OutstandingReads.ATOMIC_WRITE).isEqualTo(InboundReadQueue.ATOMIC_WRITE);
    }

    @Test
    void theSizeCountsTheRequestsBetweenHeadAndTailAfterTheRingWrapped_V_IRD_9() {
        OutstandingReads ord = new OutstandingReads(2);
        for (int round = 0; round < 3; round++) {
            assertThat(ord.add(wqe())).isTrue();
            assertThat(ord.add(wqe(), OutstandingReads.ATOMIC, round)).isTrue();
            assertThat(ord.size()).as("round %d, full", round).isEqualTo(2);
            // full again after wrapping: one more would exceed the RNIC's ORD
            assertThat(ord.add(wqe(), OutstandingReads.FLUSH)).as("round %d", round).isFalse();
            assertThat(ord.poll()).isNotNull();
            assertThat(ord.size()).as("round %d, one left", round).isEqualTo(1);
            assertThat(ord.isEmpty()).isFalse();
            assertThat(ord.poll()).isNotNull();
            assertThat(ord.size()).isZero();
            assertThat(ord.isEmpty()).isTrue();
        }
    }
}
