package io.jrnic.bench.transport;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * The consuming side of an {@link Transport#RNIC_SEND} stream: a platform thread that waits on the
 * passive queue pair's CQ ({@link CompletionWait}: polling, and in event-loop mode blocking after a
 * short spin), checks each received message (length, sequence number, and with
 * {@link MessageOptions#verifyPayload()} every pattern byte), re-posts its receive at once, and
 * grants the sender credits (see {@link RnicMessageStream}).
 *
 * <p>{@value #RECEIVES} receive buffers of one message each, in one registered region, receive
 * {@code n} lands in buffer {@code n mod RECEIVES} (receives complete in posting order). At the end
 * every buffer that received a message is checked against the pattern, so even without per-message
 * payload checks a corruption of the last {@value #RECEIVES} messages is seen.
 *
 * <p>Credits: after every {@value #CREDIT_BATCH} consumed messages the consumer sends the total of
 * receives it has posted so far, 8 bytes inline (copied at post time, so the next credit may reuse
 * the word at once). If its small SQ is full, the credit waits and goes out with the next send
 * completion; the value is cumulative, so a later credit replaces an earlier one.
 *
 * <p>Thread safety: the loop runs on its own thread; {@link #endAfter}, {@link #stop},
 * {@link #awaitEnd} and {@link #report} are for the stream's thread. The counters are read by
 * {@link #report} only after {@link #awaitEnd} joined the thread.
 */
final class RnicSendConsumer implements Runnable {

    /** Receives kept posted (the passive RQ depth and the sender's initial credit). */
    static final int RECEIVES = 128;

    /** Messages between two credit messages. */
    static final int CREDIT_BATCH = 32;

    /** SQ depth of the consumer (credit Sends). */
    static final int CREDIT_SQ_DEPTH = 16;

    private static final long CREDIT_WR_ID = -2L;

    private final RnicPair.Side side;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final CompletionWait completions;
    private final MessageOptions options;
    private final int size;
    private final RnicPair.Region buffers;
    private final RnicPair.Region creditWord;
    private final MemorySegment expected;
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest();
    private final SendWorkRequest wr = new SendWorkRequest(1);
    private final WorkCompletion[] batch = Completions.batch();
    private final BusyWait wait = BusyWait.forRnic();
    private volatile long end = Long.MAX_VALUE;
    private volatile boolean stopped;
    private Thread thread;
    private Throwable failure;
    private long received;
    private long granted;
    private int creditsInFlight;
    private boolean creditPending;
    private long sequenceErrors;
    private long payloadErrors;
    private long truncated;

    /**
     * Registers the receive buffers and posts every receive (the queue pair is still Idle).
     *
     * @param side    the passive side
     * @param options the message shape
     */
    RnicSendConsumer(RnicPair.Side side, MessageOptions options) {
        this.side = side;
        this.qp = side.qp();
        this.cq = side.cq();
        this.completions = CompletionWait.forRnic(cq, side);
        this.options = options;
        this.size = options.messageSize();
        this.buffers = side.register((long) RECEIVES * size);
        this.creditWord = side.register(64);
        this.expected = MemorySegment.ofArray(new byte[size]);
        MessagePattern.fill(expected, size);
        for (int slot = 0; slot < RECEIVES; slot++) {
            repost(slot);
        }
        granted = RECEIVES;
    }

    /** Starts the consuming thread. */
    void start() {
        thread = Thread.ofPlatform().daemon().name("rnic-send-consumer").start(this);
    }

    /** Tells the consumer how many messages the stream sent: it ends after receiving that many. */
    void endAfter(long total) {
        end = total;
    }

    /** Makes the loop end at its next turn, whatever it received (teardown after a failure). */
    void stop() {
        stopped = true;
        wait.release();
    }

    /** Parks the consuming thread once it is idle, until {@link #release()} ({@link BusyWait#hold()}). */
    void hold() {
        wait.hold();
    }

    /** Ends a {@link #hold()}. */
    void release() {
        wait.release();
    }

    /**
     * Waits for the loop to end.
     *
     * @param timeout how long to wait
     * @throws IOException          if the loop failed, or did not end in time (it is then stopped)
     * @throws InterruptedException if interrupted while waiting
     */
    void awaitEnd(Duration timeout) throws IOException, InterruptedException {
        if (!thread.join(timeout)) {
            stop(); // also ends a hold
            thread.join();
            throw new IOException("consumer did not receive " + end + " messages within " + timeout
                    + " (received " + received + ") on " + side);
        }
        if (failure != null) {
            throw new IOException("consumer failed: " + failure, failure);
        }
    }

    /**
     * The consumer's counts, after {@link #awaitEnd}.
     *
     * @param sent messages the stream sent
     * @return the report
     */
    TransferReport report(long sent) {
        return new TransferReport(sent, received, 0, sequenceErrors, payloadErrors, truncated);
    }

    @Override
    public void run() {
        try {
            while (received < end && !stopped) {
                int n = completions.poll(batch);
                if (n == 0) {
                    wait.pause();
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = batch[i];
                    Completions.check(wc, side);
                    if (wc.opcode() == Opcode.RECEIVE) {
                        consume(wc);
                    } else {
                        creditsInFlight--;
                    }
                }
                if (creditPending && creditsInFlight < CREDIT_SQ_DEPTH) {
                    grant();
                }
            }
            checkBuffers();
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void consume(WorkCompletion wc) {
        int slot = (int) wc.wrId();
        long offset = (long) slot * size;
        if (wc.byteLength() != size) {
            truncated++;
        } else {
            if (buffers.memory().get(RnicMessageStream.LONG_BE, offset) != received) {
                sequenceErrors++;
            }
            if (options.verifyPayload()
                    && !MessagePattern.patternMatches(buffers.memory().asSlice(offset, size), expected, size)) {
                payloadErrors++;
            }
        }
        received++;
        repost(slot);
        if (received + RECEIVES - granted >= CREDIT_BATCH) {
            creditPending = true;
        }
    }

    private void repost(int slot) {
        qp.postReceive(rr.reset().wrId(slot).sge(buffers.stag(), buffers.to() + (long) slot * size, size));
    }

    private void grant() {
        granted = received + RECEIVES;
        creditWord.memory().set(RnicMessageStream.LONG_BE, 0, granted);
        qp.postSend(wr.reset().wrId(CREDIT_WR_ID).opcode(Opcode.SEND).inline(true)
                .sge(creditWord.stag(), creditWord.to(), Long.BYTES));
        creditsInFlight++;
        creditPending = false;
    }

    /** Teardown check: each buffer that received a message still holds an intact pattern. */
    private void checkBuffers() {
        if (options.verifyPayload()) {
            return; // every message was checked on arrival
        }
        long used = Math.min(received, RECEIVES);
        for (int slot = 0; slot < used; slot++) {
            MemorySegment message = buffers.memory().asSlice((long) slot * size, size);
            if (!MessagePattern.patternMatches(message, expected, size)) {
                payloadErrors++;
            }
        }
    }
}
