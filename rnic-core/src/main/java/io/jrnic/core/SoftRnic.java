package io.jrnic.core;

import io.jrnic.api.AsyncEventHandler;
import io.jrnic.api.CompletionEventHandler;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.Counters;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicAttributes;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.internal.ApiAccess;
import io.jrnic.api.internal.CounterLayout;
import io.jrnic.core.cm.SoftConnectionManager;
import io.jrnic.core.engine.PersistenceExecutor;
import io.jrnic.core.engine.QpCounters;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.mem.MemoryManager;
import io.jrnic.core.mem.MemoryOwner;
import io.jrnic.core.mem.ProtectionDomainOwner;
import io.jrnic.core.mem.SoftMemoryRegion;
import io.jrnic.core.mem.SoftMemoryWindow;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.mem.StagEntry;
import io.jrnic.core.mem.StagTable;
import io.jrnic.core.qp.EventDispatcher;
import io.jrnic.core.qp.RnicResources;
import io.jrnic.core.qp.SoftCompletionQueue;
import io.jrnic.core.qp.SoftQueuePair;
import io.jrnic.core.qp.SoftSharedReceiveQueue;

import io.jrnic.core.transport.IwarpTransport;
import io.jrnic.core.transport.NativeViews;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The software RNIC: entry point {@link #open(RnicConfig)} and the RNIC, PD, CQ, S-RQ and QP
 * verbs (Verbs 1.0 §9.2). Tracks every resource so that {@link #close()} frees all of them
 * (V-RNIC-12). Memory it allocates comes from one shared {@link Arena} that it closes
 * deterministically on {@link #close()}: shared because the memory is touched by the posting
 * threads, the transport's event loops and the application alike.
 *
 * <p>Thread safety: thread safe. Resource creation and destruction synchronize on
 * {@link #resourceLock}; STag state on the memory manager's {@link MemoryManager#lock}; data path
 * objects have their own locks.
 */
public final class SoftRnic implements Rnic {
    private static final Map<String, SoftRnic> OPEN = new ConcurrentHashMap<>();
    /** Numbers the names of unnamed RNICs: jrnic0, jrnic1, ... (skipping names in use). */
    private static final AtomicInteger UNNAMED = new AtomicInteger();

    final Object resourceLock = new Object();
    final StagTable stags;
    final MemoryManager memory;
    final EventDispatcher events = new EventDispatcher(this, this::completionHandler);
    /** What the memory classes and the PDs ask of this RNIC (they own the interfaces, issue 10). */
    private final Owner owner = new Owner();

    private final RnicConfig config;
    private final Set<RnicExtension> extensions;
    private final MemorySegment physicalMemory;
    private final int stagCapacity;
    private final Arena arena = Arena.ofShared();
    private final AtomicInteger nextPdId = new AtomicInteger(1);
    private final AtomicInteger nextQpId = new AtomicInteger(1);
    private final Map<Integer, SoftProtectionDomain> pds = new ConcurrentHashMap<>();
    private final Map<Integer, SoftQueuePair> qps = new ConcurrentHashMap<>();
    /** Guards {@link #liveCounters} and {@link #retiredCounters}: a QP is counted in exactly one. */
    private final Object countersLock = new Object();
    /** The counters of the QPs not destroyed (an array, so that reading them allocates nothing). */
    private QpCounters[] liveCounters = new QpCounters[0];
    /** The sum of the counters of the destroyed QPs ({@link CounterLayout} slots). */
    private final long[] retiredCounters = new long[CounterLayout.LENGTH];
    private final List<SoftCompletionQueue> cqs = new ArrayList<>();
    private final List<SoftSharedReceiveQueue> srqs = new ArrayList<>();
    private final CompletionEventHandler[] completionHandlers;
    /** Owns the transports (event loops, sockets); creates them on first use (docs/connection-management.md). */
    private final SoftConnectionManager connections;
    /**
     * Runs the {@code force()} of RDMA Flushes to persistence off the event loops (threads created on
     * the first such Flush, closed with the RNIC; docs/engine.md "Flush to persistence off the loop").
     */
    final PersistenceExecutor persistence;
    /** What the Verbs objects and the connection manager get instead of the RNIC itself. */
    private final RnicResources resources;
    private volatile boolean open = true;
    /** Set by the first close(); later ones wait for {@link #closed}. */
    private final java.util.concurrent.atomic.AtomicBoolean closeStarted = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.CompletableFuture<Void> closed = new java.util.concurrent.CompletableFuture<>();
    /**
     * Engines whose QP generated a Terminate and whose link has not closed yet (destroyed QPs
     * included): Close RNIC lets their graceful close deliver it first (issue 9 item 2).
     */
    private final Set<QpEngine> terminateCloses = ConcurrentHashMap.newKeySet();

    private SoftRnic(RnicConfig config, String name) {
        this.config = snapshot(config).name(name);
        this.persistence = new PersistenceExecutor(this.config.name());
        this.extensions = config.extensions();
        this.physicalMemory = config.physicalMemory();
        this.stagCapacity = Math.min((1 << 24) - 1, config.maxMrs() + config.maxMws());
        this.stags = new StagTable(stagCapacity, physicalMemory);
        this.memory = new MemoryManager(owner, stags, config.pageSize(), config.maxPblEntries(), config.maxMrs(),
                config.maxMws(), this.config.pdQuota());
        this.completionHandlers = new CompletionEventHandler[config.maxCompletionHandlers()];
        this.resources = new RnicResources(this.config, extensions, events, stags, memory, persistence,
                new VerbsOwner());
        this.connections = new SoftConnectionManager(resources);
        // close() ends our connections before it frees the arena: plain socket views are safe
        NativeViews.trust(arena.scope());
    }

    private static RnicConfig snapshot(RnicConfig c) {
        return new RnicConfig().name(c.name()).blockListMode(c.blockListMode()).pageSize(c.pageSize())
                .qpLimits(c.maxQps(), c.maxQpWrs()).srqLimits(c.maxSrqs(), c.maxSrqWrs())
                .sgeLimits(c.maxSendSge(), c.maxWriteSge(), c.maxInlineData())
                .cqLimits(c.maxCqs(), c.maxCqEntries(), c.maxCompletionHandlers())
                .memoryLimits(c.maxPds(), c.maxMrs(), c.maxMws(), c.maxPblEntries())
                .readLimits(c.maxIrd(), c.maxOrd()).privilegedConsumer(c.privilegedConsumer())
                .physicalMemory(c.physicalMemory()).extensions(c.extensions())
                .pdQuota(c.pdQuota()).srqFairShare(c.srqFairShare()).packetCapture(c.packetCapture())
                .ioMode(c.ioMode()).ioTransport(c.ioTransport()).pollingTakeover(c.pollingTakeover())
                .pollingSpin(c.pollingSpin()).callerTransmit(c.callerTransmit()).ioThreads(c.ioThreads());
    }

    /**
     * Open RNIC (Verbs §5.1.2, §9.2.1.1): validates the configuration and initializes the RNIC in
     * Page List mode.
     *
     * An unnamed configuration gets a unique name ({@link #name()}).
     *
     * @param config the configuration (read once)
     * @return the open RNIC
     * @throws VerbsException INVALID_MODIFIER for a blank name or a bad limit, or for
     *                        {@link io.jrnic.api.IoTransport#EPOLL} where netty's native epoll
     *                        transport cannot be loaded (the message and the cause say why),
     *                        BLOCK_LIST_MODE_NOT_SUPPORTED, RNIC_IN_USE when an RNIC of that name is open
     */
    public static SoftRnic open(RnicConfig config) {
        java.util.Objects.requireNonNull(config, "config");
        if (config.name() != null && config.name().isBlank()) {
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "RNIC name must not be blank");
        }
        if (config.blockListMode()) {
            throw new VerbsException(VerbsStatus.BLOCK_LIST_MODE_NOT_SUPPORTED, "only Page List mode is supported");
        }
        long page = config.pageSize();
        if (page < 512 || Long.bitCount(page) != 1) {
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "page size must be a power of two >= 512: " + page);
        }
        if (config.maxQps() < 1 || config.maxQpWrs() < 1 || config.maxSrqs() < 0 || config.maxSrqWrs() < 0
                || config.maxSendSge() < 4 || config.maxWriteSge() < 1 || config.maxInlineData() < 0
                || config.maxCqs() < 1 || config.maxCqEntries() < 1 || config.maxCompletionHandlers() < 1
                || config.maxPds() < 1 || config.maxMrs() < 1 || config.maxMws() < 0 || config.maxPblEntries() < 1
                || config.maxIrd() < 1 || config.maxOrd() < 1 || config.physicalMemory() == null
                || config.maxMrs() + (long) config.maxMws() > (1 << 24) - 1
                || config.srqFairShare().window() > config.maxSrqWrs()) {
            // Verbs §8.1.3.2: >= 4 SGEs; §6.5: IRD and ORD >= 1 for every QP
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "invalid RNIC limits in " + config.name());
        }
        if (!MemoryManager.accessibleFromAnyThread(config.physicalMemory())) {
            // STag 0 memory is read and written by the event loops like any registered memory
            throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "physical memory (STag 0) must be accessible from"
                    + " any thread (a global, automatic or shared arena), not a confined arena's segment");
        }
        if (config.ioTransport() == io.jrnic.api.IoTransport.EPOLL) {
            // A configuration error surfaces at open, not at the first listen or connect
            // (docs/transport.md, "Socket kinds"); AUTO falls back to NIO instead.
            try {
                IwarpTransport.resolve(config.ioTransport());
            } catch (IllegalStateException e) {
                VerbsException refused = new VerbsException(VerbsStatus.INVALID_MODIFIER, e.getMessage());
                refused.initCause(e);
                throw refused;
            }
        }
        if (config.name() == null) {
            // V-RNIC-7 makes the name unique per open RNIC: the default must not collide with itself
            while (true) {
                String name = "jrnic" + UNNAMED.getAndIncrement();
                if (!OPEN.containsKey(name)) {
                    SoftRnic rnic = new SoftRnic(config, name);
                    if (OPEN.putIfAbsent(name, rnic) == null) {
                        return rnic;
                    }
                    rnic.arena.close(); // lost a race for the name with a named open: try the next
                }
            }
        }
        SoftRnic rnic = new SoftRnic(config, config.name());
        if (OPEN.putIfAbsent(config.name(), rnic) != null) {
            rnic.arena.close();
            throw new VerbsException(VerbsStatus.RNIC_IN_USE, "RNIC " + config.name() + " is already open (V-RNIC-7)");
        }
        return rnic;
    }

    @Override
    public String name() {
        return config.name();
    }

    /**
     * Whether this RNIC offers a protocol extension (RnicConfig.extensions): RFC 7306 atomics and
     * Immediate Data are posted, accepted and executed only when offered.
     */
    boolean offers(RnicExtension extension) {
        return extensions.contains(extension);
    }

    RnicConfig config() {
        return config;
    }

    long pageSize() {
        return config.pageSize();
    }

    int maxSrqWrs() {
        return config.maxSrqWrs();
    }

    void checkOpen() {
        if (!open) {
            throw new VerbsException(VerbsStatus.INVALID_RNIC_HANDLE, "RNIC " + config.name() + " is closed");
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public ConnectionManager connectionManager() {
        checkOpen();
        return connections;
    }

    @Override
    public RnicAttributes query() {
        checkOpen();
        RnicConfig c = config;
        return new RnicAttributes("jrnic soft-iWARP 0.1 (" + c.name() + ")",
                c.maxQps(), c.maxQpWrs(), c.maxSrqs() == 0 ? 0 : c.maxSrqWrs(), c.maxSendSge(), c.maxWriteSge(),
                extensions.contains(RnicExtension.INLINE_DATA) ? c.maxInlineData() : 0,
                c.maxCqs(), c.maxCqEntries(), c.maxCompletionHandlers(),
                c.maxMrs(), c.maxPblEntries(), memory.maxRegionSize(), c.maxPds(), c.maxMws(),
                0, 0, c.maxIrd(), c.maxOrd(), true, true, true, false, List.of(c.pageSize()),
                c.maxSrqs() > 0, true, c.maxSrqs(), true, extensions.contains(RnicExtension.ATOMICS), extensions);
    }

    @Override
    public ProtectionDomain allocatePd() {
        synchronized (resourceLock) {
            checkOpen();
            if (pds.size() >= config.maxPds()) {
                throw new VerbsException(VerbsStatus.INSUFFICIENT_RESOURCES, "PD limit " + config.maxPds() + " reached");
            }
            SoftProtectionDomain pd = new SoftProtectionDomain(memory, owner, nextPdId.getAndIncrement());
            pds.put(pd.id(), pd);
            return pd;
        }
    }

    void deallocatePd(SoftProtectionDomain pd) {
        synchronized (resourceLock) {
            pd.checkUsable();
            if (pd.users.get() > 0) {
                throw new VerbsException(VerbsStatus.PD_IN_USE, pd + " is used by " + pd.users.get()
                        + " QPs, S-RQs, regions or windows (V-PD-15)");
            }
            pd.closed = true;
            pds.remove(pd.id());
        }
    }

    @Override
    public int setCompletionEventHandler(int handlerId, CompletionEventHandler handler) {
        synchronized (resourceLock) {
            checkOpen();
            if (handlerId == 0) {
                if (handler == null) {
                    throw new VerbsException(VerbsStatus.INVALID_COMPLETION_HANDLER_ID,
                            "identifier 0 with no handler names nothing");
                }
                for (int i = 0; i < completionHandlers.length; i++) {
                    if (completionHandlers[i] == null) {
                        completionHandlers[i] = handler;
                        return i + 1;
                    }
                }
                throw new VerbsException(VerbsStatus.INSUFFICIENT_RESOURCES,
                        completionHandlers.length + " completion handlers already registered");
            }
            if (handlerId < 0 || handlerId > completionHandlers.length || completionHandlers[handlerId - 1] == null) {
                throw new VerbsException(VerbsStatus.INVALID_COMPLETION_HANDLER_ID, "unknown handler id " + handlerId);
            }
            completionHandlers[handlerId - 1] = handler; // null clears; CQs keep the id (V-WRP-54: then dropped)
            return handlerId;
        }
    }

    CompletionEventHandler completionHandler(int handlerId) {
        synchronized (resourceLock) {
            return handlerId < 1 || handlerId > completionHandlers.length ? null : completionHandlers[handlerId - 1];
        }
    }

    @Override
    public void setAsyncEventHandler(AsyncEventHandler handler) {
        checkOpen();
        events.asyncHandler(handler);
    }

    @Override
    public CompletionQueue createCq(int minEntries, int handlerId) {
        synchronized (resourceLock) {
            checkOpen();
            if (minEntries < 1 || minEntries > config.maxCqEntries()) {
                throw new VerbsException(VerbsStatus.CQ_DEPTH_EXCEEDS_CAPABILITY,
                        "CQ entries " + minEntries + " outside 1.." + config.maxCqEntries());
            }
            if (handlerId != 0 && (handlerId < 0 || handlerId > completionHandlers.length
                    || completionHandlers[handlerId - 1] == null)) {
                throw new VerbsException(VerbsStatus.INVALID_COMPLETION_HANDLER_ID, "unknown handler id " + handlerId);
            }
            if (cqs.size() >= config.maxCqs()) {
                throw new VerbsException(VerbsStatus.INSUFFICIENT_RESOURCES, "CQ limit " + config.maxCqs() + " reached");
            }
            SoftCompletionQueue cq = new SoftCompletionQueue(resources, minEntries, handlerId, config.maxCqEntries());
            cqs.add(cq);
            return cq;
        }
    }

    void destroyCq(SoftCompletionQueue cq) {
        synchronized (resourceLock) {
            checkOpen();
            if (cq.destroyed()) {
                throw new VerbsException(VerbsStatus.INVALID_CQ_HANDLE, "CQ already destroyed");
            }
            if (cq.associations.get() > 0) {
                throw new VerbsException(VerbsStatus.CQ_IN_USE, cq.associations.get()
                        + " work queues still use the CQ (V-CQ-25)");
            }
            cq.destroy();
            cqs.remove(cq);
        }
    }

    SharedReceiveQueue createSrq(SoftProtectionDomain pd, int maxWrs, int maxSge, int limit) {
        synchronized (resourceLock) {
            pd.checkUsable();
            if (srqs.size() >= config.maxSrqs()) {
                throw new VerbsException(VerbsStatus.INSUFFICIENT_RESOURCES, config.maxSrqs() == 0
                        ? "S-RQs are not supported by this RNIC" : "S-RQ limit " + config.maxSrqs() + " reached");
            }
            if (maxWrs < 1 || maxWrs > config.maxSrqWrs()) {
                throw new VerbsException(VerbsStatus.MAX_WRS_EXCEED_CAPABILITY, "S-RQ depth " + maxWrs
                        + " outside 1.." + config.maxSrqWrs());
            }
            if (maxSge < 1 || maxSge > config.maxSendSge()) {
                throw new VerbsException(VerbsStatus.MAX_SGES_EXCEED_CAPABILITY, "S-RQ SGEs " + maxSge
                        + " outside 1.." + config.maxSendSge());
            }
            if (limit < 0 || limit > maxWrs) {
                throw new VerbsException(VerbsStatus.SRQ_LIMIT_OUT_OF_RANGE, "S-RQ limit " + limit + " outside 0.."
                        + maxWrs + " (V-SRQ-41)");
            }
            pd.checkQuota(pd.srqs + 1L, config.pdQuota().maxSrqs(), "maxSrqs");
            SoftSharedReceiveQueue srq = new SoftSharedReceiveQueue(resources, pd, maxWrs, maxSge, limit,
                    config.srqFairShare());
            pd.srqs++;
            pd.users.incrementAndGet();
            srqs.add(srq);
            return srq;
        }
    }

    void destroySrq(SoftSharedReceiveQueue srq) {
        synchronized (resourceLock) {
            checkOpen();
            if (srq.destroyed()) {
                throw new VerbsException(VerbsStatus.INVALID_SRQ_HANDLE, "S-RQ already destroyed");
            }
            if (srq.attachedQps.get() > 0) {
                throw new VerbsException(VerbsStatus.SRQ_IN_USE, srq.attachedQps.get()
                        + " QPs still use the S-RQ (V-SRQ-11)");
            }
            srq.destroy();
            srq.pd.srqs--;
            srq.pd.users.decrementAndGet();
            srqs.remove(srq);
        }
    }

    private SoftCompletionQueue cqOf(CompletionQueue cq) {
        if (!(cq instanceof SoftCompletionQueue s) || !cqs.contains(s)) {
            throw new VerbsException(VerbsStatus.INVALID_CQ_HANDLE, "CQ " + cq + " is not a live CQ of this RNIC");
        }
        return s;
    }

    QueuePair createQp(SoftProtectionDomain pd, QueuePairConfig c) {
        java.util.Objects.requireNonNull(c, "queue pair config");
        synchronized (resourceLock) {
            pd.checkUsable();
            SoftCompletionQueue scq = cqOf(c.sendCq());
            SoftCompletionQueue rcq = cqOf(c.receiveCq());
            SoftSharedReceiveQueue srq = null;
            if (c.srq() != null) {
                if (!(c.srq() instanceof SoftSharedReceiveQueue s) || !srqs.contains(s)) {
                    throw new VerbsException(VerbsStatus.INVALID_SRQ_HANDLE, "S-RQ " + c.srq() + " is not live here");
                }
                srq = s;
            }
            if (c.sqDepth() < 1 || (srq == null && c.rqDepth() < 1) || c.maxSendSge() < 0 || c.maxWriteSge() < 0
                    || c.maxReceiveSge() < 0 || c.maxInlineData() < 0 || c.ird() < 0 || c.ord() < 0) {
                throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "QP attributes must be positive (V-QP-4)");
            }
            if (c.sqDepth() > config.maxQpWrs() || (srq == null && c.rqDepth() > config.maxQpWrs())) {
                throw new VerbsException(VerbsStatus.MAX_WRS_EXCEED_CAPABILITY, "queue depth above "
                        + config.maxQpWrs());
            }
            if (c.maxSendSge() > config.maxSendSge() || c.maxWriteSge() > config.maxWriteSge()
                    || (srq == null && c.maxReceiveSge() > config.maxSendSge())) {
                throw new VerbsException(VerbsStatus.MAX_SGES_EXCEED_CAPABILITY, "SGE limit above the RNIC's (V-WR-45)");
            }
            if (srq == null && c.maxReceiveSge() < 1) {
                throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "an RQ needs at least one SGE");
            }
            if (c.maxInlineData() > query().maxInlineData()) {
                throw new VerbsException(VerbsStatus.INVALID_MODIFIER, "inline size above " + query().maxInlineData());
            }
            if (c.ord() > config.maxOrd()) {
                throw new VerbsException(VerbsStatus.ORD_EXCEEDS_CAPABILITY, "ORD " + c.ord() + " > " + config.maxOrd());
            }
            if (c.ird() > config.maxIrd()) {
                throw new VerbsException(VerbsStatus.IRD_EXCEEDS_CAPABILITY, "IRD " + c.ird() + " > " + config.maxIrd());
            }
            if (c.privileged() && !config.privilegedConsumer()) {
                throw new VerbsException(VerbsStatus.INVALID_MODIFIER,
                        "STag 0 / Fast-Register need a Privileged Consumer (V-VERB-CreateQP-3)");
            }
            if (srq != null && (c.rqLimit() < 0 || c.rqLimit() > srq.query().maxWrs())) {
                throw new VerbsException(VerbsStatus.QP_RQ_LIMIT_OUT_OF_RANGE, "QP RQ Limit " + c.rqLimit());
            }
            if (qps.size() >= config.maxQps()) {
                throw new VerbsException(VerbsStatus.INSUFFICIENT_RESOURCES, "QP limit " + config.maxQps() + " reached");
            }
            pd.checkQuota(pd.qps + 1L, config.pdQuota().maxQps(), "maxQps");
            SoftQueuePair qp = new SoftQueuePair(resources, nextQpId.getAndIncrement(), pd, c);
            scq.associations.incrementAndGet();
            rcq.associations.incrementAndGet();
            if (srq != null) {
                srq.attachedQps.incrementAndGet();
            }
            pd.qps++;
            pd.users.incrementAndGet();
            qps.put(qp.id(), qp);
            counted(qp, true);
            return qp;
        }
    }

    void destroyQp(SoftQueuePair qp) {
        try {
            synchronized (resourceLock) {
                checkOpen();
                qp.destroy(false);
                release(qp);
            }
        } finally {
            events.drain();
        }
    }

    private void release(SoftQueuePair qp) {
        qp.sendCq.queuePairGone(qp);
        qp.receiveCq.queuePairGone(qp);
        qp.sendCq.associations.decrementAndGet();
        qp.receiveCq.associations.decrementAndGet();
        if (qp.srq != null) {
            qp.srq.attachedQps.decrementAndGet();
            qp.srq.detach(qp);
        }
        qp.pd().qps--;
        qp.pd().users.decrementAndGet();
        qps.remove(qp.id());
        counted(qp, false);
    }

    /**
     * Keeps the per-RNIC counters the sum over every QP ever created: a destroyed QP's counters are
     * added to {@link #retiredCounters} (docs/observability.md).
     */
    private void counted(SoftQueuePair qp, boolean created) {
        synchronized (countersLock) {
            if (created) {
                liveCounters = java.util.Arrays.copyOf(liveCounters, liveCounters.length + 1);
                liveCounters[liveCounters.length - 1] = qp.counters;
                return;
            }
            QpCounters[] live = liveCounters;
            for (int i = 0; i < live.length; i++) {
                if (live[i] == qp.counters) {
                    live[i].addTo(retiredCounters);
                    QpCounters[] rest = new QpCounters[live.length - 1];
                    System.arraycopy(live, 0, rest, 0, i);
                    System.arraycopy(live, i + 1, rest, i, rest.length - i);
                    liveCounters = rest;
                    return;
                }
            }
        }
    }

    @Override
    public Counters counters(Counters into) {
        long[] v = ApiAccess.get().counterValues(into);
        synchronized (countersLock) {
            System.arraycopy(retiredCounters, 0, v, 0, v.length);
            for (QpCounters c : liveCounters) {
                c.addTo(v);
            }
        }
        return into;
    }

    @Override
    public MemorySegment allocateMemory(long byteSize, long alignment) {
        synchronized (resourceLock) {
            checkOpen();
            return arena.allocate(byteSize, alignment);
        }
    }

    /**
     * Close RNIC (Verbs §5.1.4, §9.2.1.3): destroys every QP (ignoring bound windows), S-RQ, CQ,
     * STag and PD, frees the RNIC's memory and releases the name. The connection manager is closed
     * first, outside the RNIC's locks: its connections end, its event loops terminate, and so nothing
     * touches the RNIC's memory once it is freed. Before that, the connections of QPs that generated
     * a Terminate finish their graceful close, each within its closeTimeout (issue 9 item 2,
     * see awaitTerminateCloses).
     *
     * <p>On one of the RNIC's event loops (a callback closing the RNIC) the loops cannot be waited
     * for: the close runs on a new thread and this returns at once. Concurrent calls wait for the
     * first, so that none frees memory while the first still waits for the event loops.
     */
    @Override
    public void close() {
        if (!closeStarted.compareAndSet(false, true)) {
            if (!connections.onEventLoop()) {
                closed.join();
            }
            return;
        }
        if (connections.onEventLoop()) {
            Thread.ofPlatform().name("jrnic-close-" + config.name()).start(this::closeNow);
            return;
        }
        closeNow();
    }

    private void closeNow() {
        try {
            closeResources();
        } finally {
            closed.complete(null);
        }
    }

    private void closeResources() {
        awaitTerminateCloses();
        connections.close();
        persistence.close(); // after the loops ended: no Flush can start a force any more
        synchronized (resourceLock) {
            if (!open) {
                return;
            }
            for (SoftQueuePair qp : List.copyOf(qps.values())) {
                qp.destroy(true);
                release(qp);
            }
            synchronized (memory.lock) {
                for (StagEntry e : memory.liveEntries(stagCapacity)) {
                    if (e instanceof SoftMemoryWindow w) {
                        memory.deallocate(w);
                    }
                }
                for (StagEntry e : memory.liveEntries(stagCapacity)) {
                    SoftMemoryRegion r = (SoftMemoryRegion) e;
                    r.boundWindows = 0;
                    memory.deallocate(r);
                }
            }
            for (SoftSharedReceiveQueue srq : List.copyOf(srqs)) {
                srq.destroy();
            }
            srqs.clear();
            for (SoftCompletionQueue cq : cqs) {
                cq.destroy();
            }
            cqs.clear();
            for (SoftProtectionDomain pd : pds.values()) {
                pd.closed = true;
            }
            pds.clear();
            open = false;
            NativeViews.distrust(arena.scope());
            arena.close();
            OPEN.remove(config.name(), this);
        }
        events.drain(); // the connections' closed stages of the QPs destroyed above
    }

    /**
     * This RNIC as the memory classes and the PDs see it: a private class, so that implementing
     * their interfaces adds nothing to the public {@link SoftRnic}.
     */
    private final class Owner implements MemoryOwner, ProtectionDomainOwner {
        @Override
        public void checkOpen() {
            SoftRnic.this.checkOpen();
        }

        @Override
        public MemorySegment allocateMemory(long byteSize, long alignment) {
            return SoftRnic.this.allocateMemory(byteSize, alignment);
        }

        @Override
        public QueuePair createQueuePair(SoftProtectionDomain pd, QueuePairConfig config) {
            return createQp(pd, config);
        }

        @Override
        public SharedReceiveQueue createSharedReceiveQueue(SoftProtectionDomain pd, int maxWrs, int maxSge,
                                                           int limit) {
            return createSrq(pd, maxWrs, maxSge, limit);
        }

        @Override
        public void deallocate(SoftProtectionDomain pd) {
            deallocatePd(pd);
        }
    }

    /**
     * The engine's QP generated a Terminate: until its link closes, Close RNIC waits for it.
     *
     * @param engine the engine (any thread)
     */
    void terminateClosing(QpEngine engine) {
        terminateCloses.add(engine);
        if (engine.linkEnded()) {
            terminateCloses.remove(engine); // the link closed meanwhile: its onClosed may have missed the entry
        }
    }

    /**
     * The link of an engine that generated a Terminate has closed.
     *
     * @param engine the engine (on its loop)
     */
    void terminateClosed(QpEngine engine) {
        terminateCloses.remove(engine);
    }

    /**
     * A Terminate the RNIC generated reaches the peer before Close RNIC ends the connection (RFC
     * 5040 §6.2.1, R-TERM-034; issue 9 item 2). rping's server destroys the QP on the error
     * completion and closes the RNIC at once. The engine writes the Terminate in a task on the
     * link's event loop, and closing the transport right away loses that race whenever the loop is
     * still in its I/O pass (the read that failed the receive, on a cold JVM or a loaded machine):
     * a netty 4.2 loop that is shutting down closes all its channels after the I/O pass and before
     * it runs the tasks already queued ({@code SingleThreadIoEventLoop.run}: the I/O handler's
     * {@code prepareToDestroy} before {@code runAllTasks}), so the peer saw a FIN without the
     * Terminate. A later close of the channel would also cut the Terminate's graceful close: a
     * Terminate still in netty's queue (behind a slow reader) is dropped. So the graceful close
     * after each generated Terminate runs to its end first, with the loops still running: the
     * peer's FIN, or a reset when that connection's closeTimeout expires, which bounds the wait.
     */
    private void awaitTerminateCloses() {
        for (QpEngine engine : List.copyOf(terminateCloses)) {
            engine.awaitTerminateClose();
        }
    }

    /** Whether the calling thread is one of the RNIC's event loops (where nothing may block). */
    boolean onEventLoop() {
        return connections.onEventLoop();
    }

    /** Whether Close RNIC has started (a destroyed CQ then says so). */
    boolean closing() {
        return closeStarted.get();
    }

    /** The RNIC as its Verbs objects and connection manager see it (not public: Verbs calls only). */
    private final class VerbsOwner implements RnicResources.Owner {
        @Override
        public void checkOpen() {
            SoftRnic.this.checkOpen();
        }

        @Override
        public boolean closing() {
            return SoftRnic.this.closing();
        }

        @Override
        public boolean onEventLoop() {
            return SoftRnic.this.onEventLoop();
        }

        @Override
        public void destroyQp(SoftQueuePair qp) {
            SoftRnic.this.destroyQp(qp);
        }

        @Override
        public void destroyCq(SoftCompletionQueue cq) {
            SoftRnic.this.destroyCq(cq);
        }

        @Override
        public void destroySrq(SoftSharedReceiveQueue srq) {
            SoftRnic.this.destroySrq(srq);
        }

        @Override
        public void terminateClosing(QpEngine engine) {
            SoftRnic.this.terminateClosing(engine);
        }

        @Override
        public void terminateClosed(QpEngine engine) {
            SoftRnic.this.terminateClosed(engine);
        }
    }

    @Override
    public String toString() {
        return "SoftRnic[" + config.name() + (open ? "" : ", closed") + "]";
    }
}
