/**
 * Endpoint pairs under test: two connected endpoints in one JVM that move messages, with a shared
 * contract so that the JMH benchmarks run every {@link io.jrnic.bench.transport.Transport} in the
 * same run and their results can be divided by the raw-TCP baseline.
 *
 * <p>Two shapes: a {@link io.jrnic.bench.transport.MessageStream} (one side streams fixed-size
 * messages, the other consumes them: throughput) and a {@link io.jrnic.bench.transport.PingPong}
 * (one small message out, the same back: latency). Every message carries its sequence number in its
 * first 8 bytes and, with CRC on, a CRC32c trailer; the consuming side checks both and
 * {@link io.jrnic.bench.transport.TransferReport} says whether every message arrived intact, so a
 * benchmark cannot silently measure nothing.
 *
 * <p>One-sided round trips ({@link io.jrnic.bench.transport.RnicRoundTrip}, selected by
 * {@link io.jrnic.bench.transport.OneSidedOperation}) are {@code PingPong}s too: one request (RDMA
 * Read, atomic, Flush, Verify, Atomic Write) out and its response back, answered by the peer RNIC
 * without an application thread; the results and the target's final state are checked instead of
 * a message pattern.
 */
package io.jrnic.bench.transport;
