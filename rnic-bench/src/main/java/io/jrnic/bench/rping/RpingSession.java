package io.jrnic.bench.rping;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionParameters;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.NotifyType;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The resources of one rping connection, as rping.c sets them up ({@code rping_setup_qp},
 * {@code rping_setup_buffers}): a CQ, a QP with IRD = ORD = 1 (rping's {@code responder_resources}
 * and {@code initiator_depth}), a 16-byte receive buffer and a 16-byte send buffer for the
 * {@link RdmaInfoFlyweight}, and the {@code -S}-sized start buffer (the client's ping text, read by
 * the server) and RDMA buffer (the server's read sink and write source, the client's echo sink),
 * all VA-based regions, so that a tagged offset is an address as siw uses them. One receive is
 * kept posted, reposted after each receive completion, exactly as rping does.
 *
 * <p>The step waits return the next completion of the kind the protocol expects, count Send
 * completions on the way, and turn a flushed work request or a closed stream into
 * {@link Disconnected} (rping's {@code DISCONNECTED} state); every wait is bounded by
 * {@link #STEP_TIMEOUT_SECONDS}.
 *
 * <p>Thread safety: one thread drives a session; {@link #signal()} and {@link #onEvent} are called
 * by the RNIC's threads.
 */
final class RpingSession implements AutoCloseable {

    /** How long one protocol step may take before the run fails (rping itself waits forever). */
    static final long STEP_TIMEOUT_SECONDS = 30;
    /** rping.c's {@code enum test_state} value printed for a disconnected connection. */
    static final int STATE_DISCONNECTED = 10;

    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;
    private static final long RECV_ID = 1;
    private static final long SEND_ID = 2;
    private static final long RDMA_ID = 3;

    /** The connection ended while the protocol waited: rping's "wait for X state 10". */
    static final class Disconnected extends RpingFailure {
        private static final long serialVersionUID = 1L;

        Disconnected(String waitingFor) {
            super("wait for " + waitingFor + " state " + STATE_DISCONNECTED);
        }
    }

    private final RpingNode node;
    private final int size;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemorySegment recvBuf;
    private final MemorySegment sendBuf;
    private final MemorySegment startBuf;
    private final MemorySegment rdmaBuf;
    private final MemoryRegion recvMr;
    private final MemoryRegion sendMr;
    private final MemoryRegion startMr;
    private final MemoryRegion rdmaMr;
    private final Semaphore signals = new Semaphore(0);
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest();
    private final SendWorkRequest wr = new SendWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();
    private final RdmaInfoFlyweight info = new RdmaInfoFlyweight();
    private volatile boolean streamClosed;
    private volatile AsyncEvent lastEvent;
    private int sendsOutstanding;
    private Connection connection;

    /**
     * Creates the CQ, QP and buffers and posts the first receive (before the QP is connected, as
     * the Verbs ask).
     *
     * @param node the RNIC
     * @param size the {@code -S} size
     */
    RpingSession(RpingNode node, int size) {
        this.node = node;
        this.size = size;
        this.cq = node.rnic().createCq(32, node.completionHandler());
        this.qp = node.pd().createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(16, 2).readDepths(1, 1));
        node.register(this, cq, qp);
        Arena arena = Arena.ofAuto(); // touched by the transport's threads; freed when unreachable
        recvBuf = arena.allocate(RdmaInfoFlyweight.LENGTH, 64);
        sendBuf = arena.allocate(RdmaInfoFlyweight.LENGTH, 64);
        startBuf = arena.allocate(size, 4096);
        rdmaBuf = arena.allocate(size, 4096);
        recvMr = node.pd().registerMemory(recvBuf, RIGHTS);
        sendMr = node.pd().registerMemory(sendBuf, RIGHTS);
        startMr = node.pd().registerMemory(startBuf, RIGHTS);
        rdmaMr = node.pd().registerMemory(rdmaBuf, RIGHTS);
        postReceive();
    }

    /** @return the queue pair, Idle until connected */
    QueuePair queuePair() {
        return qp;
    }

    /** @return the {@code -S} size */
    int size() {
        return size;
    }

    /** @return the STag of the RDMA buffer (lkey and rkey alike) */
    int rdmaStag() {
        return rdmaMr.stag();
    }

    /** @return the client's ping text buffer */
    MemorySegment startBuf() {
        return startBuf;
    }

    /** @return the RDMA buffer */
    MemorySegment rdmaBuf() {
        return rdmaBuf;
    }

    /** @return the 16 bytes last received */
    RdmaInfoFlyweight received() {
        return info.wrap(recvBuf, 0);
    }

    /**
     * Records the established connection.
     *
     * @param c the connection
     */
    void connected(Connection c) {
        this.connection = c;
    }

    /** CQ notification: wakes the waiting thread. */
    void signal() {
        signals.release();
    }

    /**
     * An affiliated event of this session's QP: stream closed, reset, lost or terminated.
     *
     * @param event the event
     */
    void onEvent(AsyncEvent event) {
        lastEvent = event;
        switch (event.type()) {
            case LLP_CLOSE_COMPLETE, LLP_CONNECTION_RESET, LLP_CONNECTION_LOST, TERMINATE_MESSAGE_RECEIVED,
                 BAD_CLOSE -> streamClosed = true;
            default -> {
                // a protection error is followed by the Terminate and the QP's Error state
            }
        }
        signals.release();
    }

    /** Posts the one receive (16 bytes into the receive buffer). */
    void postReceive() {
        qp.postReceive(rr.reset().wrId(RECV_ID).sge(recvMr.stag(), recvBuf.address(), RdmaInfoFlyweight.LENGTH));
    }

    /**
     * Sends 16 bytes of advertisement (rping_format_send): the buffer's address, its STag, size.
     *
     * @param start true for the start buffer, false for the RDMA buffer
     * @return the advertisement sent (valid until the next call)
     */
    RdmaInfoFlyweight sendInfo(boolean start) {
        MemorySegment buf = start ? startBuf : rdmaBuf;
        MemoryRegion mr = start ? startMr : rdmaMr;
        info.wrap(sendBuf, 0).buf(buf.address()).rkey(mr.stag()).size(size);
        postSend();
        return info;
    }

    /** Sends the server's "go ahead": its send buffer, which it never fills (16 zero bytes). */
    void sendGoAhead() {
        sendBuf.fill((byte) 0);
        postSend();
    }

    private void postSend() {
        qp.postSend(wr.reset().wrId(SEND_ID).opcode(Opcode.SEND).signaled(true)
                .sge(sendMr.stag(), sendBuf.address(), RdmaInfoFlyweight.LENGTH));
        sendsOutstanding++;
    }

    /**
     * RDMA Read of {@code length} bytes from the peer into the RDMA buffer.
     *
     * @param stag   the peer's STag
     * @param to     the peer's tagged offset
     * @param length bytes
     */
    void postRead(int stag, long to, int length) {
        qp.postSend(wr.reset().wrId(RDMA_ID).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(rdmaMr.stag(), rdmaBuf.address(), length).remote(stag, to));
    }

    /**
     * RDMA Write of {@code length} bytes of the RDMA buffer to the peer.
     *
     * @param stag   the peer's STag
     * @param to     the peer's tagged offset
     * @param length bytes
     */
    void postWrite(int stag, long to, int length) {
        qp.postSend(wr.reset().wrId(RDMA_ID).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(rdmaMr.stag(), rdmaBuf.address(), length).remote(stag, to));
    }

    /**
     * Waits for the next completion of the given opcode, counting Send completions on the way; a
     * receive completion is checked (16 bytes, rping's {@code server_recv}/{@code client_recv}) and
     * the receive is posted again before this returns.
     *
     * @param expected   RECEIVE, RDMA_READ, RDMA_WRITE or SEND
     * @param waitingFor rping's name of the state waited for, for the messages
     * @return the completion (valid until the next wait)
     * @throws RpingFailure on an error completion, bogus data, a disconnect or a timeout
     */
    WorkCompletion await(Opcode expected, String waitingFor) throws RpingFailure {
        return await(expected, waitingFor, true);
    }

    /**
     * As {@link #await(Opcode, String)}, optionally without the step timeout: the server waits for
     * the client's next ping as long as rping does (forever), because a peer may pause between pings
     * and a lost FIN must not turn an idle connection into a failure.
     *
     * @param expected   RECEIVE, RDMA_READ, RDMA_WRITE or SEND
     * @param waitingFor rping's name of the state waited for, for the messages
     * @param bounded    whether {@link #STEP_TIMEOUT_SECONDS} applies
     * @return the completion (valid until the next wait)
     * @throws RpingFailure on an error completion, bogus data, a disconnect or a timeout
     */
    WorkCompletion await(Opcode expected, String waitingFor, boolean bounded) throws RpingFailure {
        while (true) {
            nextCompletion(waitingFor, bounded);
            if (wc.status() == WorkCompletionStatus.FLUSHED) {
                throw new Disconnected(waitingFor);
            }
            if (wc.status() != WorkCompletionStatus.SUCCESS) {
                throw new RpingFailure("cq completion failed status " + wc.status());
            }
            if (wc.opcode() == Opcode.SEND) {
                sendsOutstanding--;
            }
            if (wc.opcode() == Opcode.RECEIVE) {
                if (wc.byteLength() != RdmaInfoFlyweight.LENGTH) {
                    throw new RpingFailure("Received bogus data, size " + wc.byteLength());
                }
                if (expected != Opcode.RECEIVE) {
                    throw new RpingFailure("wait for " + waitingFor + ": unexpected receive");
                }
                postReceive();
                return wc;
            }
            if (wc.opcode() == expected) {
                return wc;
            }
        }
    }

    private void nextCompletion(String waitingFor, boolean bounded) throws RpingFailure {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_TIMEOUT_SECONDS);
        try {
            while (true) {
                if (cq.poll(wc)) {
                    return;
                }
                cq.requestNotification(NotifyType.NEXT_COMPLETION);
                if (cq.poll(wc)) {
                    return;
                }
                if (streamClosed) {
                    throw new Disconnected(waitingFor);
                }
                if (!bounded) {
                    signals.acquire();
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !signals.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                    throw new RpingFailure("timed out after " + STEP_TIMEOUT_SECONDS + " s waiting for " + waitingFor
                            + " (QP " + qp.state() + (lastEvent == null ? "" : ", last event " + lastEvent.type())
                            + ")");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RpingFailure("interrupted waiting for " + waitingFor, e);
        }
    }

    /**
     * Graceful close, as rping's {@code rdma_disconnect} after the last ping: waits for the Send
     * completions still due (a Modify to Closing with SQ work outstanding would be a Bad Close),
     * then Modify QP to Closing and waits (bounded) for the QP to reach Idle.
     *
     * @throws RpingFailure when the Send completions do not arrive
     */
    void disconnect() throws RpingFailure {
        while (sendsOutstanding > 0) {
            await(Opcode.SEND, "send completion");
        }
        if (connection != null && qp.state() == QpState.RTS) {
            try {
                connection.disconnect();
            } catch (VerbsException e) {
                // the peer closed first; the QP is already on its way down
            }
        }
        awaitDown();
    }

    /** Waits (bounded) for the QP to leave RTS/Closing, draining the CQ; never fails. */
    void awaitDown() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_TIMEOUT_SECONDS);
        try {
            while (true) {
                while (cq.poll(wc)) {
                    // flushed receives and late completions: nothing left to do with them
                }
                QpState state = qp.state();
                long left = deadline - System.nanoTime();
                if (state == QpState.IDLE || state == QpState.ERROR || left <= 0) {
                    return;
                }
                cq.requestNotification(NotifyType.NEXT_COMPLETION);
                // woken by a completion or an event (LLP_CLOSE_COMPLETE); the state is read again either way
                signals.tryAcquire(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One line on what MPA setup negotiated, for {@code -d} (and docs/interop.md).
     *
     * @return e.g. "MPA revision 2 (RFC 6581), CRC off, markers off/off, IRD 1 ORD 1, peer IRD 1 ORD 1, RTR WRITE, ..."
     *         (RTR "none" in the client/server model: siw as Initiator does not ask for peer-to-peer)
     */
    String describeConnection() {
        if (connection == null) {
            return "not connected";
        }
        ConnectionParameters p = connection.parameters();
        return "MPA revision " + p.revision() + (p.enhanced() ? " (RFC 6581)" : "")
                + ", CRC " + (p.crc() ? "on" : "off")
                + ", markers " + (p.markersOnSend() ? "on" : "off") + "/" + (p.markersOnReceive() ? "on" : "off")
                + ", IRD " + p.ird() + " ORD " + p.ord() + ", peer IRD " + p.peerIrd() + " ORD " + p.peerOrd()
                + ", RTR " + (p.rtr() == null ? "none" : p.rtr())
                + ", MULPDU " + connection.mulpdu() + ", peer " + connection.remoteAddress();
    }

    /** Resets the stream if still up, destroys the QP and CQ and deregisters the buffers. */
    @Override
    public void close() {
        try {
            QpState state = qp.state();
            if (state == QpState.RTS || state == QpState.CLOSING) {
                qp.modify(new QueuePairModification().nextState(QpState.ERROR));
                awaitDown();
            }
        } catch (VerbsException e) {
            // already down
        }
        node.unregister(cq, qp);
        for (AutoCloseable c : new AutoCloseable[] {qp, recvMr, sendMr, startMr, rdmaMr, cq}) {
            try {
                c.close();
            } catch (Exception e) {
                // best effort: the RNIC's close frees whatever is left
            }
        }
    }
}
