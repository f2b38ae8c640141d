package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.QpState;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where an untagged message lands across the receive SGL (RFC 5040 §5.3, RFC 5041 §5.3 and §7.1
 * check 4): each byte at its message offset's place in the SGEs, in order, and not one byte before
 * or after an SGE (the bytes around each one are guards). The SGL has four SGEs in two regions,
 * none at its region's base TO, so an SGE's TO and its region's base are told apart. A raw peer
 * sends one Send split into segments whose message offsets fall exactly on SGE boundaries, inside
 * an SGE (placed straight into it) or across several (scattered by copy).
 */
class EngineRxScatterTest extends EngineFixture {
    private static final int A_AT = 100;
    private static final int A_LEN = 32;
    private static final int B_AT = 500;
    private static final int B_LEN = 48;
    private static final int C_AT = 2000;
    private static final int C_LEN = 16;
    private static final int D_AT = 3000;
    private static final int D_LEN = 8;
    private static final int SGL = A_LEN + B_LEN + C_LEN + D_LEN;

    private Side a;
    private MemoryRegion one;
    private MemoryRegion two;

    /**
     * The engine with a raw peer and one receive posted: SGEs A and C in region one, B and D in region two.
     * The link hands the bytes over in chunks of at most 8, so every FPDU arrives in pieces and the
     * engine is asked for a placement target after each DDP header (header-then-payload).
     */
    private void receivePosted() {
        a = withRawPeer(MemoryLinkPair.Options.defaults().withMaxChunk(8));
        one = a.region(4096, RIGHTS);
        two = a.region(4096, RIGHTS);
        a.qp.postReceive(new ReceiveWorkRequest().wrId(5)
                .sge(one.stag(), a.base(one) + A_AT, A_LEN)
                .sge(two.stag(), a.base(two) + B_AT, B_LEN)
                .sge(one.stag(), a.base(one) + C_AT, C_LEN)
                .sge(two.stag(), a.base(two) + D_AT, D_LEN)); // as many SGEs as the QP allows
    }

    private static byte[] message(int length) {
        byte[] m = new byte[length];
        for (int i = 0; i < length; i++) {
            m[i] = (byte) (i + 1); // no zero: a byte out of place or missing shows
        }
        return m;
    }

    /** Segments of one Send of {@code length} bytes cut at the given message offsets (the last has L=1). */
    private static byte[][] segments(byte[] m, String cuts) {
        List<Integer> at = new ArrayList<>();
        at.add(0);
        if (!cuts.isEmpty()) {
            Arrays.stream(cuts.split(",")).map(Integer::parseInt).forEach(at::add);
        }
        at.add(m.length);
        byte[][] segments = new byte[at.size() - 1][];
        for (int i = 0; i < segments.length; i++) {
            int from = at.get(i);
            int to = at.get(i + 1);
            segments[i] = Wire.untagged(Wire.SEND, to == m.length, 0, 0, 1, from, Arrays.copyOfRange(m, from, to));
        }
        return segments;
    }

    /** Payload bytes of the segments that lie inside one SGE: those are placed straight into it. */
    private static long inOneSge(byte[][] segments) {
        long n = 0;
        for (byte[] s : segments) {
            int from = java.nio.ByteBuffer.wrap(s).getInt(14);
            int to = from + s.length - 18;
            boolean spans = false;
            for (int boundary : new int[] {A_LEN, A_LEN + B_LEN, A_LEN + B_LEN + C_LEN}) {
                spans |= from < boundary && to > boundary;
            }
            if (!spans) {
                n += to - from;
            }
        }
        return n;
    }

    /**
     * One Send, cut at the given message offsets into segments sent in one burst, lands SGE by SGE
     * and nowhere else; a Send shorter than the SGL leaves the rest of the last SGE untouched.
     */
    @ParameterizedTest(name = "cut at [{0}]")
    @ValueSource(strings = {
        "32,80,96/104", // each segment exactly one SGE: both ends on SGE boundaries (placed straight)
        "/104",         // one segment spanning all four SGEs (scattered)
        "20,90/104",    // A's tail, all of B, C's head in one segment; the others inside A and C to D
        "32,40,80/104", // starts exactly at B's start and ends inside B, then inside B to its end
        "31,81,97/104", // one byte short of each boundary: spans each boundary by one byte
        "20/90"         // a shorter Send whose last segment spans from A into C and ends inside C
    })
    void sendCutAtAndAroundSgeBoundariesLandsExactlyInItsSges_RFC5040_5_3_RFC5041_5_3(String cutsAndLength) {
        receivePosted();
        String[] c = cutsAndLength.split("/", -1);
        int length = Integer.parseInt(c[1]);
        byte[] m = message(length);
        byte[][] segments = segments(m, c[0]);
        raw.send(segments);
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wc.byteLength()).isEqualTo(length);

        byte[] whole = Arrays.copyOf(m, SGL); // what the SGL holds afterwards: zeros past the message
        byte[] expectOne = new byte[4096];
        System.arraycopy(whole, 0, expectOne, A_AT, A_LEN);
        System.arraycopy(whole, A_LEN + B_LEN, expectOne, C_AT, C_LEN);
        byte[] expectTwo = new byte[4096];
        System.arraycopy(whole, A_LEN, expectTwo, B_AT, B_LEN);
        System.arraycopy(whole, A_LEN + B_LEN + C_LEN, expectTwo, D_AT, D_LEN);
        assertThat(hex(bytes(a.memory(one), 0, 4096))).isEqualTo(hex(expectOne));
        assertThat(hex(bytes(a.memory(two), 0, 4096))).isEqualTo(hex(expectTwo));
        // a segment inside one SGE is placed straight into it, any other is scattered by copy
        long direct = inOneSge(segments);
        assertThat(a.engine.bytesPlacedDirect()).isEqualTo(direct);
        assertThat(a.engine.bytesCopied()).isEqualTo(length - direct);
        link.settle();
        assertThat(raw.received).isEmpty();
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    /**
     * An SGE whose region is deregistered after the Send took the receive (Verbs §7.4.1 checked it
     * then) no longer maps its range: nothing is placed there, neither by scatter (a segment across
     * it) nor straight into it (a segment exactly in it), and the receive fails with Invalid STag.
     */
    @ParameterizedTest(name = "cut at [{0}]")
    @ValueSource(strings = {"20", "20,32,80"})
    void sgeDeregisteredWhileTheSendIsArrivingFailsTheReceive_V_MR_76(String cuts) {
        receivePosted();
        byte[] m = message(SGL);
        byte[][] segments = segments(m, cuts);
        raw.send(segments[0]); // inside A: the receive is taken, its SGEs checked
        await(() -> a.qp.counters().fpdusReceived() == 1, "the first segment");
        two.close();
        raw.send(Arrays.copyOfRange(segments, 1, segments.length)); // the rest, over B (no longer registered)
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(5L);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.INVALID_STAG);
        // A was written before B failed, and nothing around it (C depends on where the cut falls)
        assertThat(bytes(a.memory(one), A_AT, A_LEN)).isEqualTo(Arrays.copyOf(m, A_LEN));
        assertThat(bytes(a.memory(one), 0, A_AT)).containsOnly(0);
        assertThat(bytes(a.memory(one), A_AT + A_LEN, C_AT - A_AT - A_LEN)).containsOnly(0);
    }

    /** One byte more than the SGL holds: DDP's check 4 fails, 1/2/0x05, and no byte is placed. */
    @Test
    void sendOneByteLongerThanTheSglIsMessageTooLongAndPlacesNothing_R_ERR_018_V_WR_10() {
        receivePosted();
        byte[] s = Wire.untagged(Wire.SEND, true, 0, 0, 1, 0, message(SGL + 1));
        raw.send(s);
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        await(() -> raw.closure != null, "the LLP close");
        assertThat(raw.closure).isEqualTo(FpduLink.Closure.REMOTE_CLOSE);
        assertThat(raw.received).hasSize(1);
        // RFC 5041 §7.2: DDP, untagged buffer, message too long, with the segment's DDP header
        assertBytes(raw.received.getFirst(), Wire.TERMINATE_HEADER + String.format(" 1205c000 %04x ", SGL + 1)
                + hex(Arrays.copyOf(s, 18)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LOCAL_QP_CATASTROPHIC); // the engine's Figure 24 row
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(5L);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.BASE_AND_BOUNDS_VIOLATION);
        assertThat(bytes(a.memory(one), 0, 4096)).containsOnly(0);
        assertThat(bytes(a.memory(two), 0, 4096)).containsOnly(0);
    }
}
