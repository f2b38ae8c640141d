package io.jrnic.api;

import io.jrnic.api.internal.CounterLayout;

import java.util.Arrays;

/**
 * Traffic counters of a queue pair ({@link QueuePair#counters(Counters)}) or of an RNIC
 * ({@link Rnic#counters(Counters)}: the sum over its queue pairs, destroyed ones included). A
 * caller-owned holder, filled by a read and reusable, so that reading allocates nothing; all
 * values count from the creation of the queue pair (or the opening of the RNIC) and never go back.
 *
 * <p>What is counted (docs/observability.md has the table): RDMAP messages and their DDP payload
 * bytes (the ULPDU without its DDP header, RFC 5041 §4: the data of a Write, Send or Read
 * Response, the RDMAP header of the other messages) per {@link MessageType}, sent and received;
 * FPDUs; MPA CRC errors; Terminates; how received payload reached registered memory: read
 * straight from the socket, or copied from a receive buffer; and connections lost to the progress
 * timeout.
 *
 * <p>Consistency: the RNIC writes each counter from one thread (the connection's event loop) and a
 * read takes each value with an opaque read, so every value is one the counter really had, and a
 * counter read after a completion includes the work that completion reports. A snapshot is not
 * atomic across counters: two values may come from slightly different moments (e.g. an FPDU
 * counted and its message not yet).
 *
 * <p>Thread safety: not thread safe; one owner at a time.
 */
public final class Counters {
    private final long[] values = new long[CounterLayout.LENGTH];

    /** Creates a holder with every counter 0. */
    public Counters() {
    }

    /** For the implementation (through {@code io.jrnic.api.internal.ApiAccess}): the slots. */
    long[] values() {
        return values;
    }

    /**
     * RDMAP messages of a type sent (counted when their last DDP segment went to the LLP).
     *
     * @param type the message type
     * @return messages
     */
    public long messagesSent(MessageType type) {
        return values[CounterLayout.MESSAGES_SENT + type.ordinal()];
    }

    /**
     * DDP payload bytes sent in messages of a type.
     *
     * @param type the message type
     * @return bytes
     */
    public long bytesSent(MessageType type) {
        return values[CounterLayout.BYTES_SENT + type.ordinal()];
    }

    /**
     * RDMAP messages of a type received that passed DDP and RDMAP validation (counted with their
     * last DDP segment).
     *
     * @param type the message type
     * @return messages
     */
    public long messagesReceived(MessageType type) {
        return values[CounterLayout.MESSAGES_RECEIVED + type.ordinal()];
    }

    /**
     * DDP payload bytes received in valid segments of messages of a type.
     *
     * @param type the message type
     * @return bytes
     */
    public long bytesReceived(MessageType type) {
        return values[CounterLayout.BYTES_RECEIVED + type.ordinal()];
    }

    /**
     * All RDMAP messages sent.
     *
     * @return the sum over the message types
     */
    public long messagesSent() {
        return sum(CounterLayout.MESSAGES_SENT);
    }

    /**
     * All DDP payload bytes sent.
     *
     * @return the sum over the message types
     */
    public long bytesSent() {
        return sum(CounterLayout.BYTES_SENT);
    }

    /**
     * All valid RDMAP messages received.
     *
     * @return the sum over the message types
     */
    public long messagesReceived() {
        return sum(CounterLayout.MESSAGES_RECEIVED);
    }

    /**
     * All DDP payload bytes received in valid segments.
     *
     * @return the sum over the message types
     */
    public long bytesReceived() {
        return sum(CounterLayout.BYTES_RECEIVED);
    }

    /**
     * FPDUs (DDP segments) the queue pairs handed to the LLP, the Terminate included (RFC 5044 §4).
     *
     * @return FPDUs
     */
    public long fpdusSent() {
        return values[CounterLayout.FPDUS_SENT];
    }

    /**
     * FPDUs that passed MPA's checks (length, markers, CRC) and reached a queue pair, valid for DDP
     * and RDMAP or not.
     *
     * @return FPDUs
     */
    public long fpdusReceived() {
        return values[CounterLayout.FPDUS_RECEIVED];
    }

    /**
     * FPDUs whose MPA CRC did not match (RFC 5044 §8: the stream is terminated, so at most one per
     * connection).
     *
     * @return CRC errors
     */
    public long crcErrors() {
        return values[CounterLayout.CRC_ERRORS];
    }

    /**
     * Terminate messages sent (RFC 5040 §5.4).
     *
     * @return Terminates
     */
    public long terminatesSent() {
        return values[CounterLayout.TERMINATES_SENT];
    }

    /**
     * Terminate messages received, including one that failed validation (RFC 5040 §5.4, §7.1).
     *
     * @return Terminates
     */
    public long terminatesReceived() {
        return values[CounterLayout.TERMINATES_RECEIVED];
    }

    /**
     * Payload bytes of RDMA Write, Read Response and Send segments that the socket read straight
     * into registered memory (no copy; docs/transport.md "direct placement").
     *
     * @return bytes
     */
    public long bytesPlacedDirect() {
        return values[CounterLayout.BYTES_PLACED_DIRECT];
    }

    /**
     * Payload bytes of RDMA Write, Read Response and Send segments copied into registered memory
     * from a receive buffer (the FPDU arrived whole, or partly, before its target was known).
     *
     * @return bytes
     */
    public long bytesCopied() {
        return values[CounterLayout.BYTES_COPIED];
    }

    /**
     * Connections this queue pair lost to the progress timeout ({@link ConnectionSettings#progressTimeout}):
     * work was outstanding and no FPDU moved either way for the timeout, so the connection was reset
     * and the queue pair went to Error with LLP Connection Lost. At most one per connection.
     *
     * @return progress timeouts
     */
    public long progressTimeouts() {
        return values[CounterLayout.PROGRESS_TIMEOUTS];
    }

    /**
     * Copies every counter of another holder into this one.
     *
     * @param other the holder to copy
     * @return this
     */
    public Counters copyFrom(Counters other) {
        System.arraycopy(other.values, 0, values, 0, values.length);
        return this;
    }

    /**
     * Sets every counter to 0 (the holder only; the RNIC's counters never go back).
     *
     * @return this
     */
    public Counters clear() {
        Arrays.fill(values, 0);
        return this;
    }

    private long sum(int from) {
        long s = 0;
        for (int i = from; i < from + CounterLayout.TYPES; i++) {
            s += values[i];
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Counters c && Arrays.equals(values, c.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    /** The non-zero counters, e.g. {@code Counters[fpdusSent=3, sent RDMA Write=1/65536, ...]}. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Counters[fpdusSent=").append(fpdusSent())
                .append(", fpdusReceived=").append(fpdusReceived());
        for (MessageType t : MessageType.values()) {
            if (messagesSent(t) != 0 || bytesSent(t) != 0) {
                b.append(", sent ").append(t).append('=').append(messagesSent(t)).append('/').append(bytesSent(t));
            }
            if (messagesReceived(t) != 0 || bytesReceived(t) != 0) {
                b.append(", received ").append(t).append('=').append(messagesReceived(t)).append('/')
                        .append(bytesReceived(t));
            }
        }
        return b.append(", crcErrors=").append(crcErrors()).append(", terminatesSent=").append(terminatesSent())
                .append(", terminatesReceived=").append(terminatesReceived()).append(", bytesPlacedDirect=")
                .append(bytesPlacedDirect()).append(", bytesCopied=").append(bytesCopied())
                .append(", progressTimeouts=").append(progressTimeouts()).append(']').toString();
    }
}
