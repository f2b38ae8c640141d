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
 * The echoing side of an {@link RnicPingPong}: a platform thread that busy-polls for the next ping
 * (its inbox's last word for RDMA Write, its CQ for Send), checks its sequence number, and answers
 * with the same sequence number by the same operation. See {@link RnicPingPong} for the protocol.
 *
 * <p>Thread safety: the loop runs on its own thread; the other methods are for the ping-pong's
 * thread; the counters are read only after {@link #awaitEnd} joined the thread.
 */
final class RnicEchoPeer implements Runnable {

    private final RnicPair.Side side;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final Opcode opcode;
    private final int size;
    private final long tail;
    private final RnicPair.Region inbox;
    private final RnicPair.Region out;
    private final SendWorkRequest wr = new SendWorkRequest(1);
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest();
    private final WorkCompletion[] batch = Completions.batch();
    private final BusyWait wait = BusyWait.forRnic();
    private volatile boolean stopped;
    private Thread thread;
    private Throwable failure;
    private long echoed;
    private long sequenceErrors;
    private long truncated;
    private int unreaped;

    /**
     * Registers the inbox (Write) or the receive buffers, posted now while the QP is Idle (Send),
     * and the answer's source.
     *
     * @param side    the passive side
     * @param options the message shape
     * @param opcode  RDMA_WRITE or SEND
     */
    RnicEchoPeer(RnicPair.Side side, MessageOptions options, Opcode opcode) {
        this.side = side;
        this.qp = side.qp();
        this.cq = side.cq();
        this.opcode = opcode;
        this.size = options.messageSize();
        this.tail = size - Long.BYTES;
        this.out = side.register(size);
        MessagePattern.fill(out.memory(), size);
        if (opcode == Opcode.SEND) {
            this.inbox = side.register((long) RnicPingPong.RECEIVES * size);
            RnicPingPong.postReceives(qp, inbox, size);
        } else {
            this.inbox = side.register(size);
            // Nothing received yet: make the polled word differ from sequence number 0.
            inbox.memory().set(RnicMessageStream.LONG_BE, tail, -1L);
        }
    }

    /** The region the requester writes its pings into (Write mode). */
    RnicPair.Region inbox() {
        return inbox;
    }

    /** Starts the echoing thread (after the connection is up: the peer's inbox is known). */
    void start() {
        thread = Thread.ofPlatform().daemon().name("rnic-echo").start(this);
    }

    /** Makes the loop end at its next turn. */
    void stop() {
        stopped = true;
        wait.release();
    }

    /** Parks the echoing thread once it is idle, until {@link #release()} ({@link BusyWait#hold()}). */
    void hold() {
        wait.hold();
    }

    /** Ends a {@link #hold()}. */
    void release() {
        wait.release();
    }

    /**
     * Waits for the loop to end (after {@link #stop}).
     *
     * @param timeout how long to wait
     * @throws IOException          if the loop failed or did not end in time
     * @throws InterruptedException if interrupted while waiting
     */
    void awaitEnd(Duration timeout) throws IOException, InterruptedException {
        if (thread == null) {
            return;
        }
        if (!thread.join(timeout)) {
            throw new IOException("echo did not stop within " + timeout + " on " + side);
        }
        if (failure != null) {
            throw new IOException("echo failed after " + echoed + " messages: " + failure, failure);
        }
    }

    /** Pings whose sequence number was not the next one (after {@link #awaitEnd}). */
    long sequenceErrors() {
        return sequenceErrors;
    }

    /** Pings of the wrong length (after {@link #awaitEnd}). */
    long truncated() {
        return truncated;
    }

    @Override
    public void run() {
        try {
            if (opcode == Opcode.RDMA_WRITE) {
                echoWrites();
            } else {
                echoSends();
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void echoWrites() throws IOException {
        RnicPair.Remote peer = side.peer();
        MemorySegment memory = inbox.memory();
        while (!stopped) {
            if ((long) RnicPingPong.POLLED_WORD.getVolatile(memory, tail) != echoed) {
                // An empty CQ poll drives the connection in polling mode and may just have placed
                // the ping: look again before giving the core away.
                if (reap() == 0 && (long) RnicPingPong.POLLED_WORD.getVolatile(memory, tail) != echoed) {
                    wait.pause();
                }
                continue;
            }
            if (memory.get(RnicMessageStream.LONG_BE, 0) != echoed) {
                sequenceErrors++;
            }
            out.memory().set(RnicMessageStream.LONG_BE, 0, echoed);
            out.memory().set(RnicMessageStream.LONG_BE, tail, echoed);
            answer(wr.reset().remote(peer.stag(), peer.to()));
        }
    }

    private void echoSends() throws IOException {
        while (!stopped) {
            int n = cq.poll(batch, 0, batch.length);
            if (n == 0) {
                wait.pause();
                continue;
            }
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = batch[i];
                Completions.check(wc, side);
                if (wc.opcode() != Opcode.RECEIVE) {
                    unreaped--;
                    continue;
                }
                int slot = (int) wc.wrId();
                long offset = (long) slot * size;
                if (wc.byteLength() != size) {
                    truncated++;
                } else if (inbox.memory().get(RnicMessageStream.LONG_BE, offset) != echoed) {
                    sequenceErrors++;
                }
                qp.postReceive(rr.reset().wrId(slot).sge(inbox.stag(), inbox.to() + offset, size));
                out.memory().set(RnicMessageStream.LONG_BE, 0, echoed);
                answer(wr.reset());
            }
        }
    }

    /** Completes and posts the answer to ping {@link #echoed}; the caller set the remote address if any. */
    private void answer(SendWorkRequest request) {
        boolean signaled = (echoed + 1) % RnicPingPong.SIGNAL_EVERY == 0;
        qp.postSend(request.wrId(echoed).opcode(opcode).signaled(signaled).sge(out.stag(), out.to(), size));
        if (signaled) {
            unreaped++;
        }
        echoed++;
    }

    private int reap() throws IOException {
        int n = cq.poll(batch, 0, batch.length);
        for (int i = 0; i < n; i++) {
            Completions.check(batch[i], side);
            unreaped--;
        }
        return n;
    }
}
