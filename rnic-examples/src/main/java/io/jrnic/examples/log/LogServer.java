package io.jrnic.examples.log;

import io.jrnic.api.Access;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.RemoteBuffer;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.examples.Example;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An append-only log in a file that clients write with RDMA and make persistent with RDMA Flush:
 * the server maps the file ({@link FileChannel#map(FileChannel.MapMode, long, long, Arena)}),
 * recovers the records already in it, registers the mapping with the Flushable Persistent right
 * and advertises it in the MPA Reply. From then on it does nothing: clients reserve space with a
 * FetchAdd on the log's tail, RDMA Write their record and Flush it to persistence, which the RNIC
 * carries out as {@link MemorySegment#force()} of the range (an msync) before it answers
 * (draft-talpey-rdma-commit-01 §3.1.1).
 *
 * <pre>java -cp rnic-examples.jar io.jrnic.examples.log.LogServer --file FILE [--size BYTES] [--port 7472] [--bind ADDR] [--crc off] [--once | --recover-only]</pre>
 * ({@code --once}: exit after the first client disconnected; {@code --recover-only}: print the
 * records in the file and exit.)
 */
public final class LogServer {
    private LogServer() {
    }

    /**
     * Runs the server.
     *
     * @param args {@code --file FILE [--size BYTES] [--port N] [--bind ADDR] [--crc off] [--once | --recover-only]}
     * @throws Exception when anything fails (the exit status is then 1)
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(Example.option(args, "--file", "jrnic-log.bin"));
        long size = Long.parseLong(Example.option(args, "--size", Integer.toString(1 << 20)));
        // The arena outlives the RNIC: the mapping is unmapped only after the region is deregistered.
        try (Arena arena = Arena.ofShared();
             FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                     StandardOpenOption.WRITE)) {
            MemorySegment log = channel.map(FileChannel.MapMode.READ_WRITE, 0, Math.max(size, channel.size()), arena);

            List<LogFile.Entry> entries = LogFile.recover(log);
            System.out.println("server: recovered " + entries.size() + " records from " + file);
            for (LogFile.Entry e : entries) {
                System.out.println("server:   @" + e.offset() + " " + e.text());
            }
            log.set(ValueLayout.JAVA_LONG, LogFile.TAIL, LogFile.end(entries));
            log.force(); // the recovered tail is on disk before any client appends after it
            if (Example.flag(args, "--recover-only")) {
                return;
            }
            serve(args, log);
        }
    }

    private static void serve(String[] args, MemorySegment log) throws Exception {
        InetSocketAddress address = Example.listenAddress(args, 7472);
        try (Rnic rnic = Rnic.open(new RnicConfig())) {
            ProtectionDomain pd = rnic.allocatePd();
            CompletionQueue cq = rnic.createCq(16);
            // Remote Write for the records, Remote Atomic for the tail, Flushable Persistent for
            // the Flush (registration refuses it for memory that is not mapped from a file).
            MemoryRegion mr = pd.registration(log)
                    .access(Access.LOCAL_READ, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE,
                            Access.REMOTE_ATOMIC, Access.FLUSHABLE_PERSISTENT)
                    .register();
            CompletableFuture<Void> firstClientGone = new CompletableFuture<>();
            ConnectionManager.Listener listener = rnic.connectionManager().listen(address, Example.settings(args),
                    request -> {
                        // Clients only use one-sided operations: no receives to post, nothing to serve.
                        QueuePair qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).readDepths(4, 4));
                        request.accept(qp, RemoteBuffer.of(mr).toBytes()).whenComplete((connection, failure) -> {
                            if (failure != null) {
                                System.out.println("server: setup failed: " + failure);
                                qp.close();
                                return;
                            }
                            System.out.println("server: client " + connection.remoteAddress() + " connected");
                            connection.closed().thenAccept(state -> {
                                System.out.println("server: client " + connection.remoteAddress()
                                        + " disconnected, queue pair " + state);
                                qp.close();
                                firstClientGone.complete(null);
                            });
                        });
                    });
            System.out.println("server: listening on port " + ((InetSocketAddress) listener.localAddress()).getPort()
                    + ", log " + RemoteBuffer.of(mr) + ", tail at " + log.get(ValueLayout.JAVA_LONG, LogFile.TAIL));
            if (Example.flag(args, "--once")) {
                firstClientGone.get();
            } else {
                new CompletableFuture<Void>().get(); // until the process is stopped
            }
            listener.close();
        }
    }
}
