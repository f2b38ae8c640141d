package io.jrnic.examples.log;

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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Appends records to {@link LogServer}'s log with one-sided operations only: a FetchAdd on the
 * tail reserves the space (so any number of clients can append at once), an RDMA Write places the
 * record, and an RDMA Flush to persistence completes once the server's RNIC has forced it to the
 * file. When the Flush completes the record survives a crash of the server.
 *
 * <pre>java -cp rnic-examples.jar io.jrnic.examples.log.LogClient [--connect 127.0.0.1:7472] [--crc off] [RECORD...]</pre>
 */
public final class LogClient {
    private static final int MAX_RECORD = 4096;

    private LogClient() {
    }

    /**
     * Runs the client.
     *
     * @param args {@code [--connect HOST:PORT] [--crc off] [RECORD...]} (three sample records without any)
     * @throws Exception when anything fails (the exit status is then 1)
     */
    public static void main(String[] args) throws Exception {
        InetSocketAddress server = Example.connectAddress(args, 7472);
        List<String> records = new ArrayList<>(List.of(args));
        for (String option : List.of("--connect", "--crc")) { // the words left are the records
            int at = records.indexOf(option);
            if (at >= 0) {
                records.subList(at, Math.min(at + 2, records.size())).clear();
            }
        }
        if (records.isEmpty()) {
            records = List.of("first record", "second record", "third record");
        }
        try (Rnic rnic = Rnic.open(new RnicConfig())) {
            ProtectionDomain pd = rnic.allocatePd();
            CompletionQueue cq = rnic.createCq(16);
            // Local memory: [0, 8) the FetchAdd's result, then the record to write.
            MemorySegment local = rnic.allocateMemory(8 + MAX_RECORD, 64);
            MemoryRegion mr = pd.registration(local).access(Access.LOCAL_READ, Access.LOCAL_WRITE).register();
            QueuePair qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).readDepths(4, 4));
            try (Connection connection = rnic.connectionManager().connect(qp, server, Example.settings(args), null)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                RemoteBuffer log = RemoteBuffer.fromBytes(connection.peerPrivateData());
                System.out.println("client: connected, log " + log);
                SendWorkRequest wr = new SendWorkRequest();
                WorkCompletion wc = new WorkCompletion();
                for (String text : records) {
                    byte[] payload = text.getBytes(StandardCharsets.UTF_8);
                    int bytes = LogFile.recordBytes(payload.length);
                    Example.check(bytes <= MAX_RECORD, "record too long: " + text);

                    // 1. Reserve: FetchAdd on the tail returns where this record goes (RFC 7306 §5.1.1).
                    qp.postSend(wr.reset().wrId(1).fetchAdd(bytes).remote(log.slice(LogFile.TAIL, 8))
                            .sge(mr.stag(), local.address(), 8));
                    Example.await(cq, wc, "FetchAdd on the tail");
                    long offset = local.get(ValueLayout.JAVA_LONG, 0);
                    Example.check(offset + bytes <= log.length(), "the log is full");

                    // 2. Write the record into the reserved space.
                    LogFile.encode(local.asSlice(8), payload);
                    qp.postSend(wr.reset().wrId(2).opcode(Opcode.RDMA_WRITE).sge(mr.stag(), local.address() + 8, bytes)
                            .remote(log.slice(offset, bytes)));
                    // 3. Flush it to persistence: the RNIC places the Write first (draft-talpey-rdma-commit-01
                    //    §3.1.1: a Flush executes after every earlier Write of the queue pair), then forces
                    //    the range to the file, then answers. No need to wait for the Write on its own.
                    qp.postSend(wr.reset().wrId(3).flush(log.stag(), log.to() + offset, bytes,
                            SendWorkRequest.FLUSH_PERSISTENCE));
                    Example.await(cq, wc, "RDMA Write");
                    Example.await(cq, wc, "RDMA Flush");
                    System.out.println("client: appended \"" + text + "\" at offset " + offset + ", persistent");
                }
            }
            System.out.println("client: disconnected after " + records.size() + " records");
        }
    }
}
