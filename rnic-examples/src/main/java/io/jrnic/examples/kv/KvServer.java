package io.jrnic.examples.kv;

import io.jrnic.api.Access;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionManager;
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
import io.jrnic.api.VerbsException;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.examples.Example;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A key-value store whose clients GET with one-sided RDMA Reads: the server keeps a hash table of
 * {@link KvTable} slots in a registered region, advertises the region in the MPA Reply, and
 * applies PUTs that clients Send to it. A GET costs the server no CPU at all.
 *
 * <p>Why PUT is a Send and not a remote lock (CmpSwap on a slot, then RDMA Writes): with a single
 * writer, the server, no client ever holds a lock, so a client that dies mid-update cannot leave
 * a slot locked, and an update is one round trip instead of three (lock, write, unlock). Readers
 * never block either way; the slot checksum detects a Read that raced an update.
 *
 * <p>Each connection gets a queue pair, a CQ and a thread that takes its completions: a Receive
 * is a PUT request, answered with a Send. The thread ends when the connection does.
 *
 * <pre>java -cp rnic-examples.jar io.jrnic.examples.kv.KvServer [--port 7471] [--bind ADDR] [--crc off] [--once]</pre>
 * ({@code --once}: exit once no client is connected any more.)
 */
public final class KvServer {
    /** Slots of the table (a power of two): 1024 x 256 bytes = 256 KiB. */
    public static final int SLOTS = 1024;
    /** Bytes of a request: op, key length, value length (1 + 2 + 2, padded to 8), key, value. */
    public static final int REQUEST_BYTES = 8 + KvTable.MAX_KEY + KvTable.MAX_VALUE;
    /** Bytes of a reply: status (padded to 8), version. */
    public static final int REPLY_BYTES = 16;
    /** Request opcode: PUT. */
    public static final byte PUT = 'P';
    /** Reply status: stored. */
    public static final byte OK = 0;
    /** Reply status: bad request (unknown op, empty or too long key or value). */
    public static final byte BAD_REQUEST = 1;
    /** Reply status: no free slot within {@link KvTable#MAX_PROBES} of the key's home. */
    public static final byte FULL = 2;

    private static final int RECEIVES = 4;

    private final Rnic rnic;
    private final ProtectionDomain pd;
    private final MemorySegment table;
    private final AtomicInteger sessions = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();

    private KvServer(Rnic rnic) {
        this.rnic = rnic;
        this.pd = rnic.allocatePd();
        this.table = rnic.allocateMemory((long) SLOTS * KvTable.SLOT_BYTES, 4096);
    }

    /**
     * Runs the server.
     *
     * @param args {@code [--port N] [--bind ADDR] [--crc off] [--once]}
     * @throws Exception when anything fails (the exit status is then 1)
     */
    public static void main(String[] args) throws Exception {
        InetSocketAddress address = Example.listenAddress(args, 7471);
        try (Rnic rnic = Rnic.open(new RnicConfig())) {
            KvServer server = new KvServer(rnic);
            // Clients only read the table: Remote Read, no Remote Write (Verbs §7.5.2).
            MemoryRegion tableMr = server.pd.registration(server.table)
                    .access(Access.LOCAL_READ, Access.LOCAL_WRITE, Access.REMOTE_READ).register();
            byte[] advertisement = RemoteBuffer.of(tableMr).toBytes();

            CompletableFuture<Void> idle = new CompletableFuture<>(); // no session open any more
            ConnectionManager.Listener listener = rnic.connectionManager().listen(address, Example.settings(args),
                    request -> server.accept(request, advertisement, idle));
            System.out.println("server: listening on port " + ((InetSocketAddress) listener.localAddress()).getPort()
                    + ", table " + RemoteBuffer.of(tableMr) + " (" + SLOTS + " slots)");
            if (Example.flag(args, "--once")) {
                idle.get();
            } else {
                new CompletableFuture<Void>().get(); // until the process is stopped
            }
            listener.close();
        }
    }

    /** On the RNIC's event loop: a queue pair with its receives posted, then the accept; no blocking. */
    private void accept(io.jrnic.api.ConnectionRequest request, byte[] advertisement, CompletableFuture<Void> ended) {
        CompletionQueue cq = rnic.createCq(2 * RECEIVES + 2);
        QueuePair qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(RECEIVES, RECEIVES));
        // One registration per session: RECEIVES request buffers, then the reply buffer.
        MemorySegment buffers = rnic.allocateMemory((long) RECEIVES * REQUEST_BYTES + REPLY_BYTES, 64);
        MemoryRegion mr = pd.registration(buffers).access(Access.LOCAL_READ, Access.LOCAL_WRITE).register();
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        for (int i = 0; i < RECEIVES; i++) {
            qp.postReceive(rr.reset().wrId(i).sge(mr.stag(), buffers.address() + (long) i * REQUEST_BYTES, REQUEST_BYTES));
        }
        request.accept(qp, advertisement).whenComplete((connection, failure) -> {
            if (failure != null) {
                System.out.println("server: setup failed: " + failure);
                return;
            }
            int id = sessions.incrementAndGet();
            open.incrementAndGet();
            Thread worker = Thread.ofPlatform().name("kv-session-" + id)
                    .start(() -> serve(id, connection, cq, mr, buffers, ended));
            // A graceful close by the client completes no work request: wake the worker instead.
            connection.closed().thenRun(worker::interrupt);
        });
    }

    /** A session's thread: PUT requests in, replies out, until the connection ends. */
    private void serve(int id, Connection connection, CompletionQueue cq, MemoryRegion mr, MemorySegment buffers,
                       CompletableFuture<Void> ended) {
        QueuePair qp = connection.queuePair();
        System.out.println("server: session " + id + " with " + connection.remoteAddress());
        WorkCompletion wc = new WorkCompletion();
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        SendWorkRequest reply = new SendWorkRequest();
        long replyAddress = buffers.address() + (long) RECEIVES * REQUEST_BYTES;
        MemorySegment replyBuffer = buffers.asSlice((long) RECEIVES * REQUEST_BYTES, REPLY_BYTES);
        int puts = 0;
        try {
            while (true) {
                cq.take(wc);
                if (wc.status() == WorkCompletionStatus.FLUSHED) {
                    break; // the queue pair left RTS (the client disconnected): its receives are flushed
                }
                if (wc.status() != WorkCompletionStatus.SUCCESS) {
                    System.out.println("server: session " + id + ": " + wc.opcode() + " " + wc.status()
                            + Example.terminateOf(qp));
                    break;
                }
                if (wc.opcode() != Opcode.RECEIVE) {
                    continue; // a reply's Send completed
                }
                int slot = (int) wc.wrId();
                MemorySegment request = buffers.asSlice((long) slot * REQUEST_BYTES, wc.byteLength());
                long result = apply(request);
                // The client waits for this reply before its next request, so the previous reply's
                // Send has left the reply buffer by now and it can be reused.
                replyBuffer.set(ValueLayout.JAVA_BYTE, 0, (byte) (result < 0 ? -result : OK));
                replyBuffer.set(ValueLayout.JAVA_LONG, 8, Math.max(result, 0));
                // Post the receive again before replying: the client's next request may follow at once.
                qp.postReceive(rr.reset().wrId(slot).sge(mr.stag(), request.address(), REQUEST_BYTES));
                qp.postSend(reply.reset().wrId(100).opcode(Opcode.SEND).sge(mr.stag(), replyAddress, REPLY_BYTES));
                puts++;
            }
            // the stream is closing: wait for its end (Idle after a graceful close, else Error)
            QpState end = connection.closed().toCompletableFuture().get(10, TimeUnit.SECONDS);
            System.out.println("server: session " + id + " ended after " + puts + " PUTs, queue pair " + end);
        } catch (InterruptedException e) {
            // connection.closed() completed before anything was flushed
            System.out.println("server: session " + id + " ended after " + puts + " PUTs, queue pair " + qp.state());
        } catch (VerbsException | ExecutionException | TimeoutException e) {
            // the queue pair failed (reset, Terminate) and its work requests were flushed
            System.out.println("server: session " + id + " failed: " + e.getMessage() + Example.terminateOf(qp));
        }
        qp.close();
        cq.close();
        mr.close(); // deregistered; the memory itself is freed with the RNIC
        if (open.decrementAndGet() == 0) {
            ended.complete(null);
        }
    }

    /** Applies a request: the new version, or minus a status. */
    private long apply(MemorySegment request) {
        if (request.byteSize() < 8 || request.get(ValueLayout.JAVA_BYTE, 0) != PUT) {
            return -BAD_REQUEST;
        }
        int keyLength = request.get(ValueLayout.JAVA_SHORT, 2);
        int valueLength = request.get(ValueLayout.JAVA_SHORT, 4);
        if (keyLength <= 0 || keyLength > KvTable.MAX_KEY || valueLength < 0 || valueLength > KvTable.MAX_VALUE
                || request.byteSize() != 8L + keyLength + valueLength) {
            return -BAD_REQUEST;
        }
        byte[] key = request.asSlice(8, keyLength).toArray(ValueLayout.JAVA_BYTE);
        byte[] value = request.asSlice(8 + keyLength, valueLength).toArray(ValueLayout.JAVA_BYTE);
        synchronized (table) { // one writer at a time, whatever the session
            for (int probe = 0; probe < KvTable.MAX_PROBES; probe++) {
                int index = (KvTable.home(key, SLOTS) + probe) & (SLOTS - 1);
                MemorySegment slot = table.asSlice((long) index * KvTable.SLOT_BYTES, KvTable.SLOT_BYTES);
                if (KvTable.empty(slot) || KvTable.holds(slot, key)) {
                    long version = KvTable.version(slot) + 1;
                    KvTable.write(slot, version, key, value);
                    return version;
                }
            }
        }
        return -FULL;
    }
}
