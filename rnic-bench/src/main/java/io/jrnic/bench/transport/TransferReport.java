package io.jrnic.bench.transport;

/**
 * What the consuming side of an endpoint pair saw: how many messages were sent and delivered, and
 * how many of them failed a check. A benchmark's teardown calls {@link #verified()}, so a run whose
 * bytes did not arrive intact fails instead of reporting a number.
 *
 * <p>Thread safety: immutable.
 *
 * @param sent           messages handed to the transport by the sending side
 * @param delivered      complete messages received by the consuming side (intact or not)
 * @param crcErrors      received messages whose CRC32c trailer did not match (both directions for
 *                       a ping-pong)
 * @param sequenceErrors received messages whose sequence number was not the next one expected
 * @param payloadErrors  received messages whose pattern bytes differed (checked only with
 *                       {@link MessageOptions#verifyPayload()})
 * @param truncated      streams that ended in the middle of a message
 */
public record TransferReport(long sent, long delivered, long crcErrors, long sequenceErrors,
                             long payloadErrors, long truncated) {

    /** {@return whether every sent message was delivered and no check failed} */
    public boolean intact() {
        return sent == delivered && crcErrors == 0 && sequenceErrors == 0 && payloadErrors == 0
                && truncated == 0;
    }

    /**
     * Returns this report if the transfer was {@linkplain #intact() intact}.
     *
     * @return this
     * @throws IllegalStateException naming the counts if a message was lost or failed a check: the
     *                               harness is broken and its measurement meaningless
     */
    public TransferReport verified() {
        if (!intact()) {
            throw new IllegalStateException("benchmark transfer not intact: " + this);
        }
        return this;
    }
}
