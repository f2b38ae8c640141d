package io.jrnic.bench.perftest;

import io.jrnic.api.RnicAttributes;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.RnicExtension;
import io.jrnic.core.SoftRnic;
import java.io.PrintStream;
import java.util.Comparator;
import java.util.stream.Collectors;

/**
 * {@code devinfo [-v]}: the soft RNIC's attributes ({@code Rnic.query()}, the Verbs "Query RNIC")
 * in the layout of rdma-core's {@code ibv_devinfo}: the device and its one port, and with
 * {@code -v} every limit (QPs, CQs, MRs, IRD/ORD, atomics) and the extensions beyond RDMAP.
 *
 * <p>Thread safety: stateless.
 */
public final class DevInfo {

    private DevInfo() {
    }

    /**
     * Prints the attributes of a default-configured soft RNIC.
     *
     * @param args {@code -v} or nothing
     * @param out  the listing
     * @param err  usage errors
     * @return 0, or 2 for an unknown argument
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        boolean verbose = false;
        for (String a : args) {
            if (a.equals("-v") || a.equals("--verbose")) {
                verbose = true;
            } else if (a.equals("-d") || a.startsWith("--ib-dev") || a.equals("-i") || a.equals("-l")) {
                continue; // ibv_devinfo's device and port selectors: one device, one port
            } else if (!a.startsWith("-")) {
                continue; // the value of -d / -i
            } else {
                err.println("devinfo: unknown option " + a + "; usage: devinfo [-v]");
                return Perftest.EXIT_USAGE;
            }
        }
        try (SoftRnic rnic = SoftRnic.open(new RnicConfig().name("jrnic0"))) {
            print(rnic.query(), verbose, out);
        }
        return 0;
    }

    /** Prints {@code a} in ibv_devinfo's layout. */
    static void print(RnicAttributes a, boolean verbose, PrintStream out) {
        out.println("hca_id:\tjrnic0");
        out.println("\ttransport:\t\t\tiWARP (1)");
        out.println("\tfw_ver:\t\t\t\t0.1.0");
        out.println("\tvendor_info:\t\t\t" + a.vendorInfo());
        out.println("\tvendor_id:\t\t\t0x0000");
        out.println("\thw_ver:\t\t\t\t0x0");
        if (verbose) {
            long pageCap = a.pageSizes().stream().mapToLong(Long::longValue).reduce(0, (x, y) -> x | y);
            out.println("\tmax_mr_size:\t\t\t0x" + Long.toHexString(a.maxMrSize()));
            out.println("\tpage_size_cap:\t\t\t0x" + Long.toHexString(pageCap));
            out.println("\tmax_qp:\t\t\t\t" + a.maxQps());
            out.println("\tmax_qp_wr:\t\t\t" + a.maxQpWrs());
            out.println("\tmax_sge:\t\t\t" + a.maxSendSge());
            out.println("\tmax_sge_rd:\t\t\t" + a.maxWriteSge());
            out.println("\tmax_inline_data:\t\t" + a.maxInlineData());
            out.println("\tmax_cq:\t\t\t\t" + a.maxCqs());
            out.println("\tmax_cqe:\t\t\t" + a.maxCqEntries());
            out.println("\tmax_comp_handlers:\t\t" + a.maxCompletionHandlers());
            out.println("\tmax_mr:\t\t\t\t" + a.maxMrs());
            out.println("\tmax_pbl_entries:\t\t" + a.maxPblEntries());
            out.println("\tmax_pd:\t\t\t\t" + a.maxPds());
            out.println("\tmax_mw:\t\t\t\t" + a.maxMws());
            out.println("\tmax_qp_rd_atom:\t\t\t" + a.maxIrd());
            out.println("\tmax_qp_init_rd_atom:\t\t" + a.maxOrd());
            out.println("\tmax_res_rd_atom:\t\t" + a.rnicInboundReads());
            out.println("\tmax_init_rd_atom:\t\t" + a.rnicOutboundReads());
            out.println("\tird_modifiable:\t\t\t" + a.irdModifiable());
            out.println("\tord_increasable:\t\t" + a.ordIncreasable());
            out.println("\tatomic_cap:\t\t\t" + (a.atomicsSupported() ? "ATOMIC_HCA (1)" : "ATOMIC_NONE (0)"));
            out.println("\tmax_srq:\t\t\t" + a.maxSrqs());
            out.println("\tmax_srq_wr:\t\t\t" + a.maxSrqWrs());
            out.println("\tsrq_supported:\t\t\t" + a.srqSupported());
            out.println("\tcq_overflow_detection:\t\t" + a.cqOverflowDetection());
            out.println("\twq_resizable:\t\t\t" + a.wqResizable());
            out.println("\textensions:\t\t\t" + a.extensions().stream().sorted(Comparator.comparing(Enum::name))
                    .map(RnicExtension::name).collect(Collectors.joining(", ")));
        }
        out.println("\tphys_port_cnt:\t\t\t1");
        out.println("\t\tport:\t1");
        out.println("\t\t\tstate:\t\t\tPORT_ACTIVE (4)");
        out.println("\t\t\tmax_mtu:\t\t4096 (5)");
        out.println("\t\t\tactive_mtu:\t\t1024 (3)");
        out.println("\t\t\tsm_lid:\t\t\t0");
        out.println("\t\t\tport_lid:\t\t0");
        out.println("\t\t\tport_lmc:\t\t0x00");
        out.println("\t\t\tlink_layer:\t\tEthernet");
        out.println();
    }
}
