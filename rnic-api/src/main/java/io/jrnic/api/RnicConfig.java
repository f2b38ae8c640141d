package io.jrnic.api;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * Input of Open RNIC (Verbs 1.0 §9.2.1.1) plus the limits the software RNIC enforces. A mutable
 * fluent holder: set what differs from the defaults and pass it to the implementation's
 * {@code open}. It is read once at open; later changes have no effect on an open RNIC.
 *
 * <p>Thread safety: not thread safe; confine to the opening thread.
 */
public final class RnicConfig {
    private String name;
    private boolean blockListMode;
    private long pageSize = 4096;
    private int maxQps = 1024;
    private int maxQpWrs = 16384;
    private int maxSrqs = 256;
    private int maxSrqWrs = 16384;
    private int maxSendSge = 16;
    private int maxWriteSge = 16;
    private int maxInlineData = 256;
    private int maxCqs = 1024;
    private int maxCqEntries = 1 << 20;
    private int maxCompletionHandlers = 16;
    private int maxMrs = 65536;
    private int maxMws = 65536;
    private int maxPds = 1024;
    private int maxPblEntries = 1 << 20;
    private int maxIrd = 64;
    private int maxOrd = 64;
    private boolean privilegedConsumer = true;
    private MemorySegment physicalMemory = MemorySegment.NULL;
    private ResourceQuota pdQuota = ResourceQuota.UNLIMITED;
    private SrqFairShare srqFairShare = SrqFairShare.UNLIMITED;
    private final Set<RnicExtension> extensions = EnumSet.allOf(RnicExtension.class);
    private Path packetCapture;
    private IoMode ioMode = IoMode.EVENT_LOOP;
    private IoTransport ioTransport = IoTransport.AUTO;
    private Duration pollingTakeover = Duration.ofMillis(1);
    private Duration pollingSpin = Duration.ofNanos(50_000);
    private boolean callerTransmit = true;
    private int ioThreads = Math.min(4, Runtime.getRuntime().availableProcessors());

    /** Creates a configuration with the defaults. */
    public RnicConfig() {
    }

    /**
     * RNIC unique identifier (Verbs §9.2.1.1); one open RNIC per name per JVM. Unset (the
     * default, or {@code null}), the RNIC gets a unique name when it opens ({@link Rnic#name()}).
     *
     * @param name the name, or null for a unique one
     * @return this
     */
    public RnicConfig name(String name) {
        this.name = name;
        return this;
    }

    /**
     * The configured RNIC name.
     *
     * @return the name, null when unset
     */
    public String name() {
        return name;
    }

    /**
     * Requests Block List mode (optional in Verbs §5.1.2; not supported: Open fails).
     *
     * @param blockListMode true for Block List mode, false for Page List mode
     * @return this
     */
    public RnicConfig blockListMode(boolean blockListMode) {
        this.blockListMode = blockListMode;
        return this;
    }

    /**
     * Whether Block List mode is requested.
     *
     * @return the mode flag
     */
    public boolean blockListMode() {
        return blockListMode;
    }

    /**
     * Page size of the Page List mode used to count PBL entries (power of two).
     *
     * @param pageSize the page size
     * @return this
     */
    public RnicConfig pageSize(long pageSize) {
        this.pageSize = pageSize;
        return this;
    }

    /**
     * The page size.
     *
     * @return bytes per page
     */
    public long pageSize() {
        return pageSize;
    }

    /**
     * Sets the QP limits.
     *
     * @param maxQps   maximum QPs
     * @param maxQpWrs maximum outstanding WRs per SQ or RQ
     * @return this
     */
    public RnicConfig qpLimits(int maxQps, int maxQpWrs) {
        this.maxQps = maxQps;
        this.maxQpWrs = maxQpWrs;
        return this;
    }

    /**
     * Maximum QPs.
     *
     * @return the limit
     */
    public int maxQps() {
        return maxQps;
    }

    /**
     * Maximum WRs per SQ or RQ.
     *
     * @return the limit
     */
    public int maxQpWrs() {
        return maxQpWrs;
    }

    /**
     * Sets the S-RQ limits (0 S-RQs disables S-RQ support).
     *
     * @param maxSrqs   maximum S-RQs
     * @param maxSrqWrs maximum outstanding WRs per S-RQ
     * @return this
     */
    public RnicConfig srqLimits(int maxSrqs, int maxSrqWrs) {
        this.maxSrqs = maxSrqs;
        this.maxSrqWrs = maxSrqWrs;
        return this;
    }

    /**
     * Maximum S-RQs.
     *
     * @return the limit
     */
    public int maxSrqs() {
        return maxSrqs;
    }

    /**
     * Maximum WRs per S-RQ.
     *
     * @return the limit
     */
    public int maxSrqWrs() {
        return maxSrqWrs;
    }

    /**
     * Sets the SGE and inline limits.
     *
     * @param maxSendSge    SGEs per Send type, RQ and S-RQ WR (at least 4, Verbs §8.1.3.2)
     * @param maxWriteSge   SGEs per RDMA Write WR (at least 1)
     * @param maxInlineData inline bytes per send WR
     * @return this
     */
    public RnicConfig sgeLimits(int maxSendSge, int maxWriteSge, int maxInlineData) {
        this.maxSendSge = maxSendSge;
        this.maxWriteSge = maxWriteSge;
        this.maxInlineData = maxInlineData;
        return this;
    }

    /**
     * SGEs per Send type WR.
     *
     * @return the limit
     */
    public int maxSendSge() {
        return maxSendSge;
    }

    /**
     * SGEs per RDMA Write WR.
     *
     * @return the limit
     */
    public int maxWriteSge() {
        return maxWriteSge;
    }

    /**
     * Inline bytes per send WR.
     *
     * @return the limit
     */
    public int maxInlineData() {
        return maxInlineData;
    }

    /**
     * Sets the CQ limits.
     *
     * @param maxCqs                maximum CQs
     * @param maxCqEntries          maximum entries per CQ
     * @param maxCompletionHandlers maximum Completion Event Handlers (at least 1)
     * @return this
     */
    public RnicConfig cqLimits(int maxCqs, int maxCqEntries, int maxCompletionHandlers) {
        this.maxCqs = maxCqs;
        this.maxCqEntries = maxCqEntries;
        this.maxCompletionHandlers = maxCompletionHandlers;
        return this;
    }

    /**
     * Maximum CQs.
     *
     * @return the limit
     */
    public int maxCqs() {
        return maxCqs;
    }

    /**
     * Maximum entries per CQ.
     *
     * @return the limit
     */
    public int maxCqEntries() {
        return maxCqEntries;
    }

    /**
     * Maximum Completion Event Handlers.
     *
     * @return the limit
     */
    public int maxCompletionHandlers() {
        return maxCompletionHandlers;
    }

    /**
     * Sets the memory and PD limits.
     *
     * @param maxPds        maximum PDs
     * @param maxMrs        maximum memory regions
     * @param maxMws        maximum memory windows
     * @param maxPblEntries maximum pages per region (so max region size = pages * page size)
     * @return this
     */
    public RnicConfig memoryLimits(int maxPds, int maxMrs, int maxMws, int maxPblEntries) {
        this.maxPds = maxPds;
        this.maxMrs = maxMrs;
        this.maxMws = maxMws;
        this.maxPblEntries = maxPblEntries;
        return this;
    }

    /**
     * Maximum PDs.
     *
     * @return the limit
     */
    public int maxPds() {
        return maxPds;
    }

    /**
     * Maximum memory regions.
     *
     * @return the limit
     */
    public int maxMrs() {
        return maxMrs;
    }

    /**
     * Maximum memory windows.
     *
     * @return the limit
     */
    public int maxMws() {
        return maxMws;
    }

    /**
     * Maximum pages per region.
     *
     * @return the limit
     */
    public int maxPblEntries() {
        return maxPblEntries;
    }

    /**
     * Sets the per-QP IRD and ORD maxima (at least 1 each, Verbs §6.5).
     *
     * @param maxIrd maximum inbound RDMA Read depth per QP
     * @param maxOrd maximum outbound RDMA Read depth per QP
     * @return this
     */
    public RnicConfig readLimits(int maxIrd, int maxOrd) {
        this.maxIrd = maxIrd;
        this.maxOrd = maxOrd;
        return this;
    }

    /**
     * Per-QP maximum IRD.
     *
     * @return the limit
     */
    public int maxIrd() {
        return maxIrd;
    }

    /**
     * Per-QP maximum ORD.
     *
     * @return the limit
     */
    public int maxOrd() {
        return maxOrd;
    }

    /**
     * Whether the opener is a Privileged Consumer (Verbs §9.1): only then may QPs enable STag 0
     * and Fast-Register (V-VERB-CreateQP-3).
     *
     * @param privilegedConsumer the privilege
     * @return this
     */
    public RnicConfig privilegedConsumer(boolean privilegedConsumer) {
        this.privilegedConsumer = privilegedConsumer;
        return this;
    }

    /**
     * Whether the opener is privileged.
     *
     * @return the privilege
     */
    public boolean privilegedConsumer() {
        return privilegedConsumer;
    }

    /**
     * The "physical memory" that STag 0 exposes (Verbs §7.2.1): the TO of an STag 0 SGE is a native
     * address inside this segment. Default {@link MemorySegment#NULL}: STag 0 reaches no byte.
     *
     * @param physicalMemory a native segment
     * @return this
     */
    public RnicConfig physicalMemory(MemorySegment physicalMemory) {
        this.physicalMemory = physicalMemory;
        return this;
    }

    /**
     * The STag 0 address space.
     *
     * @return the segment
     */
    public MemorySegment physicalMemory() {
        return physicalMemory;
    }

    /**
     * The quota of every protection domain (RFC 5040 §8.1.2 item 6: no local consumer takes more
     * than its fair share). Default {@link ResourceQuota#UNLIMITED}: only the RNIC-wide maxima apply.
     *
     * @param pdQuota the per-PD quota
     * @return this
     */
    public RnicConfig pdQuota(ResourceQuota pdQuota) {
        this.pdQuota = java.util.Objects.requireNonNull(pdQuota, "pdQuota");
        return this;
    }

    /**
     * The per-PD quota.
     *
     * @return the quota
     */
    public ResourceQuota pdQuota() {
        return pdQuota;
    }

    /**
     * The fair-share policy every new S-RQ starts with (RFC 5040 §8.1.2 item 8); each S-RQ can
     * change its own with {@link SharedReceiveQueue#fairShare(SrqFairShare)}. Default
     * {@link SrqFairShare#UNLIMITED}: consumption is counted but never limited.
     *
     * @param srqFairShare the policy
     * @return this
     */
    public RnicConfig srqFairShare(SrqFairShare srqFairShare) {
        this.srqFairShare = java.util.Objects.requireNonNull(srqFairShare, "srqFairShare");
        return this;
    }

    /**
     * The initial fair-share policy of new S-RQs.
     *
     * @return the policy
     */
    public SrqFairShare srqFairShare() {
        return srqFairShare;
    }

    /**
     * Restricts the advertised protocol extensions.
     *
     * @param extensions the supported extensions
     * @return this
     */
    public RnicConfig extensions(Set<RnicExtension> extensions) {
        this.extensions.clear();
        this.extensions.addAll(extensions);
        return this;
    }

    /**
     * The advertised extensions.
     *
     * @return a copy
     */
    public Set<RnicExtension> extensions() {
        return extensions.isEmpty() ? EnumSet.noneOf(RnicExtension.class) : EnumSet.copyOf(extensions);
    }

    /**
     * Records the RNIC's iWARP traffic in a pcapng file that Wireshark and tshark decode as MPA, DDP
     * and RDMAP: every connection's stream bytes in both directions, as sent and received, with the
     * connection's addresses and ports in synthesized Ethernet/IP/TCP headers (one MPA frame or FPDU
     * per packet). The file is created (or truncated) when the RNIC makes its first connection or
     * listener, and is complete when the RNIC is closed. A debugging aid: capturing copies every byte.
     * A connection between two queue pairs of the same RNIC appears twice, once per end.
     *
     * @param file the pcapng file, or {@code null} for no capture (the default)
     * @return this
     */
    public RnicConfig packetCapture(Path file) {
        this.packetCapture = file;
        return this;
    }

    /**
     * The packet-capture file.
     *
     * @return the file, or {@code null} when traffic is not captured
     */
    public Path packetCapture() {
        return packetCapture;
    }

    /**
     * Chooses how the RNIC's connections make progress: on the RNIC's I/O threads
     * ({@link IoMode#EVENT_LOOP}, the default) or on the application's posting and polling threads
     * ({@link IoMode#POLLING}, the lowest latency for an application that busy-polls its CQs).
     *
     * @param ioMode the mode
     * @return this
     * @throws IllegalArgumentException if ioMode is null
     */
    public RnicConfig ioMode(IoMode ioMode) {
        if (ioMode == null) {
            throw new IllegalArgumentException("ioMode must not be null");
        }
        this.ioMode = ioMode;
        return this;
    }

    /**
     * How the RNIC's connections make progress.
     *
     * @return the mode; {@link IoMode#EVENT_LOOP} unless set
     */
    public IoMode ioMode() {
        return ioMode;
    }

    /**
     * In {@link IoMode#POLLING}: how long after an application thread last drove a connection (a
     * post, a CQ poll) the RNIC's I/O thread takes the connection over and serves its socket. It is
     * the longest a connection waits when nobody polls (a passive RDMA target, a peer's Read Request
     * to a QP whose CQ nobody polls); shorter values make the I/O thread look in more often on an
     * application that polls. Default 1 ms.
     *
     * @param pollingTakeover positive
     * @return this
     * @throws IllegalArgumentException if pollingTakeover is null, zero or negative
     */
    public RnicConfig pollingTakeover(Duration pollingTakeover) {
        if (pollingTakeover == null || pollingTakeover.isNegative() || pollingTakeover.isZero()) {
            throw new IllegalArgumentException("pollingTakeover must be positive: " + pollingTakeover);
        }
        this.pollingTakeover = pollingTakeover;
        return this;
    }

    /**
     * How long a connection in polling mode goes without an application thread's drive before the
     * RNIC's I/O thread serves it.
     *
     * @return the duration; 1 ms unless set
     */
    public Duration pollingTakeover() {
        return pollingTakeover;
    }

    /**
     * In {@link IoMode#POLLING}: how long the RNIC's I/O thread, once it has served a connection that
     * no application thread drove (a passive RDMA target, a responder to Reads whose CQ nobody
     * polls), keeps passing over its sockets without sleeping after the last work it found. A request
     * that follows within that time (the next Read of a peer in a ping-pong, the next Write of a
     * stream) then meets no wake-up of a sleeping thread; the cost is the I/O thread's CPU for that
     * long after every burst. The I/O thread stops spinning at once when an application thread drives
     * the connection again. Zero turns the spin off (the I/O thread sleeps as soon as the sockets
     * are idle). Default 50 us.
     *
     * @param pollingSpin zero or positive
     * @return this
     * @throws IllegalArgumentException if pollingSpin is null or negative
     */
    public RnicConfig pollingSpin(Duration pollingSpin) {
        if (pollingSpin == null || pollingSpin.isNegative()) {
            throw new IllegalArgumentException("pollingSpin must not be negative: " + pollingSpin);
        }
        this.pollingSpin = pollingSpin;
        return this;
    }

    /**
     * How long the I/O thread of a connection in polling mode keeps serving its sockets without
     * sleeping after the last work it found.
     *
     * @return the duration; 50 us unless set
     */
    public Duration pollingSpin() {
        return pollingSpin;
    }

    /**
     * In {@link IoMode#EVENT_LOOP}: whether a post whose connection's
     * I/O thread is idle (waiting on the sockets) frames and writes its FPDUs on the posting thread,
     * as Linux siw runs a post inside the system call, instead of handing them to that thread. The
     * I/O thread still reads, places and completes everything that arrives, and writes what a post
     * finds it busy with; no thread spins. What it saves is a wake-up of the I/O thread per post,
     * and on a machine with few cores a third busy thread in a stream (docs/benchmarks.md). The
     * cost: send completions, and the completion and asynchronous-event handlers they trigger, may
     * then run on the posting thread (as in {@link IoMode#POLLING}). With {@code false} every post
     * is handed to the I/O thread. Both socket kinds, NIO and epoll ({@link IoTransport}). Default
     * true.
     *
     * @param callerTransmit whether posts transmit on the posting thread when they can
     * @return this
     */
    public RnicConfig callerTransmit(boolean callerTransmit) {
        this.callerTransmit = callerTransmit;
        return this;
    }

    /**
     * Whether, in {@link IoMode#EVENT_LOOP}, a post transmits on the posting thread when the
     * connection's I/O thread is idle.
     *
     * @return true unless set
     */
    public boolean callerTransmit() {
        return callerTransmit;
    }

    /**
     * How many I/O threads (event loops) the RNIC's connections share: each connection is served
     * by one of them for its life, assigned in turn. In {@link IoMode#POLLING} they serve what no
     * application thread drives. Fewer threads than cores leave room for the application's
     * threads, and for a second RNIC on the same machine (docs/transport.md "Threading"). Default:
     * the number of available processors, at most 4.
     *
     * @param ioThreads at least 1
     * @return this
     * @throws IllegalArgumentException if ioThreads is less than 1
     */
    public RnicConfig ioThreads(int ioThreads) {
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads must be at least 1: " + ioThreads);
        }
        this.ioThreads = ioThreads;
        return this;
    }

    /**
     * How many I/O threads the RNIC's connections share.
     *
     * @return the count; the available processors, at most 4, unless set
     */
    public int ioThreads() {
        return ioThreads;
    }

    /**
     * Chooses the socket implementation: Linux's native epoll transport when available
     * ({@link IoTransport#AUTO}, the default), always the JDK's NIO, or always epoll.
     *
     * @param ioTransport the socket implementation
     * @return this
     * @throws IllegalArgumentException if ioTransport is null
     */
    public RnicConfig ioTransport(IoTransport ioTransport) {
        if (ioTransport == null) {
            throw new IllegalArgumentException("ioTransport must not be null");
        }
        this.ioTransport = ioTransport;
        return this;
    }

    /**
     * The socket implementation asked for.
     *
     * @return the choice; {@link IoTransport#AUTO} unless set
     */
    public IoTransport ioTransport() {
        return ioTransport;
    }
}
