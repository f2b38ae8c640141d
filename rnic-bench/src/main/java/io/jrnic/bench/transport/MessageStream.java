package io.jrnic.bench.transport;

import java.io.IOException;

/**
 * A one-way stream of fixed-size messages between two connected endpoints in this JVM: the fixture
 * of the throughput benchmark. The caller's thread is the sender; the consuming side runs on a
 * thread of the implementation's own and reads every message completely into native memory,
 * checking its sequence number and, with CRC on, its trailer.
 *
 * <p>{@link #send()} returns once the message is handed to the transport (for TCP: copied into the
 * socket send buffer; for the RNIC: posted, with at most a window of work requests not yet completed
 * locally, a completion meaning RFC 5040's "handed to the LLP"). The transport's flow control bounds
 * the messages in flight, so the rate of {@code send()} over a measurement iteration is the delivered
 * rate, to within the in-flight bytes.
 *
 * <p>Lifecycle: {@link Transport#openStream} connects and starts the consumer; {@link #finish()}
 * ends the stream, waits until the consumer has read everything, releases sockets and memory, and
 * reports. Neither allocates per message.
 *
 * <p>Thread safety: one sending thread at a time; {@code finish()} must not overlap {@code send()}.
 */
public interface MessageStream {

    /** {@return the message shape this stream was opened with} */
    MessageOptions options();

    /**
     * Sends the next message: writes its sequence number (and CRC trailer) and hands it to the
     * transport, blocking while the transport applies back-pressure.
     *
     * @throws IOException if the transport failed (for instance the consumer died and closed it)
     */
    void send() throws IOException;

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
     * Hands to the transport every message that {@link #send()} accepted but this stream still
     * holds back. Streams that hand each message over in {@code send()} have nothing to do (the
     * default); {@link TcpPackedStream} writes its partly filled batch; {@link RnicMessageStream}
     * posts its staged list and waits for its signaled completions (the RNIC's "handed to the
     * LLP"). A caller that times a bounded number of sends calls it before stopping the clock;
     * {@link #finish()} calls it too.
     *
     * @throws IOException if the transport failed
     */
    default void flush() throws IOException {
    }

    /**
     * Ends the stream, waits for the consumer to drain it, releases all resources, and reports.
     * Call once.
     *
     * @return what the consumer received
     * @throws IOException          if the transport or the consumer failed
     * @throws InterruptedException if interrupted while waiting for the consumer
     */
    TransferReport finish() throws IOException, InterruptedException;
}
