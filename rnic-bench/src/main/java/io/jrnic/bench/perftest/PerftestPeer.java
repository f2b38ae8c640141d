package io.jrnic.bench.perftest;

import io.jrnic.api.AccessRights;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.IoMode;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.bench.transport.BusyWait;
import io.jrnic.core.SoftRnic;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * A perftest client or server that interoperates with Linux perftest over siw with rdma_cm
 * ({@code -R}), following perftest 4.5's (version string 6.06) exchange message for message
 * (docs/perftest.md, "The exchange"):
 *
 * <ol>
 *   <li>the comm connection: one RC connection, one 64-byte receive posted before connect/accept
 *       and reposted after each message, lock step ({@link PerftestWire});</li>
 *   <li>version, cycle buffer, cache line size, MTU; a zero {@code pingpong_dest} sync;</li>
 *   <li>the test connection to the same port (the client retries: perftest's server listens again
 *       only after that sync), then another zero sync;</li>
 *   <li>the destinations (STag and address of the buffer), exchanged three times as perftest does,
 *       and the test's own syncs, the test, the bandwidth reports, the closing sync.</li>
 * </ol>
 *
 * The test itself is perftest's: Writes, Reads or Sends into the peer's advertised buffer, with
 * perftest's receive credits for Send bandwidth on iWARP (the server RDMA-Writes its receive count,
 * a little-endian 32-bit word, into the client's credit word every {@code rx_depth / 3} receives,
 * because an iWARP Send without a posted receive is fatal), and perftest's Write ping-pong on the
 * last byte of the message (the server sends first).
 *
 * <p>Thread safety: one thread runs a peer.
 */
final class PerftestPeer {

    /** perftest's cycle buffer on Linux x86-64: the page size. */
    static final int CYCLE_BUFFER = 4096;
    /** perftest's cache line size on x86-64. */
    static final int CACHE_LINE = 64;
    /** The MTU we announce: IBV_MTU_1024 (siw on a 1500-byte Ethernet announces the same). */
    static final int IBV_MTU = 3;
    /** Outstanding Reads we ask for (perftest's out_reads): IRD and ORD of the test QP. */
    static final int OUT_READS = 16;
    /** perftest's receive depth of Send tests. */
    static final int RX_DEPTH_SEND = 512;
    /** Attempts of a client connect (perftest retries 10 times, 100 ms apart). */
    static final int CONNECT_ATTEMPTS = 10;
    /** Comm receive buffer: one {@code pingpong_dest} and more. */
    static final int COMM_BUFFER = 64;

    private static final int RIGHTS = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_READ
            | AccessRights.REMOTE_WRITE;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    // aligned: volatile access needs it (the credit word sits at offset 0 of a 64-byte aligned buffer)
    private static final VarHandle INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
    private static final long COMM_RECV_ID = 1;
    private static final long COMM_SEND_ID = 2;
    private static final long CREDIT_ID = -2;
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final PerftestTest test;
    private final PerftestOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean client;
    private final int rxDepth;
    /** How long a wait may see no progress before the run fails (not a bound on the whole run). */
    private final long waitNanos;
    /** Empty polls since the last yield ({@link #spin}). */
    private int idlePolls;
    private final ConnectionSettings settings;

    private SoftRnic rnic;
    private ProtectionDomain pd;
    // comm channel
    private CompletionQueue commCq;
    private QueuePair commQp;
    private MemorySegment commSend;
    private MemorySegment commRecv;
    private MemoryRegion commSendMr;
    private MemoryRegion commRecvMr;
    private byte[] pendingMessage;
    private boolean commSendDone;
    // test QPs (perftest -q): index 0 is the one of the latency tests; the aliases below name it
    private final int qpCount;
    private final int maxSize;
    private int inline;
    private CompletionQueue cq;
    private QueuePair[] qps;
    private MemorySegment[] bufs;
    private MemoryRegion[] mrs;
    private MemorySegment[] credits;
    private MemoryRegion[] creditMrs;
    private PerftestWire.Dest[] myDests;
    private PerftestWire.Dest[] remDests;
    private QueuePair qp;
    private MemorySegment buf;
    private MemoryRegion mr;
    private MemorySegment credit;
    private MemoryRegion creditMr;
    /** Data WRs posted with the inline flag (what {@code -I} maps onto; read by the tests). */
    private long inlinePosts;
    /** Post calls of data WRs, one per list ({@code -l}; read by the tests). */
    private long postCalls;
    /** {@code --mode polling}: the test thread's posts and CQ polls drive the connections. */
    private final boolean polling;
    private final SendWorkRequest wr = new SendWorkRequest(1);
    private final SendWorkRequest creditWr = new SendWorkRequest(1);
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest(1);
    private final WorkCompletion[] batch = new WorkCompletion[32];
    private final WorkCompletion one = new WorkCompletion();
    private PerftestWire.Dest myDest;
    private PerftestWire.Dest remDest;
    private int size;
    private String peerVersion = "";

    PerftestPeer(PerftestTest test, PerftestOptions options, PrintStream out, PrintStream err) {
        this.test = test;
        this.options = options;
        this.out = out;
        this.err = err;
        this.client = options.server() != null;
        this.size = options.size(test);
        this.qpCount = options.qps();
        // perftest -a: every size up to MAX_SIZE through buffers sized for the largest (perftest_parameters.c)
        this.maxSize = options.allSizes() ? LoopbackRun.MAX_ALL_SIZE : size;
        int iters = options.iterations(test);
        // perftest: rx_depth 512 for Send tests, capped by the iterations of an iteration-bounded run
        this.rxDepth = options.duration() > 0 ? RX_DEPTH_SEND : Math.min(RX_DEPTH_SEND, iters);
        this.polling = options.mode() == PerftestOptions.Mode.POLLING;
        this.waitNanos = TimeUnit.SECONDS.toNanos(Math.max(60, 3L * options.duration() + 60));
        this.settings = ConnectionSettings.linuxSiw()
                .crc(options.crc() ? CrcMode.OPTIONAL : CrcMode.OFF)
                .markers(options.markers(), options.markers())
                .firstFpduDelay(Duration.ofMillis(options.pauseMillis()))
                .setupTimeout(Duration.ofSeconds(options.setupTimeoutSeconds()));
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
    }

    /** The configuration of this peer's RNIC: {@code --mode} and {@code --polling-spin-us}. */
    RnicConfig rnicConfig() {
        RnicConfig config = new RnicConfig().name("perftest-" + NAMES.incrementAndGet()) // unique per JVM
                .ioMode(polling ? IoMode.POLLING : IoMode.EVENT_LOOP);
        if (options.pollingSpin() != null) {
            config.pollingSpin(options.pollingSpin());
        }
        return config;
    }

    /** Runs the client or the server; returns the exit code. */
    int run() throws IOException, InterruptedException {
        rnic = SoftRnic.open(rnicConfig());
        try {
            pd = rnic.allocatePd();
            createComm();
            createTest();
            return client ? runClient() : runServer();
        } finally {
            rnic.close();
        }
    }

    private void createComm() {
        commCq = rnic.createCq(16);
        commQp = pd.createQueuePair(new QueuePairConfig().cqs(commCq, commCq).depths(4, 2).readDepths(1, 1));
        commSend = rnic.allocateMemory(COMM_BUFFER, 64);
        commRecv = rnic.allocateMemory(COMM_BUFFER, 64);
        commSendMr = pd.registerMemory(commSend, RIGHTS);
        commRecvMr = pd.registerMemory(commRecv, RIGHTS);
        postCommReceive(); // before connect/accept, as perftest
    }

    private void createTest() {
        int tx = options.txDepth(test);
        int rq = test.verb() == PerftestTest.Verb.SEND ? rxDepth : 1;
        // -I: perftest posts a Send or Write inline when the message fits the inline size; the QP
        // gets that capacity (ibv_qp_init_attr.cap.max_inline_data), here capped by the RNIC's
        inline = 0;
        if (options.inlineSize() > 0 && test.verb() != PerftestTest.Verb.READ) {
            int max = rnic.query().maxInlineData();
            inline = Math.min(options.inlineSize(), max);
            if (inline < options.inlineSize()) {
                err.println(test.command() + ": -I " + options.inlineSize() + " above the RNIC's max inline data; "
                        + "using " + inline);
            }
        }
        // one CQ for all the test QPs, as perftest's send_cq
        cq = rnic.createCq(qpCount * (tx + 8 + rq) + 64);
        qps = new QueuePair[qpCount];
        bufs = new MemorySegment[qpCount];
        mrs = new MemoryRegion[qpCount];
        credits = new MemorySegment[qpCount];
        creditMrs = new MemoryRegion[qpCount];
        myDests = new PerftestWire.Dest[qpCount];
        remDests = new PerftestWire.Dest[qpCount];
        // perftest's buffer per QP: the local half, then the half the peer targets (BUFF_SIZE each)
        long half = half();
        for (int i = 0; i < qpCount; i++) {
            qps[i] = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(tx + 8, rq).sges(4, 4, 4, inline)
                    .readDepths(OUT_READS, OUT_READS));
            bufs[i] = rnic.allocateMemory(2 * half, 4096);
            mrs[i] = pd.registerMemory(bufs[i], RIGHTS);
            credits[i] = rnic.allocateMemory(64, 64);
            creditMrs[i] = pd.registerMemory(credits[i], RIGHTS);
            long vaddr = bufs[i].address() + half;
            int rkey = mrs[i].stag();
            if (test == PerftestTest.SEND_BW) {
                // perftest on iWARP advertises its credit word instead (ctx_alloc_credit)
                vaddr = credits[i].address();
                rkey = creditMrs[i].stag();
            }
            myDests[i] = new PerftestWire.Dest(0, test.verb() == PerftestTest.Verb.READ ? OUT_READS : 0, qps[i].id(),
                    ThreadLocalRandom.current().nextInt(1 << 24), rkey, vaddr, new byte[16], 0, 0);
        }
        qp = qps[0];
        buf = bufs[0];
        mr = mrs[0];
        credit = credits[0];
        creditMr = creditMrs[0];
        myDest = myDests[0];
    }

    /** perftest's BUFF_SIZE: the largest message (MAX_SIZE with -a) or the cycle buffer. */
    private long half() {
        return Math.max(maxSize, CYCLE_BUFFER);
    }

    /** Sets the inline flag of a Send or Write WR whose message fits {@code -I} (IBV_SEND_INLINE). */
    private SendWorkRequest inline(SendWorkRequest w) {
        if (inline > 0 && size <= inline) {
            w.inline(true);
        }
        return w;
    }

    /** Posts a data WR on {@code target}, counting those that went inline. */
    private void post(QueuePair target, SendWorkRequest w) {
        target.postSend(w);
        postCalls++;
        if (w.inline()) {
            inlinePosts++;
        }
    }

    /** The post calls that handed data WRs to the QPs so far, one per list (tests). */
    long postCalls() {
        return postCalls;
    }

    /** The data WRs posted inline so far (tests). */
    long inlinePosts() {
        return inlinePosts;
    }

    // ---------------------------------------------------------------- the exchange

    private int runClient() throws IOException, InterruptedException {
        InetSocketAddress server = new InetSocketAddress(options.server(), options.port());
        Connection comm = connectWithRetries(commQp, server, "comm");
        preamble();
        handshake(PerftestWire.Dest.zero());
        // rdma_cm_client_connection: one connection per test QP, to the same port
        Connection data = null;
        for (int i = 0; i < qpCount; i++) {
            Connection c = connectWithRetries(qps[i], server, "test");
            data = i == 0 ? c : data;
        }
        handshake(PerftestWire.Dest.zero());
        printConnection(comm, data);
        return testPhase();
    }

    private int runServer() throws IOException, InterruptedException {
        CompletableFuture<Connection> commAccepted = new CompletableFuture<>();
        List<CompletableFuture<Connection>> testAccepted = new ArrayList<>();
        for (int i = 0; i < qpCount; i++) {
            testAccepted.add(new CompletableFuture<>());
        }
        AtomicInteger requests = new AtomicInteger();
        ConnectionSettings serverSettings = settings.firstFpduDelay(Duration.ZERO);
        try (var listener = rnic.connectionManager().listen(new InetSocketAddress(options.port()), serverSettings,
                request -> {
                    // perftest's order: the comm connection first, then the test connections; the
                    // server numbers test QPs in arrival order (rdma_cm_connection_request_handler)
                    int n = requests.getAndIncrement();
                    if (n == 0) {
                        accept(request, commQp, commAccepted);
                    } else if (n <= qpCount) {
                        accept(request, qps[n - 1], testAccepted.get(n - 1));
                    } else {
                        request.reject(null);
                    }
                })) {
            out.println(Report.RULE);
            out.println(" Waiting for client to connect... (" + listener.localAddress() + ")");
            out.flush();
            Connection comm = await(commAccepted, "comm connection", TimeUnit.DAYS.toNanos(1));
            preamble();
            handshake(PerftestWire.Dest.zero());
            Connection data = await(testAccepted.get(0), "test connection", waitNanos);
            for (int i = 1; i < qpCount; i++) {
                await(testAccepted.get(i), "test connection " + i, waitNanos);
            }
            handshake(PerftestWire.Dest.zero());
            printConnection(comm, data);
            return testPhase();
        }
    }

    private static void accept(ConnectionRequest request, QueuePair target, CompletableFuture<Connection> result) {
        request.accept(target, null).whenComplete((c, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(c);
            }
        });
    }

    private Connection connectWithRetries(QueuePair target, InetSocketAddress server, String what)
            throws IOException, InterruptedException {
        IOException last = null;
        for (int attempt = 0; attempt < CONNECT_ATTEMPTS; attempt++) {
            try {
                return await(rnic.connectionManager().connect(target, server, settings, null).toCompletableFuture(),
                        what + " connection", TimeUnit.SECONDS.toNanos(options.setupTimeoutSeconds() + 5L));
            } catch (IOException e) {
                last = e;
                if (target.state() != io.jrnic.api.QpState.IDLE) {
                    break; // a QP that left Idle cannot connect again
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // perftest's retry pause
            }
        }
        throw new IOException("could not connect the " + what + " connection to " + server + ": "
                + (last == null ? "" : last.getMessage()), last);
    }

    private static Connection await(CompletableFuture<Connection> f, String what, long nanos) throws IOException,
            InterruptedException {
        try {
            return f.get(nanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IOException(what + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(what + ": none within " + TimeUnit.NANOSECONDS.toSeconds(nanos) + " s", e);
        }
    }

    /** Version, cycle buffer, cache line, MTU (exchange_versions, check_sys_data, check_mtu). */
    private void preamble() throws IOException {
        byte[] version = exchange(PerftestWire.encodeVersion(PerftestWire.VERSION));
        peerVersion = PerftestWire.decodeVersion(version);
        if (PerftestWire.versionNumber(peerVersion) < PerftestWire.MIN_PEER_VERSION) {
            throw new IOException("peer perftest version '" + peerVersion + "' is older than 5.70");
        }
        exchange(PerftestWire.encodeInt(CYCLE_BUFFER));
        exchange(PerftestWire.encodeInt(CACHE_LINE));
        exchange(PerftestWire.encodeMtu(IBV_MTU));
    }

    private void handshake(PerftestWire.Dest mine) throws IOException {
        remDest = PerftestWire.decodeDest(exchange(PerftestWire.encodeDest(mine)));
    }

    private void handshake() throws IOException {
        handshake(myDest);
        remDests[0] = remDest;
    }

    /** ctx_hand_shake of QP {@code i}'s destinations (perftest loops over the QPs twice). */
    private void handshake(int i) throws IOException {
        handshake(myDests[i]);
        remDests[i] = remDest;
        remDest = remDests[0];
    }

    /** One destination handshake per QP, in order. */
    private void handshakeEach() throws IOException {
        for (int i = 0; i < qpCount; i++) {
            handshake(i);
        }
    }

    /** One lock-step exchange: the client sends first, the server receives first. */
    private byte[] exchange(byte[] mine) throws IOException {
        if (client) {
            commSend(mine);
            return commReceive();
        }
        byte[] theirs = commReceive();
        commSend(mine);
        return theirs;
    }

    private void postCommReceive() {
        rr.reset().wrId(COMM_RECV_ID).sge(commRecvMr.stag(), commRecv.address(), COMM_BUFFER);
        commQp.postReceive(rr);
    }

    private void commSend(byte[] message) throws IOException {
        MemorySegment.copy(message, 0, commSend, ValueLayout.JAVA_BYTE, 0, message.length);
        SendWorkRequest send = new SendWorkRequest(1);
        send.wrId(COMM_SEND_ID).opcode(Opcode.SEND).signaled(true).sge(commSendMr.stag(), commSend.address(), message.length);
        commSendDone = false;
        commQp.postSend(send);
        long deadline = System.nanoTime() + waitNanos;
        while (!commSendDone) {
            if (!pollComm()) {
                idle(deadline, "the comm Send's completion");
            }
        }
    }

    private byte[] commReceive() throws IOException {
        long deadline = System.nanoTime() + waitNanos;
        while (pendingMessage == null) {
            if (!pollComm()) {
                idle(deadline, "the peer's next perftest message");
            }
        }
        byte[] m = pendingMessage;
        pendingMessage = null;
        return m;
    }

    /** One poll of the comm CQ: stashes a received message and reposts the receive. */
    private boolean pollComm() throws IOException {
        if (!commCq.poll(one)) {
            return false;
        }
        if (one.status() != WorkCompletionStatus.SUCCESS) {
            throw new IOException("comm connection failed: " + one);
        }
        if (one.wrId() == COMM_SEND_ID) {
            commSendDone = true;
        } else {
            byte[] m = new byte[one.byteLength()];
            MemorySegment.copy(commRecv, ValueLayout.JAVA_BYTE, 0, m, 0, m.length);
            if (pendingMessage != null) {
                throw new IOException("perftest peer sent two messages without waiting for an answer");
            }
            pendingMessage = m;
            postCommReceive();
        }
        return true;
    }

    private static void idle(long deadline, String what) throws IOException {
        if (System.nanoTime() - deadline > 0) {
            throw new IOException("nothing from the peer while waiting for " + what);
        }
        LockSupport.parkNanos(20_000); // control messages: no need to burn a core
    }

    private void printConnection(Connection comm, Connection data) {
        out.println(Report.RULE);
        out.println(Report.title(test, (client ? "client" : "server") + ", peer perftest " + peerVersion));
        out.println(" Connection type : RC (iWARP, MPA rev " + data.parameters().revision() + ", CRC "
                + (data.parameters().crc() ? "on" : "off") + ", IRD " + data.parameters().ird() + " ORD "
                + data.parameters().ord() + ")   comm " + comm.remoteAddress());
        out.println(" Mtu             : 1024[B]   Message size: " + (options.allSizes() ? "2..8388608 (-a)" : size)
                + "   QPs: " + qpCount + "   Max inline data: " + inline + "[B]");
        out.println(Report.RULE);
        for (PerftestWire.Dest d : myDests) {
            out.println(" local address: " + d.describe());
        }
    }

    // ---------------------------------------------------------------- the tests

    private int testPhase() throws IOException {
        switch (test) {
            case WRITE_BW, READ_BW -> {
                handshakeEach();
                handshakeEach();
                printRemotes();
                handshake(); // after RTR
                out.println(Report.RULE);
                out.println(Report.bwHeader(options.reportGbits()));
                BandwidthResult mine = null;
                if (client) {
                    // -a: sizes 2..2^23 back to back with no sync between them (write_bw.c, read_bw.c
                    // RUN_ALL when not duplex); the report exchanged is the last size's
                    for (int s : sizes()) {
                        size = s;
                        mine = writeOrReadBw(test == PerftestTest.WRITE_BW ? Opcode.RDMA_WRITE : Opcode.RDMA_READ);
                        out.println(Report.bwRow(mine, options.reportGbits(), null));
                        out.flush();
                    }
                }
                handshake();
                BandwidthResult theirs = exchangeReports(mine);
                if (!client) {
                    out.println(Report.bwRow(theirs, options.reportGbits(), null));
                }
                handshake(); // ctx_close_connection
                out.println(Report.RULE);
                json(mine != null ? mine : theirs, null);
            }
            case WRITE_LAT -> {
                handshake();
                handshake();
                handshake();
                out.println(" remote address: " + remDest.describe());
                handshake(); // after RTR
                LatencyResult r = writeLat();
                latTable(r);
            }
            case READ_LAT -> {
                handshake();
                handshake();
                handshake();
                out.println(" remote address: " + remDest.describe());
                handshake(); // after RTR
                if (client) {
                    LatencyResult r = readLat();
                    handshake();
                    latTable(r);
                } else {
                    handshake(); // the client's close after its Reads
                    out.println(Report.RULE);
                }
            }
            case SEND_LAT -> {
                handshake();
                handshake();
                handshake();
                out.println(" remote address: " + remDest.describe());
                postReceives(Math.min(rxDepth, 8));
                handshake();
                LatencyResult r = sendLat();
                handshake();
                latTable(r);
            }
            case SEND_BW -> {
                handshakeEach(); // these destinations carry the credit words (ctx_set_credit_wqes)
                handshake();
                handshakeEach();
                printRemotes();
                if (!client) {
                    for (int i = 0; i < qpCount; i++) {
                        postReceives(i, rxDepth);
                    }
                }
                handshake();
                out.println(Report.RULE);
                out.println(Report.bwHeader(options.reportGbits()));
                BandwidthResult r = client ? sendBwClient() : sendBwServer();
                out.println(Report.bwRow(r, options.reportGbits(), null));
                handshake(); // ctx_close_connection (the server's loop ended on the client's message)
                out.println(Report.RULE);
                json(r, null);
            }
            default -> throw new IllegalStateException("no perftest protocol for " + test);
        }
        out.flush();
        return 0;
    }

    private void printRemotes() {
        for (int i = 0; i < qpCount; i++) {
            out.println(" remote address: " + remDests[i].describe());
        }
    }

    /** The sizes of a client run: {@code -a}'s 2..2^23 or the one size. */
    private List<Integer> sizes() {
        return Perftest.sizes(test, options);
    }

    private void latTable(LatencyResult r) {
        out.println(Report.RULE);
        out.println(Report.LAT_HEADER);
        out.println(Report.latRow(r, null));
        out.println(Report.RULE);
        json(null, r);
    }

    private void json(BandwidthResult bw, LatencyResult lat) {
        if (!options.json()) {
            return;
        }
        if (bw != null) {
            out.println(Report.bwJson(test, options.qps(), options.mode().label(), options.crc(), bw, null));
        } else if (lat != null) {
            out.println(Report.latJson(test, options.mode().label(), options.crc(), lat, null));
        }
    }

    /** xchg_bw_reports: size, iterations, peak, average (MB/s), message rate (Mpps); the peer's back. */
    private BandwidthResult exchangeReports(BandwidthResult mine) throws IOException {
        BandwidthResult m = mine != null ? mine : new BandwidthResult(size, 0, 0, 0, 0);
        long theirSize = PerftestWire.decodeLong(exchange(PerftestWire.encodeLong(m.bytes())));
        long theirIters = PerftestWire.decodeLong(exchange(PerftestWire.encodeLong(m.iterations())));
        double peak = PerftestWire.decodeDouble(exchange(PerftestWire.encodeDouble(m.peakMBps())));
        double avg = PerftestWire.decodeDouble(exchange(PerftestWire.encodeDouble(m.avgMBps())));
        double rate = PerftestWire.decodeDouble(exchange(PerftestWire.encodeDouble(m.mpps())));
        return new BandwidthResult((int) theirSize, theirIters, peak * BandwidthResult.MB, avg * BandwidthResult.MB,
                rate * 1e6);
    }

    private boolean running(long done, long end) {
        return options.duration() > 0 ? System.nanoTime() - end < 0 : done < options.iterations(test);
    }

    private long endTime() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(options.duration());
    }

    /**
     * Client Write or Read bandwidth: a window of {@code -t} signaled operations per QP on that QP's
     * peer buffer, the QPs served in turn (run_iter_bw); with {@code -n} every QP runs n iterations.
     * For Reads the window is the send queue's too, as in perftest: the RNIC keeps ORD
     * ({@value #OUT_READS}) of them on the wire and holds the rest in the send queue (V-IRD-9).
     */
    private BandwidthResult writeOrReadBw(Opcode opcode) throws IOException {
        return bandwidth(options.txDepth(test), (w, i, id) -> inline(w.reset().wrId(id).opcode(opcode).signaled(true)
                .remote(remDests[i].rkey(), remDests[i].vaddr()).sge(mrs[i].stag(), bufs[i].address(), size)), false);
    }

    /** Client Send bandwidth with perftest's iWARP receive credits, one credit word per QP. */
    private BandwidthResult sendBwClient() throws IOException {
        return bandwidth(options.txDepth(test), (w, i, id) -> inline(w.reset().wrId(id).opcode(Opcode.SEND).signaled(true)
                .sge(mrs[i].stag(), bufs[i].address(), size)), true);
    }

    /** Builds the next data WR of QP {@code qp} into {@code w}. */
    @FunctionalInterface
    private interface WrBuilder {
        SendWorkRequest build(SendWorkRequest w, int qp, long wrId);
    }

    /** Posts {@code count} staged WRs on {@code target}: one post call, a list when more than one ({@code -l}). */
    private void postStaged(QueuePair target, SendWorkRequest[] staged, int count) {
        if (count == 1) {
            post(target, staged[0]);
            return;
        }
        int took = target.postSend(staged, 0, count);
        postCalls++;
        if (took != count) {
            throw new IllegalStateException("a post list of " + count + " took only " + took);
        }
        if (staged[0].inline()) {
            inlinePosts += count;
        }
    }

    /**
     * perftest's run_iter_bw: post on each QP in turn while its window (and, for Sends, its
     * receive credits: perftest stops while posted + 1 - credit >= rx_depth) allows, then poll the
     * shared CQ; a completion's wrId names its QP. With {@code -l n} the WRs go to the QP n at a time
     * in one post call (perftest's post_list), the last list of a turn shorter.
     */
    private BandwidthResult bandwidth(int window, WrBuilder builder, boolean useCredits) throws IOException {
        SendWorkRequest[] staged = new SendWorkRequest[options.postList()];
        staged[0] = wr;
        for (int k = 1; k < staged.length; k++) {
            staged[k] = new SendWorkRequest(1);
        }
        long[] posted = new long[qpCount];
        long[] completed = new long[qpCount];
        long iters = options.iterations(test);
        boolean timed = options.duration() > 0;
        long total = 0;
        long stride = 256;
        long best = 0;
        long start = System.nanoTime();
        long end = endTime();
        long strideStart = start;
        long deadline = start + waitNanos;
        try (Progress progress = Progress.start(err, test.command())) {
            boolean more = true;
            while (more) {
                more = false;
                boolean progressed = false;
                boolean inTime = !timed || System.nanoTime() - end < 0;
                for (int i = 0; i < qpCount; i++) {
                    int count = 0;
                    while (inTime && (timed || posted[i] < iters) && posted[i] - completed[i] < window
                            && !(useCredits && Integer.toUnsignedLong((int) posted[i] + 1
                                    - (int) INT_LE.getVolatile(credits[i], 0L)) >= rxDepth)) {
                        builder.build(staged[count++], i, i);
                        if (count == staged.length) {
                            postStaged(qps[i], staged, count);
                            count = 0;
                        }
                        posted[i]++;
                        total++;
                        progressed = true;
                        progress.tick();
                        if (total % stride == 0) {
                            long now = System.nanoTime();
                            best = best == 0 ? now - strideStart : Math.min(best, now - strideStart);
                            strideStart = now;
                        }
                    }
                    if (count > 0) {
                        postStaged(qps[i], staged, count);
                    }
                    more |= inTime && (timed || posted[i] < iters);
                }
                int n = pollTest(completed);
                if (n == 0 && !progressed) {
                    spin(deadline, useCredits ? "completions and receive credits" : "completions");
                } else {
                    deadline = System.nanoTime() + waitNanos; // the bound is on a stall, not on the run
                }
            }
            deadline = System.nanoTime() + waitNanos;
            for (int i = 0; i < qpCount; i++) {
                while (completed[i] < posted[i]) {
                    if (pollTest(completed) == 0) {
                        spin(deadline, "the last completions");
                    }
                }
            }
        }
        return BandwidthResult.of(size, total, System.nanoTime() - start, best, stride);
    }

    /**
     * Server Send bandwidth: count each QP's receives, repost each, write that QP's credit word
     * every {@code rx_depth / 3} of its receives, until the client's next perftest message says it
     * is done. Receive wrIds name their QP; credit Writes carry {@link #CREDIT_ID}.
     */
    private BandwidthResult sendBwServer() throws IOException {
        int creditEvery = Math.max(1, rxDepth / 3);
        long[] receivedBy = new long[qpCount];
        long received = 0;
        long creditsOutstanding = 0;
        long start = 0;
        long last = 0;
        long deadline = System.nanoTime() + waitNanos;
        try (Progress progress = Progress.start(err, test.command() + " (server)")) {
            while (pendingMessage == null) {
                int n = cq.poll(batch, 0, batch.length);
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = batch[i];
                    check(wc);
                    if (wc.wrId() == CREDIT_ID) {
                        creditsOutstanding--;
                        continue;
                    }
                    if (start == 0) {
                        start = System.nanoTime();
                    }
                    int q = (int) wc.wrId();
                    received++;
                    long r = ++receivedBy[q];
                    progress.tick();
                    postReceives(q, 1);
                    if ((r % rxDepth) % creditEvery == 0) {
                        MemorySegment c = credits[q];
                        c.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4, (int) r);
                        creditWr.reset().wrId(CREDIT_ID).opcode(Opcode.RDMA_WRITE).signaled(true)
                                .remote(remDests[q].rkey(), remDests[q].vaddr()).sge(creditMrs[q].stag(), c.address() + 4, 4);
                        qps[q].postSend(creditWr);
                        creditsOutstanding++;
                    }
                    last = System.nanoTime();
                }
                if (n == 0 && !pollComm()) {
                    spin(deadline, "Sends or the client's end of test");
                } else {
                    deadline = System.nanoTime() + waitNanos;
                }
            }
            while (creditsOutstanding > 0) {
                int n = cq.poll(batch, 0, batch.length);
                for (int i = 0; i < n; i++) {
                    check(batch[i]);
                    if (batch[i].wrId() == CREDIT_ID) {
                        creditsOutstanding--;
                    }
                }
            }
        }
        return BandwidthResult.of(size, received, start == 0 ? 1 : last - start, 0, 1);
    }

    private void postReceives(int count) {
        postReceives(0, count);
    }

    /** Posts receives on QP {@code q}; their wrId is {@code q}. */
    private void postReceives(int q, int count) {
        for (int i = 0; i < count; i++) {
            rr.reset().wrId(q).sge(mrs[q].stag(), bufs[q].address(), size);
            qps[q].postReceive(rr);
        }
    }

    /** perftest's Write ping-pong: the byte at size - 1 carries the count; the server sends first. */
    private LatencyResult writeLat() throws IOException {
        int n = options.iterations(test);
        long half = half();
        long pollOffset = half + size - 1;
        long postOffset = size - 1;
        Histogram h = LatencyResult.newHistogram();
        long scnt = 0;
        long rcnt = 0;
        long ccnt = 0;
        long previous = 0;
        try (Progress progress = Progress.start(err, test.command())) {
            while (scnt < n || ccnt < n || rcnt < n) {
                long deadline = System.nanoTime() + waitNanos; // per round trip: a stall, not a long run, fails
                if (rcnt < n && !(scnt < 1 && !client)) {
                    rcnt++;
                    while ((byte) BYTE.getVolatile(buf, pollOffset) != (byte) rcnt) {
                        if (polling && cq.poll(one)) { // polling mode: an empty CQ poll moves the bytes
                            check(one);
                            ccnt++;
                        }
                        spin(deadline, "the peer's Write " + rcnt);
                    }
                }
                if (scnt < n) {
                    long now = System.nanoTime();
                    if (previous != 0) {
                        h.recordValue(Math.max(1, now - previous)); // one round trip between two posts
                    }
                    previous = now;
                    buf.set(ValueLayout.JAVA_BYTE, postOffset, (byte) ++scnt);
                    post(qp, inline(wr.reset().wrId(scnt).opcode(Opcode.RDMA_WRITE).signaled(true)
                            .remote(remDest.rkey(), remDest.vaddr()).sge(mr.stag(), buf.address(), size)));
                    progress.tick();
                }
                if (ccnt < n) {
                    while (!cq.poll(one)) {
                        spin(deadline, "a Write completion");
                    }
                    check(one);
                    ccnt++;
                }
            }
        }
        return LatencyResult.of(size, h, true);
    }

    /** perftest's Read latency: one Read at a time from the peer's buffer (client only). */
    private LatencyResult readLat() throws IOException {
        int n = options.iterations(test);
        Histogram h = LatencyResult.newHistogram();
        try (Progress progress = Progress.start(err, test.command())) {
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                long deadline = t0 + waitNanos; // per Read: a stall, not a long run, fails
                wr.reset().wrId(i).opcode(Opcode.RDMA_READ).signaled(true).remote(remDest.rkey(), remDest.vaddr())
                        .sge(mr.stag(), buf.address(), size);
                qp.postSend(wr);
                while (!cq.poll(one)) {
                    spin(deadline, "a Read completion");
                }
                check(one);
                h.recordValue(Math.max(1, System.nanoTime() - t0));
                progress.tick();
            }
        }
        return LatencyResult.of(size, h, false);
    }

    /** perftest's Send ping-pong: the client sends first; each side reposts every receive. */
    private LatencyResult sendLat() throws IOException {
        int n = options.iterations(test);
        Histogram h = LatencyResult.newHistogram();
        long scnt = 0;
        long rcnt = 0;
        long previous = 0;
        try (Progress progress = Progress.start(err, test.command())) {
            while (scnt < n || rcnt < n) {
                long deadline = System.nanoTime() + waitNanos; // per round trip: a stall, not a long run, fails
                if (rcnt < n && !(scnt < 1 && client)) {
                    boolean got = false;
                    while (!got) {
                        if (!cq.poll(one)) {
                            spin(deadline, "the peer's Send " + (rcnt + 1));
                            continue;
                        }
                        check(one);
                        if (one.opcode() == Opcode.RECEIVE) {
                            got = true;
                        }
                    }
                    rcnt++;
                    postReceives(1);
                }
                if (scnt < n) {
                    long now = System.nanoTime();
                    if (previous != 0) {
                        h.recordValue(Math.max(1, now - previous));
                    }
                    previous = now;
                    post(qp, inline(wr.reset().wrId(++scnt).opcode(Opcode.SEND).signaled(true)
                            .sge(mr.stag(), buf.address(), size)));
                    progress.tick();
                }
            }
            // reap the Send completions still queued (each Send was signaled)
            long stop = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (System.nanoTime() - stop < 0 && cq.poll(one)) {
                check(one);
            }
        }
        return LatencyResult.of(size, h, true);
    }

    /** Polls the test CQ; counts each completion on the QP its wrId names. */
    private int pollTest(long[] completed) throws IOException {
        int n = cq.poll(batch, 0, batch.length);
        for (int i = 0; i < n; i++) {
            check(batch[i]);
            completed[(int) batch[i].wrId()]++;
        }
        return n;
    }

    private void check(WorkCompletion wc) throws IOException {
        if (wc.status() != WorkCompletionStatus.SUCCESS) {
            throw new IOException("work request failed: " + wc);
        }
    }

    /**
     * One empty poll of a busy-polling wait. It yields the core now and then: a soft RNIC's bytes are
     * moved by threads of this process (event-loop mode: the loops, which a pure spin starves of a core
     * for whole scheduler slices on a small machine; measured: 1.2 ms per ib_send_lat round trip on 2
     * cores), or by the poll itself (polling mode: a socket pass per empty poll, after which a yield
     * costs no more than the pass). The cadence is the JMH harness's ({@link BusyWait}).
     */
    private void spin(long deadline, String what) throws IOException {
        if (++idlePolls >= (polling ? BusyWait.YIELD_EVERY_SYSCALL : BusyWait.YIELD_EVERY)) {
            idlePolls = 0;
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
        if (System.nanoTime() - deadline > 0) {
            throw new IOException("no progress while waiting for " + what);
        }
    }
}
