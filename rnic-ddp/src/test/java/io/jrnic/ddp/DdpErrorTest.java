package io.jrnic.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrnic.wire.TerminateLayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The DDP error table of RFC 5041 §7.2 / wire-format.md §3.5. */
class DdpErrorTest {

    @ParameterizedTest(name = "{0} = 1/{1}/{2}")
    @CsvSource({
        "LOCAL_CATASTROPHIC,         0, 0x00, 0x1000",
        "TAGGED_INVALID_STAG,        1, 0x00, 0x1100",
        "TAGGED_BASE_OR_BOUNDS,      1, 0x01, 0x1101",
        "TAGGED_STAG_NOT_ASSOCIATED, 1, 0x02, 0x1102",
        "TAGGED_TO_WRAP,             1, 0x03, 0x1103",
        "TAGGED_INVALID_VERSION,     1, 0x04, 0x1104",
        "UNTAGGED_INVALID_QN,        2, 0x01, 0x1201",
        "UNTAGGED_NO_BUFFER,         2, 0x02, 0x1202",
        "UNTAGGED_MSN_RANGE,         2, 0x03, 0x1203",
        "UNTAGGED_INVALID_MO,        2, 0x04, 0x1204",
        "UNTAGGED_MESSAGE_TOO_LONG,  2, 0x05, 0x1205",
        "UNTAGGED_INVALID_VERSION,   2, 0x06, 0x1206",
    })
    void matchesTheRfcTable_R_ERR_015(DdpError error, int type, String code, String terminateBits) {
        assertThat(error.layer()).isEqualTo(TerminateLayer.DDP);
        assertThat(error.errorType()).isEqualTo(type);
        assertThat(error.errorCode()).isEqualTo(Integer.decode(code));
        assertThat(error.terminateCodeBits()).isEqualTo(Integer.decode(terminateBits));
        assertThat(DdpError.fromWire(type, Integer.decode(code))).isSameAs(error);
    }

    @Test
    void terminateControlWordOfInvalidStagMatchesVector_R_TERM_013() {
        // wire-format.md §6: "DDP tagged invalid STag with M,D = 11 00 c0 00".
        int controlWord = DdpError.TAGGED_INVALID_STAG.terminateCodeBits() << 16 | 0x8000 | 0x4000;

        assertThat(controlWord).isEqualTo(0x1100_C000);
    }

    @Test
    void unassignedWireValuesHaveNoError() {
        assertThat(DdpError.fromWire(DdpError.TYPE_TAGGED, 0x05)).isNull();
        assertThat(DdpError.fromWire(DdpError.TYPE_UNTAGGED, 0x00)).isNull();
        assertThat(DdpError.fromWire(DdpError.TYPE_UNTAGGED, 0x07)).isNull();
        assertThat(DdpError.fromWire(DdpError.TYPE_RESERVED_LLP, 0x00)).isNull();
        assertThat(DdpError.fromWire(DdpError.TYPE_CATASTROPHIC, 0x01)).isNull();
    }

    @ParameterizedTest
    @EnumSource(DdpError.class)
    void roundTripsThroughWireValues(DdpError error) {
        assertThat(DdpError.fromWire(error.errorType(), error.errorCode())).isSameAs(error);
        assertThat(error.describe()).startsWith("DDP 1/" + error.errorType() + "/").endsWith(error.name());
    }
}
