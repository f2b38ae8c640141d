package io.jrnic.bench.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The text rping's client puts in its start buffer for each ping (rping.c {@code rping_test_client}):
 * {@code "rdma-ping-%d: "} followed by ASCII characters counting up from a start character through
 * 'z' (122) and wrapping to 'A' (65), the start advancing by one per ping; the last byte is NUL.
 * So the echo is {@code size} bytes, strlen + 1, and the printed line is everything before the NUL.
 *
 * <p>Thread safety: stateless.
 */
public final class PingPattern {

    /** First character of the rotating pattern ('A'). */
    public static final int FIRST = 65;
    /** Last character before wrapping ('z'). */
    public static final int LAST = 122;

    private PingPattern() {
    }

    /**
     * Fills {@code size} bytes of {@code buf} with ping number {@code ping}.
     *
     * @param buf  at least size bytes
     * @param size the message size (at least {@link RpingOptions#MIN_SIZE})
     * @param ping the iteration, from 0
     */
    public static void fill(MemorySegment buf, int size, int ping) {
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int cc = Math.min(head.length, size);
        MemorySegment.copy(head, 0, buf, ValueLayout.JAVA_BYTE, 0, cc);
        int c = startCharacter(ping);
        for (int i = cc; i < size; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            c = c == LAST ? FIRST : c + 1;
        }
        buf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    /**
     * The character the pattern of a ping starts with: 'A' for ping 0, advancing one per ping and
     * wrapping after 'z' (58 values).
     *
     * @param ping the iteration, from 0
     * @return the character code
     */
    public static int startCharacter(int ping) {
        return FIRST + Integer.remainderUnsigned(ping, LAST - FIRST + 1);
    }

    /**
     * The text before the first NUL (what rping's {@code printf("%s")} shows), at most limit bytes.
     *
     * @param buf   the buffer
     * @param limit bytes to look at
     * @return the string (ISO-8859-1, byte for character)
     */
    public static String cString(MemorySegment buf, long limit) {
        int n = 0;
        while (n < limit && buf.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }

    /**
     * The text of ping {@code ping} as printed (size - 1 characters).
     *
     * @param size the message size
     * @param ping the iteration
     * @return the line rping prints after "ping data: "
     */
    public static String text(int size, int ping) {
        MemorySegment m = MemorySegment.ofArray(new byte[size]);
        fill(m, size, ping);
        return cString(m, size);
    }
}
