package io.jrnic.bench.transport;

import java.io.IOException;

/**
 * A request/response pair of endpoints in this JVM: the fixture of the latency benchmark. The
 * caller's thread sends one small message and waits for the peer to send it back; the peer runs on
 * a thread of the implementation's own, checks each message (sequence, CRC) and returns it with a
 * freshly computed CRC, so that each direction pays what an MPA FPDU with CRC pays.
 *
 * <p>Lifecycle as {@link MessageStream}: {@link Transport#openPingPong} connects and starts the
 * echoing peer, {@link #finish()} ends, drains, releases and reports. No allocation per round trip.
 *
 * <p>Thread safety: one calling thread at a time; {@code finish()} must not overlap
 * {@code roundTrip()}.
 */
public interface PingPong {

    /** {@return the message shape this pair was opened with} */
    MessageOptions options();

    /**
     * Sends the next message and waits for its echo, which is checked (sequence number, CRC).
     *
     * @return the sequence number carried by the echo (the benchmark hands it to JMH)
     * @throws IOException if the transport failed or the peer closed the connection
     */
    long roundTrip() throws IOException;

    /**
     * Parks the fixture's own busy-polling threads (an echo peer, a consumer) once they are idle,
     * until {@link #release()}: between the turns of an interleaved run, so that they neither take a
     * core from the transport measured meanwhile nor keep a vCPU awake for it. Call it with nothing
     * in flight. The default has no such thread and does nothing. From the measuring thread.
     */
    default void hold() {
    }

    /** Ends a {@link #hold()}; {@code finish()} works only on a released fixture. */
    default void release() {
    }

    /**
     * Ends the exchange, waits for the peer to finish, releases all resources, and reports. Call once.
     *
     * @return what both sides received
     * @throws IOException          if the transport or the peer failed
     * @throws InterruptedException if interrupted while waiting for the peer
     */
    TransferReport finish() throws IOException, InterruptedException;
}
