package io.jrnic.core.engine;

import io.jrnic.ddp.DdpError;
import io.jrnic.rdmap.RdmapError;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.jrnic.core.engine.EngineReceiveFuzzTest.OTHER_PD;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.RAW;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.READ_LENGTH;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.READ_ONLY;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.RECEIVE;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.RELATIVE_TO;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.SINK;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.UNREGISTERED;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.WINDOW;
import static io.jrnic.core.engine.EngineReceiveFuzzTest.WRITABLE;

/**
 * Writes the seed corpus of {@link EngineReceiveFuzzTest}: ULPDUs made by the RDMAP encoder, valid
 * (a Write into each writable region and the window, Sends, a Read Request, the Read Response of the
 * outstanding Read, a Terminate) and with the classic faults (wrong STag, wrong PD, no remote write,
 * TO past the end, bad MSN, bad opcode, bad versions, too long a Send). Not a test; run it after a
 * change of the input layout (docs/reliability.md), from the checkout's root after a test-compile:
 * {@code java -cp rnic-mpa/target/classes:rnic-ddp/target/classes:rnic-rdmap/target/classes:rnic-api/target/classes:rnic-core/target/classes:rnic-core/target/test-classes
 * io.jrnic.core.engine.EngineFuzzSeeds rnic-core/src/test/resources}
 */
public final class EngineFuzzSeeds {
    private static final RdmapMessageEncoder ENCODER = new RdmapMessageEncoder(RdmapFeatures.RFC_5040);

    private EngineFuzzSeeds() {
    }

    /**
     * Writes the seeds.
     *
     * @param args the test resources root
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0], "io", "jrnic", "core", "engine", "EngineReceiveFuzzTestInputs", "receive");
        Files.createDirectories(dir);
        int rel = RELATIVE_TO;
        write(dir, "write-writable", new Input().write(WRITABLE | rel, 0, 256, true));
        write(dir, "write-writable-two-segments", new Input().write(WRITABLE | rel, 0, 100, false)
                .write(WRITABLE | rel, 100, 156, true));
        write(dir, "write-other-pd-region", new Input().write(OTHER_PD | rel, 0, 64, true));
        write(dir, "write-window", new Input().write(WINDOW | rel, 0, 64, true));
        write(dir, "write-window-past-end", new Input().write(WINDOW | rel, 60, 8, true));
        write(dir, "write-window-below-base", new Input().write(WINDOW | rel, -1, 8, true));
        write(dir, "write-sink", new Input().write(SINK | rel, 0, 256, true));
        write(dir, "write-read-only", new Input().write(READ_ONLY | rel, 0, 16, true));
        write(dir, "write-receive-region", new Input().write(RECEIVE | rel, 0, 16, true));
        write(dir, "write-unregistered", new Input().write(UNREGISTERED | rel, 0, 16, true));
        write(dir, "write-past-end", new Input().write(WRITABLE | rel, 250, 16, true));
        write(dir, "write-ends-at-end", new Input().write(WRITABLE | rel, 240, 16, true));
        write(dir, "write-below-base", new Input().write(WRITABLE | rel, -8, 16, true));
        write(dir, "write-to-wrap", new Input().write(WRITABLE, -8, 16, true));
        write(dir, "write-zero-length", new Input().write(UNREGISTERED | rel, 0, 0, true));
        write(dir, "send", new Input().send(RdmapOpcode.SEND, 1, 0, 60, true, 0));
        write(dir, "send-three", new Input().send(RdmapOpcode.SEND, 1, 0, 100, true, 0)
                .send(RdmapOpcode.SEND_SE, 2, 0, 10, true, 0).send(RdmapOpcode.SEND, 3, 0, 0, true, 0));
        write(dir, "send-two-segments", new Input().send(RdmapOpcode.SEND, 1, 0, 50, false, 0)
                .send(RdmapOpcode.SEND, 1, 50, 50, true, 0));
        write(dir, "send-too-long", new Input().send(RdmapOpcode.SEND, 1, 0, 101, true, 0));
        write(dir, "send-no-buffer", new Input().send(RdmapOpcode.SEND, 1, 0, 1, true, 0)
                .send(RdmapOpcode.SEND, 2, 0, 1, true, 0).send(RdmapOpcode.SEND, 3, 0, 1, true, 0)
                .send(RdmapOpcode.SEND, 4, 0, 1, true, 0));
        write(dir, "send-bad-msn", new Input().send(RdmapOpcode.SEND, 2, 0, 10, true, 0));
        write(dir, "send-bad-mo", new Input().send(RdmapOpcode.SEND, 1, 0, 10, false, 0)
                .send(RdmapOpcode.SEND, 1, 20, 10, true, 0));
        write(dir, "send-invalidate-window", new Input().send(RdmapOpcode.SEND_INVALIDATE, 1, 0, 8, true, WINDOW));
        write(dir, "send-invalidate-region", new Input().send(RdmapOpcode.SEND_SE_INVALIDATE, 1, 0, 8, true,
                WRITABLE));
        write(dir, "send-invalidate-unregistered", new Input().send(RdmapOpcode.SEND_INVALIDATE, 1, 0, 8, true,
                UNREGISTERED));
        write(dir, "read-request", new Input().readRequest(WRITABLE | rel, 1, 0, 128));
        write(dir, "read-request-read-only", new Input().readRequest(READ_ONLY | rel, 1, 0, 128));
        write(dir, "read-request-other-pd", new Input().readRequest(OTHER_PD | rel, 1, 0, 16));
        write(dir, "read-request-past-end", new Input().readRequest(READ_ONLY | rel, 1, 100, 64));
        write(dir, "read-request-receive-region", new Input().readRequest(RECEIVE | rel, 1, 0, 16));
        write(dir, "read-request-bad-msn", new Input().readRequest(WRITABLE | rel, 3, 0, 16));
        write(dir, "read-request-two", new Input().readRequest(WRITABLE | rel, 1, 0, 16)
                .readRequest(WINDOW | rel, 2, 0, 64));
        write(dir, "read-response", new Input().readResponse(SINK | rel, 0, READ_LENGTH, true));
        write(dir, "read-response-two-segments", new Input().readResponse(SINK | rel, 0, 150, false)
                .readResponse(SINK | rel, 150, 50, true));
        write(dir, "read-response-too-long", new Input().readResponse(SINK | rel, 0, READ_LENGTH + 8, true));
        write(dir, "read-response-wrong-stag", new Input().readResponse(WRITABLE | rel, 0, READ_LENGTH, true));
        write(dir, "read-response-unsolicited", new Input().readResponse(SINK | rel, 0, READ_LENGTH, true)
                .readResponse(SINK | rel, 0, 16, true));
        write(dir, "terminate-rdmap", new Input().terminate(RdmapError.INVALID_STAG));
        write(dir, "terminate-ddp", new Input().terminate(DdpError.TAGGED_BASE_OR_BOUNDS));
        write(dir, "bad-opcode", new Input().raw(RAW, opcode(new Input().send(RdmapOpcode.SEND, 1, 0, 8, true, 0), 0xB)));
        write(dir, "bad-rdmap-version", new Input().raw(RAW, rdmapVersion(
                new Input().write(WRITABLE | rel, 0, 8, true))).write(WRITABLE | rel, 0, 8, true));
        write(dir, "bad-ddp-version", new Input().raw(RAW, ddpVersion(
                new Input().send(RdmapOpcode.SEND, 1, 0, 8, true, 0))));
        write(dir, "bad-queue", new Input().raw(RAW, queue(new Input().send(RdmapOpcode.SEND, 1, 0, 8, true, 0), 5)));
        write(dir, "short-segment", new Input().raw(RAW, new byte[] {(byte) 0xC1, 0x40, 0, 0, 0}));
        write(dir, "write-then-send-then-read", new Input().write(WINDOW | rel, 8, 32, true)
                .send(RdmapOpcode.SEND_SE, 1, 0, 100, true, 0).readRequest(WRITABLE | rel, 1, 32, 200)
                .readResponse(SINK | rel, 0, READ_LENGTH, true).send(RdmapOpcode.SEND, 2, 0, 1, true, 0));
        // found by the long run of issue 13 (minimized): a framing fault behind a valid Terminate was
        // answered with a Terminate (RFC 5040 §5.4, R-TERM-021, R-TERM-048)
        write(dir, "terminate-then-short-segment", new Input().terminate(RdmapError.INVALID_STAG)
                .raw(RAW, new byte[] {(byte) 0xC1, 0x43, 0, 0, 0}));
        // found by the long run of issue 13 (minimized): an Atomic Request on a stream without RFC 7306
        // was given its 52-byte slot, so a longer one failed as DDP 1/2/0x05, not RDMAP 0/2/0x06
        byte[] atomic = java.util.Arrays.copyOf(new Input().readRequest(RAW, 1, 0, 16).last, 18 + 60);
        atomic[1] = (byte) (atomic[1] & 0xF0 | 0xA);    // RFC 7306 §4.1: Atomic Request, QN 1
        write(dir, "atomic-request-without-atomics-too-long", new Input().raw(RAW, atomic));
        // small reads (mode bits 4-6 of the first record, EngineReceiveFuzzTest.MAX_CHUNKS): the
        // payload is placed directly into the region or the receive buffer the header names
        write(dir, "write-writable-small-reads", smallReads(new Input().write(WRITABLE | rel, 0, 256, true), 3));
        write(dir, "send-three-small-reads", smallReads(new Input().send(RdmapOpcode.SEND, 1, 0, 100, true, 0)
                .send(RdmapOpcode.SEND_SE, 2, 0, 10, true, 0).send(RdmapOpcode.SEND, 3, 0, 0, true, 0), 4));
        write(dir, "read-response-two-segments-small-reads", smallReads(new Input()
                .readResponse(SINK | rel, 0, 150, false).readResponse(SINK | rel, 150, 50, true), 2));
        write(dir, "write-past-end-small-reads", smallReads(new Input().write(WRITABLE | rel, 250, 16, true), 1));
    }

    /** The input with the link's largest read set to {@code MAX_CHUNKS[k]}. */
    private static Input smallReads(Input in, int k) {
        in.chunk = k;
        return in;
    }

    /** The last ULPDU of an input, with its RDMAP opcode changed. */
    private static byte[] opcode(Input in, int opcode) {
        byte[] u = in.last;
        u[1] = (byte) (u[1] & 0xF0 | opcode);
        return u;
    }

    private static byte[] rdmapVersion(Input in) {
        byte[] u = in.last;
        u[1] = (byte) (u[1] & 0x3F);                    // RFC 5040 §4.2: RV 0 instead of 1
        return u;
    }

    private static byte[] ddpVersion(Input in) {
        byte[] u = in.last;
        u[0] = (byte) (u[0] & 0xFC);                    // RFC 5041 §4.2: DV 0 instead of 1
        return u;
    }

    private static byte[] queue(Input in, int qn) {
        byte[] u = in.last;
        java.nio.ByteBuffer.wrap(u).putInt(6, qn);
        return u;
    }

    /** A fuzz input: records of (mode, two-byte length, ULPDU). */
    private static final class Input {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] last;
        /** Bits 4-6 of the first mode byte (EngineReceiveFuzzTest.MAX_CHUNKS). */
        int chunk;

        Input write(int mode, long to, int length, boolean last) {
            return tagged(mode, RdmapOpcode.RDMA_WRITE, to, length, last);
        }

        Input readResponse(int mode, long to, int length, boolean last) {
            return tagged(mode, RdmapOpcode.READ_RESPONSE, to, length, last);
        }

        private Input tagged(int mode, RdmapOpcode opcode, long to, int length, boolean last) {
            byte[] u = new byte[14 + length];
            // the STag is the patch's (mode bits 0-2), the TO an offset from the slot's base TO (bit 3)
            ENCODER.taggedHeader(MemorySegment.ofArray(u), 0, opcode, last, 0, to);
            for (int i = 14; i < u.length; i++) {
                u[i] = (byte) (i * 7);
            }
            return raw(mode, u);
        }

        Input send(RdmapOpcode opcode, int msn, int mo, int length, boolean last, int invalidateSlot) {
            byte[] u = new byte[18 + length];
            ENCODER.untaggedHeader(MemorySegment.ofArray(u), 0, opcode, last, 0, msn, mo);
            for (int i = 18; i < u.length; i++) {
                u[i] = (byte) (i * 11);
            }
            return raw(opcode.carriesInvalidateStag() ? invalidateSlot : RAW, u);
        }

        Input readRequest(int mode, int msn, long sourceTo, int size) {
            byte[] u = new byte[RdmapMessageEncoder.READ_REQUEST_LENGTH];
            ENCODER.readRequest(MemorySegment.ofArray(u), 0, msn, 0x1234_5601, 0x9000, size, 0, sourceTo);
            return raw(mode, u);
        }

        Input terminate(io.jrnic.wire.IwarpError error) {
            byte[] u = new byte[64];
            int n = ENCODER.terminate(MemorySegment.ofArray(u), 0, error, null, 0, null);
            return raw(RAW, java.util.Arrays.copyOf(u, n));
        }

        Input raw(int mode, byte[] u) {
            out.write(mode);
            out.write(u.length >>> 8);
            out.write(u.length);
            out.writeBytes(u);
            last = u;
            return this;
        }
    }

    private static void write(Path dir, String name, Input in) throws IOException {
        byte[] bytes = in.out.toByteArray();
        bytes[0] |= (byte) (in.chunk << 4);
        Files.write(dir.resolve(name), bytes);
    }
}
