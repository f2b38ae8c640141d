package io.jrnic.bench.transport;

import java.io.IOException;

/**
 * The operations of the one-sided latency benchmark: the raw-TCP 8-byte ping-pong as the baseline,
 * and the RNIC's request/response operations, each a round trip that the responder's RNIC answers
 * without any application thread on that side (docs/benchmarks.md, "One-sided round trips").
 *
 * <p>Like {@link Transport}, the benchmark takes this as a {@code @Param} without values, so every
 * constant runs in the same JMH invocation as the {@link #TCP_PING_PONG} baseline and the
 * {@link #TCP_BUSY_POLL_PING_PONG} floor.
 *
 * <p>Thread safety: immutable; the opened fixtures document their own.
 */
public enum OneSidedOperation {

    /** The baseline: {@link TcpPingPong} with 8-byte messages (the peer is a thread echoing them). */
    TCP_PING_PONG,

    /**
     * The floor: {@link TcpPingPong#openBusyPoll} with 8-byte messages, both ends busy-polling
     * non-blocking channels as the requester here busy-polls its CQ ({@link Transport#TCP_BUSY_POLL}).
     */
    TCP_BUSY_POLL_PING_PONG,

    /** RDMA Read of 8 bytes (RFC 5040 §4.4 / §4.5): Read Request out, Read Response back. */
    READ,

    /** RFC 7306 §5.1.1 FetchAdd of 1 on an 8-byte counter; the original value comes back. */
    FETCH_ADD,

    /** RFC 7306 §5.1.2 CmpSwap of the counter from {@code n} to {@code n + 1}; the original value comes back. */
    CMP_SWAP,

    /** draft-talpey-rdma-commit-01 §3.1.3 Atomic Write of an 8-byte value; an Atomic Write Response comes back. */
    ATOMIC_WRITE,

    /** draft-talpey-rdma-commit-01 §3.1.1 RDMA Flush of 8 bytes with global visibility; a Flush Response comes back. */
    FLUSH,

    /**
     * draft-talpey-rdma-commit-01 §3.1.2 RDMA Verify of 64 bytes without an expected hash (a scrub): the
     * responder hashes the range (SHA-256, the region's default) and the Verify Response carries the hash.
     */
    VERIFY;

    /**
     * Connects the endpoints of this operation: the TCP ping-pong with its echoing peer, or two RNICs
     * over loopback ({@link RnicRoundTrip}).
     *
     * @param crc whether the TCP messages carry a CRC32c trailer, or the RNIC connection runs MPA with CRC
     * @return the open fixture; {@link PingPong#roundTrip()} is one operation
     * @throws IOException if the endpoints could not be connected
     */
    public PingPong open(boolean crc) throws IOException {
        MessageOptions ping = new MessageOptions(RnicRoundTrip.OPERAND_SIZE, crc, false);
        return switch (this) {
            case TCP_PING_PONG -> TcpPingPong.open(ping);
            case TCP_BUSY_POLL_PING_PONG -> TcpPingPong.openBusyPoll(ping);
            default -> RnicRoundTrip.open(this, crc);
        };
    }

    /** {@return whether this is an RNIC operation (else one of the raw-TCP baselines)} */
    public boolean rnic() {
        return this != TCP_PING_PONG && this != TCP_BUSY_POLL_PING_PONG;
    }
}
