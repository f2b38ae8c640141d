package io.jrnic.core.engine;

import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.rdmap.ReadRequestHeaderFlyweight;
import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;

import java.lang.foreign.MemorySegment;

/**
 * The first error of a stream and what its Terminate must carry (RFC 5040 §4.8, §7.1 case 4,
 * R-TERM-047; design-notes "a single latched first error per QP"): the error, a copy of the failed
 * segment's DDP header, its length and, for a failed Read Request, the Read Request header. Set
 * once; the copies live in preallocated buffers.
 *
 * <p>Thread safety: confined to the engine's event loop.
 */
final class TerminateLatch {
    private final MemorySegment ddpHeader = MemorySegment.ofArray(new byte[UntaggedHeaderFlyweight.HEADER_LENGTH]);
    private final MemorySegment readRequest = MemorySegment.ofArray(new byte[ReadRequestHeaderFlyweight.HEADER_LENGTH]);
    private final TaggedHeaderFlyweight tagged = new TaggedHeaderFlyweight();
    private final UntaggedHeaderFlyweight untagged = new UntaggedHeaderFlyweight();
    private final ReadRequestHeaderFlyweight readRequestHeader = new ReadRequestHeaderFlyweight();
    private IwarpError error;
    private int ddpHeaderLength;
    private int segmentLength;
    private boolean hasReadRequest;

    boolean isSet() {
        return error != null;
    }

    IwarpError error() {
        return error;
    }

    /**
     * Latches the first error; later calls are ignored.
     *
     * @param error         the error
     * @param header        the failed segment's DDP header, or null
     * @param segmentLength the Terminate's DDP Segment Length (payload after the DDP and RDMAP headers)
     * @param readRequest   the failed Read Request header (28 bytes at rrOffset), or null
     * @param rrOffset      its offset
     * @return whether this call latched
     */
    boolean set(IwarpError error, DdpHeaderFlyweight header, int segmentLength, MemorySegment readRequest,
                long rrOffset) {
        if (this.error != null) {
            return false;
        }
        this.error = error;
        this.segmentLength = Math.max(0, Math.min(0xFFFF, segmentLength));
        ddpHeaderLength = header == null ? 0 : header.headerLength();
        if (header != null) {
            MemorySegment.copy(header.segment(), header.offset(), ddpHeader, 0, ddpHeaderLength);
        }
        hasReadRequest = readRequest != null;
        if (hasReadRequest) {
            MemorySegment.copy(readRequest, rrOffset, this.readRequest, 0, ReadRequestHeaderFlyweight.HEADER_LENGTH);
        }
        return true;
    }

    /** The copied DDP header as a flyweight, or null. */
    DdpHeaderFlyweight ddpHeader() {
        return switch (ddpHeaderLength) {
            case TaggedHeaderFlyweight.HEADER_LENGTH -> tagged.wrap(ddpHeader, 0);
            case UntaggedHeaderFlyweight.HEADER_LENGTH -> untagged.wrap(ddpHeader, 0);
            default -> null;
        };
    }

    /** The copied Read Request header, or null. */
    ReadRequestHeaderFlyweight readRequest() {
        return hasReadRequest ? readRequestHeader.wrap(readRequest, 0) : null;
    }

    int segmentLength() {
        return segmentLength;
    }

    /**
     * The header bytes a Terminate for the latched error carries (copied DDP header, then the Read
     * Request header when R is set), for the Verbs Terminate message buffer (V-TERM-16).
     */
    byte[] headerBytes() {
        boolean headers = ddpHeaderLength > 0 && error.layer() != TerminateLayer.LLP
                && !io.jrnic.rdmap.IwarpErrors.isLocalCatastrophic(error);
        if (!headers) {
            return new byte[0];
        }
        boolean rr = hasReadRequest && error.layer() == TerminateLayer.RDMAP
                && error.errorType() == io.jrnic.rdmap.RdmapError.TYPE_REMOTE_PROTECTION;
        byte[] out = new byte[ddpHeaderLength + (rr ? ReadRequestHeaderFlyweight.HEADER_LENGTH : 0)];
        MemorySegment.copy(ddpHeader, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, out, 0, ddpHeaderLength);
        if (rr) {
            MemorySegment.copy(readRequest, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, out, ddpHeaderLength,
                    ReadRequestHeaderFlyweight.HEADER_LENGTH);
        }
        return out;
    }

    void clear() {
        error = null;
        ddpHeaderLength = 0;
        hasReadRequest = false;
        segmentLength = 0;
    }
}
