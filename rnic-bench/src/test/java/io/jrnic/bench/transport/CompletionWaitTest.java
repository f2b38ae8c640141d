package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.NotifyType;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link CompletionWait} on a scripted CQ: polling modes never block; event-loop mode blocks after
 * {@value CompletionWait#SPIN_POLLS} empty polls in a row, takes what the block returned and the
 * rest of the batch, and turns an interrupt or a failed queue pair into an {@link IOException}.
 */
class CompletionWaitTest {

    /** A CQ whose non-blocking polls return {@code ready} completions and whose block returns {@code onBlock}. */
    private static final class ScriptedCq implements CompletionQueue {
        int ready;
        int readyAfterBlock;
        boolean blockReturns;
        RuntimeException blockThrows;
        boolean blockInterrupted;
        int blocks;
        long blockedNanos;

        @Override
        public int poll(WorkCompletion[] out, int offset, int max) {
            int n = Math.min(ready, max);
            ready -= n;
            return n;
        }

        @Override
        public boolean poll(WorkCompletion out, long timeout, TimeUnit unit) throws InterruptedException {
            blocks++;
            blockedNanos = unit.toNanos(timeout);
            if (blockInterrupted) {
                throw new InterruptedException();
            }
            if (blockThrows != null) {
                throw blockThrows;
            }
            if (blockReturns) {
                ready = readyAfterBlock;
            }
            return blockReturns;
        }

        @Override
        public int capacity() {
            return 64;
        }

        @Override
        public int handlerId() {
            return 0;
        }

        @Override
        public boolean poll(WorkCompletion out) {
            return poll(new WorkCompletion[] {out}, 0, 1) == 1;
        }

        @Override
        public WorkCompletion take(WorkCompletion out) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void requestNotification(NotifyType type) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int resize(int minEntries) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }

    private final WorkCompletion[] batch = Completions.batch();
    private final ScriptedCq cq = new ScriptedCq();

    @Test
    void inPollingModesEveryCallPollsOnceAndNeverBlocks() throws IOException {
        CompletionWait wait = new CompletionWait(cq, false, "side");
        for (int i = 0; i < 10 * CompletionWait.SPIN_POLLS; i++) {
            assertThat(wait.poll(batch)).isZero();
        }
        cq.ready = 3;

        assertThat(wait.poll(batch)).isEqualTo(3);
        assertThat(cq.blocks).isZero();
    }

    @Test
    void inEventLoopModeTheSpinEndsInABlockThatReturnsWhatCame() throws IOException {
        CompletionWait wait = new CompletionWait(cq, true, "side");
        for (int i = 1; i < CompletionWait.SPIN_POLLS; i++) {
            assertThat(wait.poll(batch)).isZero();
        }
        assertThat(cq.blocks).isZero();
        cq.blockReturns = true;
        cq.readyAfterBlock = 4; // the block's own completion, then four more in the batch

        assertThat(wait.poll(batch)).isEqualTo(5);
        assertThat(cq.blocks).isEqualTo(1);
        assertThat(cq.blockedNanos).isEqualTo(TimeUnit.MICROSECONDS.toNanos(CompletionWait.BLOCK_MICROS));
    }

    @Test
    void aCompletionRestartsTheSpinAndATimedOutBlockStartsAnother() throws IOException {
        CompletionWait wait = new CompletionWait(cq, true, "side");
        for (int i = 1; i < CompletionWait.SPIN_POLLS; i++) {
            wait.poll(batch);
        }
        cq.ready = 1;
        assertThat(wait.poll(batch)).isEqualTo(1);
        for (int i = 1; i < CompletionWait.SPIN_POLLS; i++) {
            wait.poll(batch);
        }
        assertThat(cq.blocks).as("the completion restarted the count").isZero();

        assertThat(wait.poll(batch)).as("timed out").isZero();
        assertThat(cq.blocks).isEqualTo(1);
        for (int i = 1; i < CompletionWait.SPIN_POLLS; i++) {
            wait.poll(batch);
        }
        assertThat(cq.blocks).isEqualTo(1);
        wait.poll(batch);
        assertThat(cq.blocks).isEqualTo(2);
    }

    @Test
    void forRnicBlocksInEventLoopModeOnly() throws IOException {
        io.jrnic.api.IoMode before = RnicPair.ioMode();
        try {
            RnicPair.ioMode(io.jrnic.api.IoMode.EVENT_LOOP);
            CompletionWait eventLoop = CompletionWait.forRnic(cq, "side");
            RnicPair.ioMode(io.jrnic.api.IoMode.POLLING);
            CompletionWait polling = CompletionWait.forRnic(cq, "side");

            for (int i = 0; i < CompletionWait.SPIN_POLLS; i++) {
                polling.poll(batch);
            }
            assertThat(cq.blocks).isZero();
            for (int i = 0; i < CompletionWait.SPIN_POLLS; i++) {
                eventLoop.poll(batch);
            }
            assertThat(cq.blocks).isEqualTo(1);
        } finally {
            RnicPair.ioMode(before);
        }
    }

    @Test
    void anInterruptedBlockIsAnInterruptedIoExceptionWithTheFlagKept() {
        CompletionWait wait = new CompletionWait(cq, true, "the active side");
        cq.blockInterrupted = true;
        try {
            assertThatThrownBy(() -> {
                for (int i = 0; i < CompletionWait.SPIN_POLLS; i++) {
                    wait.poll(batch);
                }
            }).isInstanceOf(InterruptedIOException.class).hasMessageContaining("the active side");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aFailedQueuePairWhileBlockedIsAnIoExceptionNamingTheSide() {
        CompletionWait wait = new CompletionWait(cq, true, "the passive side");
        cq.blockThrows = new VerbsException(VerbsStatus.INVALID_QP_STATE, "a queue pair of the CQ failed");

        assertThatThrownBy(() -> {
            for (int i = 0; i < CompletionWait.SPIN_POLLS; i++) {
                wait.poll(batch);
            }
        }).isInstanceOf(IOException.class).hasMessageContaining("the passive side")
                .hasMessageContaining("a queue pair of the CQ failed").hasCauseInstanceOf(VerbsException.class);
    }
}
