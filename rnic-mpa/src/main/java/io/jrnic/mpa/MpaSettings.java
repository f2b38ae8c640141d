package io.jrnic.mpa;

/**
 * Local MPA startup configuration of one endpoint, validated once at construction (use
 * {@link #builder()}).
 *
 * <p>Thread safety: immutable record, safe to share.
 *
 * @param crcPolicy            the C bit sent and whether a peer without C is refused
 * @param requestMarkers       send M=1: ask the peer to insert markers toward us
 * @param acceptMarkerRequests honour a peer's M=1 by inserting markers (RFC 5044 §4.3 requires
 *                             senders to be able to); {@code false} refuses such peers as Linux siw
 *                             does
 * @param revision             the MPA revision sent as Initiator: 1 (RFC 5044) or 2 (RFC 6581,
 *                             S=1); a Responder configured with 2 accepts both
 * @param peerToPeer           as Initiator with revision 2, request the peer-to-peer model (A=1)
 * @param rtrForms             RTR forms ({@link RtrForm#flag()} bits) this endpoint can send (as
 *                             Initiator) or accepts (as Responder)
 * @param ird                  local IRD: advertised by the Initiator; kept by either side when the
 *                             peer sends 0x3FFF
 * @param ord                  local ORD wanted: advertised by the Initiator; the Responder's upper
 *                             bound for its ORD
 * @param irdCap               the highest IRD this endpoint can provide
 * @param minOrd               Responder: the ORD its ULP requires; an Initiator IRD below it is
 *                             rejected (RFC 6581 §9.1)
 * @param negotiateIrdOrd      Initiator: {@code false} sends 0x3FFF in both fields (the ULP
 *                             negotiates, RFC 6581 §9.1)
 * @param privateDataLimit     maximum PD_Length we send, at most 512; 256 (the default) toward Linux
 *                             peers (their iWARP CM cap); in revision 2 the 4-byte word counts. It
 *                             does not bound what we accept: a receiver takes up to 512 (RFC 5044
 *                             §7.1.1), see {@link StartupFrame#MAX_PRIVATE_DATA_LENGTH}
 */
public record MpaSettings(CrcPolicy crcPolicy, boolean requestMarkers, boolean acceptMarkerRequests,
                          int revision, boolean peerToPeer, int rtrForms, int ird, int ord, int irdCap,
                          int minOrd, boolean negotiateIrdOrd, int privateDataLimit) {

    /** Linux's iWARP connection manager private data cap ({@code RDMA_MAX_PRIVATE_DATA}). */
    public static final int LINUX_PRIVATE_DATA_LIMIT = 256;

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the first invalid setting
     */
    public MpaSettings {
        if (crcPolicy == null) {
            throw new IllegalArgumentException("crcPolicy must not be null");
        }
        if (revision != StartupFrame.REVISION_1 && revision != StartupFrame.REVISION_2) {
            throw new IllegalArgumentException("revision must be 1 or 2: " + revision);
        }
        if ((rtrForms & ~RtrForm.ALL) != 0) {
            throw new IllegalArgumentException("rtrForms may hold only RtrForm flags: 0x" + Integer.toHexString(rtrForms));
        }
        if (revision == StartupFrame.REVISION_2 && rtrForms == 0) {
            // RFC 6581 §9.2: an enhanced Responder must support at least one RTR form.
            throw new IllegalArgumentException("revision 2 needs at least one RTR form");
        }
        checkDepth("ird", ird);
        checkDepth("ord", ord);
        checkDepth("irdCap", irdCap);
        checkDepth("minOrd", minOrd);
        if (ird > irdCap) {
            throw new IllegalArgumentException("ird " + ird + " exceeds irdCap " + irdCap);
        }
        if (privateDataLimit < 0 || privateDataLimit > StartupFrame.MAX_PRIVATE_DATA_LENGTH) {
            throw new IllegalArgumentException("privateDataLimit must be 0..512: " + privateDataLimit);
        }
        if (revision == StartupFrame.REVISION_2 && privateDataLimit < StartupFrame.ENHANCED_WORD_LENGTH) {
            throw new IllegalArgumentException("revision 2 needs privateDataLimit >= 4 for the IRD/ORD word");
        }
    }

    private static void checkDepth(String name, int value) {
        // 0x3FFF is the "no negotiation" marker on the wire, never a local depth.
        if (value < 0 || value >= EnhancedSetup.NO_NEGOTIATION) {
            throw new IllegalArgumentException(name + " must be 0..0x3FFE: " + value);
        }
    }

    /**
     * {@return the ULP private data an endpoint may send: the limit minus the enhanced word in
     * revision 2}
     */
    public int maxUlpPrivateData() {
        return privateDataLimit - (revision == StartupFrame.REVISION_2 ? StartupFrame.ENHANCED_WORD_LENGTH : 0);
    }

    /** {@return a builder holding the defaults (see {@link Builder})} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the default settings: see {@link Builder}} */
    public static MpaSettings defaults() {
        return builder().build();
    }

    /**
     * Builder for {@link MpaSettings}. Defaults follow the project's interop choices: CRC
     * {@link CrcPolicy#OPTIONAL}, no markers requested but peers' requests honoured, revision 2,
     * peer-to-peer with every RTR form, IRD = ORD = 16, IRD cap 128 (as Linux siw), no required ORD,
     * automatic IRD/ORD negotiation, a send limit for private data of 256
     * ({@link #LINUX_PRIVATE_DATA_LIMIT}: what a Linux peer accepts; we accept 512 whatever it is).
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class Builder {
        private CrcPolicy crcPolicy = CrcPolicy.OPTIONAL;
        private boolean requestMarkers;
        private boolean acceptMarkerRequests = true;
        private int revision = StartupFrame.REVISION_2;
        private boolean peerToPeer = true;
        private int rtrForms = RtrForm.ALL;
        private int ird = 16;
        private int ord = 16;
        private int irdCap = 128;
        private int minOrd;
        private boolean negotiateIrdOrd = true;
        private int privateDataLimit = LINUX_PRIVATE_DATA_LIMIT;

        private Builder() {
        }

        /**
         * Sets {@link MpaSettings#crcPolicy()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder crcPolicy(CrcPolicy value) {
            crcPolicy = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#requestMarkers()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder requestMarkers(boolean value) {
            requestMarkers = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#acceptMarkerRequests()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder acceptMarkerRequests(boolean value) {
            acceptMarkerRequests = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#revision()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder revision(int value) {
            revision = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#peerToPeer()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder peerToPeer(boolean value) {
            peerToPeer = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#rtrForms()} from forms; returns this.
         *
         * @param forms the RTR forms the endpoint offers or accepts
         * @return this builder
         */
        public Builder rtrForms(RtrForm... forms) {
            int flags = 0;
            for (RtrForm form : forms) {
                flags |= form.flag();
            }
            rtrForms = flags;
            return this;
        }

        /**
         * Sets {@link MpaSettings#ird()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder ird(int value) {
            ird = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#ord()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder ord(int value) {
            ord = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#irdCap()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder irdCap(int value) {
            irdCap = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#minOrd()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder minOrd(int value) {
            minOrd = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#negotiateIrdOrd()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder negotiateIrdOrd(boolean value) {
            negotiateIrdOrd = value;
            return this;
        }

        /**
         * Sets {@link MpaSettings#privateDataLimit()}; returns this.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder privateDataLimit(int value) {
            privateDataLimit = value;
            return this;
        }

        /**
         * {@return the settings this builder holds}
         *
         * @throws IllegalArgumentException naming the first invalid setting
         */
        public MpaSettings build() {
            return new MpaSettings(crcPolicy, requestMarkers, acceptMarkerRequests, revision, peerToPeer, rtrForms,
                    ird, ord, irdCap, minOrd, negotiateIrdOrd, privateDataLimit);
        }
    }
}
