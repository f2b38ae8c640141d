package io.jrnic.rdmap;

import io.jrnic.ddp.DdpError;
import io.jrnic.mpa.MpaError;
import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RdmapErrorTest {

    /** RFC 5040 Figure 9 / RFC 6580 §3.1, the whole table (R-ERR-001..014). */
    @ParameterizedTest(name = "{0} = 0/{1}/{2}")
    @CsvSource({
            "LOCAL_CATASTROPHIC, 0, 0x00, 0x0000",
            "INVALID_STAG, 1, 0x00, 0x0100",
            "BASE_OR_BOUNDS_VIOLATION, 1, 0x01, 0x0101",
            "ACCESS_RIGHTS_VIOLATION, 1, 0x02, 0x0102",
            "STAG_NOT_ASSOCIATED, 1, 0x03, 0x0103",
            "TO_WRAP, 1, 0x04, 0x0104",
            "PROTECTION_STAG_CANNOT_BE_INVALIDATED, 1, 0x09, 0x0109",
            "PROTECTION_UNSPECIFIED, 1, 0xFF, 0x01FF",
            "INVALID_RDMAP_VERSION, 2, 0x05, 0x0205",
            "UNEXPECTED_OPCODE, 2, 0x06, 0x0206",
            "CATASTROPHIC_LOCALIZED, 2, 0x07, 0x0207",
            "CATASTROPHIC_GLOBAL, 2, 0x08, 0x0208",
            "OPERATION_STAG_CANNOT_BE_INVALIDATED, 2, 0x09, 0x0209",
            "OPERATION_UNSPECIFIED, 2, 0xFF, 0x02FF"})
    void figure9Table_R_ERR_001_to_014(RdmapError error, int type, String code, String codeBits) {
        int c = Integer.decode(code);
        assertThat(error.layer()).isEqualTo(TerminateLayer.RDMAP);
        assertThat(error.errorType()).isEqualTo(type);
        assertThat(error.errorCode()).isEqualTo(c);
        assertThat(error.terminateCodeBits()).isEqualTo(Integer.decode(codeBits));
        assertThat(RdmapError.fromWire(type, c)).isSameAs(error);
        assertThat(IwarpErrors.fromWire(0, type, c)).isSameAs(error);
        assertThat(IwarpErrors.fromCodeBits(error.terminateCodeBits())).isSameAs(error);
    }

    @Test
    void tableHasExactlyTheRegisteredCodes() {
        assertThat(RdmapError.values()).hasSize(14);
        int registered = 0;
        for (int type = 0; type < 16; type++) {
            for (int code = 0; code < 256; code++) {
                if (type != 0 && RdmapError.fromWire(type, code) != null) {
                    registered++;
                }
            }
        }
        assertThat(registered).as("13 codes of types 1 and 2").isEqualTo(13);
        assertThat(RdmapError.fromWire(1, 0x05)).isNull();
        assertThat(RdmapError.fromWire(2, 0x00)).isNull();
        assertThat(RdmapError.fromWire(3, 0x00)).isNull();
        assertThat(RdmapError.fromWire(2, 0x106)).isNull();
    }

    @Test
    void localCatastrophicAcceptsAnyCode_R_TERM_010() {
        for (int code = 0; code < 256; code++) {
            assertThat(RdmapError.fromWire(0, code)).isSameAs(RdmapError.LOCAL_CATASTROPHIC);
        }
    }

    @Test
    void describeNamesWireValues() {
        assertThat(RdmapError.UNEXPECTED_OPCODE.describe()).isEqualTo("RDMAP 0/2/0x06 UNEXPECTED_OPCODE");
        assertThat(RdmapError.CATASTROPHIC_LOCALIZED.description()).contains("localized");
    }

    @Test
    void lookupCoversEveryLayer_R_ERR_015() {
        for (DdpError e : DdpError.values()) {
            assertThat(IwarpErrors.fromWire(1, e.errorType(), e.errorCode())).isSameAs(e);
        }
        for (MpaError e : MpaError.values()) {
            assertThat(IwarpErrors.fromWire(2, 0, e.errorCode())).isSameAs(e);
        }
        IwarpError crc = IwarpErrors.fromCodeBits(0x2002);
        assertThat(crc).isSameAs(MpaError.CRC_MISMATCH);
        assertThat(IwarpErrors.fromWire(1, 3, 0x42)).as("DDP type 3 is reserved for the LLP").isNull();
        assertThat(IwarpErrors.fromWire(2, 1, 0x02)).as("MPA defines only type 0").isNull();
        assertThat(IwarpErrors.fromWire(2, 0, 0x08)).isNull();
        assertThat(IwarpErrors.fromWire(3, 0, 0x00)).isNull();
        assertThat(IwarpErrors.fromWire(0xF, 0xF, 0xFF)).isNull();
        assertThat(IwarpErrors.fromWire(1, 0x12, 0x01)).as("type beyond 4 bits").isNull();
        assertThat(IwarpErrors.fromWire(2, 0, 0x102)).as("code beyond 8 bits").isNull();
        assertThat(IwarpErrors.fromWire(1, -1, 0)).isNull();
        assertThat(IwarpErrors.fromWire(0, 1, -1)).isNull();
    }

    @Test
    void localCatastrophicOfEachLayer() {
        assertThat(IwarpErrors.isLocalCatastrophic(RdmapError.LOCAL_CATASTROPHIC)).isTrue();
        assertThat(IwarpErrors.isLocalCatastrophic(DdpError.LOCAL_CATASTROPHIC)).isTrue();
        assertThat(IwarpErrors.isLocalCatastrophic(MpaError.CRC_MISMATCH)).isFalse();
        assertThat(IwarpErrors.isLocalCatastrophic(RdmapError.INVALID_STAG)).isFalse();
        assertThat(IwarpErrors.isLocalCatastrophic(DdpError.TAGGED_INVALID_STAG)).isFalse();
    }
}
