package io.jrnic.bench.demo;

import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.DdpReceiver;
import io.jrnic.ddp.DdpSegmenter;
import io.jrnic.ddp.InboundSegment;
import io.jrnic.ddp.UntaggedBufferResolver;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.Fpdu;
import io.jrnic.mpa.FpduDeframer;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.FpduWriter;
import io.jrnic.mpa.MpaNegotiator;
import io.jrnic.mpa.MpaParameters;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.Negotiation;
import io.jrnic.mpa.StartupFrame;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import io.jrnic.wire.IwarpError;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.Random;

/**
 * A walk through the three protocol layers without a socket: two endpoints negotiate MPA, one
 * sends an RDMA Write as DDP segments in CRC-protected FPDUs, the other deframes the byte stream cut
 * at random points, validates each segment and places its payload into a target region; then one
 * corrupted byte shows the error path down to the Terminate that would go back.
 *
 * <p>This is the main job until the data path exists; it exercises the same codecs the RNIC uses.
 */
public final class CodecDemo {

    private static final HexFormat HEX = HexFormat.of();
    private static final int EMSS = 1460;
    private static final int TARGET_STAG = 0x00123400;
    private static final long TARGET_BASE_TO = 0x7f00_0000_1000L;

    private final PrintStream out;

    /**
     * Creates the demo printing to {@code out}.
     *
     * @param out where the demo prints its report
     */
    public CodecDemo(PrintStream out) {
        this.out = out;
    }

    /**
     * Runs the demo; returns 0 when every check passed.
     *
     * @param seed the seed of the random payloads
     * @return 0 when every check passed, 1 otherwise
     */
    public int run(long seed) {
        MpaParameters params = negotiate();
        byte[] message = pattern(10_000, seed);
        MemorySegment stream = MemorySegment.ofArray(new byte[64 * 1024]);
        int streamLength = sendRdmaWrite(params, message, stream);

        MemorySegment target = MemorySegment.ofArray(new byte[message.length]);
        boolean intact = receive(params, stream, streamLength, target, seed, -1);
        boolean equal = target.mismatch(MemorySegment.ofArray(message)) == -1;
        out.printf("receiver placed %d bytes; equal to what was sent: %b%n", message.length, equal);

        out.println();
        out.println("-- the same stream with one payload byte flipped in transit --");
        stream.set(ValueLayout.JAVA_BYTE, 2000, (byte) (stream.get(ValueLayout.JAVA_BYTE, 2000) ^ 0x01));
        boolean detected = !receive(params, stream, streamLength, MemorySegment.ofArray(new byte[message.length]),
                seed, 2000);
        boolean ok = intact && equal && detected;
        out.println();
        out.println(ok ? "demo: all checks passed" : "demo: FAILED");
        return ok ? 0 : 1;
    }

    private MpaParameters negotiate() {
        MpaSettings initiatorSettings = MpaSettings.builder().crcPolicy(CrcPolicy.REQUIRED).revision(2).build();
        MpaSettings responderSettings = MpaSettings.builder().crcPolicy(CrcPolicy.OPTIONAL).revision(2).build();
        MpaNegotiator initiator = new MpaNegotiator(initiatorSettings);
        MpaNegotiator responder = new MpaNegotiator(responderSettings);

        MemorySegment request = MemorySegment.ofArray(new byte[600]);
        MemorySegment privateData = MemorySegment.ofArray("hello, jrnic".getBytes());
        int requestLength = initiator.writeRequest(request, 0, privateData, 0, (int) privateData.byteSize());
        out.println("-- MPA connection setup (RFC 5044 §7.1, RFC 6581) --");
        out.println("Request  " + hex(request, 0, requestLength));
        Negotiation atResponder = responder.onRequest(new StartupFrame().wrap(request, 0), requestLength);

        MemorySegment reply = MemorySegment.ofArray(new byte[600]);
        int replyLength = responder.writeReply(atResponder, false, reply, 0, null, 0, 0);
        out.println("Reply    " + hex(reply, 0, replyLength));
        Negotiation atInitiator = initiator.onReply(new StartupFrame().wrap(reply, 0), replyLength);
        MpaParameters p = atInitiator.parameters();
        out.printf("negotiated: outcome %s, revision %d, CRC %s, markers %s, IRD %d, ORD %d%n",
                atInitiator.outcome(), p.revision(), p.crc() ? "on" : "off", p.markersOnSend() ? "on" : "off",
                p.ird(), p.ord());
        out.println();
        return p;
    }

    private int sendRdmaWrite(MpaParameters params, byte[] message, MemorySegment stream) {
        int mulpdu = Fpdu.mulpdu(EMSS, params.markersOnSend());
        out.printf("-- RDMA Write of %d bytes to STag 0x%08x TO 0x%x, EMSS %d -> MULPDU %d --%n",
                message.length, TARGET_STAG, TARGET_BASE_TO, EMSS, mulpdu);
        DdpSegmenter segmenter = new DdpSegmenter().resetTagged(mulpdu, DdpHeaderFlyweight.VERSION_IETF,
                RdmapOpcode.RDMA_WRITE.controlByte(1), TARGET_STAG, TARGET_BASE_TO, message.length);
        FpduWriter writer = new FpduWriter(params.markersOnSend(), params.crc());
        MemorySegment header = MemorySegment.ofArray(new byte[32]);
        MemorySegment payload = MemorySegment.ofArray(message);
        int position = 0;
        while (segmenter.next(header, 0)) {
            int wire = writer.write(header, 0, segmenter.headerLength(), payload, segmenter.payloadOffset(),
                    segmenter.payloadLength(), stream, position);
            out.printf("FPDU %5d bytes  TO 0x%x  L=%d  head %s...  CRC %s%n", wire, segmenter.taggedOffset(),
                    segmenter.last() ? 1 : 0, hex(stream, position, 16), hex(stream, position + wire - 4, 4));
            position += wire;
        }
        out.printf("%d bytes on the wire for %d bytes of payload%n%n", position, message.length);
        return position;
    }

    private boolean receive(MpaParameters params, MemorySegment stream, int length, MemorySegment target,
                            long seed, int corruptedAt) {
        RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.RFC_5040);
        DdpReceiver ddp = new DdpReceiver(DdpHeaderFlyweight.VERSION_IETF, DdpReceiver.rdmapQueueNumbers(false),
                (qn, msn) -> UntaggedBufferResolver.NO_BUFFER,
                (stag, rsvdUlp, d) -> {
                    if (stag == TARGET_STAG) {
                        d.valid(TARGET_BASE_TO, target.byteSize(), true, target);
                    }
                });
        final boolean[] failed = {false};
        FpduDeframer deframer = new FpduDeframer(params.markersOnSend(), params.crc(), new FpduHandler() {
            @Override
            public void onUlpdu(MemorySegment segment, long offset, int ulpduLength) {
                InboundSegment verdict = ddp.onSegment(segment, offset, ulpduLength);
                if (!verdict.accepted()) {
                    reportError(verdict.error(), encoder);
                    failed[0] = true;
                    return;
                }
                MemorySegment.copy(segment, offset + verdict.payloadOffset(), target, verdict.bufferOffset(),
                        verdict.payloadLength());
            }

            @Override
            public void onError(DeframeFault fault) {
                reportError(fault, encoder);
                failed[0] = true;
            }
        });
        Random random = new Random(seed);
        int consumed = 0;
        int chunks = 0;
        while (consumed < length && !failed[0]) {
            int chunk = Math.min(length - consumed, 1 + random.nextInt(700));
            int taken = deframer.consume(stream, consumed, chunk);
            chunks++;
            if (taken == 0) {
                break;
            }
            consumed += taken;
        }
        out.printf("receiver: stream of %d bytes fed in %d random chunks, %d FPDUs delivered%s%n", length, chunks,
                deframer.delivered(), corruptedAt >= 0 ? " before the damaged one" : "");
        return !failed[0];
    }

    private void reportError(IwarpError error, RdmapMessageEncoder encoder) {
        MemorySegment terminate = MemorySegment.ofArray(new byte[128]);
        int ulpduLength = encoder.terminate(terminate, 0, error, null, 0, null);
        out.println("receiver detected: " + error.describe());
        out.println("Terminate ULPDU it sends back (RFC 5040 §4.8): " + hex(terminate, 0, ulpduLength));
    }

    private static byte[] pattern(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static String hex(MemorySegment segment, long offset, int length) {
        return HEX.formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    /**
     * Runs the demo with a fixed seed, or the one given as the first argument.
     *
     * @param args the command-line arguments: an optional seed
     */
    public static void main(String[] args) {
        long seed = args.length > 0 ? Long.parseLong(args[0]) : 5040L;
        System.exit(new CodecDemo(System.out).run(seed));
    }
}
