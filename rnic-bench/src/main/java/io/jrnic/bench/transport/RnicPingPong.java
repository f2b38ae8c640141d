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
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The RNIC {@link PingPong}s between two {@link io.jrnic.core.SoftRnic}s over loopback
 * ({@link RnicPair}), with a {@link RnicEchoPeer} thread on the passive side.
 *
 * <p><b>{@link Transport#RNIC_WRITE}</b>, like {@code ib_write_lat}: each side advertises an
 * inbox region in its MPA private data. The requester RDMA-Writes the message (sequence number in
 * its first 8 bytes and, for messages longer than 8 bytes, again in its last 8 bytes) into the echo's
 * inbox and busy-polls its own inbox until the last 8 bytes hold that sequence number; the echo
 * polls its inbox the same way and Writes the message back. No Send, no receive and no CQ on the
 * data path: the CQ is polled only to retire the signaled work requests. Polling for the exact
 * expected value is immune to torn reads (a half-placed value differs from it), and the last word
 * is the last placed, because the RNIC places the FPDUs of one stream in order (RFC 5041 allows any
 * order; this RNIC and a single TCP stream give this one). The first word is then checked too.
 * Message sizes must be multiples of 8, so that the polled word is aligned (volatile reads).
 *
 * <p><b>{@link Transport#RNIC_SEND}</b>, like {@code ib_send_lat}: both sides keep
 * {@value #RECEIVES} receives posted; the requester Sends and busy-polls its CQ for the receive of
 * the echo, checks the sequence number and re-posts the receive; the echo does the same in mirror.
 *
 * <p>In both, every {@value #SIGNAL_EVERY}th Send/Write is signaled and its completion polled, to
 * retire the unsignaled ones before them (SQ depth {@value #SQ_DEPTH}). One source buffer per side
 * suffices: when the answer to message {@code n} arrives, message {@code n} has left its source.
 * CRC is the connection's MPA CRC (REQUIRED or OFF on both sides), so each direction pays it as the
 * raw-TCP baseline's trailer does. No allocation per round trip.
 *
 * <p>Thread safety: as {@link PingPong}.
 */
public final class RnicPingPong implements PingPong {

    /** Every this many Sends/Writes one is signaled. */
    static final int SIGNAL_EVERY = 16;

    /** SQ depth of both sides. */
    static final int SQ_DEPTH = 4 * SIGNAL_EVERY;

    /** Receives each side keeps posted (Send mode; one message is in flight at a time). */
    static final int RECEIVES = 4;

    /** Big-endian aligned long with volatile access: the polled word. */
    static final VarHandle POLLED_WORD = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    private final RnicPair pair;
    private final MessageOptions options;
    private final Opcode opcode;
    private final RnicEchoPeer echo;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final RnicPair.Region out;
    private final RnicPair.Region in;
    private final SendWorkRequest wr = new SendWorkRequest(1);
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest();
    private final WorkCompletion[] batch = Completions.batch();
    private final BusyWait wait = BusyWait.forRnic();
    private final int size;
    private final long tail;
    private final int remoteStag;
    private final long remoteTo;
    private long sent;
    private long delivered;
    private long sequenceErrors;
    private long truncated;
    private int unreaped;
    private boolean answered;
    private boolean finished;

    private RnicPingPong(RnicPair pair, MessageOptions options, Opcode opcode, RnicEchoPeer echo,
                         RnicPair.Region out, RnicPair.Region in) {
        this.pair = pair;
        this.options = options;
        this.opcode = opcode;
        this.echo = echo;
        this.qp = pair.active().qp();
        this.cq = pair.active().cq();
        this.out = out;
        this.in = in;
        this.size = options.messageSize();
        this.tail = size - Long.BYTES;
        RnicPair.Remote peer = pair.active().peer();
        this.remoteStag = peer == null ? 0 : peer.stag();
        this.remoteTo = peer == null ? 0 : peer.to();
    }

    /**
     * Opens an RDMA Write ping-pong: connects two RNICs, advertises both inboxes, starts the echo.
     *
     * @param options the message shape; the size must be a multiple of 8
     * @return the open pair
     * @throws IOException              if the RNICs could not be connected
     * @throws IllegalArgumentException if the message size is not a multiple of 8
     */
    public static RnicPingPong openWrite(MessageOptions options) throws IOException {
        if (options.messageSize() % Long.BYTES != 0) {
            throw new IllegalArgumentException("RDMA Write ping-pong polls an aligned last word: messageSize must be"
                    + " a multiple of 8, was " + options.messageSize());
        }
        return open(options, Opcode.RDMA_WRITE);
    }

    /**
     * Opens a Send ping-pong: connects two RNICs with receives posted on both, starts the echo.
     *
     * @param options the message shape
     * @return the open pair
     * @throws IOException if the RNICs could not be connected
     */
    public static RnicPingPong openSend(MessageOptions options) throws IOException {
        return open(options, Opcode.SEND);
    }

    private static RnicPingPong open(MessageOptions options, Opcode opcode) throws IOException {
        RnicPair.Depths depths = new RnicPair.Depths(SQ_DEPTH, RECEIVES);
        RnicPair pair = RnicPair.open(options.crc(), depths, depths);
        RnicEchoPeer echo = null;
        try {
            int size = options.messageSize();
            RnicPair.Region out = pair.active().register(size);
            MessagePattern.fill(out.memory(), size);
            RnicPair.Region in = pair.active().register(opcode == Opcode.SEND ? (long) RECEIVES * size : size);
            echo = new RnicEchoPeer(pair.passive(), options, opcode);
            if (opcode == Opcode.SEND) {
                postReceives(pair.active().qp(), in, size);
                pair.connect(null, null);
            } else {
                // Nothing received yet: make the polled word differ from sequence number 0.
                in.memory().set(RnicMessageStream.LONG_BE, size - Long.BYTES, -1L);
                pair.connect(in, echo.inbox());
            }
            echo.start();
            return new RnicPingPong(pair, options, opcode, echo, out, in);
        } catch (IOException | RuntimeException | Error e) {
            if (echo != null) {
                echo.stop();
            }
            pair.close();
            throw e;
        }
    }

    /** Posts {@value #RECEIVES} receives, receive {@code i} into slot {@code i} of the region. */
    static void postReceives(QueuePair qp, RnicPair.Region region, int size) {
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        for (int slot = 0; slot < RECEIVES; slot++) {
            qp.postReceive(rr.reset().wrId(slot).sge(region.stag(), region.to() + (long) slot * size, size));
        }
    }

    @Override
    public MessageOptions options() {
        return options;
    }

    @Override
    public long roundTrip() throws IOException {
        long sequence = sent;
        MemorySegment message = out.memory();
        message.set(RnicMessageStream.LONG_BE, 0, sequence);
        boolean signaled = (sequence + 1) % SIGNAL_EVERY == 0;
        wr.reset().wrId(sequence).opcode(opcode).signaled(signaled).sge(out.stag(), out.to(), size);
        if (opcode == Opcode.RDMA_WRITE) {
            message.set(RnicMessageStream.LONG_BE, tail, sequence);
            wr.remote(remoteStag, remoteTo);
        }
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            throw new IOException("post send refused on " + pair.active() + ": " + e.getMessage(), e);
        }
        if (signaled) {
            unreaped++;
        }
        sent = sequence + 1;
        wait.reset();
        if (opcode == Opcode.RDMA_WRITE) {
            awaitWrite(sequence);
        } else {
            answered = false;
            while (!answered) {
                if (poll(sequence) == 0) {
                    wait.idle("the echo's Send", pair.active());
                }
            }
        }
        delivered++;
        return sequence;
    }

    private void awaitWrite(long sequence) throws IOException {
        MemorySegment inbox = in.memory();
        while ((long) POLLED_WORD.getVolatile(inbox, tail) != sequence) {
            // An empty CQ poll drives the connection in polling mode, and may just have placed the
            // echo: look again before giving the core away (a Write completes nothing here).
            if (poll(sequence) == 0 && (long) POLLED_WORD.getVolatile(inbox, tail) != sequence) {
                wait.idle("the echo's Write", pair.active());
            }
        }
        if (inbox.get(RnicMessageStream.LONG_BE, 0) != sequence) {
            sequenceErrors++;
        }
    }

    /** One poll of the CQ: retires signaled work requests, takes the echo's Send; returns the count. */
    private int poll(long sequence) throws IOException {
        int n = cq.poll(batch, 0, batch.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = batch[i];
            Completions.check(wc, pair.active());
            if (wc.opcode() != Opcode.RECEIVE) {
                unreaped--;
                continue;
            }
            int slot = (int) wc.wrId();
            long offset = (long) slot * size;
            if (wc.byteLength() != size) {
                truncated++;
            } else if (in.memory().get(RnicMessageStream.LONG_BE, offset) != sequence) {
                sequenceErrors++;
            }
            qp.postReceive(rr.reset().wrId(slot).sge(in.stag(), in.to() + offset, size));
            answered = true;
        }
        return n;
    }

    @Override
    public void hold() {
        echo.hold();
    }

    @Override
    public void release() {
        echo.release();
    }

    @Override
    public TransferReport finish() throws IOException, InterruptedException {
        if (finished) {
            throw new IllegalStateException("finish() called twice on this ping-pong");
        }
        finished = true;
        try {
            echo.stop();
            echo.awaitEnd(RnicMessageStream.DRAIN_TIMEOUT);
        } finally {
            pair.close();
        }
        return new TransferReport(sent, delivered, 0, sequenceErrors + echo.sequenceErrors(), 0,
                truncated + echo.truncated());
    }
}
