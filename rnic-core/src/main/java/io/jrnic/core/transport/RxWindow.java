package io.jrnic.core.transport;

import io.jrnic.mpa.SegmentViews;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

/**
 * The buffer of a socket read into foreign memory: one reusable netty {@link ByteBuf} over a
 * settable window (segment, offset, length). A connection has one for its direct-placement reads,
 * pointed at each read's slice of the placement target; its event loop has two fixed ones over the
 * receive staging memory its connections share (whole, and cut to a header: {@link ReadStaging}).
 * The kernel copies into the window and cannot run past it:
 * <ul>
 *   <li>netty's epoll read asks {@link #hasMemoryAddress()} and, for native memory, reads with
 *       {@code recv} at {@link #memoryAddress()} up to {@link #capacity()}, the window's length.
 *       Without {@code sun.misc.Unsafe} (Java 25) netty's own buffers expose no address, and its
 *       read of a {@link ByteBuffer} costs JNI calls that look the address up
 *       ({@code GetDirectBufferAddress}, {@code IsInstanceOf}) on every read (issue 11).</li>
 *   <li>netty's NIO read, and epoll's for heap memory, calls
 *       {@link #setBytes(int, ScatteringByteChannel, int)} or {@link #internalNioBuffer}: a cached
 *       {@link ByteBuffer} view of the segment, positioned and limited to the window.</li>
 * </ul>
 *
 * <p>Allocation-free in steady state: {@link #open} only resets indices and the reference count, and
 * the views are cached per segment object (a few, round robin, so a peer interleaving writes to a
 * few regions does not thrash). The release after {@code channelRead} frees nothing. A segment beyond
 * 2 GiB has no whole-segment view; the window is then viewed alone (one allocation per read, rare).
 *
 * <p>Thread safety: confined to the connection's event loop.
 */
final class RxWindow extends SegmentByteBuf {

    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Cached whole-segment views, by segment identity. */
    private final SegmentViews views = new SegmentViews(4);

    private MemorySegment segment;
    private long base;
    private ByteBuffer view;
    private int viewBase;
    private int length;

    RxWindow() {
        super();
        release();           // starts unused (reference count 0) until opened
    }

    /**
     * Points this buffer at {@code length} bytes of {@code target} at {@code offset}, empty
     * (writerIndex 0), with reference count 1, ready for one read.
     */
    RxWindow open(MemorySegment target, long offset, int length) {
        if (target.byteSize() > Integer.MAX_VALUE) {
            view = target.asSlice(offset, length).asByteBuffer();
            viewBase = 0;
        } else {
            view = views.of(target);
            viewBase = (int) offset;
        }
        this.segment = target;
        this.base = offset;
        this.length = length;
        resetRefCnt();
        setIndex(0, 0);
        return this;
    }

    /** Forgets the window and the cached views (the connection closed; keeps no region reachable). */
    void forget() {
        views.clear();
        segment = null;
        view = null;
    }

    @Override
    protected void deallocate() {
        // Nothing to free: the object is reused for the next direct read. The window stays until then.
    }

    // ------------------------------------------------------------------ what netty's NIO read uses

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int len) throws IOException {
        ensureAccessible();
        checkIndex(index, len);
        ByteBuffer v = view;
        v.clear();
        v.position(viewBase + index);
        v.limit(viewBase + index + len);
        try {
            return in.read(v);
        } catch (ClosedChannelException ignored) {
            return -1;
        }
    }

    @Override
    public int capacity() {
        return length;
    }

    /** Native memory only: a heap segment's address is no pointer the kernel could write to. */
    @Override
    public boolean hasMemoryAddress() {
        return segment != null && segment.isNative();
    }

    /** The window's first byte (index 0); netty reads at {@code memoryAddress() + writerIndex()}. */
    @Override
    public long memoryAddress() {
        if (!hasMemoryAddress()) {
            throw new UnsupportedOperationException("the window is not in native memory");
        }
        return segment.address() + base;
    }

    @Override
    public boolean isDirect() {
        return view == null || view.isDirect();
    }

    @Override
    public int nioBufferCount() {
        return 1;
    }

    @Override
    public ByteBuffer nioBuffer(int index, int len) {
        checkIndex(index, len);
        return segment.asSlice(base + index, len).asByteBuffer();
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int len) {
        checkIndex(index, len);
        ByteBuffer v = view;
        v.clear();
        v.position(viewBase + index);
        v.limit(viewBase + index + len);
        return v;
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int len) {
        return new ByteBuffer[] {nioBuffer(index, len)};
    }

    @Override
    public ByteBuf copy(int index, int len) {
        checkIndex(index, len);
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(len, len);
        getBytes(index, b, 0, len);
        b.writerIndex(len);
        return b;
    }

    // ------------------------------------------------------------------ byte access (diagnostics, rare paths)

    @Override
    protected byte _getByte(int index) {
        return segment.get(ValueLayout.JAVA_BYTE, base + index);
    }

    @Override
    protected short _getShort(int index) {
        return segment.get(SHORT, base + index);
    }

    @Override
    protected int _getInt(int index) {
        return segment.get(INT, base + index);
    }

    @Override
    protected long _getLong(int index) {
        return segment.get(LONG, base + index);
    }

    @Override
    protected void _setByte(int index, int value) {
        segment.set(ValueLayout.JAVA_BYTE, base + index, (byte) value);
    }

    @Override
    protected void _setShort(int index, int value) {
        segment.set(SHORT, base + index, (short) value);
    }

    @Override
    protected void _setInt(int index, int value) {
        segment.set(INT, base + index, value);
    }

    @Override
    protected void _setLong(int index, long value) {
        segment.set(LONG, base + index, value);
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int len) {
        checkIndex(index, len);
        for (int i = 0; i < len; i++) {
            dst.setByte(dstIndex + i, _getByte(index + i));
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int len) {
        checkIndex(index, len);
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, base + index, dst, dstIndex, len);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        int len = dst.remaining();
        checkIndex(index, len);
        MemorySegment.ofBuffer(dst).copyFrom(segment.asSlice(base + index, len));
        dst.position(dst.position() + len);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int len) throws IOException {
        byte[] b = new byte[len];
        getBytes(index, b, 0, len);
        out.write(b);
        return this;
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int len) throws IOException {
        return out.write(nioBuffer(index, len));
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int len) throws IOException {
        return out.write(nioBuffer(index, len), position);
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int len) {
        checkIndex(index, len);
        for (int i = 0; i < len; i++) {
            _setByte(index + i, src.getByte(srcIndex + i));
        }
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int len) {
        checkIndex(index, len);
        MemorySegment.copy(src, srcIndex, segment, ValueLayout.JAVA_BYTE, base + index, len);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        int len = src.remaining();
        checkIndex(index, len);
        segment.asSlice(base + index, len).copyFrom(MemorySegment.ofBuffer(src));
        src.position(src.position() + len);
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int len) throws IOException {
        checkIndex(index, len);
        byte[] b = in.readNBytes(len);
        setBytes(index, b, 0, b.length);
        return b.length == 0 && len > 0 ? -1 : b.length;
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int len) throws IOException {
        checkIndex(index, len);
        return in.read(internalNioBuffer(index, len), position);
    }
}
