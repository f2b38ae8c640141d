package io.jrnic.core.engine;

import io.jrnic.api.Counters;
import io.jrnic.api.MessageType;
import io.jrnic.api.internal.CounterLayout;
import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapOpcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A QP's traffic counters on their own (docs/observability.md, issue 13): what one FPDU handed to
 * the link counts, and how the counters reach the application's holder. A holder read again shows
 * the counters as they are, not added to what it showed before; {@code addTo} is what sums the
 * QPs of an RNIC.
 */
class QpCountersTest {
    private final QpCounters counters = new QpCounters();

    /** An untagged header whose first two bytes are DDP's control byte and RDMAP's (RFC 5041 §4, RFC 5040 §4.2). */
    private static MemorySegment header(RdmapOpcode opcode, boolean last) {
        MemorySegment h = MemorySegment.ofArray(new byte[32]);
        h.set(ValueLayout.JAVA_BYTE, 0, (byte) (last ? DdpHeaderFlyweight.L_FLAG | 0x01 : 0x01));
        h.set(ValueLayout.JAVA_BYTE, 1, (byte) opcode.controlByte(RdmapFeatures.RFC_5040.version()));
        return h;
    }

    @Test
    void aMessageCountsWithItsLastSegmentAndItsBytesWithEverySegment() {
        int untagged = DdpHeaderFlyweight.headerLength(0x01);
        counters.sent(header(RdmapOpcode.SEND, false), 0, untagged, 1000, RdmapFeatures.RFC_5040);
        counters.sent(header(RdmapOpcode.SEND, true), 0, untagged, 24, RdmapFeatures.RFC_5040);
        int send = MessageType.SEND.ordinal();
        assertThat(counters.get(CounterLayout.FPDUS_SENT)).isEqualTo(2);
        assertThat(counters.get(CounterLayout.MESSAGES_SENT + send)).isEqualTo(1);
        assertThat(counters.get(CounterLayout.BYTES_SENT + send)).isEqualTo(1024);
        assertThat(counters.get(CounterLayout.TERMINATES_SENT)).isZero();

        counters.received(RdmapOpcode.SEND, 1000, false);
        counters.received(RdmapOpcode.SEND, 24, true);
        assertThat(counters.get(CounterLayout.MESSAGES_RECEIVED + send)).isEqualTo(1);
        assertThat(counters.get(CounterLayout.BYTES_RECEIVED + send)).isEqualTo(1024);
    }

    /** Reading into a holder that showed an earlier read replaces its values (Counters' javadoc: a snapshot). */
    @Test
    void aHolderReadAgainShowsTheCountersNotTheirSum() {
        counters.add(CounterLayout.CRC_ERRORS, 2);
        counters.add(CounterLayout.FPDUS_RECEIVED, 5);
        Counters holder = new Counters();
        counters.readInto(holder);
        counters.add(CounterLayout.FPDUS_RECEIVED, 1);
        assertThat(counters.readInto(holder)).isSameAs(holder);
        assertThat(holder.crcErrors()).isEqualTo(2);
        assertThat(holder.fpdusReceived()).isEqualTo(6);
    }

    /** The RNIC's total: every QP's counters added into one array. */
    @Test
    void addToSumsIntoTheArray() {
        counters.add(CounterLayout.TERMINATES_RECEIVED, 1);
        counters.add(CounterLayout.TERMINATES_RECEIVED, 2);
        long[] total = new long[CounterLayout.LENGTH];
        total[CounterLayout.TERMINATES_RECEIVED] = 10;
        counters.addTo(total);
        counters.addTo(total);
        assertThat(total[CounterLayout.TERMINATES_RECEIVED]).isEqualTo(16);
        assertThat(total[CounterLayout.CRC_ERRORS]).isZero();
    }
}
