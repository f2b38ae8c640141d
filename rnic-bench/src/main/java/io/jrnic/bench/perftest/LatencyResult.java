package io.jrnic.bench.perftest;

import org.HdrHistogram.Histogram;

/**
 * One row of a latency table, in microseconds: perftest's columns, the percentiles taken from an
 * HdrHistogram of the samples.
 *
 * @param bytes      message size
 * @param iterations samples
 * @param minUs      t_min
 * @param maxUs      t_max
 * @param typicalUs  t_typical: the median
 * @param avgUs      t_avg
 * @param stdevUs    t_stdev
 * @param p99Us      99% percentile
 * @param p999Us     99.9% percentile
 */
public record LatencyResult(int bytes, long iterations, double minUs, double maxUs, double typicalUs, double avgUs,
                            double stdevUs, double p99Us, double p999Us) {

    /** Significant decimal digits the histograms keep (0.1% resolution). */
    public static final int SIGNIFICANT_DIGITS = 3;

    /**
     * {@return a new, empty histogram for nanosecond samples: auto-resizing (no upper bound to
     * configure), {@value #SIGNIFICANT_DIGITS} significant digits}
     */
    public static Histogram newHistogram() {
        Histogram h = new Histogram(SIGNIFICANT_DIGITS);
        return h;
    }

    /**
     * The row of a histogram of round-trip times in nanoseconds.
     *
     * @param bytes     message size
     * @param roundTrip the samples, nanoseconds per round trip
     * @param half      report half the round trip (perftest's Write and Send ping-pongs)
     * @return the row
     */
    public static LatencyResult of(int bytes, Histogram roundTrip, boolean half) {
        double scale = (half ? 0.5 : 1.0) / 1000.0;
        return new LatencyResult(bytes, roundTrip.getTotalCount(), roundTrip.getMinValue() * scale,
                roundTrip.getMaxValue() * scale, roundTrip.getValueAtPercentile(50) * scale, roundTrip.getMean() * scale,
                roundTrip.getStdDeviation() * scale, roundTrip.getValueAtPercentile(99) * scale,
                roundTrip.getValueAtPercentile(99.9) * scale);
    }
}
