package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;

/**
 * Reassembles one MPA Request or Reply arriving over TCP in arbitrary chunks. The fixed header tells
 * the total length ({@code 20 + PD_Length}); the parser consumes exactly that many bytes and no
 * more, so the bytes after the frame (the first FPDU or marker, RFC 5044 §7.1.2 rule 6) stay with the
 * caller. The header is validated as soon as its 20 bytes are in, so a bad key, revision or
 * PD_Length is reported without waiting for private data.
 *
 * <p>Thread safety: not thread-safe; one parser per connection, used by the thread that reads it.
 */
public final class StartupFrameParser {

    /** Parser state. */
    public enum State {
        /** More bytes are needed. */
        NEED_MORE,
        /** A complete, valid frame is available from {@link #frame()}. */
        COMPLETE,
        /** The frame is improperly formatted: see {@link #reason()}; close TCP (RFC 5044 §8 code 4). */
        INVALID
    }

    private final StartupFrame.Kind expected;
    private final int maxPrivateData;
    private final MemorySegment buffer;
    private final StartupFrame frame = new StartupFrame();
    private int received;
    private State state = State.NEED_MORE;
    private StartupFrameReason reason;

    /**
     * Creates a parser.
     *
     * @param expected       the kind this endpoint waits for (a Responder expects a REQUEST)
     * @param maxPrivateData the local private data limit, 0..512
     * @throws IllegalArgumentException if expected is null or the limit is out of range
     */
    public StartupFrameParser(StartupFrame.Kind expected, int maxPrivateData) {
        if (expected == null) {
            throw new IllegalArgumentException("expected kind must not be null");
        }
        if (maxPrivateData < 0 || maxPrivateData > StartupFrame.MAX_PRIVATE_DATA_LENGTH) {
            throw new IllegalArgumentException("maxPrivateData must be 0..512: " + maxPrivateData);
        }
        this.expected = expected;
        this.maxPrivateData = maxPrivateData;
        this.buffer = MemorySegment.ofArray(new byte[StartupFrame.HEADER_LENGTH + maxPrivateData]);
        frame.wrap(buffer, 0);
    }

    /**
     * Feeds bytes.
     *
     * @param chunk  the bytes
     * @param offset offset of the first byte in chunk
     * @param length number of bytes available
     * @return how many bytes were taken: at most up to the end of the frame, 0 once the parser is
     *         {@link State#COMPLETE} or {@link State#INVALID}
     */
    public int consume(MemorySegment chunk, long offset, int length) {
        if (state != State.NEED_MORE || length <= 0) {
            return 0;
        }
        int taken = 0;
        if (received < StartupFrame.HEADER_LENGTH) {
            int n = Math.min(length, StartupFrame.HEADER_LENGTH - received);
            MemorySegment.copy(chunk, offset, buffer, received, n);
            received += n;
            taken += n;
            if (received < StartupFrame.HEADER_LENGTH) {
                return taken;
            }
            reason = frame.validateHeader(expected, maxPrivateData);
            if (reason != null) {
                state = State.INVALID;
                return taken;
            }
        }
        int total = frame.frameLength();
        int n = Math.min(length - taken, total - received);
        MemorySegment.copy(chunk, offset + taken, buffer, received, n);
        received += n;
        taken += n;
        if (received == total) {
            state = State.COMPLETE;
        }
        return taken;
    }

    /** {@return the current state} */
    public State state() {
        return state;
    }

    /** {@return why the frame is invalid, or {@code null} unless {@link State#INVALID}} */
    public StartupFrameReason reason() {
        return reason;
    }

    /** {@return a flyweight over the internal buffer; fully valid once {@link State#COMPLETE}} */
    public StartupFrame frame() {
        return frame;
    }

    /** {@return bytes received so far (the frame length once complete)} */
    public int received() {
        return received;
    }

    /** Forgets the frame so the parser can be used again. */
    public void reset() {
        received = 0;
        state = State.NEED_MORE;
        reason = null;
    }
}
