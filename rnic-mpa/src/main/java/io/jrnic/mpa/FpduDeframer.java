package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Receive side of MPA Full Operation for one direction: finds FPDUs in the TCP byte stream fed in
 * arbitrary chunks (down to single bytes), strips and checks markers, checks CRCs and hands each
 * verified ULPDU to an {@link FpduHandler} (RFC 5044 §4, §6, §8).
 *
 * <p><b>Copies.</b> An FPDU lying whole in one chunk with no marker inside it is delivered as a
 * slice of the chunk: no copy. An FPDU split across chunks, or with a marker inside (markers must be
 * stripped to give DDP a contiguous ULPDU), is reassembled into an internal buffer: one copy. The
 * buffer starts at {@value #INITIAL_BUFFER} bytes and doubles when a ULPDU needs more, up to
 * {@code maxUlpduLength}: a connection whose large FPDUs are placed keeps only their header prefixes
 * there and never grows it, where a buffer of the largest ULPDU was 64 KiB of heap per idle
 * connection (issue 11: memory per idle QP). With a {@link PlacementHandler}
 * ("header-then-payload" mode), the bytes after the header prefix of such an FPDU go straight to the
 * handler's target instead (one copy from the chunk, or none when the transport reads into the target itself through
 * {@link #directWindow()} / {@link #placed(int)}).
 *
 * <p><b>Checks.</b> ULPDU_Length must lie within [minUlpduLength, maxUlpduLength]; the CRC is
 * checked when enabled (never when disabled); with markers every marker's FPDUPTR (low two bits
 * ignored, 16-bit arithmetic) must point at the FPDU start found from the ULPDU_Length chain; a
 * marker error is reported only when the CRC is valid (RFC 5044 §8 code 3). The first error is
 * reported once to {@link FpduHandler#onError}; nothing is delivered after it (RFC 5044 §8) and
 * {@link #consume} takes no more bytes.
 *
 * <p><b>Stream position.</b> Markers are located by the position counted from SeqStart, the first
 * octet after the peer's startup frame (RFC 5044 §4.3); the deframer must therefore see every byte
 * of the direction from SeqStart on, or be created with the position of its first byte.
 *
 * <p><b>Allocation.</b> None in steady state when CRC is off; with CRC on, one buffer view per new
 * chunk segment object (see {@link Crc32c}). The reassembly buffer grows at most
 * {@code log2(maxUlpduLength / }{@value #INITIAL_BUFFER}{@code )} times in a connection's life.
 *
 * <p>Thread safety: not thread-safe; owned by the connection's receiving thread.
 */
public final class FpduDeframer {

    /** The smallest DDP header (tagged, RFC 5041 §4.2): the default minimum ULPDU_Length. */
    public static final int DEFAULT_MIN_ULPDU_LENGTH = 14;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The reassembly buffer's first size: header prefixes and small ULPDUs. */
    static final int INITIAL_BUFFER = 256;

    private static final int LENGTH = 0;
    private static final int ULPDU = 1;
    private static final int PAD = 2;
    private static final int CRC = 3;

    private final boolean markers;
    private final boolean crcEnabled;
    private final int minUlpduLength;
    private final int maxUlpduLength;
    private final FpduHandler handler;
    private final PlacementHandler placement;
    /** Reassembly: the ULPDU (or, when placed, its prefix) received so far; grown on demand. */
    private MemorySegment buffer;
    private final Crc32c crc = new Crc32c();
    private final PlacementTarget placementTarget = new PlacementTarget();

    private int position;
    private DeframeFault fault;
    private long delivered;

    // The FPDU in progress.
    private boolean begun;
    private int state = LENGTH;
    private int fieldBytes;
    private int fieldValue;
    private int fpduStart;
    private int ulpduLength;
    private int ulpduReceived;
    private int padRemaining;
    private boolean markerMismatch;
    private int markerRemaining;
    private int markerWord;
    private int markerPosition;
    private int prefixLength = -1;
    private boolean placementAsked;
    private MemorySegment target;
    private long targetOffset;
    /** The target's guard (null: never revoked), whether it refused, whether a direct read holds it. */
    private PlacementTarget.Guard guard;
    private boolean targetRevoked;
    private boolean directEntered;

    /**
     * Creates a deframer with the default limits (ULPDU 14..65535 bytes), no placement, at stream
     * position 0.
     *
     * @param markers    the peer inserts markers (we sent M=1)
     * @param crcEnabled CRCs were negotiated (either side sent C=1)
     * @param handler    receives ULPDUs and the error
     */
    public FpduDeframer(boolean markers, boolean crcEnabled, FpduHandler handler) {
        this(markers, crcEnabled, DEFAULT_MIN_ULPDU_LENGTH, Fpdu.MAX_ULPDU_LENGTH, 0, handler);
    }

    /**
     * Creates a deframer.
     *
     * @param markers        the peer inserts markers (we sent M=1)
     * @param crcEnabled     CRCs were negotiated (either side sent C=1)
     * @param minUlpduLength smallest acceptable ULPDU_Length (14 for DDP)
     * @param maxUlpduLength largest acceptable ULPDU_Length, 1..65535; also the reassembly buffer size
     * @param position       stream position of the first byte fed, counted from SeqStart (multiple of 4)
     * @param handler        receives ULPDUs and the error; a {@link PlacementHandler} turns on the
     *                       header-then-payload mode
     * @throws IllegalArgumentException naming the first bad argument
     */
    public FpduDeframer(boolean markers, boolean crcEnabled, int minUlpduLength, int maxUlpduLength,
                        int position, FpduHandler handler) {
        if (handler == null) {
            throw new IllegalArgumentException("handler must not be null");
        }
        if (maxUlpduLength < 1 || maxUlpduLength > Fpdu.MAX_ULPDU_LENGTH) {
            throw new IllegalArgumentException("maxUlpduLength must be 1..65535: " + maxUlpduLength);
        }
        if (minUlpduLength < 0 || minUlpduLength > maxUlpduLength) {
            throw new IllegalArgumentException("minUlpduLength must be 0..maxUlpduLength: " + minUlpduLength);
        }
        if ((position & (Fpdu.ALIGNMENT - 1)) != 0) {
            throw new IllegalArgumentException("stream position must be a multiple of 4: " + position);
        }
        this.markers = markers;
        this.crcEnabled = crcEnabled;
        this.minUlpduLength = minUlpduLength;
        this.maxUlpduLength = maxUlpduLength;
        this.handler = handler;
        this.placement = handler instanceof PlacementHandler p ? p : null;
        this.position = position;
        this.buffer = MemorySegment.ofArray(new byte[Math.min(INITIAL_BUFFER, maxUlpduLength)]);
    }

    /**
     * Feeds the next bytes of the stream.
     *
     * @param chunk  the bytes
     * @param offset offset of the first byte in chunk
     * @param length number of bytes
     * @return bytes taken: {@code length}, unless a fault was found (then the bytes up to the end of
     *         the offending field; 0 once faulted)
     */
    public int consume(MemorySegment chunk, long offset, int length) {
        int done = 0;
        while (done < length && fault == null) {
            if (!begun) {
                int n = wholeFpdu(chunk, offset + done, length - done);
                if (n > 0) {
                    done += n;
                    continue;
                }
            }
            done += step(chunk, offset + done, length - done);
        }
        return done;
    }

    /**
     * Fast path at an FPDU boundary: the whole FPDU (with a leading marker if one is due) is in the
     * chunk and no marker falls inside it, so it can be checked and delivered in place.
     *
     * @return bytes taken, or 0 to let the state machine handle it
     */
    private int wholeFpdu(MemorySegment chunk, long offset, int length) {
        int lead = markers && Markers.isMarkerPosition(position) ? Markers.MARKER_LENGTH : 0;
        if (length < lead + Fpdu.ULPDU_LENGTH_FIELD_LENGTH) {
            return 0;
        }
        int len = chunk.get(U16, offset + lead) & 0xFFFF;
        if (len < minUlpduLength || len > maxUlpduLength) {
            return 0;
        }
        int frame = Fpdu.frameLength(len);
        int total = lead + frame;
        if (length < total) {
            return 0;
        }
        int start = position + lead;
        if (markers && (start & (Markers.MARKER_INTERVAL - 1)) + frame > Markers.MARKER_INTERVAL) {
            return 0;
        }
        position += total;
        if (crcEnabled) {
            crc.reset();
            crc.update(chunk, offset, total - Fpdu.CRC_LENGTH);
            if (crc.value() != Crc32c.fromWire(chunk.get(U32, offset + total - Fpdu.CRC_LENGTH))) {
                fail(DeframeFault.CRC_MISMATCH);
                return total;
            }
        }
        // RFC 5044 §4.3: a marker right before ULPDU_Length belongs to this FPDU with FPDUPTR 0.
        if (lead > 0 && Markers.fpduPtr(chunk, offset) != 0) {
            fail(DeframeFault.MARKER_MISMATCH);
            return total;
        }
        delivered++;
        handler.onUlpdu(chunk, offset + lead + Fpdu.ULPDU_OFFSET, len);
        return total;
    }

    /** One state-machine step over as many bytes as belong to the current field. */
    private int step(MemorySegment chunk, long offset, int length) {
        if (!begun) {
            begun = true;
            crc.reset();
            markerMismatch = false;
            fpduStart = position;
        }
        if (markerRemaining == 0 && markers && Markers.isMarkerPosition(position)) {
            markerRemaining = Markers.MARKER_LENGTH;
            markerWord = 0;
            markerPosition = position;
        }
        if (markerRemaining > 0) {
            return markerBytes(chunk, offset, length);
        }
        int limit = markers ? Math.min(length, Markers.bytesToNextMarker(position)) : length;
        return switch (state) {
            case LENGTH -> lengthBytes(chunk, offset, limit);
            case ULPDU -> ulpduBytes(chunk, offset, limit);
            case PAD -> padBytes(chunk, offset, limit);
            default -> crcBytes(chunk, offset, limit);
        };
    }

    private int markerBytes(MemorySegment chunk, long offset, int length) {
        int n = Math.min(length, markerRemaining);
        for (int i = 0; i < n; i++) {
            markerWord = markerWord << 8 | (chunk.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF);
        }
        updateCrc(chunk, offset, n);
        position += n;
        markerRemaining -= n;
        if (markerRemaining == 0) {
            // RFC 5044 §4.3: FPDUPTR = marker position - FPDU start (0 before ULPDU_Length); the low
            // two bits are treated as zero. Reported only if the CRC turns out valid (§8 code 3).
            int expected = Markers.fpduPtr(markerPosition, fpduStart);
            if ((markerWord & Markers.FPDUPTR_MASK) != (expected & Markers.FPDUPTR_MASK)) {
                markerMismatch = true;
            }
        }
        return n;
    }

    private int lengthBytes(MemorySegment chunk, long offset, int limit) {
        if (fieldBytes == 0) {
            fpduStart = position;
        }
        int n = Math.min(limit, Fpdu.ULPDU_LENGTH_FIELD_LENGTH - fieldBytes);
        for (int i = 0; i < n; i++) {
            fieldValue = fieldValue << 8 | (chunk.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF);
        }
        updateCrc(chunk, offset, n);
        position += n;
        fieldBytes += n;
        if (fieldBytes == Fpdu.ULPDU_LENGTH_FIELD_LENGTH) {
            int len = fieldValue;
            fieldBytes = 0;
            fieldValue = 0;
            if (len < minUlpduLength) {
                fail(DeframeFault.ULPDU_TOO_SHORT);
            } else if (len > maxUlpduLength) {
                fail(DeframeFault.ULPDU_TOO_LONG);
            } else {
                ulpduLength = len;
                ulpduReceived = 0;
                padRemaining = Fpdu.padLength(len);
                afterUlpduBytes();
            }
        }
        return n;
    }

    private int ulpduBytes(MemorySegment chunk, long offset, int limit) {
        int n = Math.min(limit, ulpduLength - ulpduReceived);
        if (placement != null && !placementAsked) {
            // Stop where the handler must be asked: after the first byte (the DDP control byte, which
            // decides the header length), then at the end of the prefix.
            n = Math.min(n, (prefixLength < 0 ? 1 : prefixLength) - ulpduReceived);
        }
        if (target != null) {
            if (enterTarget()) {
                try {
                    MemorySegment.copy(chunk, offset, target, targetOffset + ulpduReceived - prefixLength, n);
                } finally {
                    exitTarget();
                }
            }
        } else {
            if (ulpduReceived + n > buffer.byteSize()) {
                growBuffer(ulpduReceived + n);
            }
            MemorySegment.copy(chunk, offset, buffer, ulpduReceived, n);
        }
        updateCrc(chunk, offset, n);
        position += n;
        ulpduReceived += n;
        afterUlpduBytes();
        return n;
    }

    /** Doubles the reassembly buffer until it holds {@code needed} bytes (at most maxUlpduLength), keeping what it holds. */
    private void growBuffer(int needed) {
        long size = buffer.byteSize();
        while (size < needed) {
            size = Math.min(2 * size, maxUlpduLength);
        }
        MemorySegment grown = MemorySegment.ofArray(new byte[(int) size]);
        MemorySegment.copy(buffer, 0, grown, 0, ulpduReceived);
        buffer = grown;
    }

    /** The reassembly buffer's size now (tests). */
    int reassemblyCapacity() {
        return (int) buffer.byteSize();
    }

    /** Asks for a placement target once the prefix is in, and moves on when the ULPDU is complete. */
    private void afterUlpduBytes() {
        if (placement != null && !placementAsked && ulpduReceived > 0 && prefixLength < 0) {
            int p = placement.prefixLength(buffer.get(ValueLayout.JAVA_BYTE, 0) & 0xFF, ulpduLength);
            if (p <= 0 || p >= ulpduLength) {
                placementAsked = true;                                 // reassemble this ULPDU whole
            } else {
                prefixLength = p;
            }
        }
        if (placement != null && !placementAsked && ulpduReceived == prefixLength) {
            placementAsked = true;
            placementTarget.clear();
            if (placement.placementTarget(buffer, 0, prefixLength, ulpduLength, placementTarget)) {
                MemorySegment t = placementTarget.segment();
                long room = ulpduLength - prefixLength;
                if (t == null || placementTarget.offset() < 0 || t.byteSize() - placementTarget.offset() < room) {
                    throw new IllegalStateException("placement target must have room for " + room + " bytes");
                }
                target = t;
                targetOffset = placementTarget.offset();
                guard = placementTarget.guard();
                targetRevoked = false;
            }
        }
        if (ulpduReceived == ulpduLength) {
            state = padRemaining > 0 ? PAD : CRC;
        } else {
            state = ULPDU;
        }
    }

    private int padBytes(MemorySegment chunk, long offset, int limit) {
        int n = Math.min(limit, padRemaining);
        updateCrc(chunk, offset, n);
        position += n;
        padRemaining -= n;
        if (padRemaining == 0) {
            state = CRC;
        }
        return n;
    }

    private int crcBytes(MemorySegment chunk, long offset, int limit) {
        int n = Math.min(limit, Fpdu.CRC_LENGTH - fieldBytes);
        for (int i = 0; i < n; i++) {
            fieldValue = fieldValue << 8 | (chunk.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF);
        }
        position += n;
        fieldBytes += n;
        if (fieldBytes == Fpdu.CRC_LENGTH) {
            finish(Crc32c.fromWire(fieldValue));
        }
        return n;
    }

    private void finish(int receivedCrc) {
        boolean placed = target != null;
        int len = ulpduLength;
        begun = false;
        state = LENGTH;
        fieldBytes = 0;
        fieldValue = 0;
        int prefix = prefixLength;
        placementAsked = false;
        prefixLength = -1;
        target = null;
        guard = null;
        if (crcEnabled && crc.value() != receivedCrc) {
            fail(DeframeFault.CRC_MISMATCH);
        } else if (markerMismatch) {
            fail(DeframeFault.MARKER_MISMATCH);
        } else {
            delivered++;
            if (placed) {
                placement.onPlaced(buffer, 0, prefix, len);
            } else {
                handler.onUlpdu(buffer, 0, len);
            }
        }
    }

    private void updateCrc(MemorySegment segment, long offset, int length) {
        if (crcEnabled) {
            crc.update(segment, offset, length);
        }
    }

    private void fail(DeframeFault f) {
        fault = f;
        handler.onError(f);
    }

    /**
     * {@return in header-then-payload mode, how many bytes the transport may now read straight into
     * {@link #directTarget()} at {@link #directTargetOffset()}, bounded by the end of the ULPDU and
     * by the next marker; 0 when the next bytes must go through {@link #consume}}
     */
    public int directWindow() {
        if (fault != null || target == null || targetRevoked || state != ULPDU || markerRemaining > 0) {
            return 0;
        }
        if (markers && Markers.isMarkerPosition(position)) {
            return 0;
        }
        int n = ulpduLength - ulpduReceived;
        return markers ? Math.min(n, Markers.bytesToNextMarker(position)) : n;
    }

    /**
     * Starts a read of the transport into {@link #directTarget()}: enters the target's
     * {@link PlacementTarget.Guard}, which {@link #placed} (or {@link #endDirect}, if the read brought
     * nothing) leaves. When the guard refuses, the target was revoked: the window closes for the
     * rest of this FPDU, whose bytes must then go through {@link #consume} (they are discarded).
     *
     * @return true when the transport may read into the target now
     */
    public boolean beginDirect() {
        if (directWindow() == 0) {
            return false;
        }
        if (guard == null || directEntered) {
            return true;
        }
        directEntered = guard.enter();
        if (!directEntered) {
            targetRevoked = true;
        }
        return directEntered;
    }

    /**
     * Ends a read started by {@link #beginDirect()} without accounting bytes (the read brought
     * none, or failed). Idempotent; {@link #placed} ends it itself.
     */
    public void endDirect() {
        if (directEntered) {
            directEntered = false;
            guard.exit();
        }
    }

    private boolean enterTarget() {
        if (targetRevoked) {
            return false;
        }
        if (guard != null && !guard.enter()) {
            targetRevoked = true;
            return false;
        }
        return true;
    }

    private void exitTarget() {
        if (guard != null) {
            guard.exit();
        }
    }

    /** {@return the placement target of the FPDU in progress, or {@code null}} */
    public MemorySegment directTarget() {
        return target;
    }

    /**
     * {@return where the next payload byte of the FPDU in progress goes in {@link #directTarget()}}
     */
    public long directTargetOffset() {
        return targetOffset + ulpduReceived - prefixLength;
    }

    /**
     * Accounts for bytes the transport read from the stream straight into the placement target.
     *
     * @param length bytes read, 1..{@link #directWindow()}
     * @throws IllegalArgumentException if length is outside that range
     */
    public void placed(int length) {
        int window = directEntered || guard == null ? directWindow() : 0;
        if (length < 1 || length > window) {
            endDirect();
            throw new IllegalArgumentException("placed " + length + " bytes, window is " + window);
        }
        updateCrc(target, directTargetOffset(), length);
        endDirect();          // before any callback: the placed bytes are in, the CRC has them
        position += length;
        ulpduReceived += length;
        afterUlpduBytes();
    }

    /** {@return the first fault, or {@code null} while the stream is healthy} */
    public DeframeFault fault() {
        return fault;
    }

    /** {@return number of ULPDUs delivered so far} */
    public long delivered() {
        return delivered;
    }

    /**
     * {@return stream position of the next byte expected, counted from SeqStart (wraps at 2^32)}
     */
    public int position() {
        return position;
    }

    /** {@return whether the deframer is between FPDUs (no partial FPDU held)} */
    public boolean atFpduBoundary() {
        return !begun;
    }

    /** {@return whether markers are expected} */
    public boolean markers() {
        return markers;
    }

    /** {@return whether CRCs are checked} */
    public boolean crcEnabled() {
        return crcEnabled;
    }
}
