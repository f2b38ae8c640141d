package io.jrnic.bench.probe;

import io.jrnic.bench.transport.ChannelIo;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Locale;

/**
 * {@code tcp-write-probe}: the machine's loopback TCP, not jrnic. One connection streams messages
 * cut into writes of a given size, several such patterns taking turns of {@code sliceMillis} on
 * the same connection (so that the machine's changing copy speed, {@link CrossCoreCopy}, falls on
 * all of them alike), and the mean rate of each is printed.
 *
 * <p>Why: a raw-TCP baseline is only a floor if it writes the way TCP moves bytes best. On Linux
 * loopback (MTU 65,536, MSS 65,483) a 64 KiB write leaves a 53-byte segment behind each full one,
 * and the stream runs at about half the rate of writes of 32 KiB (docs/benchmarks.md, "Issue 11,
 * 2026-11-28"); {@code TcpPackedStream} therefore writes half-batches.
 *
 * <p>The receiver reads into a 256 KiB buffer and discards. No allocation in the loops.
 *
 * <p>Thread safety: {@link #run} from one thread; it starts and joins the receiver.
 */
public final class TcpWriteSizes {

    /**
     * A message written in writes of at most a given size, cut evenly.
     *
     * @param messageBytes the message's size, 1 to {@value #MAX_MESSAGE}
     * @param writeBytes   the most bytes one {@code write} is given, at least 1
     */
    public record Pattern(int messageBytes, int writeBytes) {
        /** Checks the sizes. */
        public Pattern {
            if (messageBytes < 1 || messageBytes > MAX_MESSAGE || writeBytes < 1) {
                throw new IllegalArgumentException("a pattern needs 1.." + MAX_MESSAGE
                        + " message bytes and at least 1 write byte: " + messageBytes + ", " + writeBytes);
            }
        }
    }

    /** The largest message of a pattern. */
    static final int MAX_MESSAGE = 1 << 20;

    /** What {@code tcp-write-probe} compares. */
    public static final List<Pattern> DEFAULT_PATTERNS = List.of(
            new Pattern(65536, 65536), new Pattern(65536, 32768), new Pattern(61440, 61440),
            new Pattern(65536, 61440), new Pattern(MAX_MESSAGE, 61440), new Pattern(4096, 4096));

    private TcpWriteSizes() {
    }

    /**
     * Streams each pattern in turn for {@code rounds} rounds and prints their mean rates.
     *
     * @param patterns    the patterns
     * @param rounds      turns of each pattern, at least 1
     * @param sliceMillis milliseconds of one turn, at least 1
     * @param out         where the rates go
     * @return the mean rate of each pattern, MB/s, in the order given
     * @throws IOException          if the loopback connection fails
     * @throws InterruptedException if interrupted while the receiver finishes
     */
    public static double[] run(List<Pattern> patterns, int rounds, int sliceMillis, PrintStream out)
            throws IOException, InterruptedException {
        if (rounds < 1 || sliceMillis < 1 || patterns.isEmpty()) {
            throw new IllegalArgumentException("rounds and sliceMillis must be at least 1 and patterns not empty: "
                    + rounds + ", " + sliceMillis + ", " + patterns.size());
        }
        double[] sums = new double[patterns.size()];
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel sender = SocketChannel.open(server.getLocalAddress());
             SocketChannel receiver = server.accept()) {
            sender.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Thread drain = Thread.ofPlatform().name("tcp-write-probe-receiver").start(() -> discard(receiver));
            ByteBuffer message = ByteBuffer.allocateDirect(MAX_MESSAGE);
            long slice = sliceMillis * 1_000_000L;
            for (int round = 0; round < rounds; round++) {
                for (int p = 0; p < sums.length; p++) {
                    sums[p] += stream(sender, message, patterns.get(p), slice);
                }
            }
            sender.shutdownOutput();
            drain.join();
        }
        double[] rates = new double[sums.length];
        for (int p = 0; p < sums.length; p++) {
            rates[p] = sums[p] / rounds;
            Pattern pattern = patterns.get(p);
            out.printf(Locale.ROOT, "message %8d B in writes of at most %6d B: %7.0f MB/s%n",
                    pattern.messageBytes(), pattern.writeBytes(), rates[p]);
        }
        out.printf(Locale.ROOT, "tcp-write-probe: %d patterns, %d rounds of %d ms each, over 127.0.0.1%n",
                sums.length, rounds, sliceMillis);
        return rates;
    }

    /** One turn of a pattern: the MB/s it moved. */
    private static double stream(SocketChannel sender, ByteBuffer message, Pattern pattern, long sliceNanos)
            throws IOException {
        long bytes = 0;
        long start = System.nanoTime();
        long elapsed;
        do {
            message.clear().limit(pattern.messageBytes());
            ChannelIo.writeFully(sender, message, pattern.writeBytes()); // cut evenly, as the packed baseline
            bytes += pattern.messageBytes();
            elapsed = System.nanoTime() - start;
        } while (elapsed < sliceNanos);
        return bytes * 1e3 / elapsed; // bytes per ns * 1e3 = MB/s
    }

    private static void discard(SocketChannel receiver) {
        ByteBuffer chunk = ByteBuffer.allocateDirect(256 * 1024);
        try {
            while (receiver.read(chunk) >= 0) {
                chunk.clear();
            }
        } catch (IOException e) {
            // the sender closed: the probe is over
        }
    }
}
