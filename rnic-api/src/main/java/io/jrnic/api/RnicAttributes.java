package io.jrnic.api;

import java.util.List;
import java.util.Set;

/**
 * Output of Query RNIC (Verbs 1.0 §9.2.1.2). Every maximum is a per-resource ceiling that the RNIC
 * never exceeds, not a promise that all maxima can be allocated at once (V-RNIC-3).
 *
 * @param vendorInfo            vendor specific information
 * @param maxQps                maximum number of QPs
 * @param maxQpWrs              maximum outstanding WRs on any SQ or RQ
 * @param maxSrqWrs             maximum outstanding WRs on any S-RQ (0 without S-RQ support)
 * @param maxSendSge            maximum SGEs per Send type WR, also per RQ and S-RQ WR
 * @param maxWriteSge           maximum SGEs per RDMA Write WR
 * @param maxInlineData         maximum inline data bytes per send WR (library extension)
 * @param maxCqs                maximum number of CQs
 * @param maxCqEntries          maximum entries per CQ
 * @param maxCompletionHandlers maximum number of Completion Event Handlers
 * @param maxMrs                maximum number of memory regions
 * @param maxPblEntries         maximum physical buffer entries (pages) per region
 * @param maxMrSize             maximum region length in bytes
 * @param maxPds                maximum number of protection domains
 * @param maxMws                maximum number of memory windows
 * @param rnicInboundReads      per-RNIC total inbound Read Requests (0: IRD is per QP, not shared)
 * @param rnicOutboundReads     per-RNIC total outbound Read Requests (0: ORD is per QP, not shared)
 * @param maxIrd                per-QP maximum IRD
 * @param maxOrd                per-QP maximum ORD
 * @param irdModifiable         whether IRD can be modified after QP creation
 * @param ordIncreasable        whether ORD can be increased after QP creation
 * @param wqResizable           whether SQ/RQ/S-RQ depths can be modified
 * @param blockListMode         true in Block List mode (never: only Page List mode is supported)
 * @param pageSizes             supported page sizes in Page List mode
 * @param srqSupported          S-RQ support
 * @param cqOverflowDetection   whether CQ overflow is detected and reported
 * @param maxSrqs               maximum number of S-RQs
 * @param srqArrivalOrder       S-RQ dequeuing model: true for arrival order, false for sequential
 * @param atomicsSupported      RFC 7306 atomic capability
 * @param extensions            supported protocol extensions
 */
public record RnicAttributes(
        String vendorInfo,
        int maxQps, int maxQpWrs, int maxSrqWrs, int maxSendSge, int maxWriteSge, int maxInlineData,
        int maxCqs, int maxCqEntries, int maxCompletionHandlers,
        int maxMrs, int maxPblEntries, long maxMrSize, int maxPds, int maxMws,
        int rnicInboundReads, int rnicOutboundReads, int maxIrd, int maxOrd,
        boolean irdModifiable, boolean ordIncreasable, boolean wqResizable,
        boolean blockListMode, List<Long> pageSizes,
        boolean srqSupported, boolean cqOverflowDetection, int maxSrqs, boolean srqArrivalOrder,
        boolean atomicsSupported, Set<RnicExtension> extensions) {
    /**
     * Copies the collections.
     *
     * @param vendorInfo            vendor specific information
     * @param maxQps                see the record description
     * @param maxQpWrs              see the record description
     * @param maxSrqWrs             see the record description
     * @param maxSendSge            see the record description
     * @param maxWriteSge           see the record description
     * @param maxInlineData         see the record description
     * @param maxCqs                see the record description
     * @param maxCqEntries          see the record description
     * @param maxCompletionHandlers see the record description
     * @param maxMrs                see the record description
     * @param maxPblEntries         see the record description
     * @param maxMrSize             see the record description
     * @param maxPds                see the record description
     * @param maxMws                see the record description
     * @param rnicInboundReads      see the record description
     * @param rnicOutboundReads     see the record description
     * @param maxIrd                see the record description
     * @param maxOrd                see the record description
     * @param irdModifiable         see the record description
     * @param ordIncreasable        see the record description
     * @param wqResizable           see the record description
     * @param blockListMode         see the record description
     * @param pageSizes             see the record description
     * @param srqSupported          see the record description
     * @param cqOverflowDetection   see the record description
     * @param maxSrqs               see the record description
     * @param srqArrivalOrder       see the record description
     * @param atomicsSupported      see the record description
     * @param extensions            see the record description
     */
    public RnicAttributes {
        pageSizes = List.copyOf(pageSizes);
        extensions = Set.copyOf(extensions);
    }
}
