package io.jrnic.examples.basics;

import io.jrnic.api.Access;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionManager;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RemoteBuffer;
import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.examples.Example;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * The server of the Verbs tour: registers a 1 MiB region, advertises it in the MPA Reply and lets
 * one client write, read, atomically update and flush it; then receives the client's Send, checks
 * what the one-sided operations left in its memory and waits for the client to disconnect.
 *
 * <pre>java -cp rnic-examples.jar io.jrnic.examples.basics.BasicsServer [--port 7470] [--bind ADDR] [--crc off]</pre>
 */
public final class BasicsServer {
    /** The advertised region's size. */
    public static final int REGION_BYTES = 1 << 20;
    /** Offset of the 8-byte counter the client updates with atomics: the region's last word. */
    public static final int COUNTER_OFFSET = REGION_BYTES - 8;

    private BasicsServer() {
    }

    /**
     * Runs the server.
     *
     * @param args {@code [--port N] [--bind ADDR] [--crc off]}
     * @throws Exception when anything fails (the exit status is then 1)
     */
    public static void main(String[] args) throws Exception {
        InetSocketAddress address = Example.listenAddress(args, 7470);
        try (Rnic rnic = Rnic.open(new RnicConfig())) {
            // Affiliated asynchronous events (Verbs §8.3.3), e.g. the error behind a Terminate this side sends.
            rnic.setAsyncEventHandler((r, event) -> System.out.println("server: async event " + event.type()));
            ProtectionDomain pd = rnic.allocatePd();
            CompletionQueue cq = rnic.createCq(16);

            // The region the client works on, with every remote right it uses (Verbs §7.5.2): Write
            // and Read, atomics (RFC 7306 §5) and Flush to global visibility (draft-talpey-rdma-commit).
            MemorySegment region = rnic.allocateMemory(REGION_BYTES, 4096);
            MemoryRegion regionMr = pd.registration(region)
                    .access(Access.LOCAL_READ, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE,
                            Access.REMOTE_ATOMIC, Access.FLUSHABLE_GLOBAL)
                    .register();
            // A small local buffer for the client's Send: only the RNIC writes into it (Local Write).
            MemorySegment inbox = rnic.allocateMemory(256, 64);
            MemoryRegion inboxMr = pd.registration(inbox).access(Access.LOCAL_WRITE).register();

            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            ConnectionManager.Listener listener = rnic.connectionManager().listen(address, Example.settings(args),
                    request -> {
                        // Runs on the RNIC's event loop: create, post and accept, but never block here.
                        if (accepted.isDone()) {
                            request.reject(null); // this server serves one client
                            return;
                        }
                        QueuePair qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).readDepths(4, 4));
                        // Post the receive before accepting: the client may Send as soon as it is in RTS.
                        qp.postReceive(new ReceiveWorkRequest().wrId(1).sge(inboxMr.stag(), inbox.address(), 256));
                        // The MPA Reply's private data tells the client where the region is.
                        request.accept(qp, RemoteBuffer.of(regionMr).toBytes()).whenComplete((connection, failure) -> {
                            if (failure != null) {
                                accepted.completeExceptionally(failure);
                            } else {
                                accepted.complete(connection);
                            }
                        });
                    });
            System.out.println("server: listening on port " + ((InetSocketAddress) listener.localAddress()).getPort()
                    + ", advertising " + RemoteBuffer.of(regionMr));

            Connection connection = accepted.get();
            System.out.println("server: accepted " + connection.remoteAddress());

            // Everything one-sided happens without this side: the first completion it sees is the
            // receive of the Send the client posts after its Write, Read, atomics and Flush.
            WorkCompletion wc = cq.take(new WorkCompletion());
            if (wc.status() == WorkCompletionStatus.FLUSHED) { // a client that leaves without a Send (Hello)
                System.out.println("server: the client disconnected without a Send; the region starts with \""
                        + new String(region.asSlice(0, 16).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8) + "\"");
                return;
            }
            Example.check(wc.status() == WorkCompletionStatus.SUCCESS,
                    "receive failed: " + wc.status() + Example.terminateOf(wc.queuePair()));
            String message = new String(inbox.asSlice(0, wc.byteLength()).toArray(ValueLayout.JAVA_BYTE),
                    StandardCharsets.UTF_8);
            System.out.println("server: received \"" + message + "\"");

            int written = BasicsClient.TRANSFER_BYTES;
            Example.check(region.asSlice(0, written).mismatch(BasicsClient.pattern(written)) == -1,
                    "the region does not hold the client's RDMA Write");
            System.out.println("server: region[0, " + written + ") holds the client's pattern");
            long counter = region.get(ValueLayout.JAVA_LONG, COUNTER_OFFSET); // atomics use native byte order
            System.out.println("server: counter = " + counter);
            Example.check(counter == BasicsClient.EXPECTED_COUNTER, "counter " + counter);

            // The client's disconnect ends the connection gracefully (Idle); a Terminate in Error.
            System.out.println("server: connection ended, queue pair " + connection.closed().toCompletableFuture().get()
                    + Example.terminateOf(connection.queuePair()));
            listener.close();
        }
    }
}
