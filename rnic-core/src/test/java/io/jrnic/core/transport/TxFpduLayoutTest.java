package io.jrnic.core.transport;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of one outbound FPDU (issue 11): a payload of at most
 * {@link TxFpdu#SMALL_PAYLOAD_COPY_LIMIT} bytes is copied between the writer's octets in wire order,
 * so the whole FPDU is one buffer (one iovec for the kernel); a larger one stays a view of the
 * registered memory between two own buffers.
 */
class TxFpduLayoutTest {
    private static final int HEADER = 16;
    private static final int TRAILER = 4;

    private final Arena arena = Arena.ofAuto();
    private final TxFpdu.Pool pool = new TxFpdu.Pool((token, fpdus) -> { });

    @Test
    void aSmallPayloadMakesTheFpduOneBufferInWireOrder() {
        TxFpdu fpdu = filled(TxFpdu.SMALL_PAYLOAD_COPY_LIMIT);

        assertThat(fpdu.nioBufferCount()).isEqualTo(1);
        assertThat(bytes(fpdu.nioBuffers())).isEqualTo(expected(TxFpdu.SMALL_PAYLOAD_COPY_LIMIT));
    }

    @Test
    void aLargerPayloadStaysAViewOfItsMemory() {
        int size = TxFpdu.SMALL_PAYLOAD_COPY_LIMIT + 1;
        TxFpdu fpdu = filled(size);

        assertThat(fpdu.nioBufferCount()).isEqualTo(3);
        assertThat(bytes(fpdu.nioBuffers())).isEqualTo(expected(size));
    }

    /** An FPDU of header + payload + trailer, the way FpduWriter.gather reports its pieces. */
    private TxFpdu filled(int payloadSize) {
        MemorySegment scratch = arena.allocate(HEADER + TRAILER);
        for (int i = 0; i < HEADER + TRAILER; i++) {
            scratch.set(ValueLayout.JAVA_BYTE, i, (byte) (100 + i));
        }
        MemorySegment payload = arena.allocate(payloadSize);
        for (int i = 0; i < payloadSize; i++) {
            payload.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        MemorySegment[] segments = {scratch, payload, scratch};
        long[] offsets = {0, 0, HEADER};
        int[] lengths = {HEADER, payloadSize, TRAILER};
        return pool.take().append(scratch, HEADER + TRAILER, segments, offsets, lengths, 3, null, -1).finish();
    }

    private static byte[] expected(int payloadSize) {
        byte[] out = new byte[HEADER + payloadSize + TRAILER];
        for (int i = 0; i < HEADER; i++) {
            out[i] = (byte) (100 + i);
        }
        for (int i = 0; i < payloadSize; i++) {
            out[HEADER + i] = (byte) i;
        }
        for (int i = 0; i < TRAILER; i++) {
            out[HEADER + payloadSize + i] = (byte) (100 + HEADER + i);
        }
        return out;
    }

    private static byte[] bytes(ByteBuffer[] buffers) {
        int n = 0;
        for (ByteBuffer b : buffers) {
            if (b == null) {
                break;
            }
            n += b.remaining();
        }
        byte[] out = new byte[n];
        int at = 0;
        for (ByteBuffer b : buffers) {
            if (b == null) {
                break;
            }
            ByteBuffer d = b.duplicate();
            int r = d.remaining();
            d.get(out, at, r);
            at += r;
        }
        return out;
    }
}
