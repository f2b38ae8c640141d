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

    @Test
    void smallFpdusPackUpToTheOwnLimitAndAnEmptyMessageTakesAnyFpdu() {
        int ownPerFpdu = HEADER + 64 + TRAILER; // a copied 64-byte payload between the writer's octets
        TxFpdu message = pool.take();
        assertThat(message.fits(TxFpdu.OWN_LIMIT + 1)).as("an empty message takes even a large one").isTrue();
        int packed = 0;
        while (message.fits(ownPerFpdu)) {
            append(message, 64);
            packed++;
        }
        assertThat(packed).isEqualTo(TxFpdu.OWN_LIMIT / ownPerFpdu);
        assertThat(message.fpdus()).isEqualTo(packed);
        assertThat(message.finish().nioBufferCount()).as("all of them one buffer").isEqualTo(1);
        byte[] one = expected(64);
        byte[] all = bytes(message.nioBuffers());
        assertThat(all).hasSize(one.length * packed);
        for (int i = 0; i < packed; i++) {
            assertThat(java.util.Arrays.copyOfRange(all, i * one.length, (i + 1) * one.length)).isEqualTo(one);
        }
    }

    @Test
    void fpdusThatFillTheOwnLimitExactlyAllFit() {
        int payload = 64 - HEADER - TRAILER; // 64 own bytes per FPDU: OWN_LIMIT / 64 of them fill it
        TxFpdu message = pool.take();
        int packed = 0;
        while (message.fits(HEADER + payload + TRAILER)) {
            append(message, payload);
            packed++;
        }
        assertThat(packed).isEqualTo(TxFpdu.OWN_LIMIT / 64);
    }

    @Test
    void aMessageWrittenWholeReportsItsLastToken() {
        java.util.List<Long> reported = new java.util.ArrayList<>();
        TxFpdu.Pool reporting = new TxFpdu.Pool((token, fpdus) -> reported.add(token));
        for (long token : new long[] {0, 7}) { // 0 is a token too; negative ones are none
            TxFpdu message = reporting.take();
            message.ownRoom(16);
            message.appendOwn(16, null, -1);
            message.ownRoom(16);
            message.appendOwn(16, null, token);
            message.finish();
            for (ByteBuffer b : message.nioBuffers()) {
                if (b == null) {
                    break;
                }
                b.position(b.limit()); // what the socket's write does to the views
            }
            message.release();
        }
        assertThat(reported).containsExactly(0L, 7L);
    }

    @Test
    void onlyTheWritersOctetsAndCopiedPiecesCountAsOwnBytes() {
        MemorySegment scratch = arena.allocate(HEADER + TRAILER);
        MemorySegment small = arena.allocate(TxFpdu.SMALL_PAYLOAD_COPY_LIMIT);
        MemorySegment large = arena.allocate(TxFpdu.SMALL_PAYLOAD_COPY_LIMIT + 1);
        assertThat(pool.ownBytes(scratch, new MemorySegment[] {scratch, large, scratch},
                new int[] {HEADER, TxFpdu.SMALL_PAYLOAD_COPY_LIMIT + 1, TRAILER}, 3)).isEqualTo(HEADER + TRAILER);
        assertThat(pool.ownBytes(scratch, new MemorySegment[] {scratch, small, scratch},
                new int[] {HEADER, TxFpdu.SMALL_PAYLOAD_COPY_LIMIT, TRAILER}, 3))
                .isEqualTo(HEADER + TxFpdu.SMALL_PAYLOAD_COPY_LIMIT + TRAILER);
    }

    @Test
    void theMessageReadsAsItsWireBytesThroughTheByteBufAccessors() throws Exception {
        int size = TxFpdu.SMALL_PAYLOAD_COPY_LIMIT + 72; // header and trailer own, the payload a view
        TxFpdu fpdu = filled(size);
        byte[] wire = expected(size);
        io.netty.buffer.ByteBuf reference = io.netty.buffer.Unpooled.wrappedBuffer(wire);
        assertThat(fpdu.isReadOnly()).isTrue();
        assertThat(fpdu.readableBytes()).isEqualTo(wire.length);
        for (int i = 0; i < wire.length; i++) {
            assertThat(fpdu.getByte(i)).as("byte %d", i).isEqualTo(wire[i]);
            if (i + 2 <= wire.length) {
                assertThat(fpdu.getShort(i)).as("short at %d", i).isEqualTo(reference.getShort(i));
            }
            if (i + 4 <= wire.length) {
                assertThat(fpdu.getInt(i)).as("int at %d", i).isEqualTo(reference.getInt(i));
            }
            if (i + 8 <= wire.length) {
                assertThat(fpdu.getLong(i)).as("long at %d", i).isEqualTo(reference.getLong(i));
            }
        }
        // ranges that start in one piece and end in another, read every way netty offers
        int from = HEADER - 3;
        int len = size + 5;
        byte[] range = java.util.Arrays.copyOfRange(wire, from, from + len);
        byte[] intoArray = new byte[len + 2];
        fpdu.getBytes(from, intoArray, 1, len);
        assertThat(java.util.Arrays.copyOfRange(intoArray, 1, len + 1)).isEqualTo(range);
        ByteBuffer intoBuffer = ByteBuffer.allocate(len);
        fpdu.getBytes(from, intoBuffer);
        assertThat(intoBuffer.array()).isEqualTo(range);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        fpdu.getBytes(from, out, len);
        assertThat(out.toByteArray()).isEqualTo(range);
        io.netty.buffer.ByteBuf intoByteBuf = io.netty.buffer.Unpooled.buffer(len + 1);
        fpdu.getBytes(from, intoByteBuf, 1, len);
        assertThat(io.netty.buffer.ByteBufUtil.getBytes(intoByteBuf, 1, len)).isEqualTo(range);
        assertThat(io.netty.buffer.ByteBufUtil.getBytes(fpdu.copy(from, len))).isEqualTo(range);
        ByteBuffer view = fpdu.nioBuffer(from, len);
        byte[] fromView = new byte[view.remaining()];
        view.get(fromView);
        assertThat(fromView).isEqualTo(range);
        assertThat(bytes(fpdu.nioBuffers(from, len))).isEqualTo(range);
        ByteBuffer internal = fpdu.internalNioBuffer(0, HEADER); // within the first piece: its own view
        byte[] head = new byte[internal.remaining()];
        internal.duplicate().get(head);
        assertThat(head).isEqualTo(java.util.Arrays.copyOf(wire, HEADER));
    }

    @Test
    void fpdusFramedInPlaceFollowEachOtherInOneBufferAcrossAreaGrowthWithTheirCrcs() {
        // the small-FPDU path: FpduFramingHandler frames the whole FPDU into ownRoom at ownUsed
        TxFpdu message = pool.take();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        java.io.ByteArrayOutputStream wire = new java.io.ByteArrayOutputStream();
        int[] sizes = {40, 200, 36}; // the second outgrows the initial own area after the first
        for (int n = 0; n < sizes.length; n++) {
            int size = sizes[n];
            int at = message.ownUsed();
            assertThat(at).isEqualTo(wire.size());
            MemorySegment room = message.ownRoom(size);
            byte[] fpdu = new byte[size];
            for (int i = 0; i < size - TRAILER; i++) {
                fpdu[i] = (byte) (31 * n + i);
                room.set(ValueLayout.JAVA_BYTE, at + i, fpdu[i]);
            }
            message.appendOwn(size, crc, n);
            crc.reset();
            crc.update(fpdu, 0, size - TRAILER);
            int value = io.jrnic.mpa.Crc32c.toWire((int) crc.getValue());
            for (int i = 0; i < TRAILER; i++) {
                fpdu[size - TRAILER + i] = (byte) (value >>> (24 - 8 * i));
            }
            wire.writeBytes(fpdu);
        }
        assertThat(message.fpdus()).isEqualTo(sizes.length);
        assertThat(message.ownUsed()).isEqualTo(wire.size());
        assertThat(message.finish().nioBufferCount()).as("one buffer").isEqualTo(1);
        assertThat(bytes(message.nioBuffers())).isEqualTo(wire.toByteArray());
    }

    @Test
    void theIovecsDescribeTheUnwrittenBytesInWireOrderWithPayloadViewsAtTheirMemory() {
        int size = TxFpdu.SMALL_PAYLOAD_COPY_LIMIT + 100;
        TxFpdu message = pool.take();
        MemorySegment payload = append(message, size);  // own header, payload view, own trailer
        append(message, 64);                            // copied: continues the own trailer's buffer
        message.finish();
        byte[] wire = new byte[message.length()];
        System.arraycopy(expected(size), 0, wire, 0, HEADER + size + TRAILER);
        System.arraycopy(expected(64), 0, wire, HEADER + size + TRAILER, HEADER + 64 + TRAILER);
        long[] iov = new long[2 * 8];
        int[] starts = {0, 5, HEADER, HEADER + 7, HEADER + size + 2, wire.length - 1};
        for (int from : starts) {
            message.readerIndex(from);
            int end = message.iovecs(iov, 1, 8);   // from entry 1: what a writev after another message fills
            assertThat(bytesAt(iov, 1, end)).as("from byte %d", from)
                    .isEqualTo(java.util.Arrays.copyOfRange(wire, from, wire.length));
        }
        message.readerIndex(HEADER + 7);
        assertThat(message.iovecs(iov, 0, 8)).as("the rest of the view, then the merged own bytes").isEqualTo(2);
        assertThat(iov[0]).as("the view is the payload's memory, not a copy")
                .isEqualTo(payload.address() + 7);
        assertThat(message.iovecs(iov, 6, 8)).as("those two fit in the last two").isEqualTo(8);
        message.readerIndex(HEADER);
        assertThat(message.iovecs(iov, 0, 8)).as("from a piece's first byte: no empty entry before it").isEqualTo(2);
        message.readerIndex(0);
        assertThat(message.iovecs(iov, 6, 8)).as("three entries do not fit in two").isEqualTo(-1);
        assertThat(message.iovecs(iov, 5, 8)).as("they fit in three").isEqualTo(8);
        message.readerIndex(wire.length);
        assertThat(message.iovecs(iov, 3, 8)).as("nothing left to write").isEqualTo(3);
    }

    @Test
    void fpdusGatheredStraightIntoTheMessageAreTheWritersFpdusWithPayloadViews() {
        io.jrnic.mpa.FpduWriter inPlace = new io.jrnic.mpa.FpduWriter(false, false); // CRC by the message
        io.jrnic.mpa.FpduWriter reference = new io.jrnic.mpa.FpduWriter(false, true);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        MemorySegment header = arena.allocate(HEADER);
        for (int i = 0; i < HEADER; i++) {
            header.set(ValueLayout.JAVA_BYTE, i, (byte) (7 * i + 1));
        }
        int[] sizes = {1001, 4096};     // the first needs a pad; both above the copy limit
        TxFpdu message = pool.take();
        java.io.ByteArrayOutputStream wire = new java.io.ByteArrayOutputStream();
        for (int n = 0; n < sizes.length; n++) {
            MemorySegment payload = arena.allocate(sizes[n]);
            for (int i = 0; i < sizes[n]; i++) {
                payload.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + n));
            }
            int own = inPlace.scratchLength(HEADER, sizes[n]);
            MemorySegment room = message.ownRoom(own);
            int start = message.length();
            inPlace.gather(header, 0, HEADER, payload, 0, sizes[n], room, message.ownUsed(), message::gathered);
            assertThat(message.endGathered(start, own, crc, n)).isSameAs(message);

            byte[] fpdu = new byte[reference.wireLength(HEADER + sizes[n])];
            reference.write(header, 0, HEADER, payload, 0, sizes[n], MemorySegment.ofArray(fpdu), 0);
            wire.writeBytes(fpdu);
        }
        assertThat(message.fpdus()).isEqualTo(2);
        assertThat(message.finish().nioBufferCount())
                .as("header, payload view, trailer and next header merged, payload view, trailer").isEqualTo(5);
        assertThat(bytes(message.nioBuffers())).as("the writer's FPDUs with their CRCs").isEqualTo(wire.toByteArray());
    }

    @Test
    void onEpollAPieceMakesNoBufferUntilNettyAsksForOne() {
        // the direct writer reads addresses (iovecs): no ByteBuffer view is made or moved per piece
        TxFpdu.Pool epoll = new TxFpdu.Pool((token, fpdus) -> { }, SocketKind.EPOLL, () -> true);
        try (Arena confined = Arena.ofShared()) {
            NativeViews.trust(confined.scope());
            try {
                int size = TxFpdu.SMALL_PAYLOAD_COPY_LIMIT + 100;
                MemorySegment payload = stablePayload(confined, size);
                byte[] one = expected(size);
                TxFpdu message = null;
                for (int round = 0; round < 50; round++) {
                    message = epoll.take();
                    for (int n = 0; n < 3; n++) {
                        appendFrom(epoll, message, payload, size);
                    }
                    message.finish();
                    long[] iov = new long[2 * 16];
                    int end = message.iovecs(iov, 0, 16);
                    byte[] wire = bytesAt(iov, 0, end);
                    assertThat(wire).hasSize(3 * one.length);
                    assertThat(java.util.Arrays.copyOfRange(wire, 2 * one.length, 3 * one.length)).isEqualTo(one);
                    byte[] read = new byte[message.readableBytes()];
                    message.getBytes(0, read, 0, read.length);
                    assertThat(read).as("the ByteBuf accessors read the pieces' memory").isEqualTo(wire);
                    if (round < 49) {
                        message.release();
                    }
                }
                assertThat(message.viewsMade()).as("views made over 50 messages of 3 FPDUs").isZero();
                int from = HEADER + 5;
                int len = 2 * one.length;
                byte[] range = java.util.Arrays.copyOfRange(concat(one, one, one), from, from + len);
                ByteBuffer[] asked = message.nioBuffers(from, len);
                assertThat(bytes(asked)).as("netty's write asks: views, made now").isEqualTo(range);
                assertThat(message.viewsMade()).as("one per piece of the range").isEqualTo(asked.length);
                message.release();
            } finally {
                NativeViews.distrust(confined.scope());
            }
        }
    }

    @Test
    void onEpollTheOwnPiecesViewsFollowTheAreaWhenItGrows() {
        TxFpdu.Pool epoll = new TxFpdu.Pool((token, fpdus) -> { }, SocketKind.EPOLL, () -> true);
        TxFpdu message = epoll.take();
        fillOwn(message, 16, 1);
        assertThat(bytes(message.finish().nioBuffers(0, 16))).isEqualTo(ownBytes(16, 1)); // a view of the first area
        message.release();
        TxFpdu again = epoll.take();
        assertThat(again).as("the pool hands the same object back").isSameAs(message);
        int grown = 16 * 128;     // more than the first area: the area is replaced
        fillOwn(again, grown, 2);
        assertThat(bytes(again.finish().nioBuffers(0, grown))).as("a view of the new area, not the old one's")
                .isEqualTo(ownBytes(grown, 2));
        ByteBuffer one = again.internalNioBuffer(3, grown - 3);
        byte[] tail = new byte[one.remaining()];
        one.duplicate().get(tail);
        assertThat(tail).isEqualTo(java.util.Arrays.copyOfRange(ownBytes(grown, 2), 3, grown));
    }

    @Test
    void onEpollTheCrcIsComputedOverTheWireBytes() {
        TxFpdu.Pool epoll = new TxFpdu.Pool((token, fpdus) -> { }, SocketKind.EPOLL, () -> true);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        MemorySegment scratch = Arena.global().allocate(HEADER + TRAILER);   // stable memory: views, not copies
        for (int i = 0; i < HEADER; i++) {
            scratch.set(ValueLayout.JAVA_BYTE, i, (byte) (100 + i));
        }
        int size = TxFpdu.SMALL_PAYLOAD_COPY_LIMIT + 9;
        MemorySegment payload = stablePayload(Arena.global(), size);
        TxFpdu message = epoll.take();
        MemorySegment[] segments = {scratch, payload, scratch};
        int[] lengths = {HEADER, size, TRAILER};
        message.append(scratch, HEADER + TRAILER, segments, new long[] {0, 0, HEADER}, lengths, 3,
                epoll.ownBytes(scratch, segments, lengths, 3), crc, -1);
        message.finish();
        long[] iov = new long[2 * 8];
        byte[] wire = bytesAt(iov, 0, message.iovecs(iov, 0, 8));
        java.util.zip.CRC32C reference = new java.util.zip.CRC32C();
        reference.update(wire, 0, wire.length - TRAILER);
        int value = io.jrnic.mpa.Crc32c.toWire((int) reference.getValue());
        assertThat(java.nio.ByteBuffer.wrap(wire, wire.length - TRAILER, TRAILER).getInt()).isEqualTo(value);
        assertThat(java.util.Arrays.copyOf(wire, HEADER + size)).isEqualTo(java.util.Arrays.copyOf(expected(size), HEADER + size));
    }

    /** Appends own octets {@code [0, n)} = (seed + i), framed into the own area as one FPDU. */
    private static void fillOwn(TxFpdu message, int n, int seed) {
        MemorySegment room = message.ownRoom(n);
        byte[] b = ownBytes(n, seed);
        for (int i = 0; i < n; i++) {
            room.set(ValueLayout.JAVA_BYTE, message.ownUsed() + i, b[i]);
        }
        message.appendOwn(n, null, -1);
    }

    private static byte[] ownBytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    private static MemorySegment stablePayload(Arena arena, int size) {
        MemorySegment payload = arena.allocate(size);
        for (int i = 0; i < size; i++) {
            payload.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        return payload;
    }

    /** Appends an FPDU of header + {@code payload} (kept a view where the pool allows) + trailer. */
    private void appendFrom(TxFpdu.Pool from, TxFpdu message, MemorySegment payload, int size) {
        MemorySegment scratch = arena.allocate(HEADER + TRAILER);
        for (int i = 0; i < HEADER + TRAILER; i++) {
            scratch.set(ValueLayout.JAVA_BYTE, i, (byte) (100 + i));
        }
        MemorySegment[] segments = {scratch, payload, scratch};
        int[] lengths = {HEADER, size, TRAILER};
        message.append(scratch, HEADER + TRAILER, segments, new long[] {0, 0, HEADER}, lengths, 3,
                from.ownBytes(scratch, segments, lengths, 3), null, -1);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** The bytes of iovec entries {@code [first, end)}, in order. */
    private static byte[] bytesAt(long[] iov, int first, int end) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = first; i < end; i++) {
            long base = iov[2 * i];
            long len = iov[2 * i + 1];
            out.writeBytes(MemorySegment.ofAddress(base).reinterpret(len).toArray(ValueLayout.JAVA_BYTE));
        }
        return out.toByteArray();
    }

    /** Appends an FPDU of header + payload + trailer to the message; returns the payload's memory. */
    private MemorySegment append(TxFpdu message, int payloadSize) {
        MemorySegment scratch = arena.allocate(HEADER + TRAILER);
        for (int i = 0; i < HEADER + TRAILER; i++) {
            scratch.set(ValueLayout.JAVA_BYTE, i, (byte) (100 + i));
        }
        MemorySegment payload = arena.allocate(payloadSize);
        for (int i = 0; i < payloadSize; i++) {
            payload.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        MemorySegment[] segments = {scratch, payload, scratch};
        int[] lengths = {HEADER, payloadSize, TRAILER};
        message.append(scratch, HEADER + TRAILER, segments, new long[] {0, 0, HEADER}, lengths, 3,
                pool.ownBytes(scratch, segments, lengths, 3), null, -1);
        return payload;
    }

    /** An FPDU of header + payload + trailer, the way FpduWriter.gather reports its pieces. */
    private TxFpdu filled(int payloadSize) {
        TxFpdu message = pool.take();
        append(message, payloadSize);
        return message.finish();
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
