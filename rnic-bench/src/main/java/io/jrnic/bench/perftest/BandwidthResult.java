package io.jrnic.bench.perftest;

/**
 * One row of a bandwidth table.
 *
 * @param bytes          message size
 * @param iterations     messages moved
 * @param peakBytesPerS  BW peak: the best rate over one sampling stride of messages, bytes per second
 * @param avgBytesPerS   BW average: all bytes over the whole run, bytes per second
 * @param messagesPerS   MsgRate, messages per second
 */
public record BandwidthResult(int bytes, long iterations, double peakBytesPerS, double avgBytesPerS,
                              double messagesPerS) {

    /** perftest's MB: 2^20 bytes. */
    static final double MB = 1024.0 * 1024.0;

    /** {@return the average rate in Gb/s (10^9 bits per second): perftest's BW average with --report_gbits} */
    public double avgGbps() {
        return avgBytesPerS * 8 / 1e9;
    }

    /** {@return the peak rate in Gb/s (10^9 bits per second): perftest's BW peak with --report_gbits} */
    public double peakGbps() {
        return peakBytesPerS * 8 / 1e9;
    }

    /** {@return the message rate in Mpps (10^6 messages per second): perftest's MsgRate column} */
    public double mpps() {
        return messagesPerS / 1e6;
    }

    /** {@return the average rate in perftest's MB/s (2^20 bytes per second): its default BW average} */
    public double avgMBps() {
        return avgBytesPerS / MB;
    }

    /** {@return the peak rate in perftest's MB/s (2^20 bytes per second): its default BW peak} */
    public double peakMBps() {
        return peakBytesPerS / MB;
    }

    /**
     * The row of a run.
     *
     * @param bytes       message size
     * @param iterations  messages
     * @param elapsedNs   time of the whole run
     * @param bestStrideNs time of the fastest sampling stride (0: none, the peak is the average)
     * @param stride       messages per stride
     * @return the row
     */
    public static BandwidthResult of(int bytes, long iterations, long elapsedNs, long bestStrideNs, long stride) {
        double seconds = Math.max(elapsedNs, 1) / 1e9;
        double avg = (double) bytes * iterations / seconds;
        double peak = bestStrideNs > 0 ? (double) bytes * stride / (bestStrideNs / 1e9) : avg;
        return new BandwidthResult(bytes, iterations, Math.max(peak, avg), avg, iterations / seconds);
    }
}
