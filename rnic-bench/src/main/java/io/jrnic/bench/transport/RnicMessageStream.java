package io.jrnic.bench.transport;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.WorkCompletion;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * The RNIC {@link MessageStream}s: RDMA Write into the peer's advertised region
 * ({@link Transport#RNIC_WRITE}) or Send into receives the peer keeps posted
 * ({@link Transport#RNIC_SEND}), between two {@link io.jrnic.core.SoftRnic}s over loopback
 * ({@link RnicPair}).
 *
 * <p><b>Sender</b> (the caller's thread), shaped like {@code ib_write_bw}/{@code ib_send_bw}: the
 * source is a registered native region of {@value #WINDOW} message slots; message {@code n} goes from
 * slot {@code n mod WINDOW} (its sequence number rewritten first). Up to {@value #WINDOW} work
 * requests are outstanding (the SQ depth); every {@value #SIGNAL_EVERY}th is signaled, and its
 * completion retires it and every earlier one (completions arrive in posting order, Verbs §8.2.2),
 * which frees their slots for reuse: a completed Write or Send has handed its last byte to the LLP
 * (RFC 5040 §5.1), so the source may change. {@link #send()} waits on the CQ only while the window
 * is full ({@link CompletionWait}: polling, and in event-loop mode blocking after a short spin), so
 * it returns once the message is posted; over an iteration the rate of {@code send()}
 * is the completion rate to within {@value #WINDOW} messages. With {@link MessageOptions#postList()}
 * {@code n > 1}, {@code send()} stages the work request and every {@code n}th hands the staged ones
 * to the QP in one {@code postSend(wrs, 0, n)} (a doorbell, perftest's {@code --post_list}); staged
 * ones are posted before the sender waits for the window or credits, and before the stream ends.
 *
 * <p><b>Write</b>: the sink is a region of {@value #WINDOW} slots on the passive side, advertised
 * (STag, TO) in the MPA Reply's private data; message {@code n} lands in slot {@code n mod WINDOW}.
 * Nothing runs on the passive side per message. {@link #finish()} sends one last Send carrying the
 * number of Writes; RFC 5040 §5.5 orders it after every Write, so when the passive side's receive
 * completes, all Writes are placed, and the passive side checks the last {@value #WINDOW} messages in
 * the sink: sequence number of each slot and every pattern byte.
 *
 * <p><b>Send</b>: a {@link RnicSendConsumer} thread keeps {@value RnicSendConsumer#RECEIVES} receives
 * posted, checks and re-posts each consumed one. iWARP has no receiver-not-ready retry: a Send
 * without a posted receive terminates the connection (RFC 5041 §7.2, untagged buffer error
 * "Invalid MSN - no buffer available"). The sender therefore keeps credits: it may send while {@code sent <} the count of
 * receives the consumer ever posted, which the consumer reports every
 * {@value RnicSendConsumer#CREDIT_BATCH} messages in an 8-byte inline Send into one of
 * {@value #CREDIT_RECEIVES} receives the sender keeps posted (at most
 * {@code RECEIVES / CREDIT_BATCH} = 4 credit messages can be unread, so they never run out).
 *
 * <p>No allocation per message on the sender: one reusable {@link SendWorkRequest},
 * {@link ReceiveWorkRequest} and {@link WorkCompletion} batch.
 *
 * <p>Thread safety: as {@link MessageStream}.
 */
public final class RnicMessageStream implements MessageStream {

    /** Outstanding work requests (sender SQ depth), and slots in the source and in the Write sink. */
    static final int WINDOW = 128;

    /** Every this many work requests one is signaled (also the one-sided streams' interval, perftest's cq_mod). */
    public static final int SIGNAL_EVERY = 32;

    /** Receives the sender keeps posted for credit messages. */
    static final int CREDIT_RECEIVES = 8;

    /** WR ID of the Send that ends a Write stream. */
    static final long TERMINAL_WR_ID = -1L;

    /** How long {@link #finish()} waits for the consumer. */
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

    /** Big-endian long at any offset: sequence numbers and credit words. */
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final RnicPair pair;
    private final MessageOptions options;
    private final Opcode opcode;
    private final RnicPair.Region source;
    private final RnicPair.Region credits;
    private final RnicPair.Region control;
    private final RnicPair.Region sink;
    private final RnicPair.Region terminal;
    private final RnicSendConsumer consumer;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final SendWorkRequest[] staged;
    private int stagedCount;
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest();
    private final WorkCompletion[] batch = Completions.batch();
    private final BusyWait wait = BusyWait.forRnic();
    private final CompletionWait completions;
    private final int size;
    private final int remoteStag;
    private final long remoteTo;
    private long sent;
    private long completed;
    private long creditLimit;
    private boolean terminalCompleted;
    private boolean finished;

    private RnicMessageStream(RnicPair pair, MessageOptions options, Opcode opcode, RnicPair.Region source,
                              RnicPair.Region credits, RnicPair.Region control, RnicPair.Region sink,
                              RnicPair.Region terminal, RnicSendConsumer consumer) {
        this.pair = pair;
        this.options = options;
        this.opcode = opcode;
        this.source = source;
        this.credits = credits;
        this.control = control;
        this.sink = sink;
        this.terminal = terminal;
        this.consumer = consumer;
        this.qp = pair.active().qp();
        this.cq = pair.active().cq();
        this.completions = CompletionWait.forRnic(cq, pair.active());
        this.size = options.messageSize();
        RnicPair.Remote peer = pair.active().peer();
        this.remoteStag = peer == null ? 0 : peer.stag();
        this.remoteTo = peer == null ? 0 : peer.to();
        this.creditLimit = consumer == null ? Long.MAX_VALUE : RnicSendConsumer.RECEIVES;
        this.staged = new SendWorkRequest[options.postList()];
        for (int i = 0; i < staged.length; i++) {
            staged[i] = new SendWorkRequest(1);
        }
    }

    /**
     * Opens a Write stream: connects two RNICs, registers source and sink, advertises the sink.
     *
     * @param options the message shape; {@code crc} selects MPA CRC on both sides
     * @return the open stream
     * @throws IOException if the RNICs could not be connected
     */
    public static RnicMessageStream openWrite(MessageOptions options) throws IOException {
        RnicPair pair = RnicPair.open(options.crc(), new RnicPair.Depths(WINDOW + 1, 1), new RnicPair.Depths(1, 1));
        try {
            RnicPair.Region source = slots(pair.active(), options.messageSize());
            RnicPair.Region control = pair.active().register(64);
            RnicPair.Region sink = pair.passive().register((long) WINDOW * options.messageSize());
            RnicPair.Region terminal = pair.passive().register(64);
            pair.passive().qp().postReceive(new ReceiveWorkRequest().wrId(TERMINAL_WR_ID)
                    .sge(terminal.stag(), terminal.to(), Long.BYTES));
            pair.connect(null, sink);
            return new RnicMessageStream(pair, options, Opcode.RDMA_WRITE, source, null, control, sink, terminal, null);
        } catch (IOException | RuntimeException | Error e) {
            pair.close();
            throw e;
        }
    }

    /**
     * Opens a Send stream: connects two RNICs, pre-posts the consumer's receives and the sender's
     * credit receives, and starts the consumer.
     *
     * @param options the message shape; {@code crc} selects MPA CRC on both sides
     * @return the open stream
     * @throws IOException if the RNICs could not be connected
     */
    public static RnicMessageStream openSend(MessageOptions options) throws IOException {
        RnicPair pair = RnicPair.open(options.crc(), new RnicPair.Depths(WINDOW, CREDIT_RECEIVES),
                new RnicPair.Depths(RnicSendConsumer.CREDIT_SQ_DEPTH, RnicSendConsumer.RECEIVES));
        RnicSendConsumer consumer = null;
        try {
            RnicPair.Region source = slots(pair.active(), options.messageSize());
            RnicPair.Region credits = pair.active().register((long) CREDIT_RECEIVES * Long.BYTES);
            ReceiveWorkRequest rr = new ReceiveWorkRequest();
            for (int i = 0; i < CREDIT_RECEIVES; i++) {
                pair.active().qp().postReceive(rr.reset().wrId(i)
                        .sge(credits.stag(), credits.to() + (long) i * Long.BYTES, Long.BYTES));
            }
            consumer = new RnicSendConsumer(pair.passive(), options);
            pair.connect(null, null);
            consumer.start();
            return new RnicMessageStream(pair, options, Opcode.SEND, source, credits, null, null, null, consumer);
        } catch (IOException | RuntimeException | Error e) {
            if (consumer != null) {
                consumer.stop();
            }
            pair.close();
            throw e;
        }
    }

    private static RnicPair.Region slots(RnicPair.Side side, int messageSize) {
        RnicPair.Region region = side.register((long) WINDOW * messageSize);
        for (int slot = 0; slot < WINDOW; slot++) {
            MessagePattern.fill(region.memory().asSlice((long) slot * messageSize, messageSize), messageSize);
        }
        return region;
    }

    @Override
    public MessageOptions options() {
        return options;
    }

    @Override
    public void send() throws IOException {
        long sequence = sent;
        if (sequence - completed >= WINDOW || sequence >= creditLimit) {
            postStaged(); // what waits for the window must be on the wire
            wait.reset();
            do {
                poll();
            } while (sequence - completed >= WINDOW || sequence >= creditLimit);
        }
        long offset = (sequence & (WINDOW - 1)) * size;
        source.memory().set(LONG_BE, offset, sequence);
        SendWorkRequest wr = staged[stagedCount++];
        wr.reset().wrId(sequence).opcode(opcode).signaled((sequence + 1) % SIGNAL_EVERY == 0)
                .sge(source.stag(), source.to() + offset, size);
        if (opcode == Opcode.RDMA_WRITE) {
            wr.remote(remoteStag, remoteTo + offset);
        }
        sent = sequence + 1;
        if (stagedCount == staged.length) {
            postStaged();
        }
    }

    /**
     * Posts the staged work requests and waits until every signaled one has completed: all but the
     * last few (fewer than {@value #SIGNAL_EVERY}, unsignaled) messages are then handed to the LLP
     * (RFC 5040 §5.1), so a caller that stops its clock after this has timed them.
     */
    @Override
    public void flush() throws IOException {
        postStaged();
        wait.reset();
        while (sent - completed >= SIGNAL_EVERY) {
            poll();
        }
    }

    /** Hands the staged work requests to the QP: one post for the whole list. */
    private void postStaged() throws IOException {
        if (stagedCount == 0) {
            return;
        }
        int count = stagedCount;
        stagedCount = 0;
        if (count == 1) {
            post(staged[0]);
            return;
        }
        int posted;
        try {
            posted = qp.postSend(staged, 0, count);
        } catch (VerbsException e) {
            throw new IOException("post send refused on " + pair.active() + ": " + e.getMessage(), e);
        }
        if (posted != count) {
            throw new IOException("post list of " + count + " took only " + posted + " on " + pair.active());
        }
    }

    private void post(SendWorkRequest request) throws IOException {
        try {
            qp.postSend(request);
        } catch (VerbsException e) {
            throw new IOException("post send refused on " + pair.active() + ": " + e.getMessage(), e);
        }
    }

    /** One poll of the sender's CQ: retires signaled work requests, takes credits; idles if empty. */
    private void poll() throws IOException {
        int n = completions.poll(batch);
        if (n == 0) {
            wait.idle("send completions or credits", pair.active());
            return;
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = batch[i];
            Completions.check(wc, pair.active());
            if (wc.opcode() == Opcode.RECEIVE) {
                takeCredit((int) wc.wrId());
            } else if (wc.wrId() == TERMINAL_WR_ID) {
                terminalCompleted = true;
            } else {
                completed = wc.wrId() + 1;
            }
        }
    }

    private void takeCredit(int slot) {
        long offset = (long) slot * Long.BYTES;
        creditLimit = Math.max(creditLimit, credits.memory().get(LONG_BE, offset));
        qp.postReceive(rr.reset().wrId(slot).sge(credits.stag(), credits.to() + offset, Long.BYTES));
    }

    @Override
    public TransferReport finish() throws IOException, InterruptedException {
        if (finished) {
            throw new IllegalStateException("finish() called twice on this message stream");
        }
        finished = true;
        try {
            return opcode == Opcode.RDMA_WRITE ? finishWrite() : finishSend();
        } finally {
            if (consumer != null) {
                consumer.stop();
            }
            pair.close();
        }
    }

    @Override
    public void hold() {
        if (consumer != null) {
            consumer.hold();
        }
    }

    @Override
    public void release() {
        if (consumer != null) {
            consumer.release();
        }
    }

    private TransferReport finishSend() throws IOException, InterruptedException {
        consumer.release();
        postStaged();
        consumer.endAfter(sent);
        consumer.awaitEnd(DRAIN_TIMEOUT);
        return consumer.report(sent);
    }

    private TransferReport finishWrite() throws IOException {
        postStaged();
        // The terminal Send carries the Write count; inline, so the control word is free at once.
        control.memory().set(LONG_BE, 0, sent);
        post(staged[0].reset().wrId(TERMINAL_WR_ID).opcode(Opcode.SEND).inline(true)
                .sge(control.stag(), control.to(), Long.BYTES));
        wait.reset();
        while (!terminalCompleted) {
            poll();
        }
        // The passive side: its receive completes once every earlier Write is placed (RFC 5040 §5.5).
        CompletionQueue passiveCq = pair.passive().cq();
        WorkCompletion wc = new WorkCompletion();
        wait.reset();
        while (!passiveCq.poll(wc)) {
            wait.idle("the terminal Send", pair.passive());
        }
        Completions.check(wc, pair.passive());
        long delivered = terminal.memory().get(LONG_BE, 0);
        long sequenceErrors = 0;
        long payloadErrors = 0;
        MemorySegment expected = MemorySegment.ofArray(new byte[size]);
        MessagePattern.fill(expected, size);
        for (long sequence = Math.max(0, delivered - WINDOW); sequence < delivered; sequence++) {
            MemorySegment message = sink.memory().asSlice((sequence & (WINDOW - 1)) * size, size);
            if (MessagePattern.sequence(message) != sequence) {
                sequenceErrors++;
            }
            if (!MessagePattern.patternMatches(message, expected, size)) {
                payloadErrors++;
            }
        }
        return new TransferReport(sent, delivered, 0, sequenceErrors, payloadErrors, wc.byteLength() == Long.BYTES ? 0 : 1);
    }
}
