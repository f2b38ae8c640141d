package io.jrnic.mpa;

/**
 * The RFC 6581 §9 enhanced connection setup word, decoded. It leads the private data of a Request or
 * Reply with S=1 and is sent in network byte order:
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0  |A|B|        IRD                |C|D|        ORD                |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * A = peer-to-peer model, B = zero-length Send RTR, C = zero-length Write RTR, D = zero-length Read
 * RTR; IRD and ORD are 14-bit values where {@link #NO_NEGOTIATION} (0x3FFF) means "the ULP
 * negotiates" (RFC 6581 §9.1).
 *
 * <p>When A=0, B, C and D are sent as zero and ignored on receive (RFC 6581 §9.2): {@link #fromWord}
 * clears them in that case.
 *
 * <p>Thread safety: immutable record, safe to share.
 *
 * @param peerToPeer A: peer-to-peer connection model, an RTR is negotiated
 * @param rtrFlags   the RTR flag bits (B, C, D as {@link RtrForm#flag()} values)
 * @param ird        inbound RDMA Read queue depth, 0..0x3FFF
 * @param ord        outbound RDMA Read queue depth, 0..0x3FFF
 */
public record EnhancedSetup(boolean peerToPeer, int rtrFlags, int ird, int ord) {

    /** A: peer-to-peer model, in the word. */
    public static final int FLAG_A_PEER_TO_PEER = 0x8000_0000;
    /** B: zero-length Send RTR, in the word. */
    public static final int FLAG_B_SEND_RTR = 0x4000_0000;
    /** C: zero-length RDMA Write RTR, in the word. */
    public static final int FLAG_C_WRITE_RTR = 0x0000_8000;
    /** D: zero-length RDMA Read RTR, in the word. */
    public static final int FLAG_D_READ_RTR = 0x0000_4000;
    /** Mask of a 14-bit IRD or ORD value. */
    public static final int DEPTH_MASK = 0x3FFF;
    /** The all-ones value: automatic IRD/ORD negotiation is not desired (RFC 6581 §9.1). */
    public static final int NO_NEGOTIATION = 0x3FFF;
    /** Shift of IRD within the word. */
    public static final int IRD_SHIFT = 16;

    /**
     * Checks the arguments.
     *
     * @throws IllegalArgumentException if IRD or ORD exceed 14 bits, or rtrFlags has bits other
     *                                  than B, C and D
     */
    public EnhancedSetup {
        if ((ird & ~DEPTH_MASK) != 0) {
            throw new IllegalArgumentException("IRD must fit 14 bits: " + ird);
        }
        if ((ord & ~DEPTH_MASK) != 0) {
            throw new IllegalArgumentException("ORD must fit 14 bits: " + ord);
        }
        if ((rtrFlags & ~RtrForm.ALL) != 0) {
            throw new IllegalArgumentException("rtrFlags may hold only the B, C and D bits: 0x" + Integer.toHexString(rtrFlags));
        }
    }

    /**
     * Decodes a word as received; B, C and D are ignored when A=0 (RFC 6581 §9.2).
     *
     * @param word the 32-bit enhanced setup word
     * @return the decoded word
     */
    public static EnhancedSetup fromWord(int word) {
        boolean a = (word & FLAG_A_PEER_TO_PEER) != 0;
        return new EnhancedSetup(a, a ? word & RtrForm.ALL : 0, (word >>> IRD_SHIFT) & DEPTH_MASK, word & DEPTH_MASK);
    }

    /**
     * Encodes the word; B, C and D are sent as zero when A=0 (RFC 6581 §9.2).
     *
     * @return the 32-bit word to send
     */
    public int toWord() {
        int word = (ird & DEPTH_MASK) << IRD_SHIFT | (ord & DEPTH_MASK);
        if (peerToPeer) {
            word |= FLAG_A_PEER_TO_PEER | rtrFlags;
        }
        return word;
    }

    /**
     * {@return whether this word offers or accepts the given RTR form (always false in
     * client/server mode)}
     *
     * @param form the RTR form
     */
    public boolean supports(RtrForm form) {
        return peerToPeer && (rtrFlags & form.flag()) != 0;
    }
}
