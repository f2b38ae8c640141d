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

    /** Row label of the RNIC in loopback. */
    public static final String RNIC = "rnic";
    /** Row label of the blocking raw-TCP baseline in loopback. */
    public static final String TCP = "tcp";
    /** Row label of the busy-polling raw-TCP ping-pong ({@code --baseline}, latency). */
    public static final String TCP_BUSY_POLL = "tcp-busy-poll";
    /** Row label of the packed raw-TCP stream ({@code --baseline}, bandwidth). */
    public static final String TCP_PACKED = "tcp-packed";

    private Report() {
    }

    /**
     * The bandwidth columns: perftest's names.
     *
     * @param gbits whether the rates are in Gb/s ({@code --report_gbits}), else perftest's MB/s
     * @return the header line
     */
    public static String bwHeader(boolean gbits) {
        String unit = gbits ? "Gb/sec" : "MB/sec";
        return " #bytes     #iterations    BW peak[" + unit + "]    BW average[" + unit + "]   MsgRate[Mpps]";
    }

    /**
     * One latency row, the times in microseconds with two decimals.
     *
     * @param r     the row
     * @param label printed after the columns ({@code rnic}, {@code tcp} in loopback), or null for none
     * @return the line, without trailing blanks
     */
    public static String latRow(LatencyResult r, String label) {
        return String.format(Locale.ROOT, " %-7d %-11d %-14.2f %-14.2f %-16.2f %-14.2f %-15.2f %-22.2f %-23.2f%s",
                r.bytes(), r.iterations(), r.minUs(), r.maxUs(), r.typicalUs(), r.avgUs(), r.stdevUs(), r.p99Us(),
                r.p999Us(), label == null ? "" : " " + label).stripTrailing();
    }

    /**
     * One bandwidth row: peak and average in the unit of the header, message rate in Mpps.
     *
     * @param r     the row
     * @param gbits whether the rates are in Gb/s, else perftest's MB/s (as in {@link #bwHeader})
     * @param label printed after the columns ({@code rnic}, {@code tcp} in loopback), or null for none
     * @return the line, without trailing blanks
     */
    public static String bwRow(BandwidthResult r, boolean gbits, String label) {
        double peak = gbits ? r.peakGbps() : r.peakMBps();
        double avg = gbits ? r.avgGbps() : r.avgMBps();
        return String.format(Locale.ROOT, " %-10d %-14d %-18.2f %-20.2f %-15.6f%s", r.bytes(), r.iterations(), peak, avg,
                r.mpps(), label == null ? "" : " " + label).stripTrailing();
    }

    /**
     * The ratio line of a loopback latency pair: rnic over tcp for t_typical and the 99% percentile.
     *
     * @param rnic the jrnic row
     * @param tcp  the raw-TCP row of the same size
     * @return the line; a ratio is 0 where the TCP time is 0
     */
    public static String latRatio(LatencyResult rnic, LatencyResult tcp) {
        return latRatio(rnic, tcp, TCP);
    }

    /**
     * The ratio line of the RNIC against a named raw-TCP row: rnic over it for t_typical and the 99%
     * percentile.
     *
     * @param rnic  the jrnic row
     * @param base  the raw-TCP row of the same size
     * @param label the raw-TCP row's label ({@link #TCP}, {@link #TCP_BUSY_POLL})
     * @return the line; a ratio is 0 where the TCP time is 0
     */
    public static String latRatio(LatencyResult rnic, LatencyResult base, String label) {
        return String.format(Locale.ROOT, " ratio rnic/%s: t_typical %.2fx, 99%% %.2fx", label,
                ratio(rnic.typicalUs(), base.typicalUs()), ratio(rnic.p99Us(), base.p99Us()));
    }

    /**
     * The ratio line of a loopback bandwidth pair: rnic over tcp for the BW average.
     *
     * @param rnic the jrnic row
     * @param tcp  the raw-TCP row of the same size
     * @return the line; the ratio is 0 where the TCP rate is 0
     */
    public static String bwRatio(BandwidthResult rnic, BandwidthResult tcp) {
        return bwRatio(rnic, tcp, TCP);
    }

    /**
     * The ratio line of the RNIC against a named raw-TCP row: rnic over it for the BW average (the
     * same as for the message rate: both rows move messages of the same size).
     *
     * @param rnic  the jrnic row
     * @param base  the raw-TCP row of the same size
     * @param label the raw-TCP row's label ({@link #TCP}, {@link #TCP_PACKED})
     * @return the line; the ratio is 0 where the TCP rate is 0
     */
    public static String bwRatio(BandwidthResult rnic, BandwidthResult base, String label) {
        return String.format(Locale.ROOT, " ratio rnic/%s: BW average %.2fx", label,
                ratio(rnic.avgBytesPerS(), base.avgBytesPerS()));
    }

    /**
     * The line of a loopback run's per-round ratios: each round of turns ({@code --slice-ms}) gives
     * one, the RNIC's slice over the baseline's (rate for bandwidth, median for latency); their
     * median and range show how much the machine moved during the run.
     *
     * @param sorted     the ratios, ascending
     * @param label      the baseline's label ({@link #TCP}, {@link #TCP_BUSY_POLL}, {@link #TCP_PACKED})
     * @param what       what the figures are ({@code "BW"}, {@code "t_typical"})
     * @param sliceMillis the slice length
     * @return the line, or null when there are fewer than two rounds (each part ran in one slice:
     *         one after the other, and the ratio line says it all)
     */
    public static String roundRatios(double[] sorted, String label, String what, int sliceMillis) {
        if (sorted == null || sorted.length < 2) {
            return null;
        }
        return String.format(Locale.ROOT, " rounds rnic/%s: %s median %.2fx, %.2f-%.2fx over %d rounds of %d ms", label, what,
                Turns.median(sorted), sorted[0], sorted[sorted.length - 1], sorted.length, sliceMillis);
    }

    /**
     * Appends a JSON member of per-round ratios: {@code "name": {"median": m, "min": a, "max": b,
     * "rounds": n}}, or nothing with fewer than two rounds.
     *
     * @param json   a JSON object's text, ending with its closing brace
     * @param name   the member's name
     * @param sorted the ratios, ascending, or null
     * @return the object with the member
     */
    public static String withRounds(String json, String name, double[] sorted) {
        if (sorted == null || sorted.length < 2) {
            return json;
        }
        return json.substring(0, json.length() - 1) + ", \"" + name + "\": {\"median\": " + num(Turns.median(sorted))
                + ", \"min\": " + num(sorted[0]) + ", \"max\": " + num(sorted[sorted.length - 1]) + ", \"rounds\": "
                + sorted.length + "}}";
    }

    static double ratio(double a, double b) {
        return b == 0 ? 0 : a / b;
    }

    /**
     * The title line: perftest's ("RDMA_Write BW Test", ...) plus what jrnic ran.
     *
     * @param test the test
     * @param how  what ran, in the parentheses after the title (loopback and its settings, or the
     *             role and the peer's perftest version)
     * @return the line, indented as perftest centres it
     */
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
     * The JSON line of a latency test: the times in microseconds, and the p50 ratio rnic/tcp when
     * there is a TCP row.
     *
     * @param test the test
     * @param mode the data path mode's {@linkplain PerftestOptions.Mode#label() label}
     * @param crc  whether MPA CRCs were asked for
     * @param rnic the jrnic row
     * @param tcp  the raw-TCP row, or null when there is none (not loopback)
     * @return one JSON object on one line
     */
    public static String latJson(PerftestTest test, String mode, boolean crc, LatencyResult rnic, LatencyResult tcp) {
        return latJson(test, mode, crc, rnic, tcp, null);
    }

    /**
     * The JSON line of a latency test with the {@code --baseline} floor: as
     * {@link #latJson(PerftestTest, String, boolean, LatencyResult, LatencyResult)}, then, when there
     * is a floor, {@code "tcp_busy_poll"} (same members as {@code "tcp"}) and
     * {@code "ratio_p50_busy_poll"} (rnic p50 / its p50).
     *
     * @param test  the test
     * @param mode  the data path mode's {@linkplain PerftestOptions.Mode#label() label}
     * @param crc   whether MPA CRCs were asked for
     * @param rnic  the jrnic row
     * @param tcp   the raw-TCP row, or null when there is none (not loopback)
     * @param floor the busy-polling raw-TCP row, or null without {@code --baseline}
     * @return one JSON object on one line
     */
    public static String latJson(PerftestTest test, String mode, boolean crc, LatencyResult rnic, LatencyResult tcp,
                                 LatencyResult floor) {
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
        if (floor != null) {
            b.append(", \"tcp_busy_poll\": ");
            latMember(b, floor);
            b.append(", \"ratio_p50_busy_poll\": ").append(num(ratio(rnic.typicalUs(), floor.typicalUs())));
        }
        return b.append('}').toString();
    }

    private static void latMember(StringBuilder b, LatencyResult r) {
        b.append("{\"min_us\": ").append(num(r.minUs())).append(", \"p50_us\": ").append(num(r.typicalUs()))
                .append(", \"p99_us\": ").append(num(r.p99Us())).append(", \"p999_us\": ").append(num(r.p999Us()))
                .append(", \"avg_us\": ").append(num(r.avgUs())).append('}');
    }

    /**
     * The JSON line of a bandwidth test: the average in Gb/s and the message rate in Mpps, and the
     * average's ratio rnic/tcp when there is a TCP row.
     *
     * @param test the test
     * @param qps  queue pairs the test ran
     * @param mode the data path mode's {@linkplain PerftestOptions.Mode#label() label}
     * @param crc  whether MPA CRCs were asked for
     * @param rnic the jrnic row
     * @param tcp  the raw-TCP row, or null when there is none (not loopback)
     * @return one JSON object on one line
     */
    public static String bwJson(PerftestTest test, int qps, String mode, boolean crc, BandwidthResult rnic,
                                BandwidthResult tcp) {
        return bwJson(test, qps, mode, crc, rnic, tcp, null);
    }

    /**
     * The JSON line of a bandwidth test with the {@code --baseline} floor: as
     * {@link #bwJson(PerftestTest, int, String, boolean, BandwidthResult, BandwidthResult)}, then,
     * when there is a floor, {@code "tcp_packed"} (same members as {@code "tcp"}) and
     * {@code "ratio_packed"} (rnic gbps / its gbps).
     *
     * @param test  the test
     * @param qps   queue pairs the test ran
     * @param mode  the data path mode's {@linkplain PerftestOptions.Mode#label() label}
     * @param crc   whether MPA CRCs were asked for
     * @param rnic  the jrnic row
     * @param tcp   the raw-TCP row, or null when there is none (not loopback)
     * @param floor the packed raw-TCP row, or null without {@code --baseline}
     * @return one JSON object on one line
     */
    public static String bwJson(PerftestTest test, int qps, String mode, boolean crc, BandwidthResult rnic,
                                BandwidthResult tcp, BandwidthResult floor) {
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
        if (floor != null) {
            b.append(", \"tcp_packed\": ");
            bwMember(b, floor);
            b.append(", \"ratio_packed\": ").append(num(ratio(rnic.avgGbps(), floor.avgGbps())));
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
