package io.jrnic.mpa;

/**
 * The three Ready-To-Receive indications of RFC 6581 §9.2, with their flag bits in the enhanced
 * setup word.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum RtrForm {
    /** Zero-length RDMA Write (flag C, 0x8000 of the ORD half). Cheapest: no MSN, buffer or IRD slot. */
    WRITE(EnhancedSetup.FLAG_C_WRITE_RTR),
    /** Zero-length RDMA Read Request (flag D, 0x4000 of the ORD half): takes an ORD/IRD slot. */
    READ(EnhancedSetup.FLAG_D_READ_RTR),
    /** Zero-length Send (flag B, 0x4000 of the IRD half): uses a receive buffer and a Send MSN. */
    SEND(EnhancedSetup.FLAG_B_SEND_RTR);

    private final int flag;

    RtrForm(int flag) {
        this.flag = flag;
    }

    /** {@return this form's bit in the 32-bit enhanced setup word (and in an RTR bit set)} */
    public int flag() {
        return flag;
    }

    /** Bit set of every form. */
    public static final int ALL = EnhancedSetup.FLAG_B_SEND_RTR | EnhancedSetup.FLAG_C_WRITE_RTR
            | EnhancedSetup.FLAG_D_READ_RTR;

    /**
     * {@return the Initiator's choice among the mutual forms in {@code mutualFlags}, or {@code
     * null} if there is none} The order of preference is declaration order: Write, Read, Send (siw
     * chooses the same way; Write consumes nothing at the Responder).
     *
     * @param mutualFlags the RTR flags that both peers set
     */
    public static RtrForm choose(int mutualFlags) {
        for (RtrForm form : values()) {
            if ((mutualFlags & form.flag) != 0) {
                return form;
            }
        }
        return null;
    }
}
