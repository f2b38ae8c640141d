package io.jrnic.core.cm;

import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.TerminateMessage;
import io.jrnic.core.SoftRnic;
import io.jrnic.core.engine.QpContext;
import io.jrnic.core.engine.QpTransport;
import io.jrnic.core.qp.SoftQueuePair;
import io.jrnic.core.wq.SendWqe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The teardown shorthands of {@link SoftConnection} (Verbs §6.6.2) against what the queue pair's
 * stream does meanwhile: they modify the queue pair only while it is in RTS on the connection's own
 * stream (Connection.abort(): "Nothing is modified when the queue pair is Closing, Terminate, Error
 * or Idle already"). The interleavings are forced through a transport double whose hooks run under
 * the queue pair's lock, not by timing.
 */
class SoftConnectionTest {
    private SoftRnic rnic;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private final List<AsyncEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        rnic = SoftRnic.open(new RnicConfig().name("test-SoftConnectionTest")
                .ioTransport(io.jrnic.core.transport.TestIoTransport.CHOICE));
        rnic.setAsyncEventHandler((r, e) -> events.add(e));
        pd = rnic.allocatePd();
        cq = rnic.createCq(64);
    }

    @AfterEach
    void close() {
        rnic.close();
    }

    /**
     * FaultInjectionTest case 726 (seed 335151127, docs/reliability.md): the application aborts a
     * connection whose peer's FIN is being processed. The abort saw RTS; before its Modify to Error
     * took the queue pair's lock, the graceful close ran to its end (Closing, Idle,
     * LLP_CLOSE_COMPLETE, {@code closed()} completing with Idle), and the Modify to Error, allowed
     * from Idle, then took the Idle queue pair to Error. Forced here: the aborting thread is started
     * while the remote close holds the queue pair's lock in RTS and waits, blocked on that lock,
     * while the close runs to Idle under the same hold.
     */
    @Test
    void anAbortRacingAGracefulCloseToIdleLeavesTheQueuePairIdle() throws Exception {
        SoftQueuePair qp = newQp();
        Stream stream = new Stream();
        stream.closeCompletesAtOnce = true; // Closing -> Idle within the remote close's hold of the lock
        SoftConnection connection = connect(qp, stream);
        Thread[] aborter = new Thread[1];
        // the remote close, under the QP's lock, still in RTS: the application aborts now
        stream.onWorkCheck = abortFromAnotherThread(connection, aborter);

        stream.upcalls.remoteClosed(); // the peer's FIN: RTS -> Closing -> (close complete) Idle

        aborter[0].join(TimeUnit.SECONDS.toMillis(10));
        assertThat(aborter[0].isAlive()).as("abort returned").isFalse();
        assertClosedGracefullyToIdle(connection, qp, stream);
    }

    /** A hook that starts the application's abort on a thread of its own and returns once that thread is blocked or done. */
    private static Runnable abortFromAnotherThread(SoftConnection connection, Thread[] aborter) {
        return () -> {
            aborter[0] = Thread.ofPlatform().name("aborter").start(connection::abort);
            awaitBlockedOrDone(aborter[0]);
        };
    }

    /** The graceful close won the race: closed() and the QP end Idle, the stream was not reset, one LLP_CLOSE_COMPLETE. */
    private void assertClosedGracefullyToIdle(SoftConnection connection, SoftQueuePair qp, Stream stream) throws Exception {
        assertThat(connection.closed().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(QpState.IDLE);
        assertThat(qp.state()).as("a graceful close reported Idle leaves the QP Idle").isEqualTo(QpState.IDLE);
        assertThat(stream.resets).as("no reset of the closed stream").isZero();
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);
    }

    /** The same race with a graceful close of this side: Closing is never left for Error by the abort. */
    @Test
    void anAbortRacingADisconnectLeavesTheQueuePairClosingThenIdle() throws Exception {
        SoftQueuePair qp = newQp();
        Stream stream = new Stream();
        SoftConnection connection = connect(qp, stream);
        Thread[] aborter = new Thread[1];
        // this side's close, under the QP's lock, already Closing: the application aborts now
        stream.onClose = abortFromAnotherThread(connection, aborter);

        var disconnected = connection.disconnect().toCompletableFuture();
        aborter[0].join(TimeUnit.SECONDS.toMillis(10));
        assertThat(qp.state()).isEqualTo(QpState.CLOSING); // Modify to Error is not allowed from Closing
        stream.upcalls.closeCompleted();

        assertThat(disconnected.get(10, TimeUnit.SECONDS)).as("disconnect's stage").isEqualTo(QpState.IDLE);
        assertClosedGracefullyToIdle(connection, qp, stream);
    }

    /** In RTS on its stream, abort is Modify to Error (Verbs §6.6.2.3): reset, Error, closed() Error. */
    @Test
    void abortInRtsResetsTheStreamAndEndsInError() throws Exception {
        SoftQueuePair qp = newQp();
        Stream stream = new Stream();
        SoftConnection connection = connect(qp, stream);

        assertThat(connection.abort().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(QpState.ERROR);
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        assertThat(stream.resets).isEqualTo(1);
        assertThat(events).isEmpty(); // Verbs §6.6.2.3: an abort raises no event
    }

    /**
     * A connection's shorthands act on its own stream only: once the queue pair closed and entered
     * RTS again on another stream (reused, Verbs §6.2.1), the old connection's abort and disconnect
     * leave the new stream alone.
     */
    @Test
    void theShorthandsOfAClosedConnectionLeaveTheQueuePairsNextStreamAlone() throws Exception {
        SoftQueuePair qp = newQp();
        Stream first = new Stream();
        first.closeCompletesAtOnce = true;
        SoftConnection old = connect(qp, first);
        first.upcalls.remoteClosed();
        assertThat(old.closed().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(QpState.IDLE);
        Stream second = new Stream();
        qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(second));

        old.abort();
        old.disconnect();

        assertThat(qp.state()).isEqualTo(QpState.RTS);
        assertThat(second.resets).isZero();
        assertThat(second.closes).isZero();
    }

    private SoftQueuePair newQp() {
        return (SoftQueuePair) pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(16, 16));
    }

    /** What SoftConnectionManager does at establishment: RTS on the stream, the connection, its listener. */
    private static SoftConnection connect(SoftQueuePair qp, Stream stream) {
        qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(stream));
        SoftConnection c = new SoftConnection(qp, stream, Connection.Role.RESPONDER, null, 1024, null, null, null,
                null, Duration.ofSeconds(2));
        qp.onStreamClosed(c::streamClosed);
        return c;
    }

    /**
     * Waits (bounded) until {@code t} is blocked on a monitor (the queue pair's lock, which the
     * calling thread holds: nothing else is contended here) or has ended.
     */
    private static void awaitBlockedOrDone(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.BLOCKED && t.getState() != Thread.State.TERMINATED) {
            if (System.nanoTime() > deadline) {
                fail("the aborting thread neither blocked nor ended: " + t.getState());
            }
            Thread.onSpinWait();
        }
    }

    /** A transport double: the test plays the wire; hooks run where the QP calls it (under its lock). */
    private static final class Stream implements QpTransport {
        QpTransport.Upcalls upcalls;
        /** close() reports the close complete at once (a synchronous, re-entrant upcall). */
        boolean closeCompletesAtOnce;
        /** Run when the QP asks whether work is outstanding (a remote close in RTS asks first). */
        Runnable onWorkCheck = () -> { };
        /** Run when the QP starts the graceful close (in Closing). */
        Runnable onClose = () -> { };
        volatile int closes;
        volatile int resets;

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
            throw new AssertionError("no work is posted in these tests");
        }

        @Override
        public void close() {
            closes++;
            onClose.run();
            if (closeCompletesAtOnce) {
                upcalls.closeCompleted();
            }
        }

        @Override
        public void terminate(TerminateMessage message) {
            throw new AssertionError("no Terminate in these tests: " + message);
        }

        @Override
        public void reset() {
            resets++;
        }

        @Override
        public boolean remoteReadsInProgress() {
            Runnable hook = onWorkCheck;
            onWorkCheck = () -> { };
            hook.run();
            return false;
        }
    }
}
