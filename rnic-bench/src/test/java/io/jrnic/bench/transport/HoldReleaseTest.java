package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link BusyWait#hold()} and the fixtures' {@code hold()}/{@code release()}: a held background
 * spinner (echo peer, consumer) parks once idle, goes on after the release, and a fixture finishes
 * even when it was left held.
 */
class HoldReleaseTest {

    private static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Spins until the condition holds or the patience runs out; a state wait, not a pacing sleep. */
    private static boolean eventually(java.util.function.BooleanSupplier condition) {
        long end = System.nanoTime() + PATIENCE_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    @Test
    void aHeldWaitParksItsThreadUntilReleased() throws InterruptedException {
        BusyWait wait = new BusyWait(4);
        AtomicLong pauses = new AtomicLong();
        Thread spinner = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                wait.pause();
                pauses.incrementAndGet();
            }
        });
        try {
            wait.hold();
            assertThat(eventually(() -> wait.parked() && spinner.getState() == Thread.State.WAITING)).isTrue();
            long whileHeld = pauses.get();
            assertThat(pauses.get()).isEqualTo(whileHeld);

            wait.release();

            assertThat(eventually(() -> pauses.get() > whileHeld + 100)).isTrue();
            assertThat(wait.parked()).isFalse();
        } finally {
            spinner.interrupt();
            wait.release();
            spinner.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    @Test
    void aReleaseBeforeThePauseMeansNoPark() {
        BusyWait wait = new BusyWait(1);
        wait.hold();
        wait.release();

        for (int i = 0; i < 10; i++) {
            wait.pause(); // would park for ever if the hold had stuck
        }

        assertThat(wait.parked()).isFalse();
    }

    private static boolean someThreadNamedIsParked(String name) {
        return eventually(() -> Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals(name) && t.getState() == Thread.State.WAITING));
    }

    @ParameterizedTest
    @CsvSource({"TCP_BUSY_POLL, jrnic-bench-tcp-busy-poll-echo", "RNIC_SEND, rnic-echo", "RNIC_WRITE, rnic-echo"})
    void aHeldPingPongsEchoParksGoesOnAfterTheReleaseAndFinishesHeld(Transport transport, String echoThread)
            throws Exception {
        PingPong pingPong = transport.openPingPong(new MessageOptions(64, false, true));
        assertThat(pingPong.roundTrip()).isZero();

        pingPong.hold();
        assertThat(someThreadNamedIsParked(echoThread)).as(echoThread + " parked").isTrue();
        pingPong.release();
        assertThat(pingPong.roundTrip()).isEqualTo(1);
        pingPong.hold();

        assertThat(pingPong.finish()).isEqualTo(new TransferReport(2, 2, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @CsvSource({"TCP_BUSY_POLL, jrnic-bench-tcp-busy-poll-receiver", "RNIC_SEND, rnic-send-consumer"})
    void aHeldStreamsReceiverParksGoesOnAfterTheReleaseAndFinishesHeld(Transport transport, String receiverThread)
            throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(64, false, true));
        for (int i = 0; i < 100; i++) {
            stream.send();
        }
        stream.flush();

        stream.hold();
        assertThat(someThreadNamedIsParked(receiverThread)).as(receiverThread + " parked").isTrue();
        stream.release();
        for (int i = 0; i < 100; i++) {
            stream.send();
        }
        stream.flush();
        stream.hold();

        assertThat(stream.finish()).isEqualTo(new TransferReport(200, 200, 0, 0, 0, 0));
    }
}
