package io.jrnic.rdmap;

import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RdmapValidatorTest {

    private final MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
    private final UntaggedHeaderFlyweight untagged = new UntaggedHeaderFlyweight();
    private final TaggedHeaderFlyweight tagged = new TaggedHeaderFlyweight();

    @Test
    void acceptsEveryEnabledOpcodeOnItsQueue_R_HDR_051() {
        RdmapValidator validator = new RdmapValidator(RdmapFeatures.ALL);
        RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.ALL);
        for (RdmapOpcode op : RdmapOpcode.values()) {
            RdmapError error;
            if (op.tagged()) {
                encoder.taggedHeader(buffer, 0, op, true, 7, 0L);
                error = validator.validate(tagged.wrap(buffer, 0));
            } else {
                encoder.untaggedHeader(buffer, 0, op, true, 0, 1, 0);
                error = validator.validate(untagged.wrap(buffer, 0));
            }
            assertThat(error).as(op.toString()).isNull();
            assertThat(validator.opcode()).isSameAs(op);
        }
    }

    @Test
    void rejectsWrongRdmapVersion_R_ERR_022() {
        RdmapValidator validator = new RdmapValidator(RdmapFeatures.RFC_7306);
        untagged.wrap(buffer, 0).encode(true, 1, 0x03, 0, 0, 1, 0);   // RV 00 on an IETF stream
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.INVALID_RDMAP_VERSION);
        assertThat(validator.opcode()).isNull();
        untagged.rsvdUlp(0xC3);                                        // RV 11
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.INVALID_RDMAP_VERSION);
        RdmapValidator rdmac = new RdmapValidator(RdmapFeatures.RDMAC);
        untagged.rsvdUlp(0x43);
        assertThat(rdmac.validate(untagged)).isEqualTo(RdmapError.INVALID_RDMAP_VERSION);
        untagged.rsvdUlp(0x03);
        assertThat(rdmac.validate(untagged)).isNull();
    }

    @Test
    void rejectsRfc7306OpcodesUnlessEnabled_A_ATOM_003() {
        RdmapValidator base = new RdmapValidator(RdmapFeatures.RFC_5040);
        for (int wire = 0x8; wire <= 0xB; wire++) {
            RdmapOpcode op = RdmapOpcode.fromWire(wire);
            untagged.wrap(buffer, 0).encode(true, 1, 0x40 | wire, 0, op.queueNumber(), 1, 0);
            assertThat(base.validate(untagged)).as(op.toString()).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        }
        RdmapValidator rdmac = new RdmapValidator(new RdmapFeatures(RdmapControl.VERSION_RDMAC, true, false));
        untagged.wrap(buffer, 0).encode(true, 0, 0x0A, 0, 1, 1, 0);
        assertThat(rdmac.validate(untagged)).as("AMB-33: no extensions on RV 00").isEqualTo(RdmapError.UNEXPECTED_OPCODE);
    }

    @Test
    void rejectsCommitDraftOpcodesUnlessEnabled_AMB_41() {
        RdmapValidator validator = new RdmapValidator(RdmapFeatures.RFC_7306);
        for (int wire = 0xC; wire <= 0xF; wire++) {
            RdmapOpcode op = RdmapOpcode.fromWire(wire);
            untagged.wrap(buffer, 0).encode(true, 1, 0x40 | wire, 0, op.queueNumber(), 1, 0);
            assertThat(validator.validate(untagged)).as(op.toString()).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        }
    }

    @Test
    void legacyDecodeOfFiveBitOpcodesFailsTheCrossCheck_AMB_40() {
        RdmapValidator legacy = new RdmapValidator(RdmapFeatures.RFC_7306);
        // Atomic Write Request 0x50 reads as RDMA Write (opcode 0) with bit 0x10 reserved: untagged -> rejected
        untagged.wrap(buffer, 0).encode(true, 1, 0x50, 0, 1, 1, 0);
        assertThat(legacy.validate(untagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        assertThat(legacy.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
        // Atomic Write Response 0x51 reads as Read Request, but on QN 3 -> rejected
        untagged.wrap(buffer, 0).encode(true, 1, 0x51, 0, 3, 1, 0);
        assertThat(legacy.validate(untagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        // with the draft enabled both are accepted
        RdmapValidator draft = new RdmapValidator(RdmapFeatures.ALL);
        assertThat(draft.validate(untagged)).isNull();
        assertThat(draft.opcode()).isEqualTo(RdmapOpcode.ATOMIC_WRITE_RESPONSE);
    }

    @Test
    void reservedBitsAreIgnored_R_HDR_025() {
        RdmapValidator validator = new RdmapValidator(RdmapFeatures.RFC_5040);
        untagged.wrap(buffer, 0).encode(true, 1, 0x73, 0, 0, 1, 0);   // Rsv = 11b, Send
        assertThat(validator.validate(untagged)).isNull();
        assertThat(validator.opcode()).isEqualTo(RdmapOpcode.SEND);
        RdmapValidator draft = new RdmapValidator(RdmapFeatures.ALL);
        untagged.rsvdUlp(0x63);                                        // draft Rsv bit 0x20 set
        assertThat(draft.validate(untagged)).isNull();
        assertThat(draft.opcode()).isEqualTo(RdmapOpcode.SEND);
    }

    @Test
    void rejectsUnassignedFiveBitOpcodes_R_ERR_021() {
        RdmapValidator draft = new RdmapValidator(RdmapFeatures.ALL);
        for (int wire = 0x12; wire <= 0x1F; wire++) {
            untagged.wrap(buffer, 0).encode(true, 1, 0x40 | wire, 0, 1, 1, 0);
            assertThat(draft.validate(untagged)).as("0x%x", wire).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
            assertThat(draft.opcode()).isNull();
        }
    }

    @Test
    void rejectsOpcodeOnWrongQueueOrModel_R_HDR_051() {
        RdmapValidator validator = new RdmapValidator(RdmapFeatures.ALL);
        untagged.wrap(buffer, 0).encode(true, 1, 0x41, 0, 0, 1, 0);   // Read Request on QN 0
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        untagged.wrap(buffer, 0).encode(true, 1, 0x43, 0, 1, 1, 0);   // Send on QN 1
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        untagged.wrap(buffer, 0).encode(true, 1, 0x47, 0, 0, 1, 0);   // Terminate on QN 0
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        untagged.wrap(buffer, 0).encode(true, 1, 0x4B, 0, 1, 1, 0);   // Atomic Response on QN 1
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        untagged.wrap(buffer, 0).encode(true, 1, 0x40, 0, 0, 1, 0);   // RDMA Write untagged
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        tagged.wrap(buffer, 0).encode(true, 1, 0x43, 0, 0L);          // Send tagged
        assertThat(validator.validate(tagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
        tagged.wrap(buffer, 0).encode(true, 1, 0x41, 0, 0L);          // Read Request tagged
        assertThat(validator.validate(tagged)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
    }

    @Test
    void singleSegmentMessagesMustBeLastWithOffsetZero_R_HDR_009() {
        RdmapValidator validator = new RdmapValidator(RdmapFeatures.ALL);
        untagged.wrap(buffer, 0).encode(false, 1, 0x41, 0, 1, 1, 0);  // Read Request, L=0
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        untagged.wrap(buffer, 0).encode(true, 1, 0x4A, 0, 1, 1, 52);  // Atomic Request, MO 52
        assertThat(validator.validate(untagged)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        untagged.wrap(buffer, 0).encode(false, 1, 0x43, 0, 0, 1, 1000); // Send middle segment is fine
        assertThat(validator.validate(untagged)).isNull();
        tagged.wrap(buffer, 0).encode(false, 1, 0x42, 0, 0L);           // Read Response middle segment
        assertThat(validator.validate(tagged)).isNull();
    }

    @Test
    void rawValuesValidateWithoutFlyweight() {
        RdmapValidator validator = new RdmapValidator(RdmapFeatures.RFC_5040);
        assertThat(validator.validate(0xC1, 0x42, 99, 99)).as("tagged ignores QN/MO").isNull();
        assertThat(validator.opcode()).isEqualTo(RdmapOpcode.READ_RESPONSE);
        assertThat(validator.validate(0x41, 0x47, 2, 0)).isNull();
        assertThat(validator.validate(0x41, 0x47, 3, 0)).isEqualTo(RdmapError.UNEXPECTED_OPCODE);
    }

    @Test
    void immediateDataMustBeExactlyEightBytes_A_IMM_013() {
        assertThat(RdmapValidator.validateLength(RdmapOpcode.IMMEDIATE_DATA, 8)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.IMMEDIATE_DATA_SE, 8)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.IMMEDIATE_DATA, 7)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.IMMEDIATE_DATA_SE, 9)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.IMMEDIATE_DATA, 0)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
    }

    @Test
    void fixedHeaderMessagesHaveExactLengths_R_HDR_028() {
        assertThat(RdmapValidator.validateLength(RdmapOpcode.READ_REQUEST, 28)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.READ_REQUEST, 29)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.ATOMIC_REQUEST, 52)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.ATOMIC_REQUEST, 51)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.ATOMIC_RESPONSE, 12)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.ATOMIC_RESPONSE, 32)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.FLUSH_REQUEST, 20)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.ATOMIC_WRITE_REQUEST, 24)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.ATOMIC_WRITE_REQUEST, 16)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.FLUSH_RESPONSE, 0)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.FLUSH_RESPONSE, 1)).as("AMB-45").isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.ATOMIC_WRITE_RESPONSE, 4)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
    }

    @Test
    void variableAndPayloadLengths() {
        assertThat(RdmapValidator.validateLength(RdmapOpcode.TERMINATE, 3)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.TERMINATE, 4)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.TERMINATE, 52)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.VERIFY_REQUEST, 15)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.VERIFY_REQUEST, 16)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.VERIFY_REQUEST, 48)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.VERIFY_RESPONSE, 0)).isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.SEND, 0)).as("R-SEND-019 zero-length Send").isNull();
        assertThat(RdmapValidator.validateLength(RdmapOpcode.RDMA_WRITE, 0xFFFF_FFFFL)).isNull();
    }

    @Test
    void featuresRejectUnknownVersions() {
        assertThatThrownBy(() -> new RdmapFeatures(2, false, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version");
        assertThatThrownBy(() -> new RdmapValidator(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(RdmapFeatures.RFC_5040.opcodeBits(0x51)).isEqualTo(0x1);
        assertThat(RdmapFeatures.ALL.opcodeBits(0x51)).isEqualTo(0x11);
    }

    @Test
    void keepsItsFeaturesAndRejectsANegativeLength() {
        assertThat(new RdmapValidator(RdmapFeatures.ALL).features()).isSameAs(RdmapFeatures.ALL);
        assertThat(RdmapValidator.validateLength(RdmapOpcode.SEND, -1)).isEqualTo(RdmapError.OPERATION_UNSPECIFIED);
    }
}
