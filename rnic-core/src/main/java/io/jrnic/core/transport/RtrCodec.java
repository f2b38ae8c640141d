package io.jrnic.core.transport;

import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.mpa.RtrForm;
import io.jrnic.rdmap.RdmapFeatures;
import io.jrnic.rdmap.RdmapMessageEncoder;
import io.jrnic.rdmap.RdmapOpcode;
import io.jrnic.rdmap.ReadRequestHeaderFlyweight;
import io.jrnic.rdmap.TerminateDecoder;
import io.jrnic.wire.IwarpError;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The few RDMAP messages the connection manager sends or recognizes itself: the three RTR forms
 * (RFC 6581 §9.2, wire-format.md §6), the zero-length Read Response that answers a Read RTR, and the
 * setup Terminate (RFC 6581 §8, codes 5-7).
 *
 * <p>Recognition compares the fields that make a message an RTR (DDP control T/L/DV, RDMAP RV and
 * opcode, QN/MSN/MO, Read Size 0) and ignores reserved bits, as the rest of jrnic does.
 *
 * <p>Thread safety: not thread-safe; one per connection (it holds flyweights).
 */
final class RtrCodec {

    /** Mask of the DDP control byte without the reserved bits: T, L and DV (RFC 5041 §4.1). */
    private static final int DDP_CONTROL_MASK = 0xC3;
    /** Mask of the RDMAP control byte without the reserved bits: RV and opcode (RFC 5040 §4.2). */
    private static final int RDMAP_CONTROL_MASK = 0xCF;
    private static final int TAGGED_LAST_V1 = 0xC1;
    private static final int UNTAGGED_LAST_V1 = 0x41;
    private static final int RV1 = 0x40;
    /** ULPDU_Length of a zero-length tagged message (Write RTR, Read Response): the 14-byte tagged header. */
    static final int TAGGED_ZERO_LENGTH = TaggedHeaderFlyweight.HEADER_LENGTH;

    private final RdmapMessageEncoder encoder = new RdmapMessageEncoder(RdmapFeatures.RFC_5040);
    private final UntaggedHeaderFlyweight untagged = new UntaggedHeaderFlyweight();
    private final ReadRequestHeaderFlyweight readRequest = new ReadRequestHeaderFlyweight();
    private final TerminateDecoder terminateDecoder = TerminateDecoder.lenient();

    /** Writes the ULPDU of an RTR (wire-format.md §6) and returns its length. */
    int writeRtr(RtrForm form, MemorySegment dst, long offset) {
        return switch (form) {
            case WRITE -> encoder.taggedHeader(dst, offset, RdmapOpcode.RDMA_WRITE, true, 0, 0);
            case SEND -> encoder.untaggedHeader(dst, offset, RdmapOpcode.SEND, true, 0, ConnectionInfo.FIRST_MSN, 0);
            case READ -> encoder.readRequest(dst, offset, ConnectionInfo.FIRST_MSN, 0, 0, 0, 0, 0);
        };
    }

    /**
     * Writes the zero-length Read Response to a Read RTR, echoing its sink STag and TO (RFC 5040
     * §4.4: the Read Response targets the Data Sink named in the Read Request).
     */
    int writeReadResponse(MemorySegment rtr, long rtrOffset, MemorySegment dst, long offset) {
        readRequest.wrap(rtr, rtrOffset + UntaggedHeaderFlyweight.HEADER_LENGTH);
        return encoder.taggedHeader(dst, offset, RdmapOpcode.READ_RESPONSE, true, readRequest.sinkStag(),
                readRequest.sinkTaggedOffset());
    }

    /** Writes a Terminate carrying only the error (M=D=R=0, RFC 5040 §4.8: none for LLP errors). */
    int writeTerminate(IwarpError error, MemorySegment dst, long offset) {
        return encoder.terminate(dst, offset, error, null, 0, null);
    }

    /**
     * The RTR form of a received ULPDU, or {@code null} if it is none of them.
     *
     * @param ulpdu  the ULPDU (DDP header first)
     * @param offset its offset
     * @param length ULPDU_Length
     */
    RtrForm classifyRtr(MemorySegment ulpdu, long offset, int length) {
        if (length < 2) {
            return null;
        }
        int ddp = ulpdu.get(ValueLayout.JAVA_BYTE, offset) & DDP_CONTROL_MASK;
        int rdmap = ulpdu.get(ValueLayout.JAVA_BYTE, offset + 1) & RDMAP_CONTROL_MASK;
        if (length == TAGGED_ZERO_LENGTH && ddp == TAGGED_LAST_V1 && rdmap == (RV1 | RdmapOpcode.RDMA_WRITE.wireValue())) {
            return RtrForm.WRITE;
        }
        if (ddp != UNTAGGED_LAST_V1 || length < UntaggedHeaderFlyweight.HEADER_LENGTH) {
            return null;
        }
        untagged.wrap(ulpdu, offset);
        if (untagged.msn() != ConnectionInfo.FIRST_MSN || untagged.messageOffset() != 0) {
            return null;
        }
        if (length == UntaggedHeaderFlyweight.HEADER_LENGTH && rdmap == (RV1 | RdmapOpcode.SEND.wireValue())
                && untagged.queueNumber() == RdmapOpcode.SEND.queueNumber()) {
            return RtrForm.SEND;
        }
        if (length == RdmapMessageEncoder.READ_REQUEST_LENGTH && rdmap == (RV1 | RdmapOpcode.READ_REQUEST.wireValue())
                && untagged.queueNumber() == RdmapOpcode.READ_REQUEST.queueNumber()
                && readRequest.wrap(ulpdu, offset + UntaggedHeaderFlyweight.HEADER_LENGTH).readSize() == 0) {
            return RtrForm.READ;
        }
        return null;
    }

    /** Whether a received ULPDU is the zero-length Read Response that answers our Read RTR. */
    boolean isZeroLengthReadResponse(MemorySegment ulpdu, long offset, int length) {
        return length == TAGGED_ZERO_LENGTH
                && (ulpdu.get(ValueLayout.JAVA_BYTE, offset) & DDP_CONTROL_MASK) == TAGGED_LAST_V1
                && (ulpdu.get(ValueLayout.JAVA_BYTE, offset + 1) & RDMAP_CONTROL_MASK)
                == (RV1 | RdmapOpcode.READ_RESPONSE.wireValue());
    }

    /**
     * The error of a received Terminate (decoded leniently, siw's bit order included, RFC 6581 setup
     * codes preferred because it is the first FPDU), or {@code null} if the ULPDU is not a Terminate.
     */
    IwarpError terminateError(MemorySegment ulpdu, long offset, int length) {
        if (length < UntaggedHeaderFlyweight.HEADER_LENGTH + 4
                || (ulpdu.get(ValueLayout.JAVA_BYTE, offset) & DDP_CONTROL_MASK) != UNTAGGED_LAST_V1
                || (ulpdu.get(ValueLayout.JAVA_BYTE, offset + 1) & 0x0F) != RdmapOpcode.TERMINATE.wireValue()) {
            return null;
        }
        int header = UntaggedHeaderFlyweight.HEADER_LENGTH;
        if (terminateDecoder.decode(ulpdu, offset + header, length - header, true) != null) {
            return null;
        }
        return terminateDecoder.error();
    }
}
