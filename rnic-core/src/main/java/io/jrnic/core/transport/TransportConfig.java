package io.jrnic.core.transport;

import io.jrnic.api.IoMode;
import io.jrnic.api.IoTransport;
import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.Fpdu;

import java.time.Duration;

/**
 * Configuration of an {@link IwarpTransport}, validated once at construction (use
 * {@link #builder()}).
 *
 * <p>Thread safety: immutable record, safe to share.
 *
 * @param eventLoopThreads   number of event loops; each connection is owned by one of them
 * @param setupTimeout       how long either role waits for the peer during MPA setup: the Request,
 *                           the Reply, and (Responder, peer-to-peer) the RTR (RFC 5044 §7.1.2 rule 10)
 * @param connectTimeout     how long the Initiator waits for the TCP connection itself
 * @param closeTimeout       how long a graceful close may take, from the close request to the
 *                           peer's FIN (Verbs §6.2.5, V-QPS-79: the QP is in Closing for a bounded
 *                           time); when it expires the connection is reset (RST) and reported as
 *                           {@link FpduLink.Closure#CONNECTION_LOST}: a final timeout is an error
 * @param firstFpduDelay     pause between the Initiator receiving an accepting Reply and sending its
 *                           first FPDU; Linux siw 6.1 loses an FPDU that arrives before it has
 *                           installed its receive path (interop README: about 100 ms toward siw),
 *                           zero otherwise
 * @param emss               effective MSS used to size outgoing FPDUs (RFC 5044 §4.5), or
 *                           {@link #AUTO_EMSS}: the connection's own, read from its socket when it is
 *                           established ({@link SocketMss}); else 1460 for a 1500-byte MTU, about
 *                           65483 for loopback, at most {@link #MAX_EMSS}. The MULPDU it gives
 *                           ({@link Fpdu#mulpdu}) is kept within 128..64768 (RFC 5044 §4.1): from
 *                           EMSS 64776 on, FPDUs carry at most 64768 octets of ULPDU. Only what we
 *                           send is limited; received FPDUs are accepted up to the ULPDU_Length
 *                           field's 65535 (docs/reliability.md "Exhaustion")
 * @param writeLowWaterMark  pending outbound bytes below which a non-writable channel becomes
 *                           writable again ({@link FpduLink.Listener#onWritable()})
 * @param writeHighWaterMark pending outbound bytes above which {@link FpduChannel#isWritable()} turns
 *                           false
 * @param stagingBufferSize  size of the per-connection receive staging buffer, the most one
 *                           non-direct socket read takes
 * @param directPlacementThreshold ULPDU length from which direct placement pays: once the header of
 *                           a placed FPDU at least this long has been seen, staging reads are cut to
 *                           {@link #HEADER_READ_LENGTH} bytes so that the payload of a following
 *                           large FPDU is read straight into its target instead of through the
 *                           staging buffer; 0 turns this off (always read as much as the staging
 *                           buffer holds)
 * @param ioMode             who drives the connections: the event loops, or the application's
 *                           threads with the loops taking over when nobody does ({@link IoMode})
 * @param ioTransport        the socket implementation: NIO, Linux epoll, or epoll when it loads
 * @param pollingTakeover    in {@link IoMode#POLLING}: how long after an application thread last
 *                           drove a loop (a CQ poll, a post) the loop's own I/O thread takes over and
 *                           serves the sockets; the longest a connection waits when nobody polls
 * @param pollingSpin        in {@link IoMode#POLLING}: how long the I/O thread, once it served the
 *                           sockets, keeps passing over them without sleeping after the last work it
 *                           found (no wake-up for a request that follows soon); zero: sleep at once
 * @param segmentRule        whether a connection's writes end at TCP segment boundaries where they
 *                           would run a little past one (the framing handler's segment rule,
 *                           docs/transport.md; on NIO by the MTU's segment): a gain where TCP paces its segments itself
 *                           and a loss where it does not; by default on when the system's congestion
 *                           control paces ({@link TcpCongestion}: BBR)
 * @param callerTransmit     in {@link IoMode#EVENT_LOOP}: whether a post transmits on the
 *                           posting thread while the loop's I/O thread waits on the sockets (it
 *                           waits without holding the loop: {@link DrivableEventLoop}); false: every
 *                           post is handed to the I/O thread
 */
public record TransportConfig(int eventLoopThreads, Duration setupTimeout, Duration connectTimeout,
                              Duration closeTimeout, Duration firstFpduDelay, int emss, int writeLowWaterMark,
                              int writeHighWaterMark, int stagingBufferSize, int directPlacementThreshold,
                              IoMode ioMode, IoTransport ioTransport, Duration pollingTakeover,
                              Duration pollingSpin, boolean segmentRule, boolean callerTransmit) {

    /**
     * Bytes of a cut staging read: a marker, ULPDU_Length and the longest placement prefix (an
     * untagged header plus a Read Request header) with room to spare.
     */
    public static final int HEADER_READ_LENGTH = 64;

    /** The EMSS of a TCP connection over a 1500-byte Ethernet MTU without options: 1500 - 40. */
    public static final int ETHERNET_EMSS = 1460;
    /** {@link #emss()}: the connection's own EMSS, from its socket (RFC 5044 §5.1, {@link SocketMss}). */
    public static final int AUTO_EMSS = 0;
    /**
     * The largest EMSS accepted, above the loopback interface's (about 65483 for its 64 KiB MTU) so
     * that any link's EMSS can be given as it is. FPDUs stop growing at EMSS 64776: the MULPDU is
     * capped at {@link Fpdu#MAX_MULPDU} 64768 (RFC 5044 §4.1 "The sending DDP MUST NOT post a ULPDU
     * larger than 64768 octets to MPA").
     */
    public static final int MAX_EMSS = 65544;

    /**
     * Validates the configuration.
     *
     * @throws IllegalArgumentException naming the first invalid setting
     */
    public TransportConfig {
        if (eventLoopThreads < 1) {
            throw new IllegalArgumentException("eventLoopThreads must be at least 1: " + eventLoopThreads);
        }
        checkDuration("setupTimeout", setupTimeout, false);
        checkDuration("connectTimeout", connectTimeout, false);
        checkDuration("closeTimeout", closeTimeout, false);
        checkDuration("firstFpduDelay", firstFpduDelay, true);
        // RFC 5044 §4.5: MULPDU never goes below 128, so an EMSS under 134 makes no sense.
        if (emss != AUTO_EMSS && (emss < Fpdu.MIN_MULPDU + Fpdu.OVERHEAD || emss > MAX_EMSS)) {
            throw new IllegalArgumentException("emss must be " + AUTO_EMSS + " (automatic) or "
                    + (Fpdu.MIN_MULPDU + Fpdu.OVERHEAD) + ".." + MAX_EMSS + ": " + emss);
        }
        if (writeLowWaterMark < 0 || writeHighWaterMark < writeLowWaterMark) {
            throw new IllegalArgumentException("write water marks must satisfy 0 <= low <= high: low "
                    + writeLowWaterMark + ", high " + writeHighWaterMark);
        }
        if (stagingBufferSize < HEADER_READ_LENGTH) {
            throw new IllegalArgumentException("stagingBufferSize must be at least " + HEADER_READ_LENGTH + ": "
                    + stagingBufferSize);
        }
        if (directPlacementThreshold < 0) {
            throw new IllegalArgumentException("directPlacementThreshold must not be negative: " + directPlacementThreshold);
        }
        checkDuration("pollingTakeover", pollingTakeover, false);
        checkDuration("pollingSpin", pollingSpin, true);
        if (ioMode == null || ioTransport == null) {
            throw new IllegalArgumentException("ioMode and ioTransport must not be null: " + ioMode + ", " + ioTransport);
        }
    }

    private static void checkDuration(String name, Duration value, boolean zeroAllowed) {
        if (value == null || value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new IllegalArgumentException(name + " must be " + (zeroAllowed ? "non-negative" : "positive")
                    + ": " + value);
        }
    }

    /** A builder holding the defaults (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** The default configuration (see {@link Builder}). */
    public static TransportConfig defaults() {
        return builder().build();
    }

    /**
     * Builder for {@link TransportConfig}. Defaults: one event loop per available processor (at most
     * 4), setup timeout 10 s, connect timeout 10 s, close timeout 10 s, no first-FPDU delay, EMSS 1460 (FPDUs of at most
     * one Ethernet segment, as siw sends), water marks 256 KiB / 1 MiB, staging buffer 64 KiB,
     * direct placement threshold 8 KiB, {@link IoMode#EVENT_LOOP}, {@link IoTransport#AUTO}, polling takeover 1 ms,
     * polling spin 50 us, the segment rule on when the system's TCP congestion control paces.
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class Builder {
        private int eventLoopThreads = Math.min(4, Runtime.getRuntime().availableProcessors());
        private Duration setupTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration closeTimeout = Duration.ofSeconds(10);
        private Duration firstFpduDelay = Duration.ZERO;
        private int emss = ETHERNET_EMSS;
        private int writeLowWaterMark = 256 * 1024;
        private int writeHighWaterMark = 1024 * 1024;
        private int stagingBufferSize = 64 * 1024;
        private int directPlacementThreshold = 8 * 1024;
        private IoMode ioMode = IoMode.EVENT_LOOP;
        private IoTransport ioTransport = IoTransport.AUTO;
        private Duration pollingTakeover = Duration.ofMillis(1);
        private Duration pollingSpin = Duration.ofNanos(50_000);
        private boolean segmentRule = TcpCongestion.SYSTEM_PACES;
        private boolean callerTransmit = true;

        private Builder() {
        }

        /** Sets {@link TransportConfig#eventLoopThreads()}; returns this. */
        public Builder eventLoopThreads(int value) {
            eventLoopThreads = value;
            return this;
        }

        /** Sets {@link TransportConfig#setupTimeout()}; returns this. */
        public Builder setupTimeout(Duration value) {
            setupTimeout = value;
            return this;
        }

        /** Sets {@link TransportConfig#connectTimeout()}; returns this. */
        public Builder connectTimeout(Duration value) {
            connectTimeout = value;
            return this;
        }

        /** Sets {@link TransportConfig#closeTimeout()}; returns this. */
        public Builder closeTimeout(Duration value) {
            closeTimeout = value;
            return this;
        }

        /** Sets {@link TransportConfig#firstFpduDelay()}; returns this. */
        public Builder firstFpduDelay(Duration value) {
            firstFpduDelay = value;
            return this;
        }

        /** Sets {@link TransportConfig#emss()}; returns this. */
        public Builder emss(int value) {
            emss = value;
            return this;
        }

        /** Sets both write water marks; returns this. */
        public Builder writeWaterMarks(int low, int high) {
            writeLowWaterMark = low;
            writeHighWaterMark = high;
            return this;
        }

        /** Sets {@link TransportConfig#stagingBufferSize()}; returns this. */
        public Builder stagingBufferSize(int value) {
            stagingBufferSize = value;
            return this;
        }

        /** Sets {@link TransportConfig#directPlacementThreshold()}; returns this. */
        public Builder directPlacementThreshold(int value) {
            directPlacementThreshold = value;
            return this;
        }

        /** Sets {@link TransportConfig#ioMode()}; returns this. */
        public Builder ioMode(IoMode value) {
            ioMode = value;
            return this;
        }

        /** Sets {@link TransportConfig#ioTransport()}; returns this. */
        public Builder ioTransport(IoTransport value) {
            ioTransport = value;
            return this;
        }

        /** Sets {@link TransportConfig#pollingTakeover()}; returns this. */
        public Builder pollingTakeover(Duration value) {
            pollingTakeover = value;
            return this;
        }

        /** Sets {@link TransportConfig#pollingSpin()}; returns this. */
        public Builder pollingSpin(Duration value) {
            pollingSpin = value;
            return this;
        }

        /** Sets {@link TransportConfig#callerTransmit()}; returns this. */
        public Builder callerTransmit(boolean value) {
            callerTransmit = value;
            return this;
        }

        /** Sets {@link TransportConfig#segmentRule()}; returns this. */
        public Builder segmentRule(boolean value) {
            segmentRule = value;
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @throws IllegalArgumentException naming the first invalid setting
         */
        public TransportConfig build() {
            return new TransportConfig(eventLoopThreads, setupTimeout, connectTimeout, closeTimeout, firstFpduDelay, emss,
                    writeLowWaterMark, writeHighWaterMark, stagingBufferSize, directPlacementThreshold, ioMode, ioTransport,
                    pollingTakeover, pollingSpin, segmentRule, callerTransmit);
        }
    }
}
