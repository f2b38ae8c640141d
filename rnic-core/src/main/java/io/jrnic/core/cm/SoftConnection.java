package io.jrnic.core.cm;

import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionParameters;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.VerbsException;
import io.jrnic.core.engine.JfrEvents;
import io.jrnic.core.engine.QpTransport;
import io.jrnic.core.qp.SoftQueuePair;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An established connection of the {@link SoftConnectionManager}: what setup negotiated, and the
 * teardown shorthands of Verbs 1.0 §6.6.2 with a stage that the queue pair completes when it leaves
 * the LLP stream ({@link SoftQueuePair#onStreamClosed}).
 *
 * <p>Thread safety: thread safe (immutable but for the stage).
 */
final class SoftConnection implements Connection {
    /** What close() waits beyond the close timeout, for the transport's reset to be reported. */
    private static final Duration CLOSE_MARGIN = Duration.ofSeconds(5);

    private final SoftQueuePair queuePair;
    /** The LLP stream the queue pair entered RTS on for this connection. */
    private final QpTransport stream;
    private final Role role;
    private final ConnectionParameters parameters;
    private final int mulpdu;
    private final byte[] localPrivateData;
    private final byte[] peerPrivateData;
    private final SocketAddress localAddress;
    private final SocketAddress remoteAddress;
    private final Duration closeTimeout;
    private final CompletableFuture<QpState> closed = new CompletableFuture<>();

    SoftConnection(SoftQueuePair queuePair, QpTransport stream, Role role, ConnectionParameters parameters, int mulpdu,
                   byte[] localPrivateData, byte[] peerPrivateData, SocketAddress localAddress,
                   SocketAddress remoteAddress, Duration closeTimeout) {
        this.queuePair = queuePair;
        this.stream = stream;
        this.role = role;
        this.parameters = parameters;
        this.mulpdu = mulpdu;
        this.localPrivateData = localPrivateData == null ? new byte[0] : localPrivateData.clone();
        this.peerPrivateData = peerPrivateData == null ? new byte[0] : peerPrivateData.clone();
        this.localAddress = localAddress;
        this.remoteAddress = remoteAddress;
        this.closeTimeout = closeTimeout;
    }

    /** The queue pair left the stream (run by the event dispatcher, outside the locks). */
    void streamClosed() {
        // Verbs §6.6.2: Idle after a graceful close (LLP_CLOSE_COMPLETE), Error for every other end
        QpState end = queuePair.state() == QpState.IDLE ? QpState.IDLE : QpState.ERROR;
        JfrEvents.connectionClosed(queuePair.rnic().name(), this, end);
        closed.complete(end);
    }

    @Override
    public QueuePair queuePair() {
        return queuePair;
    }

    @Override
    public Role role() {
        return role;
    }

    @Override
    public ConnectionParameters parameters() {
        return parameters;
    }

    @Override
    public int mulpdu() {
        return mulpdu;
    }

    @Override
    public byte[] localPrivateData() {
        return localPrivateData.clone();
    }

    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    @Override
    public SocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public CompletionStage<QpState> closed() {
        return closed.minimalCompletionStage();
    }

    @Override
    public CompletionStage<QpState> disconnect() {
        return modify(QpState.CLOSING); // Verbs §6.6.2.1
    }

    @Override
    public CompletionStage<QpState> abort() {
        return modify(QpState.ERROR); // Verbs §6.6.2.3
    }

    /**
     * Modify QP while it is in RTS on this connection's stream; otherwise the stream is closing or
     * closed already. Checked and modified under the queue pair's lock in one step: a check apart
     * let a graceful close reach Idle in between, and an abort then took the Idle queue pair to Error.
     */
    private CompletionStage<QpState> modify(QpState next) {
        try {
            queuePair.modifyInRts(stream, next);
        } catch (VerbsException e) {
            // destroyed (or its RNIC closed): the stream is gone already
        }
        return closed();
    }

    @Override
    public void close() {
        disconnect();
        if (closed.isDone() || queuePair.rnic().onEventLoop()) {
            return; // a callback must not wait for the loop it runs on
        }
        try {
            closed.get(closeTimeout.plus(CLOSE_MARGIN).toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            abort();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("never completed exceptionally", e);
        }
    }

    @Override
    public String toString() {
        return "Connection[" + role + " " + localAddress + " -> " + remoteAddress + ", QP " + queuePair.id() + "]";
    }
}
