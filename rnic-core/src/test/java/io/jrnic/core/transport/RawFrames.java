package io.jrnic.core.transport;

import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.Crc32c;
import io.jrnic.mpa.MpaNegotiator;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.RtrForm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;

/** Wire bytes for tests that play a peer over a raw socket (vectors from wire-format.md §6). */
final class RawFrames {

    /** wire-format.md §6: RTR zero-length Send, CRC on. */
    static final byte[] SEND_RTR_FPDU = hex("00 12 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 58 7b e8 c4");
    /** wire-format.md §6: RTR zero-length Write, CRC on. */
    static final byte[] WRITE_RTR_FPDU = hex("00 0e c1 40 00 00 00 00 00 00 00 00 00 00 00 00 a3 05 72 ab");

    private RawFrames() {
    }

    static byte[] hex(String spaced) {
        return HexFormat.of().parseHex(spaced.replace(" ", ""));
    }

    /** A revision-2 peer-to-peer MPA Request offering these RTR forms (flag bits), no ULP private data. */
    static byte[] request(int rtrFlags, boolean crc) {
        MpaSettings.Builder b = MpaSettings.builder().crcPolicy(crc ? CrcPolicy.OPTIONAL : CrcPolicy.OFF);
        java.util.List<RtrForm> forms = new java.util.ArrayList<>();
        for (RtrForm f : RtrForm.values()) {
            if ((rtrFlags & f.flag()) != 0) {
                forms.add(f);
            }
        }
        b.rtrForms(forms.toArray(RtrForm[]::new));
        byte[] frame = new byte[24];
        int n = new MpaNegotiator(b.build()).writeRequest(MemorySegment.ofArray(frame), 0, null, 0, 0);
        return java.util.Arrays.copyOf(frame, n);
    }

    /** An MPA Request built from these settings (no ULP private data). */
    static byte[] request(MpaSettings settings) {
        byte[] frame = new byte[24];
        int n = new MpaNegotiator(settings).writeRequest(MemorySegment.ofArray(frame), 0, null, 0, 0);
        return java.util.Arrays.copyOf(frame, n);
    }

    /** An RDMA Write FPDU (tagged, L=1, STag 0x1234, the given TO) without markers, CRC on. */
    static byte[] writeFpdu(byte[] payload, long to) {
        MemorySegment header = MemorySegment.ofArray(new byte[14]);
        new io.jrnic.rdmap.RdmapMessageEncoder(io.jrnic.rdmap.RdmapFeatures.RFC_5040)
                .taggedHeader(header, 0, io.jrnic.rdmap.RdmapOpcode.RDMA_WRITE, true, 0x1234, to);
        io.jrnic.mpa.FpduWriter writer = new io.jrnic.mpa.FpduWriter(false, true);
        byte[] fpdu = new byte[writer.wireLength(14 + payload.length)];
        writer.write(header, 0, 14, MemorySegment.ofArray(payload), 0, payload.length, MemorySegment.ofArray(fpdu), 0);
        return fpdu;
    }

    /** Concatenates byte arrays. */
    static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Whether the last 4 bytes are the CRC32c of the rest, in MPA's wire order (RFC 5044 §4.4). */
    static boolean crcValid(byte[] fpdu) {
        MemorySegment s = MemorySegment.ofArray(fpdu);
        int wire = s.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), fpdu.length - 4);
        return Crc32c.compute(s, 0, fpdu.length - 4) == Crc32c.fromWire(wire);
    }
}
