package io.jrnic.api;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * What an endpoint asks for and accepts during connection setup (Verbs 1.0 §6.6.1; MPA, RFC 5044
 * §7.1 and RFC 6581 §9): fluent and reusable, read once when a connection or listener is started.
 * IRD and ORD are not here: they are the queue pair's attributes (Create QP / Modify QP), and the
 * negotiated values are applied to the queue pair when the connection is established.
 *
 * <p>Defaults follow the project's interop choices (docs/connection-management.md): revision 2
 * with the RFC 6581 IRD/ORD exchange, peer-to-peer with every RTR type, CRC {@link CrcMode#OPTIONAL},
 * no markers requested but the peer's request honoured, private data sent up to 256 bytes (what a
 * Linux peer accepts; up to 512 are always accepted), setup timeout 10 s,
 * no pause before the first FPDU, EMSS from the socket ({@link #AUTO_EMSS}), close timeout 10 s, progress timeout 60 s. {@link #linuxSiw()} gives the settings toward Linux
 * siw.
 *
 * <p>Thread safety: not thread safe; do not change an instance while a call that reads it runs.
 */
public final class ConnectionSettings {
    /** The protocol's private data limit (RFC 5044 §7.1.1 "PD_Length"). */
    public static final int RFC_PRIVATE_DATA_LIMIT = 512;
    /** Linux's iWARP connection manager limit ({@code RDMA_MAX_PRIVATE_DATA}): use toward Linux peers. */
    public static final int LINUX_PRIVATE_DATA_LIMIT = 256;
    /** Bytes of the RFC 6581 IRD/ORD word that revision 2 puts in front of the ULP's private data. */
    public static final int ENHANCED_WORD_LENGTH = 4;
    /** Smallest EMSS: MULPDU never goes below 128 (RFC 5044 §4.5) plus the 6 bytes of MPA framing. */
    public static final int MIN_EMSS = 134;
    /**
     * Largest EMSS accepted (above loopback's); the MULPDU stops at 64768 from EMSS 64776 on, the
     * largest ULPDU a sender may post (RFC 5044 §4.1).
     */
    public static final int MAX_EMSS = 65544;
    /** EMSS of a 1500-byte Ethernet MTU without TCP options. */
    public static final int ETHERNET_EMSS = 1460;
    /**
     * {@link #emss(int)}: the connection's own EMSS, read from its socket when it is established
     * (RFC 5044 §5.1): the TCP MSS the socket reports (Linux epoll: {@code tcpi_snd_mss}, which
     * counts the TCP options in use), else the MTU of the local interface less the IP and TCP
     * headers and the TCP timestamps option. The default.
     */
    public static final int AUTO_EMSS = 0;
    /** The default {@link #progressTimeout(Duration)}: 60 seconds (why: see that method). */
    public static final Duration DEFAULT_PROGRESS_TIMEOUT = Duration.ofSeconds(60);

    private int revision = 2;
    private CrcMode crc = CrcMode.OPTIONAL;
    private boolean requestMarkers;
    private boolean acceptMarkerRequests = true;
    private boolean peerToPeer = true;
    private Set<RtrType> rtrTypes = EnumSet.allOf(RtrType.class);
    private boolean negotiateReadDepths = true;
    private int privateDataLimit = LINUX_PRIVATE_DATA_LIMIT;
    private Duration setupTimeout = Duration.ofSeconds(10);
    private Duration firstFpduDelay = Duration.ZERO;
    private Duration closeTimeout = Duration.ofSeconds(10);
    private Duration progressTimeout = DEFAULT_PROGRESS_TIMEOUT;
    private boolean gracefulReceiveOverflow;
    private int emss = AUTO_EMSS;

    /** Creates settings holding the defaults. */
    public ConnectionSettings() {
    }

    /**
     * Settings toward Linux soft-iWARP (siw 6.1, shared/interop/README.md): private data limit 256,
     * no markers asked or accepted (siw rejects them), a 100 ms pause before the first FPDU (siw
     * installs its receive path only after sending its Reply), revision 2 with IRD/ORD negotiation,
     * CRC {@link CrcMode#OPTIONAL} and FPDUs of one Ethernet segment ({@link #ETHERNET_EMSS}, not
     * {@link #AUTO_EMSS}: siw fails the CRC of FPDUs split over many segments, and a connection
     * through a local forwarder, as in the interop lab, would see loopback's MSS).
     *
     * @return new settings
     */
    public static ConnectionSettings linuxSiw() {
        return new ConnectionSettings().privateDataLimit(LINUX_PRIVATE_DATA_LIMIT).markers(false, false)
                .firstFpduDelay(Duration.ofMillis(100)).emss(ETHERNET_EMSS);
    }

    /**
     * The MPA revision sent as Initiator: 1 (RFC 5044, client/server, no IRD/ORD word) or 2 (RFC
     * 6581 enhanced setup). A passive endpoint with revision 2 accepts both.
     *
     * @param value 1 or 2
     * @return this
     * @throws IllegalArgumentException for another value
     */
    public ConnectionSettings revision(int value) {
        if (value != 1 && value != 2) {
            throw new IllegalArgumentException("MPA revision must be 1 or 2: " + value);
        }
        revision = value;
        return this;
    }

    /**
     * The CRC policy.
     *
     * @param value the mode
     * @return this
     * @throws IllegalArgumentException if value is null
     */
    public ConnectionSettings crc(CrcMode value) {
        if (value == null) {
            throw new IllegalArgumentException("CRC mode must not be null");
        }
        crc = value;
        return this;
    }

    /**
     * Markers (RFC 5044 §5, §7.1.1 "M"), per direction.
     *
     * @param request send M=1: ask the peer to put markers into the FPDUs it sends to us
     * @param accept  honour a peer's M=1 by inserting markers; false refuses such a peer (as siw does)
     * @return this
     */
    public ConnectionSettings markers(boolean request, boolean accept) {
        requestMarkers = request;
        acceptMarkerRequests = accept;
        return this;
    }

    /**
     * The connection model of revision 2 (RFC 6581 §9.2): peer-to-peer with an RTR, or client/server.
     * The active side proposes, the passive side follows.
     *
     * @param value true for peer-to-peer
     * @return this
     */
    public ConnectionSettings peerToPeer(boolean value) {
        peerToPeer = value;
        return this;
    }

    /**
     * The RTR types this endpoint can send (active side) or accepts (passive side), RFC 6581 §9.2.
     *
     * @param types one or more types
     * @return this
     * @throws IllegalArgumentException if none is given
     */
    public ConnectionSettings rtrTypes(RtrType... types) {
        if (types == null || types.length == 0) {
            throw new IllegalArgumentException("at least one RTR type is needed (RFC 6581 §9.2)");
        }
        EnumSet<RtrType> set = EnumSet.noneOf(RtrType.class);
        for (RtrType t : types) {
            if (t == null) {
                throw new IllegalArgumentException("RTR type must not be null");
            }
            set.add(t);
        }
        rtrTypes = set;
        return this;
    }

    /**
     * Whether the active side exchanges its IRD and ORD in the RFC 6581 word (true), or sends 0x3FFF
     * so that the ULP negotiates them itself (RFC 6581 §9.1).
     *
     * @param value true to negotiate
     * @return this
     */
    public ConnectionSettings negotiateReadDepths(boolean value) {
        negotiateReadDepths = value;
        return this;
    }

    /**
     * The most private data (PD_Length) this endpoint sends in its Request or Reply: by default
     * {@link #LINUX_PRIVATE_DATA_LIMIT}, which Linux's iWARP connection manager requires of its
     * peers; up to {@link #RFC_PRIVATE_DATA_LIMIT} toward peers that take it. In revision 2 the
     * 4-byte IRD/ORD word counts, so the ULP may send {@link #maxUlpPrivateData()} bytes. This does
     * not limit what is received: a peer's frame with up to 512 bytes is always accepted (RFC 5044
     * §7.1.1 "PD_Length"), and only more than 512 is refused as an improperly formatted frame.
     *
     * @param value 4..512
     * @return this
     * @throws IllegalArgumentException outside 4..512
     */
    public ConnectionSettings privateDataLimit(int value) {
        if (value < ENHANCED_WORD_LENGTH || value > RFC_PRIVATE_DATA_LIMIT) {
            throw new IllegalArgumentException("private data limit must be " + ENHANCED_WORD_LENGTH + ".."
                    + RFC_PRIVATE_DATA_LIMIT + ": " + value);
        }
        privateDataLimit = value;
        return this;
    }

    /**
     * How long either side waits for the peer during setup: TCP connect, the Request, the Reply, the
     * RTR, and the passive ULP's answer (RFC 5044 §7.1.2 rule 10).
     *
     * @param value positive
     * @return this
     * @throws IllegalArgumentException if not positive
     */
    public ConnectionSettings setupTimeout(Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("setup timeout must be positive: " + value);
        }
        setupTimeout = value;
        return this;
    }

    /**
     * How long a graceful LLP close (Modify QP to Closing, or the close after a Terminate) may take
     * before it counts as failed (Verbs §6.2.5: the RI uses a timeout so that the QP is in Closing
     * for a bounded time, and a final timeout is an error). When it expires the connection is reset
     * and the queue pair goes to Error with {@link AsyncEventType#LLP_CONNECTION_LOST}.
     *
     * @param value positive
     * @return this
     * @throws IllegalArgumentException if not positive
     */
    public ConnectionSettings closeTimeout(Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("close timeout must be positive: " + value);
        }
        closeTimeout = value;
        return this;
    }

    /**
     * How long a connection with work outstanding may go without progress before it is treated as
     * lost (a stalled peer: its process stopped, or it stopped reading). Work is outstanding while
     * a Send, Write, Read, atomic or commit request was handed to the transport and has not
     * completed, or while we owe the peer Read Responses. Progress is any FPDU moving: one taken by
     * the local TCP stack (the peer reads, so the socket accepts bytes) or one arriving from the
     * peer; a WQE completing is not needed, so a slow but live peer -- a long Read of a large
     * region, a peer reading slowly -- never times out. An idle connection never times out. On
     * expiry the connection is reset (no Terminate: nothing reaches a stalled peer) and the queue
     * pair goes to Error with {@link AsyncEventType#LLP_CONNECTION_LOST}, every outstanding work
     * request completing once, flushed (Verbs §6.2.4; the same path as a connection TCP gave up
     * on). The check runs a few times per timeout, so the loss is reported between the timeout and
     * 1.25 times it after the last progress.
     *
     * <p>Why a default of 60 s, and why one at all: RDMA applications expect a dead peer to surface
     * as an error completion, and TCP alone does not always deliver one. A peer whose process
     * stopped still has a kernel that acknowledges our segments and advertises a zero window, so
     * TCP probes it forever and a Read Request it accepted is never answered; Linux gives up on an
     * unacknowledged connection only after about 15 minutes (tcp_retries2) and has no limit for the
     * zero window unless TCP_USER_TIMEOUT is set. (Linux siw relies on TCP alone; its RNIC is in the
     * kernel, so a stopped process does not stop it, whereas this RNIC stops with its process.) 60
     * s is far above any pause of a healthy peer (GC, scheduling, a slow reader between two FPDUs)
     * and far below TCP's give-up. A peer with graceful receive overflow that waits for its
     * application to post a receive also makes no progress: use a longer timeout, or
     * {@link Duration#ZERO}, toward such a peer.
     *
     * @param value positive, or {@link Duration#ZERO} for no progress timeout (wait as long as TCP does)
     * @return this
     * @throws IllegalArgumentException if null or negative
     */
    public ConnectionSettings progressTimeout(Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException("progress timeout must be positive, or zero for none: " + value);
        }
        progressTimeout = value;
        return this;
    }

    /**
     * The progress timeout.
     *
     * @return the duration; {@link Duration#ZERO} when there is none
     */
    public Duration progressTimeout() {
        return progressTimeout;
    }

    /**
     * Graceful receive overflow (Verbs §13.2 and §8.1.2.1, V-WRP-65/66), a per-connection option,
     * off by default. Off, an untagged message (Send) that finds no posted receive WQE is the remote
     * error RFC 5040 §5.3 prescribes: Terminate "no buffer available", QP to Error. On, the QP
     * instead stops reading the TCP stream at that message -- TCP flow control then holds the peer
     * back -- and resumes exactly there when the application posts a receive; nothing is lost or
     * reordered. A QP on a shared receive queue pauses the same way and waits among the S-RQ's
     * waiters: a receive posted to the S-RQ goes to the waiting QPs first, one each, in the order
     * they paused; a QP the S-RQ's fair-share policy refuses (terminate) is still terminated
     * (docs/engine.md, "Graceful receive overflow").
     *
     * @param value whether to pause instead of terminating
     * @return this
     */
    public ConnectionSettings gracefulReceiveOverflow(boolean value) {
        gracefulReceiveOverflow = value;
        return this;
    }

    /**
     * Whether graceful receive overflow is on.
     *
     * @return true when a Send without a receive WQE pauses the stream instead of terminating it
     */
    public boolean gracefulReceiveOverflow() {
        return gracefulReceiveOverflow;
    }

    /**
     * Pause between the active side receiving an accepting Reply and sending its first FPDU (the RTR
     * or, client/server, the first ULP message). Linux siw 6.1 loses an FPDU that arrives before it
     * installed its receive path: use about 100 ms toward siw, zero otherwise.
     *
     * @param value zero or positive
     * @return this
     * @throws IllegalArgumentException if negative
     */
    public ConnectionSettings firstFpduDelay(Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException("first FPDU delay must not be negative: " + value);
        }
        firstFpduDelay = value;
        return this;
    }

    /**
     * The effective MSS from which outgoing FPDUs are sized (RFC 5044 §4.5: MULPDU = EMSS minus the
     * MPA framing and markers). {@link #AUTO_EMSS} (the default) takes the connection's own, as
     * RFC 5044 §5.1 asks and Linux siw does (it sizes FPDUs by the socket's MSS): each FPDU fills
     * one TCP segment, 1448 bytes on Ethernet with TCP timestamps, about 64 KiB on loopback. A fixed
     * value overrides it: {@link #ETHERNET_EMSS}, or up to {@link #MAX_EMSS}.
     *
     * @param value {@link #AUTO_EMSS}, or {@link #MIN_EMSS}..{@link #MAX_EMSS}
     * @return this
     * @throws IllegalArgumentException outside the range
     */
    public ConnectionSettings emss(int value) {
        if (value != AUTO_EMSS && (value < MIN_EMSS || value > MAX_EMSS)) {
            throw new IllegalArgumentException("EMSS must be " + AUTO_EMSS + " (automatic) or " + MIN_EMSS + ".."
                    + MAX_EMSS + ": " + value);
        }
        emss = value;
        return this;
    }

    /**
     * The MPA revision.
     *
     * @return 1 or 2
     */
    public int revision() {
        return revision;
    }

    /**
     * The CRC policy.
     *
     * @return the mode
     */
    public CrcMode crc() {
        return crc;
    }

    /**
     * Whether we ask the peer for markers.
     *
     * @return true to send M=1
     */
    public boolean requestMarkers() {
        return requestMarkers;
    }

    /**
     * Whether we honour a peer's request for markers.
     *
     * @return false refuses such peers
     */
    public boolean acceptMarkerRequests() {
        return acceptMarkerRequests;
    }

    /**
     * The connection model.
     *
     * @return true for peer-to-peer
     */
    public boolean peerToPeer() {
        return peerToPeer;
    }

    /**
     * The RTR types.
     *
     * @return an unmodifiable copy
     */
    public Set<RtrType> rtrTypes() {
        return Set.copyOf(rtrTypes);
    }

    /**
     * Whether IRD/ORD are negotiated in the MPA frames.
     *
     * @return true to negotiate
     */
    public boolean negotiateReadDepths() {
        return negotiateReadDepths;
    }

    /**
     * The private data limit (PD_Length) of what this endpoint sends.
     *
     * @return bytes
     */
    public int privateDataLimit() {
        return privateDataLimit;
    }

    /**
     * The ULP private data a Request or Reply may carry: the limit minus the IRD/ORD word in revision 2.
     *
     * @return bytes
     */
    public int maxUlpPrivateData() {
        return privateDataLimit - (revision == 2 ? ENHANCED_WORD_LENGTH : 0);
    }

    /**
     * The setup timeout.
     *
     * @return the duration
     */
    public Duration setupTimeout() {
        return setupTimeout;
    }

    /**
     * The close timeout.
     *
     * @return the duration
     */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /**
     * The pause before the first FPDU.
     *
     * @return the duration
     */
    public Duration firstFpduDelay() {
        return firstFpduDelay;
    }

    /**
     * The EMSS.
     *
     * @return bytes
     */
    public int emss() {
        return emss;
    }

    @Override
    public String toString() {
        return "ConnectionSettings[rev " + revision + ", crc " + crc + ", markers " + requestMarkers + "/"
                + acceptMarkerRequests + (peerToPeer ? ", p2p " + rtrTypes : ", client/server") + ", pd "
                + privateDataLimit + ", timeout " + setupTimeout + ", close " + closeTimeout + ", progress " + progressTimeout + ", delay " + firstFpduDelay + ", emss " + emss + "]";
    }
}
