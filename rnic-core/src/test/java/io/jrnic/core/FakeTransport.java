package io.jrnic.core;

import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpContext;
import io.jrnic.core.engine.QpTransport;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.core.wq.SendWqeChain;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** Test double of the transport seam: records what the QP asks for; the test plays the wire. */
final class FakeTransport implements QpTransport {
    boolean established = true;
    boolean remoteReads;
    /** When true, close() and terminate() complete at once (synchronous upcall). */
    boolean autoClose;
    QpTransport.Upcalls upcalls;
    MemorySegment streamMessage;
    final List<SendWqe> transmitted = new ArrayList<>();
    final List<Long> transmittedIds = new ArrayList<>();
    final List<TerminateMessage> terminates = new ArrayList<>();
    /** What the QP asked for, in order: "transmit <WR ID>", "terminate". */
    final List<String> log = new ArrayList<>();
    /** The length of each chain handed over by {@link #transmitAll}, in order. */
    final List<Integer> handOvers = new ArrayList<>();
    /** Run at each hand-over, before its WQEs are recorded (what did the QP do before handing over?). */
    Runnable onHandOver = () -> { };
    int closes;
    int resets;
    int starts;
    /** Hand-overs made by a post ({@link #transmitPosted}), each owing a {@link #progress()}. */
    int postedHandOvers;
    /** Posted hand-overs not yet followed by a progress() call. */
    int progressOwed;
    /** Set by a test's event handler: no progress() was owed when it ran. */
    volatile boolean progressBeforeHandler;

    @Override
    public boolean established() {
        return established;
    }

    @Override
    public synchronized void start(QpContext context, Upcalls upcalls, MemorySegment streamMessage) {
        this.upcalls = upcalls;
        this.streamMessage = streamMessage;
        starts++;
    }

    @Override
    public synchronized void transmit(SendWqe wqe) {
        transmitted.add(wqe);
        transmittedIds.add(wqe.wrId());
        log.add("transmit " + wqe.wrId());
    }

    @Override
    public void transmitAll(SendWqe first) {
        int n = 0;
        for (SendWqe w = first; w != null; w = w.txNext) {
            n++;
        }
        synchronized (this) {
            handOvers.add(n);
        }
        onHandOver.run();
        QpTransport.super.transmitAll(first);
    }

    @Override
    public void transmitPosted(SendWqe first) {
        synchronized (this) {
            postedHandOvers++;
            progressOwed++;
        }
        transmitAll(first);
    }

    @Override
    public synchronized void progress() {
        progressOwed = 0;
    }

    @Override
    public void close() {
        closes++;
        if (autoClose) {
            upcalls.closeCompleted();
        }
    }

    @Override
    public void terminate(TerminateMessage message) {
        terminates.add(message);
        log.add("terminate");
        if (autoClose) {
            upcalls.closeCompleted();
        }
    }

    @Override
    public void reset() {
        resets++;
    }

    @Override
    public boolean remoteReadsInProgress() {
        return remoteReads;
    }

    /** Completes the oldest transmitted WQE with the status. */
    void completeNext(WorkCompletionStatus status) {
        SendWqe w;
        synchronized (this) {
            w = transmitted.removeFirst();
        }
        upcalls.sendCompleted(w, status);
    }

    /** Completes every transmitted WQE successfully, oldest first. */
    void completeAll() {
        while (true) {
            SendWqe w;
            synchronized (this) {
                if (transmitted.isEmpty()) {
                    return;
                }
                w = transmitted.removeFirst();
            }
            upcalls.sendCompleted(w, WorkCompletionStatus.SUCCESS);
        }
    }

    /** Completes every transmitted WQE successfully in one {@code sendsCompleted} chain, oldest first. */
    void completeAllTogether() {
        SendWqeChain chain = new SendWqeChain();
        synchronized (this) {
            transmitted.forEach(chain::add);
            transmitted.clear();
        }
        if (!chain.isEmpty()) {
            upcalls.sendsCompleted(chain.takeAll());
        }
    }
}
