package app;

import io.jrnic.api.Access;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.IoTransport;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RemoteBuffer;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Two RNICs over loopback TCP: the server advertises a 1 MiB region in its MPA Reply, the client
 * RDMA Writes 64 KiB into it, Reads it back and Sends; prints "module path OK" when all of it
 * checked out, and which of the README's --add-opens reached their modules.
 */
public final class Main {
    private static final int SIZE = 1 << 20;
    private static final int N = 64 << 10;

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        Module base = Object.class.getModule();
        Module core = ModuleLayer.boot().findModule("io.jrnic.core").orElseThrow();
        Module transport = ModuleLayer.boot().findModule("io.netty.transport").orElseThrow();
        System.out.println("java.nio open to io.jrnic.core: " + base.isOpen("java.nio", core));
        System.out.println("sun.nio.ch open to io.netty.transport: " + base.isOpen("sun.nio.ch", transport));
        // netty's native epoll transport loads on the module path when its native module is resolved
        // (--add-modules io.netty.transport.epoll.linux.<arch>); reflection needs no readability
        Module epoll = ModuleLayer.boot().findModule("io.netty.transport.classes.epoll").orElseThrow();
        Object available = Class.forName(epoll, "io.netty.channel.epoll.Epoll").getMethod("isAvailable").invoke(null);
        System.out.println("epoll available: " + available);
        IoTransport io = IoTransport.valueOf(System.getProperty("app.ioTransport", "AUTO"));
        try (Rnic server = Rnic.open(new RnicConfig().ioTransport(io));
             Rnic client = Rnic.open(new RnicConfig().ioTransport(io))) {
            ProtectionDomain spd = server.allocatePd();
            CompletionQueue scq = server.createCq(16);
            MemorySegment smem = server.allocateMemory(SIZE, 4096);
            MemoryRegion smr = spd.registration(smem)
                    .access(Access.LOCAL_READ, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE).register();
            QueuePair sqp = spd.createQueuePair(new QueuePairConfig().cqs(scq, scq).readDepths(4, 4));
            sqp.postReceive(new ReceiveWorkRequest().wrId(9).sge(smr.stag(), smem.address(), 64));
            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            try (ConnectionManager.Listener listener = server.connectionManager().listen(any, new ConnectionSettings(),
                    request -> request.accept(sqp, RemoteBuffer.of(smr).toBytes()).whenComplete((c, e) -> {
                        if (e != null) {
                            accepted.completeExceptionally(e);
                        } else {
                            accepted.complete(c);
                        }
                    }))) {
                ProtectionDomain cpd = client.allocatePd();
                CompletionQueue ccq = client.createCq(16);
                MemorySegment cmem = client.allocateMemory(2L * N, 4096);
                // LOCAL_WRITE for the Read's local sink, REMOTE_WRITE because iWARP places Read Responses as
                // tagged writes (Verbs §7.5.2)
                MemoryRegion cmr = cpd.registration(cmem)
                        .access(Access.LOCAL_READ, Access.LOCAL_WRITE, Access.REMOTE_WRITE).register();
                QueuePair cqp = cpd.createQueuePair(new QueuePairConfig().cqs(ccq, ccq).readDepths(4, 4));
                try (Connection c = client.connectionManager().connect(cqp, listener.localAddress(),
                        new ConnectionSettings(), null).toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                    accepted.get(10, TimeUnit.SECONDS);
                    RemoteBuffer target = RemoteBuffer.fromBytes(c.peerPrivateData());
                    for (int i = 0; i < N; i++) {
                        cmem.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
                    }
                    SendWorkRequest wr = new SendWorkRequest();
                    cqp.postSend(wr.reset().wrId(1).opcode(Opcode.RDMA_WRITE).sge(cmr.stag(), cmem.address(), N)
                            .remote(target.slice(4096, N)));
                    cqp.postSend(wr.reset().wrId(2).opcode(Opcode.RDMA_READ)
                            .sge(cmr.stag(), cmem.address() + N, N).remote(target.slice(4096, N)));
                    cqp.postSend(wr.reset().wrId(3).opcode(Opcode.SEND).sge(cmr.stag(), cmem.address(), 64));
                    WorkCompletion wc = new WorkCompletion();
                    for (long id = 1; id <= 3; id++) {
                        expect(ccq.poll(wc, 10, TimeUnit.SECONDS) && wc.wrId() == id
                                && wc.status() == WorkCompletionStatus.SUCCESS, "client completion " + id + ": " + wc);
                    }
                    expect(scq.poll(wc, 10, TimeUnit.SECONDS) && wc.wrId() == 9 && wc.byteLength() == 64,
                            "server receive: " + wc);
                    expect(smem.asSlice(4096, N).mismatch(cmem.asSlice(0, N)) == -1, "the Write placed the data");
                    expect(cmem.asSlice(N, N).mismatch(cmem.asSlice(0, N)) == -1, "the Read returned the data");
                    QpState end = c.disconnect().toCompletableFuture().get(10, TimeUnit.SECONDS);
                    expect(end == QpState.IDLE, "graceful close: " + end);
                }
            }
        }
        System.out.println("module path OK");
    }

    private static void expect(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
