package io.jrnic.core.transport;

import io.jrnic.mpa.Crc32c;
import io.jrnic.mpa.Fpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.util.zip.CRC32C;

/**
 * Outbound FPDUs, one or several back to back, as a read-only, reusable netty message: the writer's
 * own octets (length, header copy, markers, pad, CRC) in a native area owned by this object, and the payload pieces as
 * {@link ByteBuffer} views of the caller's registered memory, in wire order. Only small payload
 * pieces (at most {@value #SMALL_PAYLOAD_COPY_LIMIT} bytes) are copied, behind the own octets.
 *
 * <p>Netty's {@code ChannelOutboundBuffer} writes it through {@link #nioBuffers()} /
 * {@link #internalNioBuffer}, which return the views themselves: the JDK's gathering write advances
 * their positions, so a partial write resumes where it stopped, and once the message is released
 * (written, or dropped on close) the views tell whether every byte went to TCP. The release does not
 * free anything: it hands the object back to its {@link Pool} (allocation-free steady state), after
 * reporting the completion token if the FPDU was written whole.
 *
 * <p>On netty's epoll transport ({@link SocketKind#EPOLL}) the kernel is handed the views' addresses
 * (iovecs): the views must all be direct, nothing advances their positions, and a partial write is
 * resumed by asking for the views of the rest ({@code nioBuffers(readerIndex, readableBytes)}),
 * which must then be an array of exactly those buffers. So there every payload piece that is not
 * {@linkplain NativeViews#stable stable} native memory (heap memory, or an arena the application may
 * close) is copied behind the own octets, ranged requests are answered from reusable arrays, and a
 * released FPDU counts as written unless the channel is closed or its output shut down: netty drops
 * queued messages only after closing the socket or shutting its output down (docs/transport.md,
 * "Socket kinds").
 *
 * <p>Thread safety: confined to the channel's event loop (netty releases written messages there).
 */
final class TxFpdu extends SegmentByteBuf {

    /** Called for every message that TCP has taken whole: its last token (negative: none) and its FPDUs. */
    interface SentCallback {
        void sent(long token, int fpdus);
    }

    /** A free list of {@link TxFpdu}s of one connection (event loop only). */
    static final class Pool {
        private final SentCallback callback;
        /** Whether the socket writes advance the views' positions (NIO); see the class comment. */
        private final boolean writesAdvanceViews;
        /** Whether the socket copies heap pieces and holds the memory's session (NIO); see the class comment. */
        private final boolean sessionChecked;
        /** Where positions do not move: whether a released FPDU was written (the channel still writes). */
        private final java.util.function.BooleanSupplier channelWriting;
        private TxFpdu free;
        private int created;

        /** A pool for NIO sockets. */
        Pool(SentCallback callback) {
            this(callback, SocketKind.NIO, () -> true);
        }

        /**
         * @param callback       receives the token of each FPDU written whole
         * @param kind           the socket kind the FPDUs are written by
         * @param channelWriting whether the channel is open with its output not shut down (read
         *                       only where the kind's writes do not advance the views)
         */
        Pool(SentCallback callback, SocketKind kind, java.util.function.BooleanSupplier channelWriting) {
            this.callback = callback;
            this.writesAdvanceViews = kind.writesAdvanceViews();
            this.sessionChecked = kind.sessionChecked();
            this.channelWriting = channelWriting;
        }

        TxFpdu take() {
            TxFpdu f = free;
            if (f == null) {
                created++;
                return new TxFpdu(this);
            }
            free = f.nextFree;
            f.nextFree = null;
            f.reuse();
            return f;
        }

        void giveBack(TxFpdu f) {
            f.nextFree = free;
            free = f;
        }

        /**
         * Own bytes (see {@link TxFpdu#fits}) an FPDU of these pieces takes in a message: the
         * writer's octets (the pieces in {@code scratch}) and the pieces {@link #copiedPiece} copies.
         */
        int ownBytes(MemorySegment scratch, MemorySegment[] segments, int[] lengths, int count) {
            int ownBytes = 0;
            for (int i = 0; i < count; i++) {
                if (segments[i] == scratch || copiedPiece(segments[i], lengths[i])) {
                    ownBytes += lengths[i];
                }
            }
            return ownBytes;
        }

        /**
         * Whether a payload piece is copied into a message's own area: every piece of at most
         * {@value TxFpdu#SMALL_PAYLOAD_COPY_LIMIT} bytes; on a socket that hands the kernel bare
         * addresses, every piece of memory that is not {@linkplain NativeViews#stable stable} (see
         * {@link TxFpdu}'s class comment); on NIO, heap pieces of at most
         * {@value TxFpdu#HEAP_COPY_LIMIT} bytes (inline data lives in the WQE's {@code byte[]}): NIO
         * would copy them into a temporary direct buffer anyway, and through a checked view that
         * costs the JDK's 40-byte releaser per write (docs/transport.md, "Allocation"). Larger heap
         * pieces stay views.
         */
        boolean copiedPiece(MemorySegment segment, int length) {
            if (length <= SMALL_PAYLOAD_COPY_LIMIT) {
                return true;
            }
            if (!sessionChecked) {
                return !NativeViews.stable(segment);
            }
            return !segment.isNative() && length <= HEAP_COPY_LIMIT;
        }

        /** How many objects this pool has created (tests: bounded in steady state). */
        int created() {
            return created;
        }
    }

    private static final ValueLayout.OfInt CRC_FIELD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int INITIAL_OWN = 128;
    private static final int INITIAL_PIECES = 4;
    private static final ByteBuffer[] NO_BUFFERS = new ByteBuffer[0];

    private final Pool pool;
    private TxFpdu nextFree;

    /**
     * The writer's own octets of this FPDU. A plain direct buffer, not a segment's view: the JDK's
     * gathering write allocates a scope releaser per segment-backed buffer, none for this one.
     */
    private ByteBuffer ownView = ByteBuffer.allocateDirect(INITIAL_OWN);
    private MemorySegment own = MemorySegment.ofBuffer(ownView);

    /**
     * Per piece: where its bytes are (the own area, a payload segment, or for a region beyond 2 GiB
     * a slice's view), its first offset there, its first byte in the FPDU. A piece is these
     * numbers only; its {@link ByteBuffer} view is made or repositioned when something reads the
     * piece through a buffer ({@link #view}): on NIO sockets at {@link #finish}, on epoll only
     * when netty writes (the direct writer reads {@link #iovecs}) or a CRC is computed, so a piece
     * there touches no buffer object (issue 11: fewer cache lines per message).
     */
    private int[] viewStart = new int[INITIAL_PIECES];
    private int[] pieceStart = new int[INITIAL_PIECES + 1];
    /** Per piece: the payload segment (null: an own piece, or a region beyond 2 GiB). */
    private MemorySegment[] viewSource = new MemorySegment[INITIAL_PIECES];
    /** Per piece of a region beyond 2 GiB: the native address of its view's index 0 ({@link #iovecs}). */
    private long[] viewBase = new long[INITIAL_PIECES];
    private boolean[] viewIsOwn = new boolean[INITIAL_PIECES];
    /** Per slot: a reusable view (a duplicate), and what it duplicates (identity cache: a segment, the own area's buffer). */
    private ByteBuffer[] views = new ByteBuffer[INITIAL_PIECES];
    private Object[] viewOf = new Object[INITIAL_PIECES];
    /** Views this message has made (tests: none on epoll until netty asks for buffers, bounded on NIO). */
    private int viewsMade;
    /**
     * {@link #views} up to {@link #pieces}, then null (what {@link #nioBuffers()} returns; netty's
     * ChannelOutboundBuffer ends a message's buffers at the first null, so the array is reused).
     */
    private ByteBuffer[] exact;
    private int pieces;
    /** Reusable arrays of exactly n views, by n, for {@link #ranged} (netty's epoll writev takes every element). */
    private ByteBuffer[][] rangedArrays = new ByteBuffer[INITIAL_PIECES + 1][];
    /** How many bytes of the own area the FPDU uses: the writer's octets and the copied pieces, in wire order. */
    private int ownUsed;
    private int length;
    private int fpdus;
    private long token = -1;

    private TxFpdu(Pool pool) {
        super();
        this.pool = pool;
    }

    private void reuse() {
        resetRefCnt();
        pieces = 0;
        length = 0;
        ownUsed = 0;
        fpdus = 0;
        token = -1;
        setIndex(0, 0);
    }

    /** Puts a message that was never handed to netty back in the pool, reporting nothing (a reset). */
    void discard() {
        token = -1;
        pool.giveBack(this);
    }

    /** FPDUs in this message. */
    int fpdus() {
        return fpdus;
    }

    /** Views this object has made so far (tests). */
    int viewsMade() {
        return viewsMade;
    }

    /** Bytes of this message (its FPDUs back to back). */
    int length() {
        return length;
    }

    /**
     * Whether one more FPDU whose writer's octets and copied pieces take {@code ownBytes} fits behind
     * the ones already here: a message packs small FPDUs up to {@link #OWN_LIMIT} own bytes.
     */
    boolean fits(int ownBytes) {
        return fpdus == 0 || ownUsed + ownBytes <= OWN_LIMIT;
    }

    /**
     * Appends one FPDU from the gathering writer's output: its own octets {@code scratch[0, used)}
     * and the pieces in wire order, where a piece in {@code scratch} is a range of those octets.
     * Clears {@code segments[0, count)} so the caller's arrays keep no memory reachable. The caller
     * computed the FPDU's {@code ownBytes} ({@link Pool#ownBytes}) and checked {@link #fits}.
     *
     * <p>The own area is laid out in wire order: the writer's octets and every payload piece that
     * is copied (see {@link Pool#copiedPiece}) go one after the other, and adjacent own pieces merge, so
     * small FPDUs back to back are a single buffer: one iovec for the kernel, one netty message, one
     * outbound entry, instead of three buffers and a message per FPDU. Larger payload pieces stay
     * views of the registered memory, never copied. With {@code crc} non-null the FPDU's CRC is
     * computed and stored (RFC 5044 §4.4).
     *
     * @param token the FPDU's completion token, negative for none; the message reports the last one
     */
    TxFpdu append(MemorySegment scratch, int used, MemorySegment[] segments, long[] offsets, int[] lengths,
                  int count, int ownBytes, CRC32C crc, long token) {
        MemorySegment area = ownArea(ownUsed + ownBytes);
        int fpduStart = length;
        int next = ownUsed;
        for (int i = 0; i < count; i++) {
            MemorySegment segment = segments[i];
            segments[i] = null;
            int len = lengths[i];
            if (segment == scratch || pool.copiedPiece(segment, len)) {
                MemorySegment.copy(segment, offsets[i], area, next, len);
                addPiece(null, next, len);
                next += len;
            } else {
                addPiece(segment, offsets[i], len);
            }
        }
        ownUsed = next;
        return endFpdu(fpduStart, crc, token);
    }

    /**
     * One piece of an FPDU the gathering writer frames straight into this message
     * ({@link #ownRoom} as its scratch, at {@link #ownUsed()}): a range of the own area (the
     * writer's octets) or a payload view, in wire order. The caller chose this only for a payload
     * that stays a view ({@link Pool#copiedPiece} false) and no markers, so nothing is copied here.
     * {@link #endGathered} ends the FPDU.
     */
    void gathered(MemorySegment segment, long offset, long length) {
        if (segment == own) {
            addPiece(null, offset, (int) length);
        } else {
            addPiece(segment, offset, (int) length);
        }
    }

    /**
     * Ends an FPDU framed through {@link #gathered}: its {@code ownBytes} writer's octets now count
     * as used, and with {@code crc} non-null its CRC is computed and stored.
     *
     * @param fpduStart the FPDU's first byte in this message ({@link #length()} before its first piece)
     * @param token     the FPDU's completion token, negative for none; the message reports the last one
     */
    TxFpdu endGathered(int fpduStart, int ownBytes, CRC32C crc, long token) {
        ownUsed += ownBytes;
        return endFpdu(fpduStart, crc, token);
    }

    /** Bytes of the own area in use: the next FPDU framed in place ({@link #ownRoom}) starts there. */
    int ownUsed() {
        return ownUsed;
    }

    /**
     * The own area with room for {@code bytes} more octets from {@link #ownUsed()}, where the caller
     * frames a whole FPDU before {@link #appendOwn}. Valid until the next call (the area may grow).
     */
    MemorySegment ownRoom(int bytes) {
        return ownArea(ownUsed + bytes);
    }

    /**
     * Appends the FPDU of {@code bytes} octets the caller framed whole into {@link #ownRoom} at
     * {@link #ownUsed()} (a small FPDU: one own piece, merged with the previous one). The caller
     * checked {@link #fits}. With {@code crc} non-null its CRC is computed and stored.
     *
     * @param token the FPDU's completion token, negative for none; the message reports the last one
     */
    TxFpdu appendOwn(int bytes, CRC32C crc, long token) {
        int fpduStart = length;
        addPiece(null, ownUsed, bytes);
        ownUsed += bytes;
        return endFpdu(fpduStart, crc, token);
    }

    /** Counts the FPDU that starts at {@code fpduStart} and ends the own area, and stores its CRC. */
    private TxFpdu endFpdu(int fpduStart, CRC32C crc, long token) {
        // the CRC field is the FPDU's last 4 octets, written by the writer: the own area's last 4 bytes
        fpdus++;
        if (token >= 0) {
            this.token = token;
        }
        if (crc != null) {
            writeCrc(crc, fpduStart);
        }
        return this;
    }

    /**
     * RFC 5044 §4.4: computes the CRC32c over every octet of the last FPDU, from {@code fpduStart}
     * (its first byte in this message) to its CRC field -- the last {@value Fpdu#CRC_LENGTH} octets
     * of the own area -- in wire order, and stores it there. Runs over this message's own cached
     * views (no per-segment view is made, so it allocates nothing however the payload segments
     * alternate); {@link #finish} positions them afresh.
     */
    private void writeCrc(CRC32C crc, int fpduStart) {
        crc.reset();
        int crcStart = length - Fpdu.CRC_LENGTH;      // in message coordinates
        for (int i = 0; i < pieces; i++) {
            int pieceFrom = Math.max(pieceStart[i], fpduStart);
            int pieceTo = Math.min(pieceStart[i + 1], crcStart);
            if (pieceTo <= pieceFrom) {
                continue;
            }
            ByteBuffer v = view(i);
            int from = viewStart[i] + pieceFrom - pieceStart[i];
            int to = viewStart[i] + pieceTo - pieceStart[i];
            v.limit(to).position(from);
            crc.update(v);
        }
        own.set(CRC_FIELD, ownUsed - Fpdu.CRC_LENGTH, Crc32c.toWire((int) crc.getValue()));
    }

    /** Heap pieces up to this many bytes are copied into the own area (see {@link Pool#copiedPiece}). */
    static final int HEAP_COPY_LIMIT = 1024;

    /**
     * Payload pieces up to this many bytes, of any memory, are copied into the own area (issue 11):
     * the FPDU of a small message then leaves as one buffer, one iovec, instead of three, and the
     * copy (the one TX copy the data-path rule allows) costs less than the kernel's and netty's work
     * per extra iovec. Linux siw does likewise for short payloads (siw_qp_tx.c, siw_try_1seg: the
     * payload is copied behind the header so that the FPDU goes out in one piece). A 64-byte Write
     * stream gained 20% (1.61 -> 1.93 M/s with lists of 32, docs/benchmarks.md).
     */
    static final int SMALL_PAYLOAD_COPY_LIMIT = 128;

    /**
     * Own bytes (writer's octets and copied pieces) one message packs FPDUs up to: about 40 FPDUs
     * of 64-byte messages; a large FPDU's payload is a view and takes none of it.
     */
    static final int OWN_LIMIT = 4096;


    /** The native area for the writer's own octets, at least {@code size} bytes (may be replaced). */
    private MemorySegment ownArea(int size) {
        if (own.byteSize() < size) {
            // warm-up only: the area grows to the largest message this object carries, then stays
            ByteBuffer grown = ByteBuffer.allocateDirect((int) Math.max(size, 2 * own.byteSize()));
            MemorySegment grownArea = MemorySegment.ofBuffer(grown);
            MemorySegment.copy(own, 0, grownArea, 0, ownUsed);
            ownView = grown;   // the own pieces' cached views duplicate the old area: view() replaces them
            own = grownArea;
        }
        return own;
    }

    /** Appends a piece: a range of {@link #ownArea} (segment == null) or of a payload segment. */
    private void addPiece(MemorySegment payload, long offset, int len) {
        int i = pieces;
        if (i == viewStart.length) {
            grow();
        }
        if (payload == null && i > 0 && viewIsOwn[i - 1]
                && viewStart[i - 1] + pieceStart[i] - pieceStart[i - 1] == offset) {
            // continues the previous own piece in the area: one buffer, one iovec
            length += len;
            pieceStart[i] = length;
            return;
        }
        viewIsOwn[i] = payload == null;
        if (payload != null && payload.byteSize() > Integer.MAX_VALUE) {
            // Rare: a region beyond 2 GiB has no whole-segment ByteBuffer view; this slice's is the piece's.
            ByteBuffer v = payload.asSlice(offset, len).asByteBuffer();
            viewBase[i] = payload.address() + offset;
            offset = 0;
            views[i] = v;
            viewOf[i] = v;
            viewSource[i] = null;
        } else {
            viewSource[i] = payload;
        }
        viewStart[i] = (int) offset;
        pieceStart[i] = length;
        length += len;
        pieces = i + 1;
        pieceStart[pieces] = length;
    }

    /**
     * Piece {@code i}'s view, positioned and limited to the whole piece: the slot's cached view when
     * it duplicates the piece's memory, else a new duplicate cached for the next message (plain for
     * RNIC memory, so a gathering write allocates nothing; warm-up only while a slot's sources vary).
     */
    private ByteBuffer view(int i) {
        ByteBuffer v = views[i];
        if (viewIsOwn[i]) {
            if (viewOf[i] != ownView) {
                v = ownView.duplicate();
                views[i] = v;
                viewOf[i] = ownView;
                viewsMade++;
            }
        } else {
            MemorySegment source = viewSource[i];
            if (source != null && viewOf[i] != source) {    // null: the slice view of a region beyond 2 GiB
                v = NativeViews.view(source);
                views[i] = v;
                viewOf[i] = source;
                viewsMade++;
            }
        }
        int from = viewStart[i];
        v.clear();
        v.position(from);
        v.limit(from + pieceStart[i + 1] - pieceStart[i]);
        return v;
    }

    private void grow() {
        int n = 2 * viewStart.length;
        views = java.util.Arrays.copyOf(views, n);
        viewOf = java.util.Arrays.copyOf(viewOf, n);
        viewStart = java.util.Arrays.copyOf(viewStart, n);
        pieceStart = java.util.Arrays.copyOf(pieceStart, n + 1);
        viewSource = java.util.Arrays.copyOf(viewSource, n);
        viewIsOwn = java.util.Arrays.copyOf(viewIsOwn, n);
        viewBase = java.util.Arrays.copyOf(viewBase, n);
    }

    /**
     * Describes the bytes not yet written ({@code [readerIndex, length)}) to the kernel as
     * {@code struct iovec}s (base address, length: two longs each) from entry {@code at} of
     * {@code iov} on ({@link DirectWriter}, which copies them to native memory in one go). Only where the socket takes bare addresses ({@link SocketKind#EPOLL}):
     * every payload piece there is native memory (see the class comment).
     *
     * @param iov   the iovec array
     * @param at    the first entry to fill
     * @param limit the number of entries the array holds
     * @return the entry after the last one filled, or -1 (nothing filled) when they would not fit
     */
    int iovecs(long[] iov, int at, int limit) {
        int index = readerIndex();
        if (index >= length) {
            return at;
        }
        int first = 0;
        while (pieceStart[first + 1] <= index) {
            first++;
        }
        if (at + pieces - first > limit) {
            return -1;
        }
        long ownBase = own.address();
        for (int i = first; i < pieces; i++) {
            int skip = Math.max(0, index - pieceStart[i]);
            long base = viewIsOwn[i] ? ownBase : viewSource[i] != null ? viewSource[i].address() : viewBase[i];
            base += viewStart[i] + skip;
            iov[2 * at] = base;
            iov[2 * at + 1] = pieceStart[i + 1] - pieceStart[i] - skip;
            at++;
        }
        return at;
    }

    /** Completes the message before it is handed to netty: readable bytes = its FPDUs. */
    TxFpdu finish() {
        setIndex(0, length);
        if (!pool.writesAdvanceViews) {
            return this;           // the views are made when netty asks for a range (ranged)
        }
        if (exact == null || exact.length <= pieces) {
            exact = new ByteBuffer[views.length + 1];
        }
        for (int i = 0; i < pieces; i++) {
            exact[i] = view(i);    // the writes advance these: written() reads them afterwards
        }
        exact[pieces] = null;      // netty's ChannelOutboundBuffer stops at the first null
        return this;
    }

    private boolean written() {
        if (!pool.writesAdvanceViews) {
            // netty drops queued messages only after closing the socket or shutting its output
            // down; a message released while the channel still writes was written whole
            return pool.channelWriting.getAsBoolean();
        }
        for (int i = 0; i < pieces; i++) {
            if (views[i].hasRemaining()) {
                return false;
            }
        }
        return true;
    }

    @Override
    protected void deallocate() {
        long t = token;
        boolean sent = written(); // with or without a token: the progress timeout counts it
        // Forget payload memory references held for the writer (the views stay cached per slot).
        int n = fpdus;
        token = -1;
        pool.giveBack(this);
        if (sent) {
            pool.callback.sent(t, n);
        }
    }

    // ------------------------------------------------------------------ what netty's NIO write uses

    @Override
    public int nioBufferCount() {
        return pieces;
    }

    @Override
    public ByteBuffer[] nioBuffers() {
        return nioBuffers(readerIndex(), readableBytes());
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int len) {
        if (!pool.writesAdvanceViews) {
            return ranged(index, len);
        }
        if (index == 0 && len == length && exact != null) {
            return exact;
        }
        return new ByteBuffer[] {copyOut(index, len)};
    }

    /**
     * The views of bytes {@code [index, index + len)} of the FPDU, positioned and limited to that
     * range, in an array of exactly that many views (reused per count: nothing is allocated once
     * warm). netty's epoll transport asks for the unwritten rest after a partial write.
     */
    private ByteBuffer[] ranged(int index, int len) {
        checkIndex(index, len);
        if (len == 0) {
            return NO_BUFFERS;
        }
        int end = index + len;
        int first = 0;
        while (pieceStart[first + 1] <= index) {
            first++;
        }
        int last = first;
        while (pieceStart[last + 1] < end) {
            last++;
        }
        int n = last - first + 1;
        if (n >= rangedArrays.length) {
            rangedArrays = java.util.Arrays.copyOf(rangedArrays, Math.max(n + 1, 2 * rangedArrays.length));
        }
        ByteBuffer[] out = rangedArrays[n];
        if (out == null) {
            out = new ByteBuffer[n];
            rangedArrays[n] = out;
        }
        for (int k = 0; k < n; k++) {
            int i = first + k;
            ByteBuffer v = view(i);
            int from = viewStart[i] + Math.max(0, index - pieceStart[i]);
            int to = viewStart[i] + Math.min(pieceStart[i + 1], end) - pieceStart[i];
            v.limit(to);
            v.position(from);
            out[k] = v;
        }
        return out;
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int len) {
        if (pieces == 1 && pool.writesAdvanceViews && index == 0 && len == length) {
            return views[0];       // positioned by finish(); the write advances it
        }
        if (pieces == 1 && !pool.writesAdvanceViews) {
            // epoll writes a one-piece FPDU from its reader index (also resuming a partial write)
            checkIndex(index, len);
            ByteBuffer v = view(0);
            v.limit(viewStart[0] + index + len);
            v.position(viewStart[0] + index);
            return v;
        }
        return copyOut(index, len);
    }

    @Override
    public ByteBuffer nioBuffer(int index, int len) {
        return copyOut(index, len);
    }

    private ByteBuffer copyOut(int index, int len) {
        checkIndex(index, len);
        ByteBuffer b = ByteBuffer.allocate(len);
        for (int i = 0; i < len; i++) {
            b.put(i, _getByte(index + i));
        }
        return b;
    }

    @Override
    public boolean isDirect() {
        return true;           // netty's NIO transport would otherwise copy the message
    }

    @Override
    public int capacity() {
        return length;
    }

    @Override
    public boolean isReadOnly() {
        return true;
    }

    // ------------------------------------------------------------------ byte access (diagnostics, rare paths)

    @Override
    protected byte _getByte(int index) {
        int i = 0;
        while (pieceStart[i + 1] <= index) {
            i++;
        }
        long at = viewStart[i] + index - pieceStart[i];
        if (viewIsOwn[i]) {
            return own.get(ValueLayout.JAVA_BYTE, at);
        }
        MemorySegment source = viewSource[i];
        return source != null ? source.get(ValueLayout.JAVA_BYTE, at) : views[i].get((int) at);
    }

    @Override
    protected short _getShort(int index) {
        return (short) ((_getByte(index) & 0xff) << 8 | _getByte(index + 1) & 0xff);
    }

    @Override
    protected int _getInt(int index) {
        return (_getShort(index) & 0xffff) << 16 | _getShort(index + 2) & 0xffff;
    }

    @Override
    protected long _getLong(int index) {
        return (_getInt(index) & 0xffffffffL) << 32 | _getInt(index + 4) & 0xffffffffL;
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
        for (int i = 0; i < len; i++) {
            dst[dstIndex + i] = _getByte(index + i);
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        int len = dst.remaining();
        checkIndex(index, len);
        for (int i = 0; i < len; i++) {
            dst.put(_getByte(index + i));
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int len) throws IOException {
        checkIndex(index, len);
        for (int i = 0; i < len; i++) {
            out.write(_getByte(index + i));
        }
        return this;
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int len) throws IOException {
        return out.write(copyOut(index, len));
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int len) throws IOException {
        return out.write(copyOut(index, len), position);
    }

    @Override
    public ByteBuf copy(int index, int len) {
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(len, len);
        getBytes(index, b, 0, len);
        b.writerIndex(len);
        return b;
    }

    // ------------------------------------------------------------------ read-only

    @Override
    protected void _setByte(int index, int value) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    protected void _setShort(int index, int value) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    protected void _setInt(int index, int value) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    protected void _setLong(int index, long value) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int len) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int len) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    public int setBytes(int index, InputStream in, int len) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int len) {
        throw new UnsupportedOperationException("read-only FPDU");
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int len) {
        throw new UnsupportedOperationException("read-only FPDU");
    }
}
