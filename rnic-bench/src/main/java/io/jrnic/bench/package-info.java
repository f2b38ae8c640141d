/**
 * The command-line entry point of {@code rnic-bench.jar} ({@link io.jrnic.bench.Main}) and the
 * benchmark harness: {@link io.jrnic.bench.transport} holds the endpoint pairs under test (raw TCP
 * baselines today, the RNIC later), {@link io.jrnic.bench.jmh} the JMH benchmarks that drive them.
 * See docs/benchmarks.md for methodology and results.
 */
package io.jrnic.bench;
