package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpContext;
import io.jrnic.core.engine.QpTransport;
import io.jrnic.core.wq.ReceiveWqe;
import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/** Posting, processing, completing and polling allocate nothing (the performance contract). */
class AllocationTest extends VerbsFixture {

    /** A transport double that records nothing on the heap: a fixed ring of handed-over WQEs. */
    private static final class RingTransport implements QpTransport {
        final SendWqe[] ring = new SendWqe[64];
        int head;
        int tail;
        Upcalls upcalls;

        @Override
        public boolean established() {
            return true;
        }

        @Override
        public void start(QpContext context, Upcalls upcalls, MemorySegment streamMessage) {
            this.upcalls = upcalls;
        }

        @Override
        public void transmit(SendWqe wqe) {
            ring[tail++ & 63] = wqe;
        }

        void completeAll() {
            while (head != tail) {
                upcalls.sendCompleted(ring[head++ & 63], WorkCompletionStatus.SUCCESS);
            }
        }

        @Override
        public void close() {
        }

        @Override
        public void terminate(TerminateMessage message) {
        }

        @Override
        public void reset() {
        }

        @Override
        public boolean remoteReadsInProgress() {
            return false;
        }
    }

    @Test
    void postProcessCompleteAndPollAllocateNothing() {
        MemoryRegion mr = pd.registerMemory(rnic.allocateMemory(4096, 4096), AccessRights.LOCAL, 0,
                AddressType.ZERO_BASED, 0, false);
        QueuePair qp = pd.createQueuePair(qpConfig().depths(64, 64).sges(4, 4, 4, 64));
        RingTransport t = new RingTransport();
        qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(t));
        SendWorkRequest send = new SendWorkRequest(2);
        SendWorkRequest inline = new SendWorkRequest(1);
        ReceiveWorkRequest recv = new ReceiveWorkRequest(1);
        WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        int rounds = 10_000;
        long best = Long.MAX_VALUE;
        long polled = 0;
        for (int pass = 0; pass < 6; pass++) { // the first passes warm up class loading and the JIT
            long before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                qp.postSend(send.reset().wrId(i).opcode(Opcode.SEND).sge(mr.stag(), 0, 64).sge(mr.stag(), 64, 64));
                qp.postSend(inline.reset().wrId(i).opcode(Opcode.RDMA_WRITE).inline(true).sge(mr.stag(), 0, 32)
                        .remote(0x1200, 0));
                qp.postReceive(recv.reset().wrId(i).sge(mr.stag(), 0, 256));
                t.completeAll();
                ReceiveWqe w = t.upcalls.takeReceive();
                t.upcalls.receiveCompleted(w, WorkCompletionStatus.SUCCESS, 100, false, 0);
                polled += cq.poll(batch);
            }
            best = Math.min(best, AllocationProbe.allocatedBytes() - before);
        }
        assertThat(polled).isEqualTo(6L * 3 * rounds);
        // a steady-state pass of 10,000 rounds (60,000 WRs) allocates nothing; the margin covers the probe itself
        assertThat(best).as("bytes allocated by the best pass of %d rounds", rounds).isLessThan(1024);
    }

    @Test
    void blockingPollsAllocateNothingWhetherTheyWaitOrNot() throws Exception {
        MemoryRegion mr = pd.registerMemory(rnic.allocateMemory(4096, 4096), AccessRights.LOCAL, 0,
                AddressType.ZERO_BASED, 0, false);
        QueuePair qp = pd.createQueuePair(qpConfig().depths(64, 64).sges(4, 4, 4, 64));
        RingTransport t = new RingTransport();
        qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(t));
        int rounds = 20_000;
        int passes = 6;
        java.util.concurrent.atomic.AtomicLong taken = new java.util.concurrent.atomic.AtomicLong();
        long[] best = {Long.MAX_VALUE};
        java.util.concurrent.CompletableFuture<Throwable> takerEnd = new java.util.concurrent.CompletableFuture<>();
        // the waiting side: take() and poll(timeout), measured on its own thread; it often finds the CQ
        // empty and waits on the monitor, so both the waiting and the immediate paths are covered
        Thread taker = Thread.ofPlatform().name("taker").start(() -> {
            WorkCompletion wc = new WorkCompletion();
            try {
                for (int pass = 0; pass < passes; pass++) { // the first passes warm up class loading and the JIT
                    long before = AllocationProbe.allocatedBytes();
                    for (int i = 0; i < rounds; i++) {
                        if ((i & 1) == 0) {
                            cq.take(wc);
                        } else if (!cq.poll(wc, 10, java.util.concurrent.TimeUnit.SECONDS)) {
                            throw new AssertionError("no completion within 10 s");
                        }
                        taken.incrementAndGet();
                    }
                    best[0] = Math.min(best[0], AllocationProbe.allocatedBytes() - before);
                }
                takerEnd.complete(null);
            } catch (Throwable e) {
                takerEnd.complete(e);
            }
        });
        SendWorkRequest send = new SendWorkRequest(1);
        for (long posted = 0; posted < (long) passes * rounds; posted++) {
            while (posted - taken.get() >= 32 && !takerEnd.isDone()) {
                Thread.onSpinWait(); // keep the SQ (64) from filling: the taker releases a slot per completion
            }
            qp.postSend(send.reset().wrId(posted).opcode(Opcode.SEND).sge(mr.stag(), 0, 64));
            t.completeAll();
        }
        assertThat(takerEnd.get(60, java.util.concurrent.TimeUnit.SECONDS)).isNull();
        taker.join();
        assertThat(taken.get()).isEqualTo((long) passes * rounds);
        assertThat(best[0]).as("bytes allocated by the taker's best pass of %d blocking polls", rounds).isLessThan(1024);
    }
}
