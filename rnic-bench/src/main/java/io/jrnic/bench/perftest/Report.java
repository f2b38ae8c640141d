package io.jrnic.bench.perftest;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Prints perftest's tables (same columns, our spacing) and the {@code --json} line
 * (docs/perftest.md, "JSON").
 *
 * <p>Thread safety: stateless.
 */
public final class Report {

    /** The rule perftest prints around its tables. */
    public static final String RULE = "-".repeat(87);

    /** Latency columns: perftest's names. */
    public static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
            + "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]";

    private Report() {
    }

    /** Bandwidth columns: perftest's names, MB/s or Gb/s. */
    public static String bwHeader(boolean gbits) {
        String unit = gbits ? "Gb/sec" : "MB/sec";
        return " #bytes     #iterations    BW peak[" + unit + "]    BW average[" + unit + "]   MsgRate[Mpps]";
    }

    /** One latency row; {@code label} (rnic, tcp) after the columns, or none if null. */
    public static String latRow(LatencyResult r, String label) {
        return String.format(Locale.ROOT, " %-7d %-11d %-14.2f %-14.2f %-16.2f %-14.2f %-15.2f %-22.2f %-23.2f%s",
                r.bytes(), r.iterations(), r.minUs(), r.maxUs(), r.typicalUs(), r.avgUs(), r.stdevUs(), r.p99Us(),
                r.p999Us(), label == null ? "" : " " + label).stripTrailing();
    }

    /** One bandwidth row. */
    public static String bwRow(BandwidthResult r, boolean gbits, String label) {
        double peak = gbits ? r.peakGbps() : r.peakMBps();
        double avg = gbits ? r.avgGbps() : r.avgMBps();
        return String.format(Locale.ROOT, " %-10d %-14d %-18.2f %-20.2f %-15.6f%s", r.bytes(), r.iterations(), peak, avg,
                r.mpps(), label == null ? "" : " " + label).stripTrailing();
    }

    /** The ratio line of a loopback latency pair (t_typical). */
    public static String latRatio(LatencyResult rnic, LatencyResult tcp) {
        return String.format(Locale.ROOT, " ratio rnic/tcp: t_typical %.2fx, 99%% %.2fx", ratio(rnic.typicalUs(), tcp.typicalUs()),
                ratio(rnic.p99Us(), tcp.p99Us()));
    }

    /** The ratio line of a loopback bandwidth pair (average). */
    public static String bwRatio(BandwidthResult rnic, BandwidthResult tcp) {
        return String.format(Locale.ROOT, " ratio rnic/tcp: BW average %.2fx", ratio(rnic.avgBytesPerS(), tcp.avgBytesPerS()));
    }

    static double ratio(double a, double b) {
        return b == 0 ? 0 : a / b;
    }

    /** The title line: perftest's "RDMA_Write BW Test" plus what jrnic ran. */
    public static String title(PerftestTest test, String how) {
        String op = switch (test.verb()) {
            case WRITE -> "RDMA_Write";
            case READ -> "RDMA_Read";
            case SEND -> "Send";
            case ATOMIC -> "Atomic FETCH_AND_ADD";
            case FLUSH -> "RDMA_Flush";
            case VERIFY -> "RDMA_Verify";
        };
        return "                    " + op + (test.latency() ? " Latency" : " BW") + " Test (" + how + ")";
    }

    /**
     * The JSON line of a latency test.
     *
     * @param tcp the raw-TCP row, or null when there is none (not loopback)
     */
    public static String latJson(PerftestTest test, String mode, boolean crc, LatencyResult rnic, LatencyResult tcp) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"test\": \"").append(test.jsonName()).append("\", \"bytes\": ").append(rnic.bytes())
                .append(", \"iterations\": ").append(rnic.iterations()).append(", \"mode\": \"").append(mode)
                .append("\", \"crc\": ").append(crc).append(", \"rnic\": ");
        latMember(b, rnic);
        if (tcp != null) {
            b.append(", \"tcp\": ");
            latMember(b, tcp);
            b.append(", \"ratio_p50\": ").append(num(ratio(rnic.typicalUs(), tcp.typicalUs())));
        }
        return b.append('}').toString();
    }

    private static void latMember(StringBuilder b, LatencyResult r) {
        b.append("{\"min_us\": ").append(num(r.minUs())).append(", \"p50_us\": ").append(num(r.typicalUs()))
                .append(", \"p99_us\": ").append(num(r.p99Us())).append(", \"p999_us\": ").append(num(r.p999Us()))
                .append(", \"avg_us\": ").append(num(r.avgUs())).append('}');
    }

    /**
     * The JSON line of a bandwidth test.
     *
     * @param tcp the raw-TCP row, or null when there is none (not loopback)
     */
    public static String bwJson(PerftestTest test, int qps, String mode, boolean crc, BandwidthResult rnic,
                                BandwidthResult tcp) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"test\": \"").append(test.jsonName()).append("\", \"bytes\": ").append(rnic.bytes())
                .append(", \"iterations\": ").append(rnic.iterations()).append(", \"qps\": ").append(qps)
                .append(", \"mode\": \"").append(mode).append("\", \"crc\": ").append(crc).append(", \"rnic\": ");
        bwMember(b, rnic);
        if (tcp != null) {
            b.append(", \"tcp\": ");
            bwMember(b, tcp);
            b.append(", \"ratio\": ").append(num(ratio(rnic.avgGbps(), tcp.avgGbps())));
        }
        return b.append('}').toString();
    }

    private static void bwMember(StringBuilder b, BandwidthResult r) {
        b.append("{\"gbps\": ").append(num(r.avgGbps())).append(", \"mpps\": ").append(num(r.mpps())).append('}');
    }

    /** A JSON number with up to 4 decimals (never NaN or infinite: those become 0). */
    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "0";
        }
        return String.format(Locale.ROOT, "%.4f", v);
    }

    /** Prints a table: rule, title, rule, header, rows, rule. */
    static void table(PrintStream out, String title, String header, Iterable<String> rows) {
        out.println(RULE);
        out.println(title);
        out.println(RULE);
        out.println(header);
        for (String row : rows) {
            out.println(row);
        }
        out.println(RULE);
    }
}
