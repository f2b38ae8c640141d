package io.jrnic.examples.kv;

import io.jrnic.api.Access;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.ReceiveWorkRequest;
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
 * A client of {@link KvServer}: PUT is a Send answered by the server, GET is an RDMA Read of the
 * key's slot straight from the server's memory, checked with the slot's checksum and read again
 * when it raced an update.
 *
 * <pre>
 * java -cp rnic-examples.jar io.jrnic.examples.kv.KvClient [--connect 127.0.0.1:7471] [--crc off] [--race]   (a demo workload)
 * java -cp rnic-examples.jar io.jrnic.examples.kv.KvClient [--connect 127.0.0.1:7471] [--crc off] put KEY VALUE
 * java -cp rnic-examples.jar io.jrnic.examples.kv.KvClient [--connect 127.0.0.1:7471] [--crc off] get KEY
 * </pre>
 */
public final class KvClient implements AutoCloseable {
    private static final int READS_BEFORE_GIVING_UP = 1000;

    private final Connection connection;
    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final RemoteBuffer table;
    private final int slots;
    // local registered memory: [0, 256) a slot read, then a request, then a reply
    private final MemoryRegion mr;
    private final MemorySegment slot;
    private final MemorySegment request;
    private final MemorySegment reply;
    private final SendWorkRequest wr = new SendWorkRequest();
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();
    private long tornReads;

    /**
     * Connects to a server.
     *
     * @param rnic   the RNIC to use
     * @param server   the server's address
     * @param settings the connection settings
     * @throws Exception when the connection cannot be set up
     */
    public KvClient(Rnic rnic, InetSocketAddress server, ConnectionSettings settings) throws Exception {
        ProtectionDomain pd = rnic.allocatePd();
        // Separate CQs for the two queues: a PUT waits for its Send and for the reply's Receive.
        sendCq = rnic.createCq(8);
        receiveCq = rnic.createCq(8);
        qp = pd.createQueuePair(new QueuePairConfig().cqs(sendCq, receiveCq).depths(8, 2));
        MemorySegment local = rnic.allocateMemory(KvTable.SLOT_BYTES + KvServer.REQUEST_BYTES + KvServer.REPLY_BYTES, 64);
        // Remote Write for the slot: it is an RDMA Read's sink, written by the server's Read
        // Response (Verbs §7.5.2).
        mr = pd.registration(local).access(Access.LOCAL_READ, Access.LOCAL_WRITE, Access.REMOTE_WRITE).register();
        slot = local.asSlice(0, KvTable.SLOT_BYTES);
        request = local.asSlice(KvTable.SLOT_BYTES, KvServer.REQUEST_BYTES);
        reply = local.asSlice(KvTable.SLOT_BYTES + KvServer.REQUEST_BYTES, KvServer.REPLY_BYTES);
        connection = rnic.connectionManager().connect(qp, server, settings, null)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        table = RemoteBuffer.fromBytes(connection.peerPrivateData()); // from the MPA Reply
        slots = (int) (table.length() / KvTable.SLOT_BYTES);
    }

    /**
     * Stores a value: one Send to the server, one reply back.
     *
     * @param key   the key (1 to {@value KvTable#MAX_KEY} bytes of UTF-8)
     * @param value the value (up to {@value KvTable#MAX_VALUE} bytes of UTF-8)
     * @return the slot's new version
     * @throws Exception when the server refused or the connection failed
     */
    public long put(String key, String value) throws Exception {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        if (k.length == 0 || k.length > KvTable.MAX_KEY || v.length > KvTable.MAX_VALUE) {
            throw new IllegalArgumentException("keys have 1 to " + KvTable.MAX_KEY + " bytes, values up to "
                    + KvTable.MAX_VALUE);
        }
        request.set(ValueLayout.JAVA_BYTE, 0, KvServer.PUT);
        request.set(ValueLayout.JAVA_SHORT, 2, (short) k.length);
        request.set(ValueLayout.JAVA_SHORT, 4, (short) v.length);
        MemorySegment.copy(k, 0, request, ValueLayout.JAVA_BYTE, 8, k.length);
        MemorySegment.copy(v, 0, request, ValueLayout.JAVA_BYTE, 8 + k.length, v.length);
        int length = 8 + k.length + v.length;
        // The receive for the reply goes first: the reply may arrive before the Send completes here.
        qp.postReceive(rr.reset().wrId(1).sge(mr.stag(), reply.address(), KvServer.REPLY_BYTES));
        qp.postSend(wr.reset().wrId(1).opcode(Opcode.SEND).sge(mr.stag(), request.address(), length));
        Example.await(sendCq, wc, "PUT request");
        Example.await(receiveCq, wc, "PUT reply");
        byte status = reply.get(ValueLayout.JAVA_BYTE, 0);
        Example.check(status == KvServer.OK, "PUT " + key + " refused: status " + status);
        return reply.get(ValueLayout.JAVA_LONG, 8);
    }

    /**
     * Looks a key up with RDMA Reads only: the server's CPU takes no part.
     *
     * @param key the key
     * @return the value, or null when the key is not stored
     * @throws Exception when a Read fails
     */
    public String get(String key) throws Exception {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        for (int probe = 0; probe < KvTable.MAX_PROBES; probe++) {
            int index = (KvTable.home(k, slots) + probe) & (slots - 1);
            readSlot(index);
            if (KvTable.empty(slot)) {
                return null; // PUT fills the probe sequence in order: the key is not further on
            }
            if (KvTable.holds(slot, k)) {
                return new String(KvTable.value(slot), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** Reads one slot into {@link #slot} until it is empty or intact (not torn by a concurrent PUT). */
    private void readSlot(int index) throws Exception {
        for (int attempt = 0; attempt < READS_BEFORE_GIVING_UP; attempt++) {
            qp.postSend(wr.reset().wrId(2).opcode(Opcode.RDMA_READ).sge(mr.stag(), slot.address(), KvTable.SLOT_BYTES)
                    .remote(table.slice((long) index * KvTable.SLOT_BYTES, KvTable.SLOT_BYTES)));
            Example.await(sendCq, wc, "GET (RDMA Read)");
            if (KvTable.empty(slot) || KvTable.intact(slot)) {
                return;
            }
            tornReads++; // the server rewrote the slot while the Read copied it: read again
        }
        throw new IllegalStateException("slot " + index + " never read intact");
    }

    /**
     * Reads that raced a PUT and were repeated.
     *
     * @return the count
     */
    public long tornReads() {
        return tornReads;
    }

    /** Disconnects gracefully (waits for the LLP close). */
    @Override
    public void close() {
        connection.close();
    }

    /**
     * Runs the client.
     *
     * @param args {@code [--connect HOST:PORT] [--crc off] [put KEY VALUE | get KEY | --race]}
     * @throws Exception when anything fails (the exit status is then 1)
     */
    public static void main(String[] args) throws Exception {
        InetSocketAddress server = Example.connectAddress(args, 7471);
        List<String> words = new ArrayList<>(List.of(args));
        for (String option : List.of("--connect", "--crc")) { // the words left are the command
            int at = words.indexOf(option);
            if (at >= 0) {
                words.subList(at, Math.min(at + 2, words.size())).clear();
            }
        }
        words.remove("--race");
        try (Rnic rnic = Rnic.open(new RnicConfig()); KvClient kv = new KvClient(rnic, server, Example.settings(args))) {
            System.out.println("client: connected, table " + kv.table + " (" + kv.slots + " slots)");
            if (words.size() == 3 && words.get(0).equals("put")) {
                System.out.println("client: put " + words.get(1) + " -> version " + kv.put(words.get(1), words.get(2)));
            } else if (words.size() == 2 && words.get(0).equals("get")) {
                System.out.println("client: get " + words.get(1) + " = " + kv.get(words.get(1)));
            } else {
                demo(kv);
                if (Example.flag(args, "--race")) {
                    race(kv, new KvClient(rnic, server, Example.settings(args)));
                }
            }
        }
    }

    /** Stores 100 keys, reads them all back, updates one, reads a key that is not there. */
    private static void demo(KvClient kv) throws Exception {
        int n = 100;
        for (int i = 0; i < n; i++) {
            kv.put("key-" + i, "value-" + i);
        }
        System.out.println("client: " + n + " PUTs (Send, applied by the server)");
        for (int i = 0; i < n; i++) {
            String value = kv.get("key-" + i);
            Example.check(("value-" + i).equals(value), "key-" + i + " read " + value);
        }
        System.out.println("client: " + n + " GETs (RDMA Read, no server CPU) returned what was stored");
        long version = kv.put("key-7", "seven");
        System.out.println("client: key-7 updated to version " + version + ", get key-7 = " + kv.get("key-7"));
        Example.check(version == 2 && "seven".equals(kv.get("key-7")), "update of key-7");
        System.out.println("client: get no-such-key = " + kv.get("no-such-key"));
    }

    /**
     * GETs racing PUTs of the same key, over two connections: every value read must be one that was
     * PUT (a run of one letter), however the Reads and the server's updates interleave; the Reads
     * that saw an update half done are counted and repeated.
     *
     * <p>Run it with {@code --crc off} on both sides for now: jrnic computes an FPDU's CRC and then
     * sends the bytes from registered memory, so a store between the two (the server's update)
     * makes the Read Response's CRC wrong, and the client terminates the stream (2/0/0x02).
     */
    private static void race(KvClient reader, KvClient writer) throws Exception {
        int rounds = 300;
        reader.put("hot", "a");
        Thread puts = Thread.ofPlatform().name("writer").start(() -> {
            try (writer) {
                for (int i = 0; i < rounds; i++) {
                    writer.put("hot", String.valueOf((char) ('a' + i % 26)).repeat(1 + i % KvTable.MAX_VALUE));
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        int gets = 0;
        while (puts.isAlive() || gets < rounds) {
            String value = reader.get("hot");
            Example.check(value != null && !value.isEmpty() && value.chars().allMatch(c -> c == value.charAt(0)),
                    "GET hot returned a value that was never PUT: " + value);
            gets++;
        }
        puts.join();
        System.out.println("client: " + gets + " GETs raced " + rounds + " PUTs of one key: every value read was one"
                + " that was PUT; " + reader.tornReads() + " torn reads caught by the checksum and repeated");
    }
}
