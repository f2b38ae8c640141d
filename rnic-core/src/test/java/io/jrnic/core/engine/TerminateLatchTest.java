package io.jrnic.core.engine;

import io.jrnic.ddp.DdpError;
import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.rdmap.RdmapError;
import io.jrnic.rdmap.ReadRequestHeaderFlyweight;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Terminate latch on its own: the first error wins, and the headers a Terminate carries follow
 * RFC 5040 §4.8 -- the failed segment's DDP header unless the error is an LLP one (R-TERM-014) or a
 * local catastrophic one, and the Read Request header only for an RDMAP remote protection error
 * (R=1, Figure 9).
 */
class TerminateLatchTest {
    private final MemorySegment wire = MemorySegment.ofArray(new byte[64]);
    private final TerminateLatch latch = new TerminateLatch();

    private TaggedHeaderFlyweight tagged() {
        return new TaggedHeaderFlyweight().wrap(wire, 0).encode(true, 1, 0x40, 0x1234_5678, 0x0102_0304_0506_0708L);
    }

    private UntaggedHeaderFlyweight untagged() {
        return new UntaggedHeaderFlyweight().wrap(wire, 0).encode(true, 1, 0x41, 0, 1, 7, 0);
    }

    private static byte[] bytes(MemorySegment m, long from, int length) {
        return m.asSlice(from, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** A Read Request header at offset 32 of {@link #wire}. */
    private MemorySegment readRequest() {
        new ReadRequestHeaderFlyweight().wrap(wire, 32).encode(0xAABB_CC01, 0x10, 64, 0xDDEE_FF02, 0x20);
        return wire;
    }

    @Test
    void theFirstErrorIsLatchedAndLaterOnesIgnored_R_TERM_047() {
        assertThat(latch.isSet()).isFalse();
        assertThat(latch.set(RdmapError.INVALID_STAG, tagged(), 5, null, 0)).isTrue();
        assertThat(latch.set(DdpError.UNTAGGED_MSN_RANGE, untagged(), 9, readRequest(), 32)).isFalse();
        assertThat(latch.isSet()).isTrue();
        assertThat(latch.error()).isEqualTo(RdmapError.INVALID_STAG);
        assertThat(latch.segmentLength()).isEqualTo(5);
        assertThat(latch.ddpHeader().headerLength()).isEqualTo(TaggedHeaderFlyweight.HEADER_LENGTH);
        assertThat(latch.readRequest()).isNull();
        latch.clear();
        assertThat(latch.isSet()).isFalse();
        assertThat(latch.ddpHeader()).isNull();
        assertThat(latch.readRequest()).isNull();
        assertThat(latch.segmentLength()).isZero();
        assertThat(latch.set(DdpError.UNTAGGED_MSN_RANGE, untagged(), 9, readRequest(), 32)).isTrue();
        assertThat(latch.error()).isEqualTo(DdpError.UNTAGGED_MSN_RANGE);
    }

    @Test
    void theSegmentLengthFieldIsClampedTo16Bits_wire_format_7() {
        int[][] cases = {{-1, 0}, {0, 0}, {1, 1}, {0xFFFF, 0xFFFF}, {0x10000, 0xFFFF}};
        for (int[] c : cases) {
            latch.clear();
            latch.set(RdmapError.INVALID_STAG, tagged(), c[0], null, 0);
            assertThat(latch.segmentLength()).as("segment length %d", c[0]).isEqualTo(c[1]);
        }
    }

    @Test
    void theCopiedHeadersAreTheFailedSegmentsAndTheyStayWhenTheWireBufferIsReused_RFC5040_4_8() {
        DdpHeaderFlyweight h = untagged();
        byte[] ddp = bytes(wire, 0, UntaggedHeaderFlyweight.HEADER_LENGTH);
        MemorySegment rr = readRequest();
        byte[] request = bytes(wire, 32, ReadRequestHeaderFlyweight.HEADER_LENGTH);
        latch.set(RdmapError.BASE_OR_BOUNDS_VIOLATION, h, 0, rr, 32);
        wire.fill((byte) 0x5A); // the link reuses its buffer
        DdpHeaderFlyweight copy = latch.ddpHeader();
        assertThat(copy).isInstanceOf(UntaggedHeaderFlyweight.class);
        assertThat(bytes(copy.segment(), 0, UntaggedHeaderFlyweight.HEADER_LENGTH)).isEqualTo(ddp);
        assertThat(latch.readRequest().sourceStag()).isEqualTo(0xDDEE_FF02);
        // remote protection error of RDMAP (0/1/x): the DDP header, then the Read Request header (R=1)
        byte[] both = new byte[ddp.length + request.length];
        System.arraycopy(ddp, 0, both, 0, ddp.length);
        System.arraycopy(request, 0, both, ddp.length, request.length);
        assertThat(latch.headerBytes()).isEqualTo(both);
    }

    @Test
    void theTerminateCarriesHeadersByLayerAndErrorType_RFC5040_4_8_R_TERM_014() {
        // RDMAP remote operation error (0/2/x): the DDP header only, even with a Read Request at hand
        latch.set(RdmapError.UNEXPECTED_OPCODE, untagged(), 0, readRequest(), 32);
        assertThat(latch.headerBytes()).hasSize(UntaggedHeaderFlyweight.HEADER_LENGTH);
        // a DDP error: the DDP header only
        latch.clear();
        latch.set(DdpError.TAGGED_INVALID_STAG, tagged(), 0, readRequest(), 32);
        assertThat(latch.headerBytes()).hasSize(TaggedHeaderFlyweight.HEADER_LENGTH);
        // LLP errors and local catastrophic errors carry no header; neither does a latch without one
        latch.clear();
        latch.set(DeframeFault.CRC_MISMATCH, untagged(), 0, readRequest(), 32);
        assertThat(latch.headerBytes()).isEmpty();
        latch.clear();
        latch.set(RdmapError.LOCAL_CATASTROPHIC, untagged(), 0, readRequest(), 32);
        assertThat(latch.headerBytes()).isEmpty();
        latch.clear();
        latch.set(RdmapError.INVALID_STAG, null, 0, readRequest(), 32);
        assertThat(latch.headerBytes()).isEmpty();
        assertThat(latch.ddpHeader()).isNull();
    }
}
