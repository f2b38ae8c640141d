package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Flyweight over an MPA Request or Reply frame (RFC 5044 §7.1.1) including the RFC 6581 §6 S bit
 * and the RFC 6581 §9 enhanced connection setup word.
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0  |                                                               |
 *    +         Key (16 bytes containing "MPA ID Req Frame")          +
 * 4  |      (4D 50 41 20 49 44 20 52 65 71 20 46 72 61 6D 65)        |
 *    +         Or  (16 bytes containing "MPA ID Rep Frame")          +
 * 8  |      (4D 50 41 20 49 44 20 52 65 70 20 46 72 61 6D 65)        |
 *    +                                                               +
 * 12 |                                                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 16 |M|C|R|S| Res   |     Rev       |          PD_Length            |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 20 |A|B|        IRD                |C|D|        ORD                |  (only when S=1, RFC 6581 §9)
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    ~                   Private Data (PD_Length octets in all)      ~
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>The flyweight does no bounds checking beyond what {@link MemorySegment} does; call
 * {@link #validate} on received frames before trusting any field. Res bits are written as zero by
 * {@link #flags(int)} callers and are never checked on receive (RFC 5044 §7.1.1 "Res"; Linux siw may
 * set 0x08).
 *
 * <p>Thread safety: not thread-safe; a flyweight is owned by one thread and re-wrapped per frame.
 */
public final class StartupFrame {

    /** The two kinds of startup frame, told apart by their key (RFC 5044 §7.1.1). */
    public enum Kind {
        /** MPA Request, sent by the Initiator: key "MPA ID Req Frame". */
        REQUEST,
        /** MPA Reply, sent by the Responder: key "MPA ID Rep Frame". */
        REPLY
    }

    /** Offset of the 16-byte key. */
    public static final int KEY_OFFSET = 0;
    /** Length of the key. */
    public static final int KEY_LENGTH = 16;
    /** Offset of the M/C/R/S/Res flags byte. */
    public static final int FLAGS_OFFSET = 16;
    /** Offset of the Rev byte. */
    public static final int REVISION_OFFSET = 17;
    /** Offset of the 16-bit big-endian PD_Length. */
    public static final int PD_LENGTH_OFFSET = 18;
    /** Offset of the private data (and of the enhanced word when S=1). */
    public static final int PRIVATE_DATA_OFFSET = 20;
    /** Length of the fixed part of the frame. */
    public static final int HEADER_LENGTH = 20;
    /** Protocol maximum of PD_Length (RFC 5044 §7.1.1). */
    public static final int MAX_PRIVATE_DATA_LENGTH = 512;
    /** Length of the RFC 6581 §9 IRD/ORD word at the head of the private data when S=1. */
    public static final int ENHANCED_WORD_LENGTH = 4;
    /** Longest possible startup frame. */
    public static final int MAX_FRAME_LENGTH = HEADER_LENGTH + MAX_PRIVATE_DATA_LENGTH;

    /** M: markers required in the opposite direction (RFC 5044 §7.1.1). */
    public static final int FLAG_MARKERS = 0x80;
    /** C: CRC preferred (RFC 5044 §7.1.1). */
    public static final int FLAG_CRC = 0x40;
    /** R: connection rejected, meaningful in a Reply only (RFC 5044 §7.1.1). */
    public static final int FLAG_REJECT = 0x20;
    /** S: private data starts with the enhanced setup word (RFC 6581 §6). */
    public static final int FLAG_ENHANCED = 0x10;
    /** The reserved bits: sent as zero, never checked. */
    public static final int FLAGS_RESERVED_MASK = 0x0F;

    /** Rev 1: RFC 5044. */
    public static final int REVISION_1 = 1;
    /** Rev 2: RFC 6581 enhanced connection setup. */
    public static final int REVISION_2 = 2;

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment segment;
    private long offset;

    /** Creates an unwrapped flyweight; {@link #wrap} it over a frame before use. */
    public StartupFrame() {
    }

    /**
     * Points this flyweight at a frame.
     *
     * @param segment the memory holding the frame
     * @param offset  offset of the first key byte
     * @return this
     */
    public StartupFrame wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** {@return the wrapped segment} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return offset of the frame within {@link #segment()}} */
    public long offset() {
        return offset;
    }

    /** {@return the kind named by the key, or {@code null} if the key is neither valid key} */
    public Kind kind() {
        if (keyEquals(REQUEST_KEY)) {
            return Kind.REQUEST;
        }
        if (keyEquals(REPLY_KEY)) {
            return Kind.REPLY;
        }
        return null;
    }

    /**
     * Writes the key for a kind.
     *
     * @param kind the kind of frame
     * @return this
     */
    public StartupFrame kind(Kind kind) {
        MemorySegment.copy(kind == Kind.REQUEST ? REQUEST_KEY : REPLY_KEY, 0, segment, ValueLayout.JAVA_BYTE,
                offset + KEY_OFFSET, KEY_LENGTH);
        return this;
    }

    private boolean keyEquals(byte[] key) {
        for (int i = 0; i < KEY_LENGTH; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, offset + KEY_OFFSET + i) != key[i]) {
                return false;
            }
        }
        return true;
    }

    /** {@return the raw flags byte (M, C, R, S and the reserved bits)} */
    public int flags() {
        return segment.get(ValueLayout.JAVA_BYTE, offset + FLAGS_OFFSET) & 0xFF;
    }

    /**
     * Writes the raw flags byte.
     *
     * @param flags the raw flags byte (M, C, R, S, Res)
     * @return this
     */
    public StartupFrame flags(int flags) {
        segment.set(ValueLayout.JAVA_BYTE, offset + FLAGS_OFFSET, (byte) flags);
        return this;
    }

    /** {@return M: markers are required in FPDUs sent toward the sender of this frame} */
    public boolean markers() {
        return (flags() & FLAG_MARKERS) != 0;
    }

    /**
     * Writes M.
     *
     * @param value the new M flag
     * @return this
     */
    public StartupFrame markers(boolean value) {
        return setFlag(FLAG_MARKERS, value);
    }

    /** {@return C: the sender of this frame prefers CRCs} */
    public boolean crc() {
        return (flags() & FLAG_CRC) != 0;
    }

    /**
     * Writes C.
     *
     * @param value the new C flag
     * @return this
     */
    public StartupFrame crc(boolean value) {
        return setFlag(FLAG_CRC, value);
    }

    /** {@return R: in a Reply, the Responder rejects the connection (not checked in a Request)} */
    public boolean reject() {
        return (flags() & FLAG_REJECT) != 0;
    }

    /**
     * Writes R.
     *
     * @param value the new R flag
     * @return this
     */
    public StartupFrame reject(boolean value) {
        return setFlag(FLAG_REJECT, value);
    }

    /** {@return S: the private data begins with the RFC 6581 enhanced setup word} */
    public boolean enhanced() {
        return (flags() & FLAG_ENHANCED) != 0;
    }

    /**
     * Writes S.
     *
     * @param value the new S flag
     * @return this
     */
    public StartupFrame enhanced(boolean value) {
        return setFlag(FLAG_ENHANCED, value);
    }

    private StartupFrame setFlag(int mask, boolean value) {
        int f = flags();
        return flags(value ? f | mask : f & ~mask);
    }

    /** {@return Rev: the MPA revision} */
    public int revision() {
        return segment.get(ValueLayout.JAVA_BYTE, offset + REVISION_OFFSET) & 0xFF;
    }

    /**
     * Writes Rev.
     *
     * @param revision the MPA revision (1 or 2)
     * @return this
     */
    public StartupFrame revision(int revision) {
        segment.set(ValueLayout.JAVA_BYTE, offset + REVISION_OFFSET, (byte) revision);
        return this;
    }

    /** {@return PD_Length: octets of private data, including the enhanced word when S=1} */
    public int pdLength() {
        return segment.get(U16, offset + PD_LENGTH_OFFSET) & 0xFFFF;
    }

    /**
     * Writes PD_Length.
     *
     * @param length octets of private data, the enhanced word included when S=1
     * @return this
     */
    public StartupFrame pdLength(int length) {
        segment.set(U16, offset + PD_LENGTH_OFFSET, (short) length);
        return this;
    }

    /** {@return total length of the frame according to PD_Length: {@code 20 + PD_Length}} */
    public int frameLength() {
        return HEADER_LENGTH + pdLength();
    }

    /** {@return absolute offset (in {@link #segment()}) of the private data} */
    public long privateDataOffset() {
        return offset + PRIVATE_DATA_OFFSET;
    }

    /**
     * {@return the raw RFC 6581 §9 word at the head of the private data; meaningful only when S=1}
     */
    public int enhancedWord() {
        return segment.get(U32, offset + PRIVATE_DATA_OFFSET);
    }

    /**
     * Writes the RFC 6581 §9 word at the head of the private data.
     *
     * @param word the 32-bit enhanced setup word
     * @return this
     */
    public StartupFrame enhancedWord(int word) {
        segment.set(U32, offset + PRIVATE_DATA_OFFSET, word);
        return this;
    }

    /** {@return the decoded enhanced setup word (allocates a small record; startup path only)} */
    public EnhancedSetup enhancedSetup() {
        return EnhancedSetup.fromWord(enhancedWord());
    }

    /** {@return absolute offset of the ULP's private data: after the enhanced word when S=1} */
    public long ulpPrivateDataOffset() {
        return privateDataOffset() + (enhanced() ? ENHANCED_WORD_LENGTH : 0);
    }

    /**
     * {@return length of the ULP's private data: PD_Length minus the enhanced word when S=1 (never
     * negative)}
     */
    public int ulpPrivateDataLength() {
        return Math.max(0, pdLength() - (enhanced() ? ENHANCED_WORD_LENGTH : 0));
    }

    /**
     * Validates a received frame (RFC 5044 §7.1.1, §7.1.2; RFC 6581 §6). The reserved bits are not
     * checked, nor is R in a Request.
     *
     * @param expected          the kind this endpoint waits for ({@code REPLY} at an Initiator)
     * @param available         how many bytes of the frame are present from {@link #offset()}
     * @param maxPrivateData    the local private data limit (the receive buffer, at most 512)
     * @return {@code null} when the frame is valid, else the reason it is improperly formatted
     *         (reported as {@link MpaError#INVALID_STARTUP_FRAME})
     */
    public StartupFrameReason validate(Kind expected, long available, int maxPrivateData) {
        if (available < HEADER_LENGTH) {
            return StartupFrameReason.PRIVATE_DATA_TRUNCATED;
        }
        StartupFrameReason reason = validateHeader(expected, maxPrivateData);
        if (reason != null) {
            return reason;
        }
        // RFC 5044 §7.1.1 PD_Length: the private data actually present must match PD_Length.
        if (available < frameLength()) {
            return StartupFrameReason.PRIVATE_DATA_TRUNCATED;
        }
        return null;
    }

    /**
     * Validates the 20-byte fixed part alone, as soon as it has arrived, so that a bad frame is
     * rejected without waiting for its private data.
     *
     * @param expected the kind of frame expected at this point of the exchange
     * @param maxPrivateData the largest PD_Length accepted
     * @return {@code null} when the header is valid, else the reason
     * @see #validate(Kind, long, int)
     */
    public StartupFrameReason validateHeader(Kind expected, int maxPrivateData) {
        Kind kind = kind();
        if (kind == null) {
            return StartupFrameReason.BAD_KEY;
        }
        if (kind != expected) {
            // RFC 5044 §7.1.2 rule 8: the key difference detects Initiator/Initiator startups.
            return kind == Kind.REQUEST ? StartupFrameReason.INITIATOR_INITIATOR : StartupFrameReason.RESPONDER_RESPONDER;
        }
        int rev = revision();
        if (rev != REVISION_1 && rev != REVISION_2) {
            // Rev 0 (RDMAC) implies DDP/RDMAP version 00, which we do not speak; Rev > 2 is unknown.
            return StartupFrameReason.UNSUPPORTED_REVISION;
        }
        int pdLength = pdLength();
        if (pdLength > MAX_PRIVATE_DATA_LENGTH) {
            return StartupFrameReason.PD_LENGTH_TOO_LONG;
        }
        if (pdLength > maxPrivateData) {
            // RFC 5044 §7.1.2 rule 9: private data must not exceed the receiving buffer.
            return StartupFrameReason.PD_LENGTH_EXCEEDS_LIMIT;
        }
        if (enhanced()) {
            if (rev < REVISION_2) {
                return StartupFrameReason.ENHANCED_WITH_OLD_REVISION;
            }
            if (pdLength < ENHANCED_WORD_LENGTH) {
                return StartupFrameReason.ENHANCED_DATA_MISSING;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        if (segment == null) {
            return "StartupFrame[unwrapped]";
        }
        return "StartupFrame[kind=" + kind() + ", flags=0x" + Integer.toHexString(flags()) + ", rev=" + revision()
                + ", pdLength=" + pdLength() + "]";
    }
}
