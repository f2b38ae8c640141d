package io.jrnic.bench.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class PerftestWireTest {

    private static final HexFormat HEX = HexFormat.of();

    /**
     * A {@code struct pingpong_dest} as perftest's rdma_write_keys sends it on x86-64 (lid 0,
     * out_reads 16, qpn 0x11, psn 0xabcdef, rkey 0x0012ab00, 4 bytes of stack padding, vaddr
     * 0x00007f22d8000e00, GID fe80::1, srqn 0, gid_index 0), integers big-endian.
     */
    static final String RECORDED_DEST = "00000000" + "00000010" + "00000011" + "00abcdef" + "0012ab00" + "deadbeef"
            + "00007f22d8000e00" + "fe800000000000000000000000000001" + "00000000" + "00000000";

    @Test
    void destinationDecodesPerftestsLayoutIgnoringThePadding() {
        PerftestWire.Dest d = PerftestWire.decodeDest(HEX.parseHex(RECORDED_DEST));
        assertThat(d.outReads()).isEqualTo(16);
        assertThat(d.qpn()).isEqualTo(0x11);
        assertThat(d.psn()).isEqualTo(0xabcdef);
        assertThat(d.rkey()).isEqualTo(0x0012ab00);
        assertThat(d.vaddr()).isEqualTo(0x00007f22d8000e00L);
        assertThat(d.gid()[0]).isEqualTo((byte) 0xfe);
        assertThat(d.gid()[15]).isEqualTo((byte) 1);
    }

    @Test
    void destinationEncodesTo56BytesWithZeroPadding() {
        PerftestWire.Dest d = PerftestWire.decodeDest(HEX.parseHex(RECORDED_DEST));
        byte[] encoded = PerftestWire.encodeDest(d);
        assertThat(encoded).hasSize(PerftestWire.DEST_LENGTH);
        assertThat(HEX.formatHex(encoded)).isEqualTo(RECORDED_DEST.replace("deadbeef", "00000000"));
    }

    @Test
    void versionIsSixteenNulPaddedBytesAndOldPeersAreRecognised() {
        byte[] v = PerftestWire.encodeVersion(PerftestWire.VERSION);
        assertThat(HEX.formatHex(v)).isEqualTo("362e3036" + "00".repeat(12));
        assertThat(PerftestWire.decodeVersion(v)).isEqualTo("6.06");
        assertThat(PerftestWire.versionNumber("6.06")).isGreaterThanOrEqualTo(PerftestWire.MIN_PEER_VERSION);
        assertThat(PerftestWire.versionNumber("5.60")).isLessThan(PerftestWire.MIN_PEER_VERSION);
        assertThat(PerftestWire.versionNumber("garbage")).isZero();
    }

    @Test
    void sysDataMtuAndReportFieldsUsePerftestsEncodings() {
        assertThat(HEX.formatHex(PerftestWire.encodeInt(4096))).isEqualTo("00001000");
        assertThat(HEX.formatHex(PerftestWire.encodeMtu(3))).isEqualTo("3300");
        assertThat(HEX.formatHex(PerftestWire.encodeLong(65536))).isEqualTo("0000000000010000");
        assertThat(HEX.formatHex(PerftestWire.encodeDouble(1.0))).isEqualTo("3ff0000000000000");
        assertThat(PerftestWire.decodeDouble(PerftestWire.encodeDouble(1234.5))).isEqualTo(1234.5);
        assertThatThrownBy(() -> PerftestWire.encodeMtu(6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PerftestWire.decodeDest(new byte[40])).isInstanceOf(IllegalArgumentException.class);
    }
}
