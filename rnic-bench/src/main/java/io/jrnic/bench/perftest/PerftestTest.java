package io.jrnic.bench.perftest;

import java.util.Locale;

/**
 * The tests of the perftest commands: perftest's {@code ib_<verb>_<kind>} plus jrnic's
 * {@code flush_lat} and {@code verify_lat} (draft-talpey-rdma-commit-01 operations no Linux RNIC
 * has).
 *
 * <p>Thread safety: immutable.
 */
public enum PerftestTest {
    /** RDMA Write bandwidth: a window of Writes into the server's buffer. */
    WRITE_BW("ib_write_bw", Verb.WRITE, false),
    /** RDMA Read bandwidth: a window of Reads from the server's buffer. */
    READ_BW("ib_read_bw", Verb.READ, false),
    /** Send bandwidth: Sends into the server's posted receives. */
    SEND_BW("ib_send_bw", Verb.SEND, false),
    /** RFC 7306 FetchAdd bandwidth: a window of 8-byte atomics. */
    ATOMIC_BW("ib_atomic_bw", Verb.ATOMIC, false),
    /** RDMA Write latency: a Write ping-pong polling the last byte (reported as half the round trip). */
    WRITE_LAT("ib_write_lat", Verb.WRITE, true),
    /** RDMA Read latency: one Read at a time (the round trip). */
    READ_LAT("ib_read_lat", Verb.READ, true),
    /** Send latency: a Send ping-pong (reported as half the round trip). */
    SEND_LAT("ib_send_lat", Verb.SEND, true),
    /** RFC 7306 FetchAdd latency: one atomic at a time (the round trip). */
    ATOMIC_LAT("ib_atomic_lat", Verb.ATOMIC, true),
    /** draft-talpey-rdma-commit-01 §3.1.1 RDMA Flush latency (the round trip). */
    FLUSH_LAT("flush_lat", Verb.FLUSH, true),
    /** draft-talpey-rdma-commit-01 §3.1.2 RDMA Verify latency (the round trip). */
    VERIFY_LAT("verify_lat", Verb.VERIFY, true);

    /** The operation a test measures. */
    public enum Verb {
        /** RDMA Write (RFC 5040 §5.1). */
        WRITE,
        /** RDMA Read (RFC 5040 §5.2). */
        READ,
        /** Send into a posted receive (RFC 5040 §5.3). */
        SEND,
        /** An RFC 7306 atomic: FetchAdd in the perftest commands. */
        ATOMIC,
        /** draft-talpey-rdma-commit-01 §3.1.1 RDMA Flush. */
        FLUSH,
        /** draft-talpey-rdma-commit-01 §3.1.2 RDMA Verify. */
        VERIFY
    }

    private final String command;
    private final Verb verb;
    private final boolean latency;

    PerftestTest(String command, Verb verb, boolean latency) {
        this.command = command;
        this.verb = verb;
        this.latency = latency;
    }

    /** {@return the command name, as on the command line and as perftest names it ({@code ib_write_bw}, ...)} */
    public String command() {
        return command;
    }

    /** {@return the operation the test measures} */
    public Verb verb() {
        return verb;
    }

    /** {@return whether this is a latency test (else a bandwidth test)} */
    public boolean latency() {
        return latency;
    }

    /**
     * Whether perftest reports half the round trip: the ping-pong tests (Write and Send), where each
     * side's message is one direction. One-sided operations report the whole round trip, as
     * perftest's {@code ib_read_lat} and {@code ib_atomic_lat} do.
     *
     * @return whether the reported latency is half the measured round trip
     */
    public boolean halfRoundTrip() {
        return latency && (verb == Verb.WRITE || verb == Verb.SEND);
    }

    /** {@return the JSON {@code test} name: {@code write_lat}, {@code flush_lat}, ...} */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * {@return whether Linux perftest has this test, so that our client and server speak its
     * protocol (the others run with {@code --loopback} only)}
     */
    public boolean perftestInterop() {
        return this == WRITE_BW || this == READ_BW || this == SEND_BW || this == WRITE_LAT || this == READ_LAT
                || this == SEND_LAT;
    }

    /** {@return perftest's default message size in bytes: 65536 for bandwidth, 2 for latency, 8 for the atomics} */
    public int defaultSize() {
        if (verb == Verb.ATOMIC) {
            return 8;
        }
        return latency ? 2 : 65536;
    }

    /**
     * Looks a test up by its command name.
     *
     * @param command a command name ({@code ib_write_bw}, {@code flush_lat}, ...)
     * @return the test of that name, or null if there is none
     */
    public static PerftestTest ofCommand(String command) {
        for (PerftestTest t : values()) {
            if (t.command.equals(command)) {
                return t;
            }
        }
        return null;
    }
}
