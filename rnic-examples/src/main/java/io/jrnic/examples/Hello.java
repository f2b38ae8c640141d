package io.jrnic.examples;

import io.jrnic.api.*;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** The README's program: an RDMA Write of 64 KiB into the region a server advertises (BasicsServer). */
class Hello {
    public static void main(String[] args) throws Exception {
        try (Rnic rnic = Rnic.open(new RnicConfig())) {
            ProtectionDomain pd = rnic.allocatePd();
            CompletionQueue cq = rnic.createCq(16);
            MemorySegment buffer = rnic.allocateMemory(65536, 4096);
            MemoryRegion mr = pd.registration(buffer).access(Access.LOCAL_READ, Access.LOCAL_WRITE).register();
            QueuePair qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq));
            InetSocketAddress server = new InetSocketAddress("127.0.0.1", args.length > 0 ? Integer.parseInt(args[0]) : 7470);
            try (Connection c = rnic.connectionManager().connect(qp, server, new ConnectionSettings(), null)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                RemoteBuffer region = RemoteBuffer.fromBytes(c.peerPrivateData()); // from the MPA Reply
                buffer.fill((byte) 'j');
                qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE)
                        .sge(mr.stag(), buffer.address(), 65536).remote(region.slice(0, 65536)));
                System.out.println("RDMA Write to " + region + ": " + cq.take(new WorkCompletion()).status());
            }
        }
    }
}
