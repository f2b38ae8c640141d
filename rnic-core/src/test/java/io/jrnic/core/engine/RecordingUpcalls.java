package io.jrnic.core.engine;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.wq.ReceiveQueue;
import io.jrnic.core.wq.ReceiveWqe;
import io.jrnic.core.wq.SendWqe;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link QpTransport.Upcalls} that records every upcall in order (in place of the QP, issue 10)
 * and hands out receive WQEs from a small real {@link ReceiveQueue} the test posts to. Optionally it
 * reacts as the QP's state machine would ({@link #actLikeQp}): an error the receive path reports
 * (Verbs §8.3.3 Figure 24) is handed back as the Terminate to send (Verbs §6.2.3, V-QPS-45), and a
 * received Terminate or a FIN starts the graceful close (Verbs §6.2.2.2, §6.2.2.3).
 *
 * <p>Thread safety: the engine calls it on its link's loop; the test reads {@link #calls} from its
 * own thread (a copy-on-write list).
 */
final class RecordingUpcalls implements QpTransport.Upcalls {
    /** One upcall: its name and its arguments (null / 0 where the upcall has none). */
    record Call(String name, SendWqe send, ReceiveWqe receive, WorkCompletionStatus status, int byteLength,
                boolean solicited, int invalidatedStag, AsyncEventType event, TerminateMessage message) {
        static Call of(String name) {
            return new Call(name, null, null, null, 0, false, 0, null, null);
        }
    }

    final List<Call> calls = new CopyOnWriteArrayList<>();
    /** The length of each chain {@link #sendsCompleted} reported (each WQE is also in {@link #calls}). */
    final List<Integer> completionBatches = new CopyOnWriteArrayList<>();
    final ReceiveQueue rq;
    /** The engine to answer when {@link #actLikeQp}. */
    volatile QpEngine engine;
    volatile boolean actLikeQp;

    RecordingUpcalls(SoftProtectionDomain pd) {
        rq = new ReceiveQueue(8, 4, pd, null);
    }

    /** Posts a one-SGE receive WQE that {@link #takeReceive()} will hand out, in order. */
    ReceiveWqe postReceive(long wrId, int stag, long to, int length) {
        synchronized (rq) {
            return rq.post(new ReceiveWorkRequest().wrId(wrId).sge(stag, to, length));
        }
    }

    /** The names of the upcalls so far, in order. */
    List<String> names() {
        return calls.stream().map(Call::name).toList();
    }

    /** The first upcall of that name, or null. */
    Call first(String name) {
        return calls.stream().filter(c -> c.name.equals(name)).findFirst().orElse(null);
    }

    @Override
    public void sendCompleted(SendWqe wqe, WorkCompletionStatus status) {
        calls.add(new Call("sendCompleted", wqe, null, status, 0, false, 0, null, null));
    }

    @Override
    public void sendsCompleted(SendWqe first) {
        int n = 0;
        for (SendWqe w = first; w != null; w = w.txNext) {
            n++;
        }
        completionBatches.add(n);
        QpTransport.Upcalls.super.sendsCompleted(first);
    }

    @Override
    public ReceiveWqe takeReceive() {
        ReceiveWqe w;
        synchronized (rq) {
            w = rq.take();
        }
        calls.add(new Call("takeReceive", null, w, null, 0, false, 0, null, null));
        return w;
    }

    @Override
    public void receiveCompleted(ReceiveWqe wqe, WorkCompletionStatus status, int byteLength, boolean solicited,
                                 int invalidatedStag) {
        calls.add(new Call("receiveCompleted", null, wqe, status, byteLength, solicited, invalidatedStag, null,
                null));
    }

    @Override
    public void remoteClosed() {
        calls.add(Call.of("remoteClosed"));
        if (actLikeQp) {
            engine.close();
        }
    }

    @Override
    public void closeCompleted() {
        calls.add(Call.of("closeCompleted"));
    }

    @Override
    public void streamAborted(SendWqe wqe, WorkCompletionStatus status) {
        calls.add(new Call("streamAborted", wqe, null, status, 0, false, 0, null, null));
    }

    @Override
    public void connectionFailed(boolean reset) {
        calls.add(Call.of(reset ? "connectionFailed(reset)" : "connectionFailed(lost)"));
    }

    @Override
    public void terminateReceived(TerminateMessage message, AsyncEventType event) {
        calls.add(new Call("terminateReceived", null, null, null, 0, false, 0, event, message));
        if (actLikeQp) {
            engine.close();
        }
    }

    @Override
    public void segmentWhileClosing() {
        calls.add(Call.of("segmentWhileClosing"));
    }

    @Override
    public void remoteError(AsyncEventType event) {
        calls.add(new Call("remoteError", null, null, null, 0, false, 0, event, null));
        if (actLikeQp) {
            int code = event.terminateCode() == AsyncEventType.NO_TERMINATE_CODE
                    ? TerminateMessage.LOCAL_CATASTROPHIC : event.terminateCode();
            engine.terminate(new TerminateMessage(code, true, null));
        }
    }

    @Override
    public void remoteError(AsyncEventType event, TerminateMessage message) {
        calls.add(new Call("remoteError", null, null, null, 0, false, 0, event, message));
        if (actLikeQp) {
            engine.terminate(message);
        }
    }
}
