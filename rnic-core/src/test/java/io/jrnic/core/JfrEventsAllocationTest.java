package io.jrnic.core;

import io.jrnic.api.ConnectionException;
import io.jrnic.api.QpState;
import io.jrnic.api.TerminateMessage;
import io.jrnic.core.engine.JfrEvents;
import jdk.jfr.FlightRecorder;
import jdk.jfr.RecordingState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With no JFR recording running, raising jrnic's events allocates nothing (docs/observability.md):
 * each helper asks a preallocated probe whether its event type is enabled before it creates the
 * event. The data path raises no event at all (AllocationTest, RxAllocationTest, TxAllocationTest
 * keep it allocation-free with the counters on it).
 */
class JfrEventsAllocationTest {

    @Test
    void eventHelpersAllocateNothingWhileJfrIsOff() {
        assertThat(!FlightRecorder.isInitialized() || FlightRecorder.getFlightRecorder().getRecordings().stream()
                .noneMatch(r -> r.getState() == RecordingState.RUNNING)).as("no recording running").isTrue();
        TerminateMessage m = new TerminateMessage(0x1100, true, null);
        ConnectionException f = new ConnectionException(ConnectionException.Reason.TIMEOUT, "timeout", -1, null, -1,
                -1, null);
        int rounds = 10;
        long best = Long.MAX_VALUE;
        for (int r = 0; r < rounds; r++) {
            long before = AllocationProbe.allocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                raiseEveryEvent(m, f);
            }
            best = Math.min(best, AllocationProbe.allocatedBytes() - before);
        }
        // the probe itself boxes its result; one allocation per event would be 80 000 objects
        assertThat(best).as("bytes allocated by the best pass of 10 000 rounds of 8 events").isLessThan(1024);
    }

    private static void raiseEveryEvent(TerminateMessage m, ConnectionException f) {
        JfrEvents.qpStateChange("rnic", 1, QpState.RTS, QpState.TERMINATE);
        JfrEvents.terminateSent("rnic", 1, m);
        JfrEvents.terminateReceived("rnic", 1, m, null);
        JfrEvents.connectionEstablished("rnic", null); // not read while disabled
        JfrEvents.connectionClosed("rnic", null, QpState.ERROR);
        JfrEvents.connectionSetupFailed("rnic", 1, null, null, f);
        JfrEvents.crcError("rnic", 1);
        JfrEvents.progressTimeout("rnic", 1, 400_000_000L, 300_000_000L, 2, 1, 0);
    }
}
