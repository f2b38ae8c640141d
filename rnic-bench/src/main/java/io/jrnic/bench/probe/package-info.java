/**
 * Probes of the machine, not of jrnic: what the benchmarks' ratios stand on.
 * {@link io.jrnic.bench.probe.CrossCoreCopy} shows whether copying between two cores is in its fast
 * or its slow state (docs/benchmarks.md, "Interleaved loopback runs");
 * {@link io.jrnic.bench.probe.TcpWriteSizes} shows how loopback TCP's rate depends on the size of
 * the writes (why the packed baseline writes 32 KiB pieces).
 */
package io.jrnic.bench.probe;
