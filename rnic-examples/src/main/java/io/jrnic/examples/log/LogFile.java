package io.jrnic.examples.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The layout of the append-only log file, shared by {@link LogServer} (which maps the file and
 * recovers it) and {@link LogClient} (which appends to it with RDMA Writes):
 *
 * <pre>
 *  0  tail      8 bytes  where the next record goes; clients reserve space with FetchAdd on it
 *  8  reserved 56 bytes
 * 64  records, each 8-byte aligned:
 *       length  4 bytes  payload bytes (0: end of the log)
 *       crc32c  4 bytes  of the payload
 *       payload, padded with zeros to a multiple of 8
 * </pre>
 *
 * Recovery trusts the records, not the tail: it reads records from offset 64 until one has length
 * 0 or a checksum that does not match (a record that was reserved but never written, or written
 * but not flushed before a crash), and sets the tail there. Multi-byte fields are in native byte
 * order, the order RFC 7306 atomics use for the tail (the RNIC's memory byte order).
 *
 * <p>Thread safety: stateless.
 */
public final class LogFile {
    /** Offset of the 8-byte tail counter. */
    public static final int TAIL = 0;
    /** Offset of the first record. */
    public static final int FIRST_RECORD = 64;
    /** Bytes of a record's header. */
    public static final int HEADER_BYTES = 8;

    private LogFile() {
    }

    /**
     * Bytes a record takes in the log.
     *
     * @param payloadLength the payload's length
     * @return header plus payload, rounded up to 8
     */
    public static int recordBytes(int payloadLength) {
        return (HEADER_BYTES + payloadLength + 7) & ~7;
    }

    /**
     * Writes a record (into a local buffer, to be RDMA Written).
     *
     * @param target  at least {@link #recordBytes}(payload.length) bytes
     * @param payload the record's contents
     */
    public static void encode(MemorySegment target, byte[] payload) {
        target.asSlice(0, recordBytes(payload.length)).fill((byte) 0);
        CRC32C crc = new CRC32C();
        crc.update(payload);
        target.set(ValueLayout.JAVA_INT, 0, payload.length);
        target.set(ValueLayout.JAVA_INT, 4, (int) crc.getValue());
        MemorySegment.copy(payload, 0, target, ValueLayout.JAVA_BYTE, HEADER_BYTES, payload.length);
    }

    /**
     * One recovered record.
     *
     * @param offset where it starts in the log
     * @param text   its payload as UTF-8
     */
    public record Entry(long offset, String text) {
    }

    /**
     * Reads the valid records from the start of the log.
     *
     * @param log the mapped file
     * @return the records in log order; the end of the last one is the recovered tail
     */
    public static List<Entry> recover(MemorySegment log) {
        List<Entry> entries = new ArrayList<>();
        long offset = FIRST_RECORD;
        while (offset + HEADER_BYTES <= log.byteSize()) {
            int length = log.get(ValueLayout.JAVA_INT, offset);
            if (length <= 0 || offset + recordBytes(length) > log.byteSize()) {
                break;
            }
            byte[] payload = log.asSlice(offset + HEADER_BYTES, length).toArray(ValueLayout.JAVA_BYTE);
            CRC32C crc = new CRC32C();
            crc.update(payload);
            if (log.get(ValueLayout.JAVA_INT, offset + 4) != (int) crc.getValue()) {
                break;
            }
            entries.add(new Entry(offset, new String(payload, StandardCharsets.UTF_8)));
            offset += recordBytes(length);
        }
        return entries;
    }

    /**
     * The tail after a recovery.
     *
     * @param entries what {@link #recover} returned
     * @return the offset after the last valid record
     */
    public static long end(List<Entry> entries) {
        if (entries.isEmpty()) {
            return FIRST_RECORD;
        }
        Entry last = entries.getLast();
        return last.offset() + recordBytes(last.text().getBytes(StandardCharsets.UTF_8).length);
    }
}
