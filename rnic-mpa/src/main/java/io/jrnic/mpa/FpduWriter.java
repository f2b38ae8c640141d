package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Sender side of MPA Full Operation for one direction: frames ULPDUs into FPDUs (RFC 5044 §4.1),
 * inserts markers where the stream position requires them (RFC 5044 §4.3) and computes the CRC
 * (RFC 5044 §4.4).
 *
 * <p>A ULPDU is given as two pieces, "header" (the DDP/RDMAP header, small) and "payload" (a slice
 * of registered memory), either of which may be empty. Two ways to produce the FPDU:
 * <ul>
 *   <li>{@link #write}: copies everything into one contiguous destination.</li>
 *   <li>{@link #gather}: never copies the payload. The writer puts its own octets (markers,
 *       ULPDU_Length, the header copy, pad, CRC) into a caller-provided scratch area and hands a
 *       {@link GatherSink} the pieces in wire order: scratch ranges and payload slices, the payload
 *       split around any marker that falls inside it. The CRC is computed over the pieces in place.
 *       The scratch must stay untouched until the pieces are written to TCP.</li>
 * </ul>
 *
 * <p>The writer tracks the stream position (octets since SeqStart, the first octet after this
 * direction's startup frame, 32-bit wrap), so it must see every FPDU of the direction in order. With
 * markers on, the first FPDU of the stream starts with the marker {@code 00000000} (RFC 5044 §7.1.2
 * rule 7). With CRCs off the CRC field is sent as zero.
 *
 * <p>Allocation: none per FPDU, provided callers reuse their payload segments (see {@link Crc32c}).
 *
 * <p>Thread safety: not thread-safe; owned by the connection's sending thread.
 */
public final class FpduWriter {

    /** Receives the pieces of an FPDU in wire order (gathering mode). */
    @FunctionalInterface
    public interface GatherSink {
        /**
         * One piece of the FPDU.
         *
         * @param segment either the scratch segment or the payload segment
         * @param offset  offset of the piece
         * @param length  length of the piece, at least 1
         */
        void piece(MemorySegment segment, long offset, long length);
    }

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final boolean markers;
    private final boolean crcEnabled;
    private final Crc32c crc = new Crc32c();
    private int position;

    // State of the FPDU being encoded.
    private MemorySegment out;
    private long outPos;
    private long crcPos;
    private long runStart;
    private GatherSink sink;
    private int fpduStart;

    /**
     * Creates a writer for a direction whose Full Operation starts now (position 0).
     *
     * @param markers    insert markers (the peer sent M=1)
     * @param crcEnabled compute CRCs (either side sent C=1)
     */
    public FpduWriter(boolean markers, boolean crcEnabled) {
        this(markers, crcEnabled, 0);
    }

    /**
     * Creates a writer whose next octet is at a given stream position (e.g. to resume a stream).
     *
     * @param markers whether markers are inserted (RFC 5044 §4.3)
     * @param crcEnabled whether CRCs are computed (RFC 5044 §4.4)
     * @param position the stream position of the first octet the writer writes
     * @throws IllegalArgumentException if the position is not a multiple of 4 (FPDUs are)
     */
    public FpduWriter(boolean markers, boolean crcEnabled, int position) {
        this.markers = markers;
        this.crcEnabled = crcEnabled;
        position(position);
    }

    /** {@return whether markers are inserted} */
    public boolean markers() {
        return markers;
    }

    /** {@return whether CRCs are computed} */
    public boolean crcEnabled() {
        return crcEnabled;
    }

    /** {@return the stream position of the next octet, counted from SeqStart (wraps at 2^32)} */
    public int position() {
        return position;
    }

    /**
     * Sets the stream position of the next octet (0 when a new stream enters Full Operation).
     *
     * @param position the stream position of the next octet
     * @throws IllegalArgumentException if not a multiple of 4
     */
    public void position(int position) {
        if ((position & (Fpdu.ALIGNMENT - 1)) != 0) {
            throw new IllegalArgumentException("stream position must be a multiple of 4: " + position);
        }
        this.position = position;
    }

    /**
     * {@return the exact wire length of the next FPDU for this ULPDU length, markers included}
     *
     * @param ulpduLength the ULPDU length in octets
     */
    public int wireLength(int ulpduLength) {
        int frame = Fpdu.frameLength(ulpduLength);
        if (!markers) {
            return frame;
        }
        int count = 0;
        while (true) {
            int next = Markers.markersIn(position, frame + Markers.MARKER_LENGTH * count);
            if (next == count) {
                return frame + Markers.MARKER_LENGTH * count;
            }
            count = next;
        }
    }

    /**
     * Writes the next FPDU, contiguous, into dst.
     *
     * @param header the memory holding the ULPDU's headers
     * @param headerOffset the offset of the headers in {@code header}
     * @param headerLength the length of the headers in octets
     * @param payload the memory holding the ULPDU's payload
     * @param payloadOffset the offset of the payload in {@code payload}
     * @param payloadLength the payload length in octets
     * @param dst the memory to write the FPDU into
     * @param dstOffset where the FPDU starts in {@code dst}
     * @return the number of bytes written ({@link #wireLength} of header + payload length)
     * @throws IllegalArgumentException  if the ULPDU exceeds 65535 bytes
     * @throws IndexOutOfBoundsException if dst is too small (nothing is written then)
     */
    public int write(MemorySegment header, long headerOffset, int headerLength,
                     MemorySegment payload, long payloadOffset, int payloadLength,
                     MemorySegment dst, long dstOffset) {
        int wire = checkedWireLength(headerLength, payloadLength);
        checkRoom(dst, dstOffset, wire, "destination");
        encode(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, dst, dstOffset, null);
        return wire;
    }

    /**
     * Writes the next FPDU for a ULPDU held in one piece.
     *
     * @param ulpdu the memory holding the whole ULPDU
     * @param offset the offset of the ULPDU in {@code ulpdu}
     * @param length the ULPDU length in octets
     * @param dst the memory to write the FPDU into
     * @param dstOffset where the FPDU starts in {@code dst}
     * @return the number of bytes written
     * @see #write(MemorySegment, long, int, MemorySegment, long, int, MemorySegment, long)
     */
    public int write(MemorySegment ulpdu, long offset, int length, MemorySegment dst, long dstOffset) {
        return write(ulpdu, offset, 0, ulpdu, offset, length, dst, dstOffset);
    }

    /**
     * Frames the next FPDU without copying the payload (see the class comment).
     *
     * @param header the memory holding the ULPDU's headers
     * @param headerOffset the offset of the headers in {@code header}
     * @param headerLength the length of the headers in octets
     * @param payload the memory holding the ULPDU's payload
     * @param payloadOffset the offset of the payload in {@code payload}
     * @param payloadLength the payload length in octets
     * @param scratch       where the writer's own octets go; needs {@link #scratchLength} bytes
     * @param scratchOffset offset in scratch
     * @param sink          receives the pieces in wire order
     * @return the number of scratch bytes used
     * @throws IllegalArgumentException  if the ULPDU exceeds 65535 bytes or sink is null
     * @throws IndexOutOfBoundsException if scratch is too small (nothing is written then)
     */
    public int gather(MemorySegment header, long headerOffset, int headerLength,
                      MemorySegment payload, long payloadOffset, int payloadLength,
                      MemorySegment scratch, long scratchOffset, GatherSink sink) {
        if (sink == null) {
            throw new IllegalArgumentException("sink must not be null");
        }
        int own = checkedWireLength(headerLength, payloadLength) - payloadLength;
        checkRoom(scratch, scratchOffset, own, "scratch");
        encode(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, scratch, scratchOffset, sink);
        return own;
    }

    /**
     * {@return scratch bytes {@link #gather} needs for the next FPDU}
     *
     * @param headerLength the length of the headers in octets
     * @param payloadLength the payload length in octets
     */
    public int scratchLength(int headerLength, int payloadLength) {
        return wireLength(headerLength + payloadLength) - payloadLength;
    }

    private int checkedWireLength(int headerLength, int payloadLength) {
        if (headerLength < 0 || payloadLength < 0 || (long) headerLength + payloadLength > Fpdu.MAX_ULPDU_LENGTH) {
            throw new IllegalArgumentException("ULPDU length must be 0..65535: header " + headerLength
                    + " + payload " + payloadLength);
        }
        return wireLength(headerLength + payloadLength);
    }

    private static void checkRoom(MemorySegment segment, long offset, int needed, String what) {
        if (offset < 0 || segment.byteSize() - offset < needed) {
            throw new IndexOutOfBoundsException(what + " has " + (segment.byteSize() - offset)
                    + " bytes from offset " + offset + ", FPDU needs " + needed);
        }
    }

    private void encode(MemorySegment header, long headerOffset, int headerLength,
                        MemorySegment payload, long payloadOffset, int payloadLength,
                        MemorySegment target, long targetOffset, GatherSink gatherSink) {
        out = target;
        outPos = targetOffset;
        crcPos = targetOffset;
        runStart = targetOffset;
        sink = gatherSink;
        if (crcEnabled) {
            crc.reset();
        }

        // RFC 5044 §4.3: a marker due before ULPDU_Length belongs to this FPDU with FPDUPTR 0 and is
        // covered by its CRC (RFC 5044 §4.4 case 2).
        fpduStart = position;
        markerIfDue();
        fpduStart = position;

        int ulpduLength = headerLength + payloadLength;
        // ULPDU_Length starts 4-aligned, so no marker can fall inside it.
        out.set(U16, outPos, (short) ulpduLength);
        outPos += Fpdu.ULPDU_LENGTH_FIELD_LENGTH;
        position += Fpdu.ULPDU_LENGTH_FIELD_LENGTH;

        copyOwn(header, headerOffset, headerLength);
        external(payload, payloadOffset, payloadLength);
        int pad = Fpdu.padLength(ulpduLength);
        // No marker is ever due before the pad: FPDUs start 4-aligned (RFC 5044 §4.1) and markers
        // only at multiples of 512 (§4.3), so the position here, 2 + ULPDU_Length (mod 4), is a
        // marker position only when there is no pad.
        for (int i = 0; i < pad; i++) {
            out.set(ValueLayout.JAVA_BYTE, outPos + i, (byte) 0);       // pad octets are sent as zero
        }
        outPos += pad;
        position += pad;
        // RFC 5044 §4.4 case 1: a marker right after PAD is inside this FPDU and covered.
        markerIfDue();

        flushCrc();
        out.set(U32, outPos, crcEnabled ? Crc32c.toWire(crc.value()) : 0);
        outPos += Fpdu.CRC_LENGTH;
        position += Fpdu.CRC_LENGTH;
        emitRun();
        out = null;
        sink = null;
    }

    private void markerIfDue() {
        if (markers && Markers.isMarkerPosition(position)) {
            Markers.write(out, outPos, Markers.fpduPtr(position, fpduStart));
            outPos += Markers.MARKER_LENGTH;
            position += Markers.MARKER_LENGTH;
        }
    }

    private int chunk(int remaining) {
        return markers ? Math.min(remaining, Markers.bytesToNextMarker(position)) : remaining;
    }

    private void copyOwn(MemorySegment src, long offset, int length) {
        while (length > 0) {
            markerIfDue();
            int n = chunk(length);
            MemorySegment.copy(src, offset, out, outPos, n);
            outPos += n;
            position += n;
            offset += n;
            length -= n;
        }
    }

    private void external(MemorySegment src, long offset, int length) {
        if (sink == null) {
            copyOwn(src, offset, length);
            return;
        }
        while (length > 0) {
            markerIfDue();
            int n = chunk(length);
            flushCrc();
            emitRun();
            if (crcEnabled) {
                crc.update(src, offset, n);
            }
            sink.piece(src, offset, n);
            position += n;
            offset += n;
            length -= n;
        }
    }

    /** Adds the own octets written since the last flush to the CRC. */
    private void flushCrc() {
        if (crcEnabled && outPos > crcPos) {
            crc.update(out, crcPos, outPos - crcPos);
        }
        crcPos = outPos;
    }

    /** Hands the own octets written since the last emission to the sink (gathering mode). */
    private void emitRun() {
        if (sink != null && outPos > runStart) {
            sink.piece(out, runStart, outPos - runStart);
        }
        runStart = outPos;
    }
}
