/**
 * Probes of the machine, not of jrnic: what the benchmarks' ratios stand on.
 * {@link io.jrnic.bench.probe.CrossCoreCopy} shows whether copying between two cores is in its fast
 * or its slow state (docs/benchmarks.md, "Interleaved loopback runs").
 */
package io.jrnic.bench.probe;
