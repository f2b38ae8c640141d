package io.jrnic.examples.basics;

import io.jrnic.api.Access;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.RemoteBuffer;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.examples.Example;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The client of the Verbs tour: connects to {@link BasicsServer}, takes the region descriptor from
 * the MPA Reply, then does an RDMA Write of 64 KiB, a Read back, a FetchAdd and a CmpSwap on the
 * region's counter, a Flush, and finally a Send the server receives. With {@code --error} it then
 * reads past the end of the region, which the server's RNIC answers with a Terminate.
 *
 * <pre>java -cp rnic-examples.jar io.jrnic.examples.basics.BasicsClient [--connect 127.0.0.1:7470] [--crc off] [--error]</pre>
 */
public final class BasicsClient {
    /** Bytes of the RDMA Write and of the Read back. */
    public static final int TRANSFER_BYTES = 64 << 10;
    /** The counter after this client's atomics: 0 + 42 (FetchAdd), then swapped to 4242 (CmpSwap). */
    public static final long EXPECTED_COUNTER = 4242;

    private BasicsClient() {
    }

    /**
     * The bytes the client writes (and the server checks).
     *
     * @param length bytes
     * @return a heap segment with the pattern
     */
    public static MemorySegment pattern(int length) {
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        for (int i = 0; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i % 251));
        }
        return s;
    }

    /**
     * What a remote error looks like to the application: an RDMA Read of bytes past the end of the
     * region. The server's RNIC refuses the Read Request with a Terminate (RFC 5040 §7.2, §4.8: RDMAP
     * remote protection error, base or bounds violation) and closes the stream; here the Read
     * completes with Remote Termination Error, the queue pair is in Error, Query QP returns the
     * Terminate, and a further wait on the CQ reports the failed queue pair.
     */
    private static void readPastTheRegion(QueuePair qp, CompletionQueue cq, MemoryRegion mr, long sink,
                                          RemoteBuffer region) throws InterruptedException {
        qp.postSend(new SendWorkRequest().wrId(7).opcode(Opcode.RDMA_READ).sge(mr.stag(), sink, 4096)
                .remote(region.stag(), region.to() + region.length() - 1024));
        WorkCompletion wc = cq.take(new WorkCompletion());
        System.out.println("client: RDMA Read past the region completed with " + wc.status());
        System.out.println("client: " + qp.query().terminateMessage());
        try {
            cq.take(wc); // nothing else was outstanding: this reports the failed queue pair
        } catch (io.jrnic.api.VerbsException e) {
            System.out.println("client: CompletionQueue.take threw " + e.getMessage());
        }
        System.out.println("client: queue pair " + qp.state());
    }

    /**
     * Runs the client.
     *
     * @param args {@code [--connect HOST:PORT] [--crc off] [--error]} ({@code --error}: end with a Read the
     *             server refuses, to show a remote Terminate)
     * @throws Exception when anything fails (the exit status is then 1)
     */
    public static void main(String[] args) throws Exception {
        InetSocketAddress server = Example.connectAddress(args, 7470);
        try (Rnic rnic = Rnic.open(new RnicConfig())) {
            // Affiliated asynchronous events (Verbs §8.3.3): a Terminate, a reset, a close.
            rnic.setAsyncEventHandler((r, event) -> System.out.println("client: async event " + event.type()));
            ProtectionDomain pd = rnic.allocatePd();
            CompletionQueue cq = rnic.createCq(16);
            // Local memory: [0, 64K) the Write's source, [64K, 128K) the Read's sink, then 8 bytes
            // for an atomic's result and the Send's text. An RDMA Read's sink needs Remote Write:
            // the peer's Read Response is a tagged write into it (Verbs §7.5.2, RFC 5040 §4.4).
            int n = TRANSFER_BYTES;
            MemorySegment local = rnic.allocateMemory(2L * n + 4096, 4096);
            MemoryRegion mr = pd.registration(local)
                    .access(Access.LOCAL_READ, Access.LOCAL_WRITE, Access.REMOTE_WRITE).register();
            long base = local.address(); // a VA-based region: Tagged Offsets are addresses
            QueuePair qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).readDepths(4, 4));

            try (Connection connection = rnic.connectionManager().connect(qp, server, Example.settings(args), null)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                RemoteBuffer region = RemoteBuffer.fromBytes(connection.peerPrivateData());
                System.out.println("client: connected to " + connection.remoteAddress() + ", server region " + region);
                SendWorkRequest wr = new SendWorkRequest(); // reusable: the post copies it
                WorkCompletion wc = new WorkCompletion();

                // 1. RDMA Write: 64 KiB of local memory into the start of the server's region.
                local.asSlice(0, n).copyFrom(pattern(n));
                qp.postSend(wr.reset().wrId(1).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), base, n)
                        .remote(region.slice(0, n)));
                Example.await(cq, wc, "RDMA Write");
                System.out.println("client: RDMA Write of " + n + " bytes completed");

                // 2. RDMA Read: the same 64 KiB back into the second half of local memory.
                qp.postSend(wr.reset().wrId(2).opcode(Opcode.RDMA_READ).sge(mr.stag(), base + n, n)
                        .remote(region.slice(0, n)));
                Example.await(cq, wc, "RDMA Read");
                Example.check(local.asSlice(n, n).mismatch(local.asSlice(0, n)) == -1, "read back differs");
                System.out.println("client: RDMA Read of " + n + " bytes matches what was written");

                // 3. Atomics (RFC 7306): FetchAdd then CmpSwap on the server's 8-byte counter. The
                // original value lands in one local 8-byte SGE.
                RemoteBuffer counter = region.slice(BasicsServer.COUNTER_OFFSET, 8);
                long result = base + 2L * n;
                qp.postSend(wr.reset().wrId(3).fetchAdd(42).remote(counter).sge(mr.stag(), result, 8));
                Example.await(cq, wc, "FetchAdd");
                long before = local.get(ValueLayout.JAVA_LONG, 2L * n); // native byte order
                System.out.println("client: FetchAdd 42: counter was " + before);
                qp.postSend(wr.reset().wrId(4).compareSwap(before + 42, EXPECTED_COUNTER).remote(counter)
                        .sge(mr.stag(), result, 8));
                Example.await(cq, wc, "CmpSwap");
                long seen = local.get(ValueLayout.JAVA_LONG, 2L * n);
                Example.check(seen == before + 42, "CmpSwap found " + seen);
                System.out.println("client: CmpSwap " + seen + " -> " + EXPECTED_COUNTER + " succeeded");

                // 4. RDMA Flush (draft-talpey-rdma-commit-01 §3.1.1): completes once the server has
                // made the written range globally visible, after every earlier Write was placed.
                qp.postSend(wr.reset().wrId(5).flush(region.stag(), region.to(), n, SendWorkRequest.FLUSH_GLOBAL_VISIBILITY));
                Example.await(cq, wc, "RDMA Flush");
                System.out.println("client: RDMA Flush of " + n + " bytes completed");

                // 5. Send: a two-sided message that consumes the receive the server posted.
                byte[] text = ("hello from " + rnic.name() + ": wrote, read, added, swapped, flushed")
                        .getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(text, 0, local, ValueLayout.JAVA_BYTE, 2L * n + 8, text.length);
                qp.postSend(wr.reset().wrId(6).opcode(Opcode.SEND).sge(mr.stag(), base + 2L * n + 8, text.length));
                Example.await(cq, wc, "Send");
                System.out.println("client: Send of " + text.length + " bytes completed");

                if (Example.flag(args, "--error")) {
                    readPastTheRegion(qp, cq, mr, base + n, region);
                }
            } // Connection.close(): a graceful disconnect (Modify QP to Closing), waits for Idle
            System.out.println("client: disconnected, queue pair " + qp.state());
        }
    }
}
