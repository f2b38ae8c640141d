package io.jrnic.core;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.Opcode;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * RnicConfig.packetCapture over real loopback TCP: node a records its traffic; the file is read back
 * as pcapng here (blocks, synthesized handshake, IP and TCP checksums, one MPA frame or FPDU per
 * packet, the CRCs the peers sent, the stream bytes complete and in order) and, where tshark is
 * installed, decoded by Wireshark's own MPA/DDP/RDMAP dissectors.
 */
class PacketCaptureTest extends LoopbackFixture {
    @TempDir
    Path dir;

    Path file() {
        return dir.resolve("a.pcapng");
    }

    @Override
    RnicConfig nodeConfig(String name) {
        RnicConfig config = super.nodeConfig(name);
        return name.startsWith("loop-a-") ? config.packetCapture(file()) : config;
    }

    /** Send, Write and Read, both directions of traffic, then node a closes (the file is complete). */
    private void traffic(ConnectionSettings settings) throws Exception {
        settings.emss(ConnectionSettings.ETHERNET_EMSS); // many FPDUs of one segment each for the decoder
        Pair p = connect(settings, settings, a.qp(), b.qp(), "hello".getBytes(), null);
        Buffer src = a.buffer(70_000);
        Buffer sink = b.buffer(70_000);
        Buffer inbox = b.buffer(256);
        fill(src.memory(), 3);
        p.qpB().postReceive(new ReceiveWorkRequest().wrId(1).sge(inbox.stag(), inbox.to(), 256));
        p.qpA().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND).sge(src.stag(), src.to(), 100));
        p.qpA().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), 65_536)
                .remote(sink.stag(), sink.to()));
        p.qpA().postSend(new SendWorkRequest().wrId(3).opcode(Opcode.RDMA_READ).sge(src.stag(), src.to(), 3_000)
                .remote(sink.stag(), sink.to() + 7));
        assertThat(a.completions(3)).allMatch(wc -> wc.status() == WorkCompletionStatus.SUCCESS);
        assertThat(b.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        a.rnic.close();
    }

    @Test
    void captureHoldsEveryStreamByteCutAtMpaFramesAndFpdusWithGoodCrcs() throws Exception {
        long startNanos = epochNanos();
        traffic(new ConnectionSettings().crc(CrcMode.REQUIRED));
        long endNanos = epochNanos();
        Capture c = Capture.read(file());

        // nanosecond timestamps (if_tsresol 9) of wall-clock time, in the order the packets were written
        assertThat(c.timestampResolution).as("if_tsresol").isEqualTo(9);
        assertThat(c.timestamps).isSorted().allSatisfy(ts -> assertThat(ts).isBetween(startNanos, endNanos));

        assertThat(c.interfaceName).startsWith("loop-a-");
        Stream out = c.streams.get(0);
        Stream in = c.streams.get(1);
        assertThat(out.syn).as("the initiator's SYN").isTrue();
        assertThat(in.syn).as("the responder's SYN-ACK").isTrue();
        assertThat(out.fin && in.fin).isTrue();
        assertThat(c.badChecksums).as("IP/TCP checksums").isZero();

        // the first packet of each direction is the MPA Request / Reply, whole
        assertThat(new String(out.packets.getFirst(), 0, 16)).isEqualTo("MPA ID Req Frame");
        assertThat(new String(out.packets.getFirst(), 24, 5)).as("ULP private data after IRD/ORD").isEqualTo("hello");
        assertThat(new String(in.packets.getFirst(), 0, 16)).isEqualTo("MPA ID Rep Frame");
        // every later packet is one FPDU with the CRC32c the sender computed (RFC 5044 §4.4)
        for (Stream s : List.of(out, in)) {
            for (byte[] fpdu : s.packets.subList(1, s.packets.size())) {
                int ulpdu = (fpdu[0] & 0xFF) << 8 | (fpdu[1] & 0xFF);
                int padded = (2 + ulpdu + 3) & ~3;
                assertThat(fpdu.length).as("one FPDU per packet").isEqualTo(padded + 4);
                CRC32C crc = new CRC32C();
                crc.update(fpdu, 0, padded);
                int wire = ByteBuffer.wrap(fpdu, padded, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                assertThat(wire).as("CRC of an FPDU of %d bytes", ulpdu).isEqualTo((int) crc.getValue());
            }
        }
        // 64 KiB of Write payload and 3000 bytes of Read Response reached the file
        assertThat(out.bytes()).isGreaterThan(65_536 + 100);
        assertThat(in.bytes()).isGreaterThan(3_000);
        assertThat(out.contiguous && in.contiguous).as("sequence numbers continue packet to packet").isTrue();
    }

    @Test
    void markersAreFollowedWhenCuttingFpdus() throws Exception {
        traffic(new ConnectionSettings().crc(CrcMode.OFF).markers(true, true));
        Capture c = Capture.read(file());
        for (Stream s : c.streams) {
            long offset = 0; // RFC 5044 §4.3: a Marker every 512 octets of the FPDU stream, the first at 0
            for (byte[] fpdu : s.packets.subList(1, s.packets.size())) {
                int lengthAt = offset % 512 == 0 ? 4 : 0;
                int ulpdu = (fpdu[lengthAt] & 0xFF) << 8 | (fpdu[lengthAt + 1] & 0xFF);
                int content = ((2 + ulpdu + 3) & ~3) + 4;
                long markers = (offset + fpdu.length - 1) / 512 - (offset - 1 + 512) / 512 + 1;
                assertThat(fpdu.length).as("FPDU at stream offset %d", offset).isEqualTo(content + 4 * markers);
                offset += fpdu.length;
            }
        }
    }

    @Test
    void tsharkDecodesMpaDdpAndRdmapWithGoodCrcs() throws Exception {
        assumeTrue(tsharkInstalled(), "tshark is not installed (Debian package tshark)");
        traffic(new ConnectionSettings().crc(CrcMode.REQUIRED));
        assertThat(frames("iwarp_mpa.req")).as("MPA Request").hasSize(1);
        assertThat(frames("iwarp_mpa.rep")).as("MPA Reply").hasSize(1);
        List<String> fpdus = frames("iwarp_mpa.fpdu");
        assertThat(fpdus.size()).as("FPDUs decoded").isGreaterThan(40);
        // Wireshark shows crc_check ("Good CRC32") only when the CRC it computes matches the field
        assertThat(frames("iwarp_mpa.fpdu && !iwarp_mpa.crc_check")).as("FPDUs with a bad CRC").isEmpty();
        assertThat(frames("_ws.malformed || iwarp_mpa.bad_length")).as("malformed frames").isEmpty();
        // Send 0x3, Write 0x0, Read Request 0x1 from node a; Read Response 0x2 toward it
        assertThat(tshark("-Y", "iwarp_rdma", "-e", "iwarp_rdma.opcode").lines().distinct().toList())
                .contains("0x03", "0x00", "0x01", "0x02");
    }

    private List<String> frames(String filter) throws Exception {
        return tshark("-Y", filter, "-e", "frame.number").lines().filter(l -> !l.isBlank()).toList();
    }

    private static long epochNanos() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static boolean tsharkInstalled() {
        try {
            Process p = new ProcessBuilder("tshark", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private String tshark(String... fieldArgs) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-r", file().toString(), "-T", "fields"));
        cmd.addAll(Arrays.asList(fieldArgs));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("tshark " + cmd).isZero();
        return out;
    }

    /** One direction of the captured connection. */
    static final class Stream {
        boolean syn;
        boolean fin;
        boolean contiguous = true;
        long nextSeq = -1;
        final List<byte[]> packets = new ArrayList<>();

        long bytes() {
            return packets.stream().mapToLong(p -> p.length).sum();
        }
    }

    /** A minimal pcapng reader for what PacketCapture writes (little-endian, Ethernet, IPv4 or IPv6). */
    static final class Capture {
        String interfaceName;
        /** The Interface Description Block's if_tsresol option (9: nanoseconds), -1 if absent. */
        int timestampResolution = -1;
        /** Each Enhanced Packet Block's timestamp, in file order. */
        final List<Long> timestamps = new ArrayList<>();
        int badChecksums;
        /** By source port: the initiator's direction first. */
        final List<Stream> streams = new ArrayList<>();

        static Capture read(Path file) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            Capture c = new Capture();
            Map<Integer, Stream> bySourcePort = new LinkedHashMap<>();
            assertThat(b.getInt(0)).as("Section Header Block").isEqualTo(0x0A0D0D0A);
            assertThat(b.getInt(8)).as("byte-order magic").isEqualTo(0x1A2B3C4D);
            while (b.hasRemaining()) {
                int start = b.position();
                int type = b.getInt();
                int length = b.getInt();
                assertThat(b.getInt(start + length - 4)).as("trailing block length").isEqualTo(length);
                if (type == 1) {
                    assertThat(b.getShort(start + 8)).as("link type Ethernet").isEqualTo((short) 1);
                    c.interfaceName = option(b, start + 16, start + length - 4, 2);
                    String tsresol = option(b, start + 16, start + length - 4, 9);
                    c.timestampResolution = tsresol == null ? -1 : tsresol.charAt(0);
                } else if (type == 6) {
                    c.timestamps.add((long) b.getInt(start + 12) << 32 | (b.getInt(start + 16) & 0xFFFFFFFFL));
                    int captured = b.getInt(start + 20);
                    byte[] frame = new byte[captured];
                    b.get(start + 28, frame);
                    c.packet(frame, bySourcePort);
                }
                b.position(start + length);
            }
            c.streams.addAll(bySourcePort.values());
            return c;
        }

        private static String option(ByteBuffer b, int at, int end, int code) {
            while (at + 4 <= end) {
                int optCode = b.getShort(at) & 0xFFFF;
                int optLength = b.getShort(at + 2) & 0xFFFF;
                if (optCode == code) {
                    byte[] v = new byte[optLength];
                    b.get(at + 4, v);
                    return new String(v);
                }
                at += 4 + ((optLength + 3) & ~3);
            }
            return null;
        }

        private void packet(byte[] f, Map<Integer, Stream> bySourcePort) {
            ByteBuffer p = ByteBuffer.wrap(f); // network order
            int ethertype = p.getShort(12) & 0xFFFF;
            int ip = ethertype == 0x0800 ? 20 : 40;
            int t = 14 + ip;
            if (ethertype == 0x0800 && checksum(f, 14, 20, 0) != 0xFFFF) {
                badChecksums++;
            }
            int tcpLength = f.length - t;
            int pseudo = ethertype == 0x0800 ? checksum(f, 26, 8, 6 + tcpLength) : checksum(f, 22, 32, 6 + tcpLength);
            if (checksum(f, t, tcpLength, pseudo) != 0xFFFF) {
                badChecksums++;
            }
            Stream s = bySourcePort.computeIfAbsent(p.getShort(t) & 0xFFFF, k -> new Stream());
            long seq = p.getInt(t + 4) & 0xFFFFFFFFL;
            int flags = f[t + 13];
            byte[] payload = Arrays.copyOfRange(f, t + 20, f.length);
            if (s.nextSeq >= 0 && seq != s.nextSeq) {
                s.contiguous = false;
            }
            s.nextSeq = (seq + payload.length + ((flags & 0x03) != 0 ? 1 : 0)) & 0xFFFFFFFFL;
            s.syn |= (flags & 0x02) != 0;
            s.fin |= (flags & 0x01) != 0;
            if (payload.length > 0) {
                s.packets.add(payload);
            }
        }

        private static int checksum(byte[] b, int offset, int length, int initial) {
            long sum = initial;
            int i = offset;
            for (; i + 1 < offset + length; i += 2) {
                sum += (b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF);
            }
            if (i < offset + length) {
                sum += (b[i] & 0xFF) << 8;
            }
            while (sum >>> 16 != 0) {
                sum = (sum & 0xFFFF) + (sum >>> 16);
            }
            return (int) sum;
        }
    }
}
