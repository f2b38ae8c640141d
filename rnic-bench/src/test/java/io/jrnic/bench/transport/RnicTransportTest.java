package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.jrnic.api.IoMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The RNIC transports move real bytes between two SoftRnics over loopback: every message arrives
 * complete and in order, more messages than the window and the receive ring (so slots and receives
 * are reused and credits flow), with MPA CRC on and off.
 */
class RnicTransportTest {

    /** More than {@link RnicMessageStream#WINDOW} and {@link RnicSendConsumer#RECEIVES}: every slot is reused. */
    static final int MESSAGES = 3 * RnicMessageStream.WINDOW + 7;

    /**
     * Operations per allocation measurement. The bound is below one byte per operation: any object
     * allocated per operation (16 bytes at least) fails it, while a one-off allocation in the
     * runtime's own machinery (a lock's queue node, say) does not.
     */
    static final int STEADY_STATE_OPS = 4_000;

    /**
     * Measured passes at most; the first one under the bound ends the measurement. An allocation per
     * operation shows in every pass. Code the JIT has not optimised yet allocates where its compiled
     * form does not (escape analysis), and in polling mode the caller's thread runs the whole data
     * path: within the full class on a slow machine, three passes after a warm-up of 4,000 sends
     * were not always enough (10 KB per pass in one CI run; JMH's gc profiler, after its warm-up,
     * gives 0.2 B/op for the same path).
     */
    static final int PASSES = 10;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    @ParameterizedTest
    @CsvSource({"RNIC_WRITE, 65536, false", "RNIC_WRITE, 4096, true", "RNIC_WRITE, 8, true",
            "RNIC_SEND, 65536, true", "RNIC_SEND, 4096, false", "RNIC_SEND, 8, false"})
    void streamDeliversEveryMessageIntact(Transport transport, int messageSize, boolean crc) throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(messageSize, crc, true));
        for (int i = 0; i < MESSAGES; i++) {
            stream.send();
        }

        TransferReport report = stream.finish();

        assertThat(report).isEqualTo(new TransferReport(MESSAGES, MESSAGES, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @CsvSource({"RNIC_WRITE, 64, 16", "RNIC_WRITE, 4096, 7", "RNIC_SEND, 64, 16", "RNIC_SEND, 4096, 7"})
    void streamPostingListsDeliversEveryMessageIntact(Transport transport, int messageSize, int postList)
            throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(messageSize, false, true, postList));
        for (int i = 0; i < MESSAGES; i++) {
            stream.send(); // MESSAGES is no multiple of 7: finish() posts the last, partial list
        }

        TransferReport report = stream.finish();

        assertThat(report).isEqualTo(new TransferReport(MESSAGES, MESSAGES, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @CsvSource({"RNIC_WRITE", "RNIC_SEND"})
    void streamWithNothingSentReportsNothingDelivered(Transport transport) throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(4096, false, false));

        assertThat(stream.finish()).isEqualTo(new TransferReport(0, 0, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @CsvSource({"RNIC_WRITE", "RNIC_SEND"})
    void streamRejectsSecondFinish(Transport transport) throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(4096, false, false));
        stream.send();
        stream.finish();

        assertThatIllegalStateException().isThrownBy(stream::finish).withMessageContaining("finish() called twice");
    }

    @ParameterizedTest
    @CsvSource({"RNIC_WRITE, 8, false", "RNIC_WRITE, 8, true", "RNIC_SEND, 8, false", "RNIC_SEND, 8, true",
            "RNIC_WRITE, 65536, true", "RNIC_SEND, 65536, false"})
    void pingPongReturnsEachSequenceNumber(Transport transport, int messageSize, boolean crc) throws Exception {
        PingPong pingPong = transport.openPingPong(new MessageOptions(messageSize, crc, true));
        for (long i = 0; i < 200; i++) {
            assertThat(pingPong.roundTrip()).isEqualTo(i);
        }

        TransferReport report = pingPong.finish();

        assertThat(report).isEqualTo(new TransferReport(200, 200, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @CsvSource({"RNIC_WRITE, EVENT_LOOP", "RNIC_SEND, EVENT_LOOP", "RNIC_WRITE, POLLING", "RNIC_SEND, POLLING"})
    void sendingAllocatesNothingOnTheCallersThread(Transport transport, IoMode mode) throws Throwable {
        // in polling mode the caller's thread also frames and writes each post and drives the reads
        MessageStream stream = openIn(mode, () -> transport.openStream(new MessageOptions(4096, false, false)));
        long best = bestPassAllocation(stream::send, STEADY_STATE_OPS);
        stream.finish().verified();

        assertThat(best).as("bytes allocated by the best of up to %d passes of %d sends", PASSES, STEADY_STATE_OPS)
                .isLessThan(STEADY_STATE_OPS);
    }

    @ParameterizedTest
    @CsvSource({"RNIC_WRITE, EVENT_LOOP", "RNIC_SEND, EVENT_LOOP", "RNIC_WRITE, POLLING", "RNIC_SEND, POLLING"})
    void roundTripsAllocateNothingOnTheCallersThread(Transport transport, IoMode mode) throws Throwable {
        PingPong pingPong = openIn(mode, () -> transport.openPingPong(new MessageOptions(8, true, false)));
        int roundTrips = STEADY_STATE_OPS / 4;
        long best = bestPassAllocation(pingPong::roundTrip, roundTrips);
        pingPong.finish().verified();

        assertThat(best).as("bytes allocated by the best of up to %d passes of %d round trips", PASSES, roundTrips)
                .isLessThan(roundTrips);
    }

    /**
     * Runs {@code operation} {@code count} times to warm up (first-use allocation, class loading),
     * then passes of {@code count} more until one allocates less than {@code count} bytes on this
     * thread, or {@link #PASSES} passes went by.
     *
     * @return the bytes this thread allocated in its best measured pass
     */
    private static long bestPassAllocation(Executable operation, int count) throws Throwable {
        for (int i = 0; i < count; i++) {
            operation.execute();
        }
        long best = Long.MAX_VALUE;
        for (int pass = 0; pass < PASSES && best >= count; pass++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < count; i++) {
                operation.execute();
            }
            best = Math.min(best, THREADS.getCurrentThreadAllocatedBytes() - before);
        }
        return best;
    }

    /** Opens a stream or ping-pong whose RNICs run in the given I/O mode, then restores the JVM's mode. */
    private static <T> T openIn(IoMode mode, ThrowingSupplier<T> opener) throws Throwable {
        IoMode before = RnicPair.ioMode();
        RnicPair.ioMode(mode);
        try {
            return opener.get();
        } finally {
            RnicPair.ioMode(before);
        }
    }

    @Test
    void writePingPongNeedsAnAlignedLastWord() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Transport.RNIC_WRITE.openPingPong(new MessageOptions(12, false, false)))
                .withMessageContaining("multiple of 8, was 12");
    }
}
