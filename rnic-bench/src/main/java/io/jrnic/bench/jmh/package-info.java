/**
 * JMH benchmarks over the endpoint pairs of {@link io.jrnic.bench.transport}:
 * {@link io.jrnic.bench.jmh.ThroughputBenchmark} (messages/s and payload bytes/s) and
 * {@link io.jrnic.bench.jmh.LatencyBenchmark} (round-trip time of an 8-byte ping-pong). Both take the
 * transport as a {@code @Param}, so a new transport joins every benchmark by adding an enum constant
 * to {@link io.jrnic.bench.transport.Transport}. {@link io.jrnic.bench.jmh.OneSidedLatencyBenchmark}
 * measures the RNIC's request/response operations (RDMA Read, atomics, Flush, Verify, Atomic Write)
 * against the same TCP ping-pong ({@link io.jrnic.bench.transport.OneSidedOperation}). Run them with
 * {@code java -jar rnic-bench/target/rnic-bench.jar jmh}.
 */
package io.jrnic.bench.jmh;
