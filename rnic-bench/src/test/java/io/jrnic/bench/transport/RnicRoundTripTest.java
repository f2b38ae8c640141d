package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The one-sided round trips of {@link OneSidedLatencyBenchmark}'s harness: every RNIC operation
 * completes with the right result between two SoftRnics over loopback (with MPA CRC on and off), the
 * target holds what the operations leave there, and the calling thread allocates nothing per round trip.
 */
class RnicRoundTripTest {

    /** Round trips per correctness case: more than the SQ depth, so WQEs are reused. */
    static final int OPERATIONS = 50;

    /** Round trips per allocation measurement (see RnicTransportTest.STEADY_STATE_OPS). */
    static final int STEADY_STATE_OPS = 1_000;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    @ParameterizedTest
    @CsvSource({"READ, false", "READ, true", "FETCH_ADD, false", "FETCH_ADD, true", "CMP_SWAP, false",
            "CMP_SWAP, true", "ATOMIC_WRITE, false", "ATOMIC_WRITE, true", "FLUSH, false", "FLUSH, true",
            "VERIFY, false", "VERIFY, true", "TCP_PING_PONG, false", "TCP_PING_PONG, true",
            "TCP_BUSY_POLL_PING_PONG, false", "TCP_BUSY_POLL_PING_PONG, true"})
    void everyOperationCompletesWithItsResult(OneSidedOperation operation, boolean crc) throws Exception {
        PingPong roundTrip = operation.open(crc);
        for (long i = 0; i < OPERATIONS; i++) {
            assertThat(roundTrip.roundTrip()).isEqualTo(i);
        }

        TransferReport report = roundTrip.finish();

        assertThat(report).isEqualTo(new TransferReport(OPERATIONS, OPERATIONS, 0, 0, 0, 0));
        assertThat(roundTrip.options()).isEqualTo(new MessageOptions(8, crc, false));
    }

    @ParameterizedTest
    @EnumSource(value = OneSidedOperation.class, names = {"TCP_PING_PONG", "TCP_BUSY_POLL_PING_PONG"},
            mode = EnumSource.Mode.EXCLUDE)
    void opensTheRnicFixtureForEveryRnicOperation(OneSidedOperation operation) throws Exception {
        PingPong roundTrip = operation.open(false);

        assertThat(roundTrip).isInstanceOf(RnicRoundTrip.class);
        assertThat(((RnicRoundTrip) roundTrip).operation()).isEqualTo(operation);
        assertThat(roundTrip.finish()).isEqualTo(new TransferReport(0, 0, 0, 0, 0, 0));
    }

    @Test
    void fetchAddCounterEqualsTheNumberOfOperations() throws Exception {
        RnicRoundTrip roundTrip = RnicRoundTrip.open(OneSidedOperation.FETCH_ADD, false);
        for (int i = 0; i < OPERATIONS; i++) {
            roundTrip.roundTrip();
        }
        // One more increment behind the harness's back: the counter then disagrees with the number of operations.
        MemorySegment counter = counterOf(roundTrip);
        counter.set(ValueLayout.JAVA_LONG, 0, counter.get(ValueLayout.JAVA_LONG, 0) + 1);

        TransferReport report = roundTrip.finish();

        assertThat(report).isEqualTo(new TransferReport(OPERATIONS, OPERATIONS, 0, 0, 1, 0));
        assertThatIllegalStateException().isThrownBy(report::verified).withMessageContaining("payloadErrors=1");
    }

    @Test
    void wrongResultsAreCountedPerOperation() throws Exception {
        RnicRoundTrip roundTrip = RnicRoundTrip.open(OneSidedOperation.CMP_SWAP, true);
        roundTrip.roundTrip();
        // The counter moved away from the value the next CmpSwap compares with: it returns 5, not 1,
        // and swaps nothing.
        counterOf(roundTrip).set(ValueLayout.JAVA_LONG, 0, 5L);
        roundTrip.roundTrip();

        TransferReport report = roundTrip.finish();

        assertThat(report).isEqualTo(new TransferReport(2, 2, 0, 1, 1, 0));
    }

    @Test
    void readSeesAChangedTargetAsAWrongResult() throws Exception {
        RnicRoundTrip roundTrip = RnicRoundTrip.open(OneSidedOperation.READ, false);
        roundTrip.roundTrip();
        counterOf(roundTrip).set(ValueLayout.JAVA_LONG, 0, 42L);
        roundTrip.roundTrip();

        assertThat(roundTrip.finish()).isEqualTo(new TransferReport(2, 2, 0, 1, 1, 0));
    }

    @Test
    void verifySeesAChangedRangeAsAWrongHash() throws Exception {
        RnicRoundTrip roundTrip = RnicRoundTrip.open(OneSidedOperation.VERIFY, false);
        roundTrip.roundTrip();
        MemorySegment range = counterOf(roundTrip);
        range.set(ValueLayout.JAVA_BYTE, RnicRoundTrip.VERIFY_LENGTH - 1,
                (byte) ~range.get(ValueLayout.JAVA_BYTE, RnicRoundTrip.VERIFY_LENGTH - 1));
        roundTrip.roundTrip();

        // The last byte is outside the target word: only the hash of the second Verify is wrong.
        assertThat(roundTrip.finish()).isEqualTo(new TransferReport(2, 2, 0, 1, 0, 0));
    }

    @Test
    void secondFinishIsRefused() throws Exception {
        RnicRoundTrip roundTrip = RnicRoundTrip.open(OneSidedOperation.FLUSH, false);
        roundTrip.roundTrip();
        roundTrip.finish().verified();

        assertThatIllegalStateException().isThrownBy(roundTrip::finish).withMessageContaining("finish() called twice");
    }

    @Test
    void tcpPingPongIsNotAnRnicOperation() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RnicRoundTrip.open(OneSidedOperation.TCP_PING_PONG, false))
                .withMessageContaining("TCP_PING_PONG is not an RNIC operation");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RnicRoundTrip.open(OneSidedOperation.TCP_BUSY_POLL_PING_PONG, false))
                .withMessageContaining("TCP_BUSY_POLL_PING_PONG is not an RNIC operation");
        assertThat(OneSidedOperation.TCP_PING_PONG.rnic()).isFalse();
        assertThat(OneSidedOperation.TCP_BUSY_POLL_PING_PONG.rnic()).isFalse();
        assertThat(OneSidedOperation.READ.rnic()).isTrue();
    }

    @Test
    void busyPollBaselineOpensTheBusyPollingTcpPingPong() throws Exception {
        PingPong floor = OneSidedOperation.TCP_BUSY_POLL_PING_PONG.open(true);
        PingPong blocking = OneSidedOperation.TCP_PING_PONG.open(true);
        try {
            assertThat(floor).isInstanceOfSatisfying(TcpPingPong.class, p -> assertThat(p.busyPoll()).isTrue());
            assertThat(blocking).isInstanceOfSatisfying(TcpPingPong.class, p -> assertThat(p.busyPoll()).isFalse());
        } finally {
            floor.finish().verified();
            blocking.finish().verified();
        }
    }

    @ParameterizedTest
    @EnumSource(value = OneSidedOperation.class, names = {"TCP_PING_PONG", "TCP_BUSY_POLL_PING_PONG"},
            mode = EnumSource.Mode.EXCLUDE)
    void roundTripsAllocateNothingOnTheCallersThread(OneSidedOperation operation) throws Exception {
        RnicRoundTrip roundTrip = RnicRoundTrip.open(operation, true);
        for (int i = 0; i < STEADY_STATE_OPS; i++) { // warm up: first-use allocation, class loading
            roundTrip.roundTrip();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < STEADY_STATE_OPS; i++) {
            roundTrip.roundTrip();
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        roundTrip.finish().verified();

        assertThat(allocated).as("bytes allocated by %d %s round trips", STEADY_STATE_OPS, operation)
                .isLessThan(STEADY_STATE_OPS);
    }

    /** The responder's target region (its first word is the operand of every operation). */
    private static MemorySegment counterOf(RnicRoundTrip roundTrip) {
        return roundTrip.target();
    }
}
