package io.jrnic.core.engine;

import io.jrnic.api.Counters;
import io.jrnic.api.internal.ApiAccess;
import io.jrnic.api.internal.CounterLayout;
import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The live traffic counters of one queue pair ({@link io.jrnic.api.QueuePair#counters}), in the
 * slots of {@link CounterLayout}. Counting is a few plain adds on the data path: the engine of the
 * QP's connection is the single writer (its event loop), so an increment is a plain read of its own
 * value and an opaque write, which other threads see whole (no torn long) with an opaque read, and
 * which costs no fence on x86 or ARM. Nothing is allocated (AllocationTest, RxAllocationTest,
 * TxAllocationTest).
 *
 * <p>Thread safety: {@code add} and the counting methods on the writer thread only; the reads from
 * any thread.
 */
public final class QpCounters {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int TERMINATE = RdmapOpcode.TERMINATE.wireValue();

    private final long[] values = new long[CounterLayout.LENGTH];

    /** Adds to one counter (writer thread only). */
    void add(int slot, long n) {
        SLOT.setOpaque(values, slot, values[slot] + n);
    }

    /**
     * One FPDU handed to the link: its ULPDU is {@code headerLength} bytes at {@code header} (the
     * DDP header first, RFC 5041 §4) followed by {@code payloadLength} bytes of memory. A message is
     * counted with its last segment (L=1), its bytes with every segment.
     */
    void sent(MemorySegment header, long offset, int headerLength, int payloadLength, RdmapFeatures features) {
        int control = header.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
        int op = features.opcodeBits(header.get(ValueLayout.JAVA_BYTE, offset + 1) & 0xFF);
        add(CounterLayout.FPDUS_SENT, 1);
        if (op >= CounterLayout.TYPES) {
            return;
        }
        add(CounterLayout.BYTES_SENT + op, headerLength + payloadLength - DdpHeaderFlyweight.headerLength(control));
        if ((control & DdpHeaderFlyweight.L_FLAG) != 0) {
            add(CounterLayout.MESSAGES_SENT + op, 1);
            if (op == TERMINATE) {
                add(CounterLayout.TERMINATES_SENT, 1);
            }
        }
    }

    /**
     * One data FPDU of an SQ Send or Write, whose opcode the caller knows: the same count as
     * {@link #sent} without reading the header back.
     *
     * @param op           the RDMAP opcode's wire value (Send types, RDMA Write, Immediate Data)
     * @param payloadBytes the DDP payload octets of the segment
     * @param last         whether the segment ends its message (L=1)
     */
    void sentData(int op, int payloadBytes, boolean last) {
        add(CounterLayout.FPDUS_SENT, 1);
        add(CounterLayout.BYTES_SENT + op, payloadBytes);
        if (last) {
            add(CounterLayout.MESSAGES_SENT + op, 1);
        }
    }

    /** One valid DDP segment received: its DDP payload, and the message with its last segment. */
    void received(RdmapOpcode opcode, int payloadLength, boolean last) {
        int op = opcode.wireValue();
        add(CounterLayout.BYTES_RECEIVED + op, payloadLength);
        if (last) {
            add(CounterLayout.MESSAGES_RECEIVED + op, 1);
        }
    }

    /** Reads one counter (any thread). */
    long get(int slot) {
        return (long) SLOT.getOpaque(values, slot);
    }

    /** Adds every counter to {@code into} (any thread; opaque reads, not atomic across counters). */
    public void addTo(long[] into) {
        for (int i = 0; i < into.length; i++) {
            into[i] += (long) SLOT.getOpaque(values, i);
        }
    }

    /** Fills a holder with this QP's counters. */
    public Counters readInto(Counters into) {
        long[] v = ApiAccess.get().counterValues(into);
        java.util.Arrays.fill(v, 0);
        addTo(v);
        return into;
    }
}
