package io.jrnic.rdmap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RdmapOpcodeTest {

    private final MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
    private final RdmapMessageEncoder ietf = new RdmapMessageEncoder(RdmapFeatures.ALL);

    /** wire-format.md §1.2: first two ULPDU bytes of every opcode, DV=01 RV=01 (R-HDR-020, R-HDR-022). */
    @ParameterizedTest(name = "{0}: L=1 {1}, L=0 {2}")
    @CsvSource({
            "RDMA_WRITE, c140, 8140",
            "READ_REQUEST, 4141, ",
            "READ_RESPONSE, c142, 8142",
            "SEND, 4143, 0143",
            "SEND_INVALIDATE, 4144, 0144",
            "SEND_SE, 4145, 0145",
            "SEND_SE_INVALIDATE, 4146, 0146",
            "TERMINATE, 4147, ",
            "IMMEDIATE_DATA, 4148, ",
            "IMMEDIATE_DATA_SE, 4149, ",
            "ATOMIC_REQUEST, 414a, ",
            "ATOMIC_RESPONSE, 414b, ",
            "FLUSH_REQUEST, 414c, ",
            "FLUSH_RESPONSE, 414d, ",
            "VERIFY_REQUEST, 414e, ",
            "VERIFY_RESPONSE, 414f, ",
            "ATOMIC_WRITE_REQUEST, 4150, ",
            "ATOMIC_WRITE_RESPONSE, 4151, "})
    void firstTwoUlpduBytesMatchWireFormatTable_R_HDR_020(RdmapOpcode opcode, String last, String notLast) {
        assertThat(firstTwoBytes(ietf, opcode, true)).isEqualTo(last);
        if (notLast != null) {
            assertThat(opcode.ulpPayload()).isTrue();
            assertThat(firstTwoBytes(ietf, opcode, false)).isEqualTo(notLast);
        } else {
            assertThat(opcode.ulpPayload()).as("single-segment message").isFalse();
        }
    }

    @Test
    void rdmacPeersUseVersionZero_R_HDR_024() {
        RdmapMessageEncoder rdmac = new RdmapMessageEncoder(RdmapFeatures.RDMAC);
        assertThat(firstTwoBytes(rdmac, RdmapOpcode.RDMA_WRITE, true)).isEqualTo("c000");
        assertThat(firstTwoBytes(rdmac, RdmapOpcode.READ_REQUEST, true)).isEqualTo("4001");
        assertThat(firstTwoBytes(rdmac, RdmapOpcode.SEND, false)).isEqualTo("0003");
        assertThat(firstTwoBytes(rdmac, RdmapOpcode.TERMINATE, true)).isEqualTo("4007");
    }

    @Test
    void extensionOpcodesAreNeverSentWhenNotEnabled_A_ATOM_004() {
        RdmapMessageEncoder base = new RdmapMessageEncoder(RdmapFeatures.RFC_5040);
        assertThatThrownBy(() -> base.immediateData(buffer, 0, false, 1, 0L))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("RFC 7306");
        RdmapMessageEncoder atomics = new RdmapMessageEncoder(RdmapFeatures.RFC_7306);
        assertThatThrownBy(() -> atomics.atomicWriteResponse(buffer, 0, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("draft-talpey-rdma-commit-01");
        RdmapMessageEncoder rdmac = new RdmapMessageEncoder(new RdmapFeatures(RdmapControl.VERSION_RDMAC, true, true));
        assertThatThrownBy(() -> rdmac.atomicResponse(buffer, 0, 1, 1, 1L))
                .as("RFC 7306 requires RV 01b").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void queueNumbersFollowRfc7306Registry_R_HDR_002() {
        for (RdmapOpcode op : RdmapOpcode.values()) {
            int expected = switch (op) {
                case RDMA_WRITE, READ_RESPONSE -> RdmapOpcode.TAGGED;
                case SEND, SEND_INVALIDATE, SEND_SE, SEND_SE_INVALIDATE, IMMEDIATE_DATA, IMMEDIATE_DATA_SE -> 0;
                case READ_REQUEST, ATOMIC_REQUEST, FLUSH_REQUEST, VERIFY_REQUEST, ATOMIC_WRITE_REQUEST -> 1;
                case TERMINATE -> 2;
                case ATOMIC_RESPONSE, FLUSH_RESPONSE, VERIFY_RESPONSE, ATOMIC_WRITE_RESPONSE -> 3;
            };
            assertThat(op.queueNumber()).as(op.toString()).isEqualTo(expected);
            assertThat(op.tagged()).as(op.toString()).isEqualTo(expected == RdmapOpcode.TAGGED);
            assertThat(op.consumesOrdIrd()).as(op.toString()).isEqualTo(expected == 1);
            assertThat(op.isResponse()).as(op.toString()).isEqualTo(expected == 3 || op == RdmapOpcode.READ_RESPONSE);
        }
    }

    @Test
    void headerLengthsAfterTheDdpHeader() {
        assertThat(RdmapOpcode.READ_REQUEST.headerLength()).isEqualTo(28);
        assertThat(RdmapOpcode.TERMINATE.headerLength()).isEqualTo(4);
        assertThat(RdmapOpcode.TERMINATE.variableLength()).isTrue();
        assertThat(RdmapOpcode.IMMEDIATE_DATA.headerLength()).isEqualTo(8);
        assertThat(RdmapOpcode.ATOMIC_REQUEST.headerLength()).isEqualTo(52);
        assertThat(RdmapOpcode.ATOMIC_RESPONSE.headerLength()).as("12, not RFC 7306 §4's 32").isEqualTo(12);
        assertThat(RdmapOpcode.FLUSH_REQUEST.headerLength()).isEqualTo(20);
        assertThat(RdmapOpcode.FLUSH_RESPONSE.headerLength()).isZero();
        assertThat(RdmapOpcode.VERIFY_REQUEST.headerLength()).isEqualTo(16);
        assertThat(RdmapOpcode.VERIFY_REQUEST.variableLength()).isTrue();
        assertThat(RdmapOpcode.VERIFY_RESPONSE.headerLength()).isZero();
        assertThat(RdmapOpcode.VERIFY_RESPONSE.variableLength()).isTrue();
        assertThat(RdmapOpcode.ATOMIC_WRITE_REQUEST.headerLength()).isEqualTo(24);
        assertThat(RdmapOpcode.ATOMIC_WRITE_RESPONSE.headerLength()).isZero();
        assertThat(Arrays.stream(RdmapOpcode.values()).filter(RdmapOpcode::variableLength))
                .containsExactlyInAnyOrder(RdmapOpcode.TERMINATE, RdmapOpcode.VERIFY_REQUEST, RdmapOpcode.VERIFY_RESPONSE);
    }

    @Test
    void invalidateAndSolicitedColumns_R_HDR_021() {
        assertThat(Arrays.stream(RdmapOpcode.values()).filter(RdmapOpcode::carriesInvalidateStag))
                .containsExactlyInAnyOrder(RdmapOpcode.SEND_INVALIDATE, RdmapOpcode.SEND_SE_INVALIDATE);
        assertThat(Arrays.stream(RdmapOpcode.values()).filter(RdmapOpcode::solicitedEvent))
                .containsExactlyInAnyOrder(RdmapOpcode.SEND_SE, RdmapOpcode.SEND_SE_INVALIDATE,
                        RdmapOpcode.IMMEDIATE_DATA_SE);
    }

    @Test
    void requestsNameTheirResponses() {
        assertThat(RdmapOpcode.READ_REQUEST.response()).isEqualTo(RdmapOpcode.READ_RESPONSE);
        assertThat(RdmapOpcode.ATOMIC_REQUEST.response()).isEqualTo(RdmapOpcode.ATOMIC_RESPONSE);
        assertThat(RdmapOpcode.FLUSH_REQUEST.response()).isEqualTo(RdmapOpcode.FLUSH_RESPONSE);
        assertThat(RdmapOpcode.VERIFY_REQUEST.response()).isEqualTo(RdmapOpcode.VERIFY_RESPONSE);
        assertThat(RdmapOpcode.ATOMIC_WRITE_REQUEST.response()).isEqualTo(RdmapOpcode.ATOMIC_WRITE_RESPONSE);
        assertThat(RdmapOpcode.SEND.response()).isNull();
        assertThat(RdmapOpcode.ATOMIC_WRITE_RESPONSE.wireValue()).as("AMB-43: 10001b, not 10000b").isEqualTo(0x11);
    }

    @Test
    void specColumnAndExtendedWidth_C_FLUSH_060() {
        for (RdmapOpcode op : RdmapOpcode.values()) {
            RdmapSpec expected = op.wireValue() < 0x8 ? RdmapSpec.RFC_5040
                    : op.wireValue() < 0xC ? RdmapSpec.RFC_7306 : RdmapSpec.COMMIT_DRAFT;
            assertThat(op.spec()).as(op.toString()).isEqualTo(expected);
            assertThat(op.needsExtendedOpcode()).as(op.toString()).isEqualTo(op.wireValue() >= 0x10);
        }
    }

    @Test
    void lookupByWireValueCoversAllFiveBitValues() {
        for (RdmapOpcode op : RdmapOpcode.values()) {
            assertThat(RdmapOpcode.fromWire(op.wireValue())).isSameAs(op);
        }
        for (int value = 0x12; value < RdmapOpcode.WIRE_VALUES; value++) {
            assertThat(RdmapOpcode.fromWire(value)).as("0x%x", value).isNull();
        }
        assertThat(RdmapOpcode.fromWire(-1)).isNull();
        assertThat(RdmapOpcode.fromWire(0x20)).isNull();
    }

    @Test
    void controlByteFields_R_HDR_025() {
        assertThat(RdmapControl.version(0x41)).isEqualTo(1);
        assertThat(RdmapControl.version(0x01)).isZero();
        assertThat(RdmapControl.opcode(0x71, false)).as("Rsv bits ignored").isEqualTo(0x1);
        assertThat(RdmapControl.opcode(0x51, false)).isEqualTo(0x1);
        assertThat(RdmapControl.opcode(0x51, true)).isEqualTo(0x11);
        assertThat(RdmapControl.opcode(0x71, true)).as("draft Rsv bit 0x20 ignored").isEqualTo(0x11);
        assertThat(RdmapControl.encode(1, 0x11)).isEqualTo(0x51);
        assertThatThrownBy(() -> RdmapControl.encode(4, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version");
        assertThatThrownBy(() -> RdmapControl.encode(1, 0x20)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("opcode");
    }

    private String firstTwoBytes(RdmapMessageEncoder encoder, RdmapOpcode opcode, boolean last) {
        if (opcode.tagged()) {
            encoder.taggedHeader(buffer, 0, opcode, last, 0x1234, 0x1000L);
        } else {
            encoder.untaggedHeader(buffer, 0, opcode, last, 0, 1, 0);
        }
        return Bytes.hex(buffer, 0, 2);
    }

    @Test
    void namesFromTheDefiningSpecifications() {
        assertThat(RdmapOpcode.READ_REQUEST.messageName()).isEqualTo("RDMA Read Request");
        assertThat(RdmapOpcode.FLUSH_RESPONSE.messageName()).isEqualTo("RDMA Flush Response");
        assertThat(RdmapOpcode.READ_REQUEST.toString()).isEqualTo("READ_REQUEST(0x1 RDMA Read Request)");
    }
}
