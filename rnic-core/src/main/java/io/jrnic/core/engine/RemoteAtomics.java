package io.jrnic.core.engine;

import io.jrnic.rdmap.AtomicOpcode;
import io.jrnic.rdmap.AtomicOps;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Executes RFC 7306 §5.1 atomic operations on registered memory at the responder, atomically with
 * respect to every other atomic of every QP and RNIC in the JVM (A-ATOM-011, A-ATOM-046: "from any
 * RDMAP Stream on the same RNIC" is the RFC's minimum).
 *
 * <p><b>Atomicity.</b> A native segment (and any segment whose memory is 8-byte aligned, e.g. over
 * a {@code long[]}) is accessed through the {@link ValueLayout#JAVA_LONG} {@link VarHandle}: the
 * operation is a {@code compareAndSet} loop (masked FetchAdd and CmpSwap read, compute with
 * {@link AtomicOps}, and retry if another thread changed the value in between), so it is atomic
 * against every other atomic on that address, whatever thread or RNIC runs it, and a CmpSwap whose
 * comparison fails stores nothing (A-ATOM-018). A heap segment over a {@code byte[]} cannot be
 * accessed with an aligned 8-byte access mode; its atomics run under one of {@value #STRIPES}
 * striped locks chosen by the array and the offset, the same lock for the same location, so they
 * are atomic against each other as well. Plain RDMA Reads and Writes to the same bytes are not
 * ordered against atomics (OPTIONAL per RFC 7306 §5.4 rule 2, A-ATOM-012).
 *
 * <p><b>Byte order</b> (RFC 7306 §5.1, A-ATOM-021, checklist AMB-27). The operands and the
 * original value are big-endian on the wire; the target in memory is read and written in
 * {@link #MEMORY_ORDER}, the platform's native order, so that an atomic counter is the same
 * {@code long} the local CPU sees through {@code ValueLayout.JAVA_LONG}. The requester writes the
 * original value into its result buffer in the same order.
 *
 * <p>Thread safety: stateless apart from the lock stripes; safe from any thread.
 */
public final class RemoteAtomics {
    /** The byte order of 64-bit atomic targets and result buffers in registered memory (AMB-27). */
    public static final ByteOrder MEMORY_ORDER = ByteOrder.nativeOrder();
    /** Lock stripes for memory that cannot take an aligned 8-byte CAS. */
    static final int STRIPES = 64;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final ValueLayout.OfLong UNALIGNED = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(MEMORY_ORDER);
    private static final Object[] LOCKS = new Object[STRIPES];

    static {
        for (int i = 0; i < STRIPES; i++) {
            LOCKS[i] = new Object();
        }
    }

    private RemoteAtomics() {
    }

    /**
     * The effective address of a target for the alignment check (AMB-28): the memory's address plus
     * the offset. For a native segment this is the virtual address; for a heap segment it is the
     * offset inside its array, whose elements start 8-byte aligned in the JVM.
     */
    static long address(MemorySegment memory, long offset) {
        return memory.address() + offset;
    }

    /**
     * Runs one atomic operation on the 8 bytes at {@code offset}, which the caller checked to be in
     * bounds and 8-byte aligned.
     *
     * @param memory        the target STag's memory
     * @param offset        the target's offset in {@code memory}
     * @param operation     FetchAdd or CmpSwap
     * @param addOrSwapData Add Data or Swap Data
     * @param addOrSwapMask Add Mask or Swap Mask
     * @param compareData   Compare Data (CmpSwap)
     * @param compareMask   Compare Mask (CmpSwap)
     * @return the original value (what the Atomic Response carries)
     */
    public static long execute(MemorySegment memory, long offset, AtomicOpcode operation, long addOrSwapData,
                        long addOrSwapMask, long compareData, long compareMask) {
        if (memory.isNative() || memory.maxByteAlignment() >= Long.BYTES) {
            while (true) {
                long original = (long) LONG.getVolatile(memory, offset);
                long updated = apply(original, operation, addOrSwapData, addOrSwapMask, compareData, compareMask);
                if (updated == original) {
                    return original; // a failed CmpSwap or an add of 0 stores nothing; read was volatile
                }
                if (LONG.compareAndSet(memory, offset, original, updated)) {
                    return original;
                }
            }
        }
        Object lock = LOCKS[Math.floorMod(System.identityHashCode(memory.heapBase().orElse(memory)) * 31
                + Long.hashCode(address(memory, offset)), STRIPES)];
        synchronized (lock) {
            long original = memory.get(UNALIGNED, offset);
            long updated = apply(original, operation, addOrSwapData, addOrSwapMask, compareData, compareMask);
            if (updated != original) {
                memory.set(UNALIGNED, offset, updated);
            }
            return original;
        }
    }

    /** Writes the original value into a requester's result buffer (memory byte order). */
    public static void writeResult(MemorySegment memory, long offset, long value) {
        memory.set(UNALIGNED, offset, value);
    }

    /** Reads an 8-byte value in memory byte order (tests and diagnostics). */
    public static long read(MemorySegment memory, long offset) {
        return memory.get(UNALIGNED, offset);
    }

    private static long apply(long original, AtomicOpcode operation, long addOrSwapData, long addOrSwapMask,
                              long compareData, long compareMask) {
        return operation == AtomicOpcode.FETCH_ADD
                ? AtomicOps.fetchAdd(original, addOrSwapData, addOrSwapMask)
                : AtomicOps.compareSwap(original, compareData, compareMask, addOrSwapData, addOrSwapMask);
    }
}
