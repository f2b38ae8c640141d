package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The raw-TCP fixtures move real bytes over loopback: every message arrives complete, in order,
 * unharmed, for the blocking baseline, the busy-polling floor and the packed stream alike.
 */
class TcpTransportTest {

    /**
     * Operations per allocation measurement (see RnicTransportTest.STEADY_STATE_OPS): the bound is
     * below one byte per operation, so any object allocated per operation fails it.
     */
    static final int STEADY_STATE_OPS = 4_000;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    @ParameterizedTest
    @CsvSource({"TCP, 65536, false", "TCP, 65536, true", "TCP, 4096, false", "TCP, 4096, true", "TCP, 8, true",
            "TCP_BUSY_POLL, 65536, false", "TCP_BUSY_POLL, 4096, true", "TCP_BUSY_POLL, 64, false",
            "TCP_PACKED, 65536, true", "TCP_PACKED, 4096, false", "TCP_PACKED, 64, false", "TCP_PACKED, 64, true",
            "TCP_PACKED, 8, false", "TCP_PACKED, 100, true"})
    void streamDeliversEveryMessageIntact(Transport transport, int messageSize, boolean crc) throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(messageSize, crc, true));
        for (int i = 0; i < 200; i++) {
            stream.send();
        }

        TransferReport report = stream.finish();

        assertThat(report).isEqualTo(new TransferReport(200, 200, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @CsvSource({"64, false", "64, true", "100, true", "4096, true"})
    void packedStreamDeliversBatchesAndTheLastPartialOne(int messageSize, boolean crc) throws Exception {
        MessageOptions options = new MessageOptions(messageSize, crc, true);
        int slots = TcpPackedStream.slotsPerBatch(options);
        // several full batches (hence several reads whose boundaries cut frames: 100 + 4 bytes does
        // not divide the batch) and a partial last one that only finish() writes
        long messages = 3L * slots + slots / 2 + 1;
        MessageStream stream = Transport.TCP_PACKED.openStream(options);
        for (long i = 0; i < messages; i++) {
            stream.send();
        }

        assertThat(stream.finish()).isEqualTo(new TransferReport(messages, messages, 0, 0, 0, 0));
    }

    @Test
    void packedStreamGoesOnAfterAFlushInTheMiddleOfABatch() throws Exception {
        MessageStream stream = Transport.TCP_PACKED.openStream(new MessageOptions(64, true, true));
        for (int i = 0; i < 300; i++) {
            stream.send();
            if (i % 7 == 3) {
                stream.flush(); // a partial batch written; the next messages fill the batch again
            }
        }
        stream.flush();
        stream.flush(); // nothing held: writes nothing

        assertThat(stream.finish()).isEqualTo(new TransferReport(300, 300, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @CsvSource({"64, false, 2", "64, true, 2", "65536, false, 2", "65536, true, 3", "4096, true, 2"})
    void packedStreamWritesAFullBatchInPiecesOfHalfABatch(int messageSize, boolean crc, int pieces) throws Exception {
        MessageOptions options = new MessageOptions(messageSize, crc, true);
        TcpPackedStream stream = (TcpPackedStream) Transport.TCP_PACKED.openStream(options);
        for (int i = 0; i < TcpPackedStream.slotsPerBatch(options); i++) {
            stream.send();
        }

        // writes of 64 KiB run loopback TCP at half speed (TcpPackedStream.WRITE_BYTES)
        assertThat(stream.writes()).isEqualTo(pieces);
        assertThat(stream.finish().delivered()).isEqualTo(TcpPackedStream.slotsPerBatch(options));
    }

    @Test
    void packedStreamReadsFromAsMuchMemoryAsTheRnicSource() {
        // the RNIC stream's source holds RnicMessageStream.WINDOW (128) messages
        assertThat(TcpPackedStream.batchesFor(new MessageOptions(64, false, false))).as("one batch holds 1024").isEqualTo(1);
        assertThat(TcpPackedStream.batchesFor(new MessageOptions(4096, false, false))).isEqualTo(128 / 16);
        assertThat(TcpPackedStream.batchesFor(new MessageOptions(4096, true, false))).as("15 per batch").isEqualTo(9);
        assertThat(TcpPackedStream.batchesFor(new MessageOptions(65536, false, false))).isEqualTo(128);
    }

    @ParameterizedTest
    @CsvSource({"4096, true", "65536, false"})
    void packedStreamCyclesThroughItsBatchesTwice(int messageSize, boolean crc) throws Exception {
        MessageOptions options = new MessageOptions(messageSize, crc, true);
        long messages = 2L * TcpPackedStream.batchesFor(options) * TcpPackedStream.slotsPerBatch(options) + 1;
        MessageStream stream = Transport.TCP_PACKED.openStream(options);
        for (long i = 0; i < messages; i++) {
            stream.send();
        }

        assertThat(stream.finish()).isEqualTo(new TransferReport(messages, messages, 0, 0, 0, 0));
    }

    @Test
    void packedStreamPacksSmallMessagesIntoOneBatch() {
        assertThat(TcpPackedStream.slotsPerBatch(new MessageOptions(64, false, false))).isEqualTo(1024);
        assertThat(TcpPackedStream.slotsPerBatch(new MessageOptions(64, true, false))).isEqualTo(65536 / 68);
        assertThat(TcpPackedStream.slotsPerBatch(new MessageOptions(65536, true, false))).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_BUSY_POLL", "TCP_PACKED"})
    void streamWithNothingSentReportsNothingDelivered(Transport transport) throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(4096, true, true));

        assertThat(stream.finish()).isEqualTo(new TransferReport(0, 0, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_BUSY_POLL", "TCP_PACKED"})
    void streamRejectsSecondFinish(Transport transport) throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(4096, false, false));
        stream.finish();

        assertThatIllegalStateException().isThrownBy(stream::finish).withMessageContaining("finish() called twice");
    }

    @ParameterizedTest
    @CsvSource({"TCP, false", "TCP, true", "TCP_BUSY_POLL, false", "TCP_BUSY_POLL, true"})
    void pingPongReturnsEachSequenceNumber(Transport transport, boolean crc) throws Exception {
        PingPong pingPong = transport.openPingPong(new MessageOptions(8, crc, true));
        for (long i = 0; i < 500; i++) {
            assertThat(pingPong.roundTrip()).isEqualTo(i);
        }

        TransferReport report = pingPong.finish();

        assertThat(report).isEqualTo(new TransferReport(500, 500, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_BUSY_POLL"})
    void pingPongCarriesLargerMessagesToo(Transport transport) throws Exception {
        PingPong pingPong = transport.openPingPong(new MessageOptions(65536, true, true));
        for (long i = 0; i < 20; i++) {
            assertThat(pingPong.roundTrip()).isEqualTo(i);
        }

        assertThat(pingPong.finish().verified().delivered()).isEqualTo(20);
    }

    @Test
    void busyPollPingPongRunsOnNonBlockingChannels() throws Exception {
        TcpPingPong blocking = TcpPingPong.open(new MessageOptions(8, false, false));
        TcpPingPong busy = TcpPingPong.openBusyPoll(new MessageOptions(8, false, false));
        try {
            assertThat(blocking.busyPoll()).isFalse();
            assertThat(busy.busyPoll()).isTrue();
        } finally {
            blocking.finish().verified();
            busy.finish().verified();
        }
    }

    @Test
    void packedTransportHasNoPingPong() {
        assertThat(Transport.TCP_PACKED.hasPingPong()).isFalse();
        assertThatThrownBy(() -> Transport.TCP_PACKED.openPingPong(new MessageOptions(8, false, false)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("nothing to pack");
    }

    @ParameterizedTest
    @CsvSource({"TCP_BUSY_POLL, 4096", "TCP_PACKED, 64", "TCP_PACKED, 4096"})
    void sendingAllocatesNothingOnTheCallersThread(Transport transport, int messageSize) throws Exception {
        MessageStream stream = transport.openStream(new MessageOptions(messageSize, true, false));
        for (int i = 0; i < STEADY_STATE_OPS; i++) { // warm up: first-use allocation, class loading
            stream.send();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < STEADY_STATE_OPS; i++) {
            stream.send();
        }
        stream.flush();
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        stream.finish().verified();

        assertThat(allocated).as("bytes allocated by %d sends", STEADY_STATE_OPS).isLessThan(STEADY_STATE_OPS);
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_BUSY_POLL"})
    void roundTripsAllocateNothingOnTheCallersThread(Transport transport) throws Exception {
        PingPong pingPong = transport.openPingPong(new MessageOptions(8, true, false));
        for (int i = 0; i < STEADY_STATE_OPS / 4; i++) {
            pingPong.roundTrip();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < STEADY_STATE_OPS / 4; i++) {
            pingPong.roundTrip();
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        pingPong.finish().verified();

        assertThat(allocated).as("bytes allocated by %d round trips", STEADY_STATE_OPS / 4)
                .isLessThan(STEADY_STATE_OPS / 4);
    }
}
