package io.jrnic.core.engine;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.mem.QpMemoryView;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.wq.SendWqe;
import io.jrnic.rdmap.IwarpErrors;
import io.jrnic.wire.TerminateLayer;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Coverage-guided fuzzing (Jazzer) of the engine's receive path (issue 13): one {@link QpEngine}
 * over the in-memory link ({@link MemoryLinkPair}: real MPA framing and deframing, no SoftRnic),
 * with a {@link FakeQpContext} (the real STag table and PDs) and {@link RecordingUpcalls} acting as
 * the QP, receives fuzzer-chosen ULPDUs (raw DDP/RDMAP segments) as its peer would send them. Every
 * registered region sits inside a page filled with a guard pattern, and the receive WQEs' buffers
 * sit inside a region that only the local side may write, between guard bytes too. The link runs on
 * the test's thread ({@link MemoryLinkPair#onCallerThread}): each input is a fresh engine, link and
 * STag table with no thread started and none handed work. Each Terminate is checked against
 * {@link ReceiveClassifier}, a separate reading of the specs that names the code of the first fault.
 * The corpus is
 * under {@code src/test/resources/io/jrnic/core/engine/EngineReceiveFuzzTestInputs/}
 * (docs/reliability.md), written by {@link EngineFuzzSeeds}.
 */
class EngineReceiveFuzzTest {

    /** The guard pattern of every byte outside a registered region or a posted receive buffer. */
    static final byte GUARD_BYTE = (byte) 0xA5;
    /** Where a region starts in its page: 1 KiB of guard bytes before it, the rest of the page after. */
    static final int REGION_OFFSET = 1024;
    /** The link's MULPDU; a record is never longer (the peer's MPA would not send it). */
    static final int MULPDU = 1448;

    /** Slots of the STag table a record may name (mode bits 0-2); 6 is an STag never registered. */
    static final int WRITABLE = 0;
    static final int READ_ONLY = 1;
    static final int OTHER_PD = 2;
    static final int RECEIVE = 3;
    static final int SINK = 4;
    static final int WINDOW = 5;
    static final int UNREGISTERED = 6;
    static final int RAW = 7;
    /** Mode bit 3: the TO field of the record is an offset from the slot's base TO. */
    static final int RELATIVE_TO = 8;

    static final int[] REGION_LENGTHS = {256, 128, 128, 512, 256};
    /** Receive WQE buffers in the RECEIVE region: offset, length; the bytes between stay guards. */
    static final int[][] RECEIVE_BUFFERS = {{16, 100}, {150, 100}, {300, 100}};
    /** The window: bound to the WRITABLE region at this offset and length, remote write only. */
    static final int WINDOW_OFFSET = 64;
    static final int WINDOW_LENGTH = 64;
    /** The outstanding RDMA Read the engine posted before the input: into SINK at 0, this long. */
    static final int READ_LENGTH = 200;
    static final int UNREGISTERED_STAG = 0x00ABCD42;
    /** A page of guard bytes to compare the pages with. */
    private static final MemorySegment GUARDS = MemorySegment.ofArray(new byte[4096]).fill(GUARD_BYTE);

    /**
     * The largest read the link feeds its deframer, chosen by bits 4-6 of the first record's mode
     * byte: 0 (the seeds) reads up to 3000 bytes at a time, so an FPDU is mostly in one read; the
     * small ones cut FPDUs after their header, which is where the deframer places payload directly
     * into the target the engine names (tagged and untagged).
     */
    static final int[] MAX_CHUNKS = {3000, 1, 7, 19, 40, 90, 200, 600};

    /**
     * The receive path. Input: records of a mode byte, a two-byte length N (taken modulo MULPDU + 1)
     * and N bytes: one ULPDU as the peer's DDP hands it to MPA. The mode's bits 0-2 name a slot of
     * the STag table (the five regions, the window, an unregistered STag, or 7: keep the bytes) whose
     * STag is written into the ULPDU's STag field (tagged: the DDP STag; Read Request: the Data
     * Source STag; Send with Invalidate: the Invalidate STag); bit 3 makes its TO field an offset
     * from the slot's base TO, so that region edges are a small number away. Bits 4-6 of the first
     * record's mode pick the link's largest read ({@link #MAX_CHUNKS}).
     *
     * <p>Invariants after each input: no byte outside a registered region or a posted receive buffer
     * changed; no exception escaped the engine's event loop; a posted WR completed at most once;
     * when {@link ReceiveClassifier} finds a fault, exactly one Terminate was sent, as the last ULPDU
     * before the connection closed gracefully, with the Layer / Error Type / Error Code the checklist
     * names for the first fault (one of the codes the specs allow where they leave a choice), which
     * RFC 6580 §3 registers; when it finds none, or a Terminate from the peer first, no Terminate was
     * sent (R-TERM-048); and the event loop ran out of work.
     */
    @FuzzTest(maxDuration = "30s")
    void receive(byte[] input) {
        List<byte[]> ulpdus = new ArrayList<>();
        List<Integer> modes = new ArrayList<>();
        int i = 0;
        while (i + 3 <= input.length) {
            int mode = input[i] & 0xFF;
            int n = ((input[i + 1] & 0xFF) << 8 | input[i + 2] & 0xFF) % (MULPDU + 1);
            n = Math.min(n, input.length - i - 3);
            byte[] u = new byte[n];
            System.arraycopy(input, i + 3, u, 0, n);
            i += 3 + n;
            ulpdus.add(u);
            modes.add(mode);
        }
        if (ulpdus.isEmpty()) {
            return;
        }
        try (World w = new World(MAX_CHUNKS[modes.getFirst() >>> 4 & 7])) {
            for (int k = 0; k < ulpdus.size(); k++) {
                w.patch(ulpdus.get(k), modes.get(k));
            }
            ReceiveClassifier.Verdict expected = w.classifier().classify(ulpdus);
            w.link.b.inject(ulpdus.toArray(byte[][]::new));
            w.check(expected);
        }
    }

    /** One engine, its memory and link, built fresh for each input. */
    static final class World implements AutoCloseable {
        final FakeRnic mem = new FakeRnic();
        final MemoryLinkPair link;
        final SoftProtectionDomain pd = mem.pd();
        final SoftProtectionDomain otherPd = mem.pd();
        final FakeQpContext context = new FakeQpContext(1, pd, mem.table);
        final RecordingUpcalls upcalls = new RecordingUpcalls(pd);
        final MemorySegment[] pages = new MemorySegment[REGION_LENGTHS.length];
        final int[] stags = new int[8];
        final long[] baseTos = new long[8];
        final QpEngine engine;
        final SendWqe read;

        World(int maxChunk) {
            link = MemoryLinkPair.onCallerThread(MemoryLinkPair.Options.defaults().withMulpdu(MULPDU)
                    .withMaxChunk(maxChunk));
            int[] rights = {
                AccessRights.LOCAL | AccessRights.REMOTE_READ | AccessRights.REMOTE_WRITE | AccessRights.BIND_WINDOW,
                AccessRights.LOCAL | AccessRights.REMOTE_READ,
                AccessRights.LOCAL | AccessRights.REMOTE_READ | AccessRights.REMOTE_WRITE,
                AccessRights.LOCAL,                                  // receive buffers: no remote access
                AccessRights.LOCAL | AccessRights.REMOTE_WRITE,      // the Read's sink
            };
            for (int r = 0; r < REGION_LENGTHS.length; r++) {
                pages[r] = mem.memory(1);
                pages[r].fill(GUARD_BYTE);
                MemoryRegion mr = (r == OTHER_PD ? otherPd : pd).registerMemory(
                        pages[r].asSlice(REGION_OFFSET, REGION_LENGTHS[r]), rights[r]);
                stags[r] = mr.stag();
                baseTos[r] = mr.query().baseTo();
            }
            MemoryWindow mw = pd.allocateWindow();
            int windowStag = mw.stag() & ~0xFF | 0x77;
            long va = baseTos[WRITABLE] + WINDOW_OFFSET;
            if (mem.manager.bind(new BindingQp(pd), windowStag, stags[WRITABLE], va, WINDOW_LENGTH,
                    AddressType.VA_BASED, AccessRights.REMOTE_WRITE) != null) {
                throw new AssertionError("the window did not bind");
            }
            stags[WINDOW] = windowStag;
            baseTos[WINDOW] = va;
            stags[UNREGISTERED] = UNREGISTERED_STAG;
            for (int k = 0; k < RECEIVE_BUFFERS.length; k++) {
                upcalls.postReceive(k, stags[RECEIVE], baseTos[RECEIVE] + RECEIVE_BUFFERS[k][0],
                        RECEIVE_BUFFERS[k][1]);
            }
            upcalls.actLikeQp = true;
            engine = new QpEngine(link.a);
            upcalls.engine = engine;
            engine.start(context, upcalls, null);
            // an outstanding RDMA Read, so that a Read Response has somewhere to go (RFC 5040 §4.5)
            read = new SendWqe(4, 64);
            read.copyFrom(new SendWorkRequest().wrId(100).opcode(Opcode.RDMA_READ)
                    .sge(stags[SINK], baseTos[SINK], READ_LENGTH).remote(0x4242_4201, 0x1000), true);
            read.inFlight = true;
            engine.transmit(read);
            run();
        }

        /** The model of this world for the reference reading of an input. */
        ReceiveClassifier classifier() {
            List<ReceiveClassifier.Stag> model = List.of(
                    new ReceiveClassifier.Stag(stags[WRITABLE], baseTos[WRITABLE], REGION_LENGTHS[WRITABLE], true, true, true),
                    new ReceiveClassifier.Stag(stags[READ_ONLY], baseTos[READ_ONLY], REGION_LENGTHS[READ_ONLY], true, false, true),
                    new ReceiveClassifier.Stag(stags[OTHER_PD], baseTos[OTHER_PD], REGION_LENGTHS[OTHER_PD], false, true, true),
                    new ReceiveClassifier.Stag(stags[RECEIVE], baseTos[RECEIVE], REGION_LENGTHS[RECEIVE], true, false, false),
                    new ReceiveClassifier.Stag(stags[SINK], baseTos[SINK], REGION_LENGTHS[SINK], true, true, false),
                    new ReceiveClassifier.Stag(stags[WINDOW], baseTos[WINDOW], WINDOW_LENGTH, true, true, false));
            return new ReceiveClassifier(model, stags[SINK], baseTos[SINK], READ_LENGTH, RECEIVE_BUFFERS.length,
                    RECEIVE_BUFFERS[0][1]);
        }

        /** Runs the event loop until it has nothing left to do; an exception from it is a finding. */
        void run() {
            try {
                link.settle();
            } catch (Throwable e) {
                throw new AssertionError("an exception escaped the engine; upcalls " + upcalls.names(), e);
            }
        }

        /** Writes the mode's STag and TO into the ULPDU's fields (see {@link #receive}). */
        void patch(byte[] u, int mode) {
            int slot = mode & 7;
            if (slot == RAW || u.length < 2) {
                return;
            }
            ByteBuffer b = ByteBuffer.wrap(u);
            boolean tagged = (u[0] & 0x80) != 0;
            int opcode = u[1] & 0x0F;
            int stagAt;
            int toAt;
            if (tagged) {
                stagAt = 2;                                     // RFC 5041 §4.2
                toAt = 6;
            } else if (opcode == 1) {
                stagAt = 18 + 16;                               // RFC 5040 §4.4: Data Source STag, TO
                toAt = 18 + 20;
            } else {
                stagAt = 2;                                     // RFC 5040 §4.3: Invalidate STag
                toAt = -1;
            }
            if (u.length >= stagAt + 4) {
                b.putInt(stagAt, stags[slot]);
            }
            if ((mode & RELATIVE_TO) != 0 && toAt >= 0 && u.length >= toAt + 8) {
                b.putLong(toAt, baseTos[slot] + b.getLong(toAt));
            }
        }

        /** Lets the engine finish with the input, then checks the invariants. */
        void check(ReceiveClassifier.Verdict expected) {
            run();
            checkGuards();
            checkCompletions();
            boolean failed = upcalls.names().contains("remoteError") || terminates() > 0;
            if (expected.kind() == ReceiveClassifier.Kind.REJECTED) {
                checkTerminate(expected);
            } else if (failed) {
                throw new AssertionError("expected " + expected + ", but the engine reported an error or sent a "
                        + "Terminate; upcalls " + upcalls.calls);
            }
        }

        private int terminates() {
            int n = 0;
            for (byte[] u : List.copyOf(link.a.sentUlpdus)) {
                if (isTerminate(u)) {
                    n++;
                }
            }
            return n;
        }

        private static boolean isTerminate(byte[] u) {
            // RFC 5040 §4.8: untagged, QN 2, opcode 7
            return u.length >= 18 && (u[0] & 0x80) == 0 && (u[1] & 0x0F) == 7 && ByteBuffer.wrap(u).getInt(6) == 2;
        }

        private void checkGuards() {
            for (int r = 0; r < pages.length; r++) {
                long end = REGION_OFFSET + REGION_LENGTHS[r];
                if (r == RECEIVE) {
                    long from = 0;
                    for (int[] buffer : RECEIVE_BUFFERS) {
                        checkGuard(r, from, REGION_OFFSET + buffer[0]);
                        from = REGION_OFFSET + buffer[0] + buffer[1];
                    }
                    checkGuard(r, from, end);
                } else {
                    checkGuard(r, 0, REGION_OFFSET);
                }
                checkGuard(r, end, pages[r].byteSize());
            }
        }

        /** Bytes [from, to) of region r's page still hold the guard pattern (every byte compared). */
        private void checkGuard(int r, long from, long to) {
            // plain check, not AssertJ: this runs after every input
            long k = MemorySegment.mismatch(pages[r], from, to, GUARDS, 0, to - from);
            if (k >= 0) {
                throw new AssertionError("byte " + (from + k) + " of region " + r + "'s page (region at "
                        + REGION_OFFSET + ", " + REGION_LENGTHS[r] + " bytes) was written");
            }
        }

        private void checkCompletions() {
            Set<Object> completed = new HashSet<>();
            int reads = 0;
            for (RecordingUpcalls.Call c : upcalls.calls) {
                if (c.name().equals("receiveCompleted") && !completed.add(c.receive())) {
                    throw new AssertionError("a receive WQE completed twice: " + upcalls.names());
                }
                if (c.name().equals("sendCompleted") || c.name().equals("streamAborted") && c.send() != null) {
                    if (c.send() != read || ++reads > 1) {
                        throw new AssertionError("the Read completed twice or an unknown WQE did: " + upcalls.names());
                    }
                }
            }
        }

        private void checkTerminate(ReceiveClassifier.Verdict expected) {
            List<byte[]> sent = List.copyOf(link.a.sentUlpdus);
            if (terminates() != 1) {
                throw new AssertionError(terminates() + " Terminates sent, expected " + expected + "; upcalls "
                        + upcalls.names());
            }
            byte[] last = sent.getLast();
            if (!isTerminate(last)) {
                throw new AssertionError("the Terminate is not the last ULPDU sent (RFC 5040 §6.2.1)");
            }
            int control = ByteBuffer.wrap(last).getShort(18) & 0xFFFF;      // RFC 5040 §4.8 Figure 10
            int layer = control >>> 12;
            int type = control >>> 8 & 0xF;
            int code = control & 0xFF;
            if (layer != TerminateLayer.RDMAP.wireValue() && layer != TerminateLayer.DDP.wireValue()
                    || IwarpErrors.fromWire(layer, type, code) == null) {
                throw new AssertionError(String.format("Terminate %d/%d/0x%02x is not an RDMAP or DDP error "
                        + "RFC 6580 §3 registers", layer, type, code));
            }
            if (!expected.codes().contains(control & 0xFFFF)) {
                throw new AssertionError(String.format("Terminate %d/%d/0x%02x, expected %s; upcalls %s", layer, type,
                        code, expected, upcalls.names()));
            }
            FpduLink.Closure c = link.a.closure;
            if (c != FpduLink.Closure.LOCAL_CLOSE && c != FpduLink.Closure.REMOTE_CLOSE) {
                throw new AssertionError("the link ended with " + c + ", not a graceful close after the Terminate");
            }
        }

        @Override
        public void close() {
            link.close();
            mem.close();
        }
    }

    /** The QP as memory sees it for the one Bind of the window (Verbs §7.10.2). */
    private record BindingQp(SoftProtectionDomain pd) implements QpMemoryView {
        @Override
        public int id() {
            return 1;
        }

        @Override
        public boolean privileged() {
            return false;
        }

        @Override
        public boolean bindWindows() {
            return true;
        }

        @Override
        public boolean inboundRead() {
            return true;
        }

        @Override
        public boolean inboundWrite() {
            return true;
        }

        @Override
        public void addBoundWindows(int delta) {
        }
    }
}
