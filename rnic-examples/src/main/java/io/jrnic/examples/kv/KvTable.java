package io.jrnic.examples.kv;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The layout of the key-value store's table, shared by {@link KvServer} (which writes slots with
 * the CPU) and {@link KvClient} (which reads them with RDMA Reads). The table is an array of
 * {@value #SLOT_BYTES}-byte slots with linear probing; each slot is self-checking:
 *
 * <pre>
 *   0  version   8 bytes  incremented by every PUT of the slot
 *   8  crc32c    4 bytes  over bytes [0, 8) and [12, 256): the rest of the slot
 *  12  keyLen    2 bytes  0: the slot is empty
 *  14  valueLen  2 bytes
 *  16  key      48 bytes
 *  64  value   192 bytes
 * </pre>
 *
 * A client's RDMA Read may run while the server rewrites the slot (RFC 5040 §5.5: the data source
 * buffer changes under the Read, the result is indeterminate), so it can see a mix of the old and
 * the new bytes. The checksum catches that whatever order the bytes were written and read in: the
 * client reads the slot again. There are no deletes. All multi-byte fields are in native byte order (both sides run the
 * same code).
 *
 * <p>Thread safety: stateless; a slot is written by one thread at a time (the server's lock).
 */
public final class KvTable {
    /** Bytes per slot. */
    public static final int SLOT_BYTES = 256;
    /** Longest key in bytes (UTF-8). */
    public static final int MAX_KEY = 48;
    /** Longest value in bytes (UTF-8). */
    public static final int MAX_VALUE = 192;
    /** Slots a key may be stored away from its home slot (linear probing). */
    public static final int MAX_PROBES = 8;

    private static final int VERSION = 0;
    private static final int CRC = 8;
    private static final int KEY_LENGTH = 12;
    private static final int VALUE_LENGTH = 14;
    private static final int KEY = 16;
    private static final int VALUE = 64;

    private KvTable() {
    }

    /**
     * The slot where the search for a key starts.
     *
     * @param key   the key's bytes
     * @param slots the table's slot count, a power of two
     * @return the home slot
     */
    public static int home(byte[] key, int slots) {
        CRC32C crc = new CRC32C();
        crc.update(key);
        return (int) crc.getValue() & (slots - 1);
    }

    /**
     * Writes a slot (server side), the checksum last. The slot is overwritten in place, never
     * cleared first: a Read that races the update may see a mix of old and new bytes (which the
     * checksum catches) but never a zero key length that would make the slot look {@link #empty}.
     *
     * @param slot    the slot's {@value #SLOT_BYTES} bytes
     * @param version the slot's new version (1 or more)
     * @param key     the key, at most {@value #MAX_KEY} bytes
     * @param value   the value, at most {@value #MAX_VALUE} bytes
     */
    public static void write(MemorySegment slot, long version, byte[] key, byte[] value) {
        slot.set(ValueLayout.JAVA_LONG, VERSION, version);
        slot.set(ValueLayout.JAVA_SHORT, KEY_LENGTH, (short) key.length);
        slot.set(ValueLayout.JAVA_SHORT, VALUE_LENGTH, (short) value.length);
        MemorySegment.copy(key, 0, slot, ValueLayout.JAVA_BYTE, KEY, key.length);
        MemorySegment.copy(value, 0, slot, ValueLayout.JAVA_BYTE, VALUE, value.length);
        slot.asSlice(VALUE + value.length).fill((byte) 0); // no stale bytes of a longer old value
        slot.set(ValueLayout.JAVA_INT, CRC, checksum(slot));
    }

    /**
     * Whether a slot's checksum matches its contents: false for a torn read.
     *
     * @param slot a copy of the slot
     * @return true when intact
     */
    public static boolean intact(MemorySegment slot) {
        return slot.get(ValueLayout.JAVA_INT, CRC) == checksum(slot);
    }

    /**
     * Whether a slot was never written. Decided by the key length alone, checked before
     * {@link #intact} (a never-written slot is all zeros, whose checksum field does not match):
     * keys are never empty and never deleted, and a slot only ever holds one key, so its key
     * length is rewritten with the same value and even a torn read cannot see 0 there once the
     * first PUT of the slot completed.
     *
     * @param slot a copy of the slot
     * @return true when it holds no key
     */
    public static boolean empty(MemorySegment slot) {
        return slot.get(ValueLayout.JAVA_SHORT, KEY_LENGTH) == 0;
    }

    /**
     * Whether a slot holds a key.
     *
     * @param slot a copy of the slot
     * @param key  the key's bytes
     * @return true when the slot's key is {@code key}
     */
    public static boolean holds(MemorySegment slot, byte[] key) {
        int length = slot.get(ValueLayout.JAVA_SHORT, KEY_LENGTH);
        return length == key.length && slot.asSlice(KEY, length).mismatch(MemorySegment.ofArray(key)) == -1;
    }

    /**
     * A slot's version.
     *
     * @param slot a copy of the slot
     * @return the version
     */
    public static long version(MemorySegment slot) {
        return slot.get(ValueLayout.JAVA_LONG, VERSION);
    }

    /**
     * A slot's value.
     *
     * @param slot a copy of the slot
     * @return the value's bytes
     */
    public static byte[] value(MemorySegment slot) {
        return slot.asSlice(VALUE, slot.get(ValueLayout.JAVA_SHORT, VALUE_LENGTH)).toArray(ValueLayout.JAVA_BYTE);
    }

    private static int checksum(MemorySegment slot) {
        CRC32C crc = new CRC32C();
        crc.update(slot.asSlice(VERSION, 8).asByteBuffer());
        ByteBuffer rest = slot.asSlice(KEY_LENGTH, SLOT_BYTES - KEY_LENGTH).asByteBuffer();
        crc.update(rest);
        return (int) crc.getValue();
    }
}
