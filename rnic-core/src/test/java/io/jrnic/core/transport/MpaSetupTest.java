package io.jrnic.core.transport;

import io.jrnic.core.transport.TransportFixture.Endpoint;
import io.jrnic.core.transport.TransportFixture.Pair;
import io.jrnic.core.transport.TransportFixture.Responder;
import io.jrnic.core.transport.TransportFixture.Setup;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.MpaParameters;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.NegotiationFailure;
import io.jrnic.mpa.RtrForm;
import io.jrnic.mpa.StartupFrame;
import io.jrnic.mpa.StartupFrameReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import static io.jrnic.core.transport.TransportFixture.LOOPBACK;
import static io.jrnic.core.transport.TransportFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** MPA connection setup over real loopback TCP (RFC 5044 §7.1, RFC 6581). */
class MpaSetupTest {

    private IwarpTransport transport;

    @BeforeEach
    void open() {
        transport = new IwarpTransport(TransportFixture.config().build());
    }

    @AfterEach
    void close() {
        transport.close();
    }

    private static byte[] bytes(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + 7 * i);
        }
        return b;
    }

    private static MpaSettings.Builder settings() {
        return MpaSettings.builder();
    }

    // ------------------------------------------------------------------ private data

    @ParameterizedTest(name = "limit {0}, {1} bytes each way")
    @CsvSource({"512, 0", "512, 1", "512, 508", "256, 252", "256, 17"})
    void connectsWithPrivateDataBothWays(int limit, int length) throws Exception {
        MpaSettings s = settings().privateDataLimit(limit).build();
        byte[] request = bytes(length, 1);
        byte[] reply = bytes(length, 2);
        Responder r = Responder.accepting(reply);
        try (MpaListener listener = transport.listen(LOOPBACK, s, r)) {
            Setup setup = new Setup();
            transport.connect(listener.localAddress(), s, request, setup);
            FpduChannel initiator = setup.channel();
            FpduChannel responder = r.accepted.channel();
            MpaRequest req = await(r.request);
            assertThat(req.privateData()).isEqualTo(request);
            assertThat(req.revision()).isEqualTo(StartupFrame.REVISION_2);
            assertThat(req.maxReplyPrivateData()).isEqualTo(limit - 4);
            assertThat(initiator.info().peerPrivateData()).isEqualTo(reply);
            assertThat(initiator.info().localPrivateData()).isEqualTo(request);
            assertThat(responder.info().peerPrivateData()).isEqualTo(request);
            assertThat(responder.info().localPrivateData()).isEqualTo(reply);
            assertThat(initiator.info().role()).isEqualTo(ConnectionInfo.Role.INITIATOR);
            assertThat(responder.info().role()).isEqualTo(ConnectionInfo.Role.RESPONDER);
            assertThat(initiator.info().remoteAddress()).isEqualTo(listener.localAddress());
            assertThat(setup.calls).containsExactly("established");
        }
    }

    @Test
    void privateDataOverTheLimitIsRefusedLocally() throws Exception {
        MpaSettings s = settings().privateDataLimit(256).build();
        assertThatThrownBy(() -> transport.connect(LOOPBACK, s, new byte[253], new Setup()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("253 bytes exceeds the limit of 252");
        Responder r = new Responder(null);
        try (MpaListener listener = transport.listen(LOOPBACK, s, r)) {
            Setup setup = new Setup();
            transport.connect(listener.localAddress(), s, null, setup);
            MpaRequest req = await(r.request);
            assertThatThrownBy(() -> req.accept(new byte[253], new Setup()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds the limit of 252");
            assertThatThrownBy(() -> req.reject(new byte[253])).isInstanceOf(IllegalArgumentException.class);
            req.accept(new byte[252], r.accepted);
            assertThatThrownBy(() -> req.reject(null)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already answered");
            assertThat(setup.channel().info().peerPrivateData()).hasSize(252);
        }
    }

    /**
     * A revision-2 peer-to-peer Request whose PD_Length is {@code pdLength} (the IRD/ORD word and
     * {@code pdLength - 4} bytes of ULP data), built by hand so that it may exceed 512.
     */
    private static byte[] requestWithPrivateData(int pdLength) {
        byte[] frame = new byte[StartupFrame.HEADER_LENGTH + Math.max(pdLength, 512)];
        int n = new io.jrnic.mpa.MpaNegotiator(settings().privateDataLimit(512).build())
                .writeRequest(java.lang.foreign.MemorySegment.ofArray(frame), 0,
                        java.lang.foreign.MemorySegment.ofArray(bytes(508, 3)), 0, Math.min(pdLength, 512) - 4);
        frame = Arrays.copyOf(frame, StartupFrame.HEADER_LENGTH + pdLength);
        if (pdLength > n - StartupFrame.HEADER_LENGTH) {
            System.arraycopy(bytes(pdLength - 512, 9), 0, frame, n, pdLength - 512);
        }
        frame[18] = (byte) (pdLength >>> 8);       // PD_Length (RFC 5044 §7.1.1), patched past 512
        frame[19] = (byte) pdLength;
        return frame;
    }

    /**
     * RFC 5044 §7.1.1 allows 512 bytes of private data: a Responder whose own (send) limit is the
     * Linux 256 accepts a Request carrying 257..512 and answers with a Reply (issue 9 item 4).
     */
    @ParameterizedTest(name = "PD_Length {0}")
    @ValueSource(ints = {257, 511, 512})
    void requestWithUpTo512BytesOfPrivateDataIsAcceptedWhateverOurSendLimit(int pdLength) throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK,
                settings().privateDataLimit(MpaSettings.LINUX_PRIVATE_DATA_LIMIT).build(), r);
             Socket raw = new Socket()) {
            raw.connect(listener.localAddress());
            raw.setSoTimeout(10_000);
            byte[] request = requestWithPrivateData(pdLength);
            raw.getOutputStream().write(request);
            byte[] reply = raw.getInputStream().readNBytes(24);
            assertThat(Arrays.copyOf(reply, 16)).asString(StandardCharsets.US_ASCII).isEqualTo("MPA ID Rep Frame");
            assertThat(reply[16] & 0x20).as("R: accepted").isZero();
            MpaRequest req = await(r.request);
            assertThat(req.privateData()).isEqualTo(Arrays.copyOfRange(request, 24, request.length));
            // what we send stays within our own limit
            assertThat(req.maxReplyPrivateData()).isEqualTo(MpaSettings.LINUX_PRIVATE_DATA_LIMIT - 4);
            raw.getOutputStream().write(RawFrames.WRITE_RTR_FPDU);
            assertThat(r.accepted.channel().info().peerPrivateData()).hasSize(pdLength - 4);
        }
    }

    /** RFC 5044 §7.1.1 "PD_Length": more than 512 is an improperly formatted frame, closed with no Reply. */
    @Test
    void requestWith513BytesOfPrivateDataIsClosedWithoutAReply() throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().privateDataLimit(512).build(), r);
             Socket raw = new Socket()) {
            raw.connect(listener.localAddress());
            raw.setSoTimeout(10_000);
            raw.getOutputStream().write(requestWithPrivateData(513));
            SetupFailure f = await(r.setupFailed);
            assertThat(f.kind()).isEqualTo(SetupFailure.Kind.INVALID_FRAME);
            assertThat(f.frameReason()).isEqualTo(StartupFrameReason.PD_LENGTH_TOO_LONG);
            assertThat(f.error().terminateCodeBits()).isEqualTo(0x2004);
            assertThat(readToEnd(raw)).as("no Reply, then the close").isEmpty();
            assertThat(r.request).isNotDone();
        }
    }

    /**
     * RFC 5044 §7.1.1 "PD_Length", the Initiator's side: a Reply carrying more than 512 bytes of
     * private data is an improperly formatted frame (2/0/0x04); the setup fails and the stream is
     * closed without an RTR (issue 13, docs/reliability.md "Exhaustion").
     */
    @Test
    void initiatorClosesOnAReplyWith513BytesOfPrivateData() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Setup setup = new Setup();
            transport.connect(server.getLocalSocketAddress(), settings().build(), null, setup);
            try (Socket peer = server.accept()) {
                peer.setSoTimeout(10_000);
                peer.getInputStream().readNBytes(24); // our Request: header and the IRD/ORD word
                byte[] reply = requestWithPrivateData(513);
                System.arraycopy("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII), 0, reply, 0, 16);
                peer.getOutputStream().write(reply);
                SetupFailure f = setup.failure();
                assertThat(f.kind()).isEqualTo(SetupFailure.Kind.INVALID_FRAME);
                assertThat(f.frameReason()).isEqualTo(StartupFrameReason.PD_LENGTH_TOO_LONG);
                assertThat(f.error().terminateCodeBits()).isEqualTo(0x2004);
                assertThat(peer.getInputStream().read()).as("no RTR, the close").isEqualTo(-1);
            }
        }
    }

    /** The Initiator side of item 4: a Reply with more private data than our send limit is accepted. */
    @Test
    void initiatorAcceptsAReplyWithMorePrivateDataThanItsOwnSendLimit() throws Exception {
        byte[] reply = bytes(508, 4);
        Responder r = Responder.accepting(reply);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().privateDataLimit(512).build(), r)) {
            Setup setup = new Setup();
            transport.connect(listener.localAddress(),
                    settings().privateDataLimit(MpaSettings.LINUX_PRIVATE_DATA_LIMIT).build(), null, setup);
            assertThat(setup.channel().info().peerPrivateData()).isEqualTo(reply);
            assertThat(r.accepted.channel().info().localPrivateData()).isEqualTo(reply);
        }
    }

    @Test
    void theDefaultSendLimitIsLinuxs() {
        assertThat(MpaSettings.defaults().privateDataLimit()).isEqualTo(MpaSettings.LINUX_PRIVATE_DATA_LIMIT);
        assertThatThrownBy(() -> transport.connect(LOOPBACK, settings().build(), new byte[253], new Setup()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds the limit of 252");
    }

    @Test
    void rejectCarriesPrivateDataAndTheResponderIrdOrd() throws Exception {
        byte[] why = "no room at the inn".getBytes(StandardCharsets.US_ASCII);
        Responder r = new Responder(req -> req.reject(why));
        try (MpaListener listener = transport.listen(LOOPBACK, settings().ird(3).ord(5).build(), r)) {
            Setup setup = new Setup();
            transport.connect(listener.localAddress(), settings().ird(7).ord(9).build(), bytes(10, 3), setup);
            SetupFailure f = setup.failure();
            assertThat(f.kind()).isEqualTo(SetupFailure.Kind.REJECTED_BY_PEER);
            assertThat(f.negotiation()).isEqualTo(NegotiationFailure.PEER_REJECTED);
            assertThat(f.peerPrivateData()).isEqualTo(why);
            // RFC 6581 §9.1: the Responder's values reach the ULP even in a reject.
            assertThat(f.peerIrd()).isEqualTo(9);
            assertThat(f.peerOrd()).isEqualTo(5);
            assertThat(setup.calls).containsExactly("failed");
        }
    }

    // ------------------------------------------------------------------ revisions

    @ParameterizedTest(name = "initiator rev {0}, responder rev {1}")
    @CsvSource({"1, 1", "1, 2", "2, 2"})
    void negotiatesTheRevision(int initiatorRevision, int responderRevision) throws Exception {
        Pair pair = TransportFixture.connect(transport, settings().revision(initiatorRevision).build(),
                settings().revision(responderRevision).build());
        MpaParameters p = pair.initiator().info().parameters();
        int expected = Math.min(initiatorRevision, responderRevision);
        assertThat(p.revision()).isEqualTo(expected);
        assertThat(p.enhanced()).isEqualTo(expected == 2);
        assertThat(pair.responder().info().parameters().revision()).isEqualTo(expected);
        assertThat(pair.request().revision()).isEqualTo(initiatorRevision);
        // Revision 1 has no RTR: client/server, the Initiator's first FPDU is ULP data.
        assertThat(pair.initiator().info().rtr()).isEqualTo(expected == 2 ? RtrForm.WRITE : null);
        assertThat(pair.responder().info().rtr()).isEqualTo(expected == 2 ? RtrForm.WRITE : null);
        exchangeSmall(pair);
    }

    @Test
    void revisionOneResponderClosesOnAnEnhancedRequest() throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().revision(1).build(), r)) {
            Setup setup = new Setup();
            transport.connect(listener.localAddress(), settings().revision(2).build(), null, setup);
            SetupFailure f = await(r.setupFailed);
            assertThat(f.kind()).isEqualTo(SetupFailure.Kind.INVALID_FRAME);
            assertThat(f.frameReason()).isEqualTo(StartupFrameReason.UNSUPPORTED_REVISION);
            assertThat(setup.failure().kind()).isEqualTo(SetupFailure.Kind.CONNECTION_LOST);
        }
    }

    /** Sends a little data each way and checks it, proving the connection is in Full Operation. */
    private static void exchangeSmall(Pair pair) {
        int[] sizes = {5, 3000};
        Endpoint a = new Endpoint(3005, TransportFixture.fpduCount(sizes, pair.responder().mulpdu()));
        Endpoint b = new Endpoint(3005, TransportFixture.fpduCount(sizes, pair.initiator().mulpdu()));
        a.start(pair.initiator());
        b.start(pair.responder());
        var da = TransportFixture.pattern(3005, 11);
        var db = TransportFixture.pattern(3005, 12);
        a.send(da, sizes);
        b.send(db, sizes);
        await(a.done);
        await(b.done);
        TransportFixture.assertSameBytes(b.received, da, 3005);
        TransportFixture.assertSameBytes(a.received, db, 3005);
    }

    // ------------------------------------------------------------------ CRC and markers

    @ParameterizedTest(name = "initiator {0}, responder {1}")
    @CsvSource({
            "REQUIRED, REQUIRED, on", "REQUIRED, OPTIONAL, on", "REQUIRED, OFF, initiator-closes",
            "OPTIONAL, REQUIRED, on", "OPTIONAL, OPTIONAL, on", "OPTIONAL, OFF, on",
            "OFF, REQUIRED, responder-rejects", "OFF, OPTIONAL, on", "OFF, OFF, off"
    })
    void negotiatesCrc(CrcPolicy initiator, CrcPolicy responder, String expected) throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().crcPolicy(responder).build(), r)) {
            Setup setup = new Setup();
            transport.connect(listener.localAddress(), settings().crcPolicy(initiator).build(), null, setup);
            switch (expected) {
                case "on", "off" -> {
                    boolean crc = expected.equals("on");
                    assertThat(setup.channel().info().parameters().crc()).isEqualTo(crc);
                    assertThat(r.accepted.channel().info().parameters().crc()).isEqualTo(crc);
                }
                case "initiator-closes" -> {
                    // A strict Initiator closes on a Reply with C=0 (docs/mpa.md decision 4).
                    SetupFailure f = setup.failure();
                    assertThat(f.kind()).isEqualTo(SetupFailure.Kind.NEGOTIATION_FAILED);
                    assertThat(f.negotiation()).isEqualTo(NegotiationFailure.CRC_REQUIRED);
                    assertThat(r.accepted.failure().kind()).isEqualTo(SetupFailure.Kind.CONNECTION_LOST);
                }
                case "responder-rejects" -> {
                    assertThat(setup.failure().kind()).isEqualTo(SetupFailure.Kind.REJECTED_BY_PEER);
                    SetupFailure f = await(r.setupFailed);
                    assertThat(f.kind()).isEqualTo(SetupFailure.Kind.NEGOTIATION_FAILED);
                    assertThat(f.negotiation()).isEqualTo(NegotiationFailure.CRC_REQUIRED);
                    assertThat(r.request).isNotDone();
                }
                default -> throw new IllegalArgumentException(expected);
            }
        }
    }

    @ParameterizedTest(name = "initiator asks {0}, responder asks {1}")
    @CsvSource({"false, false", "true, false", "false, true", "true, true"})
    void negotiatesMarkersPerDirection(boolean initiatorAsks, boolean responderAsks) throws Exception {
        Pair pair = TransportFixture.connect(transport, settings().requestMarkers(initiatorAsks).build(),
                settings().requestMarkers(responderAsks).build());
        MpaParameters i = pair.initiator().info().parameters();
        MpaParameters r = pair.responder().info().parameters();
        // RFC 5044 §7.1.1 "M": a frame's M asks the *other* side to insert markers.
        assertThat(i.markersOnReceive()).isEqualTo(initiatorAsks);
        assertThat(r.markersOnSend()).isEqualTo(initiatorAsks);
        assertThat(i.markersOnSend()).isEqualTo(responderAsks);
        assertThat(r.markersOnReceive()).isEqualTo(responderAsks);
        exchangeSmall(pair);
    }

    @Test
    void responderRefusingMarkersRejects() throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().acceptMarkerRequests(false).build(), r)) {
            Setup setup = new Setup();
            transport.connect(listener.localAddress(), settings().requestMarkers(true).build(), null, setup);
            assertThat(setup.failure().kind()).isEqualTo(SetupFailure.Kind.REJECTED_BY_PEER);
            assertThat(await(r.setupFailed).negotiation()).isEqualTo(NegotiationFailure.MARKERS_REFUSED);
        }
    }

    // ------------------------------------------------------------------ IRD/ORD and RTR

    @Test
    void exchangesIrdAndOrd_V_IRD_19() throws Exception {
        Pair pair = TransportFixture.connect(transport, settings().ird(4).ord(8).build(),
                settings().ird(16).ord(2).build());
        assertThat(pair.request().peerIrd()).isEqualTo(4);
        assertThat(pair.request().peerOrd()).isEqualTo(8);
        MpaParameters r = pair.responder().info().parameters();
        MpaParameters i = pair.initiator().info().parameters();
        // RFC 6581 §9.1: Responder ORD = min(2, Initiator IRD 4); Responder IRD = Initiator ORD 8.
        assertThat(r.ord()).isEqualTo(2);
        assertThat(r.ird()).isEqualTo(8);
        // Initiator IRD = max(4, Responder ORD 2); Initiator ORD = min(8, Responder IRD 8).
        assertThat(i.ird()).isEqualTo(4);
        assertThat(i.ord()).isEqualTo(8);
        assertThat(i.peerIrd()).isEqualTo(8);
        assertThat(i.peerOrd()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(RtrForm.class)
    void exchangesEachRtrFormAndReportsTheMsnsItUsed(RtrForm form) throws Exception {
        Pair pair = TransportFixture.connect(transport, settings().rtrForms(form).build(), settings().build());
        ConnectionInfo i = pair.initiator().info();
        ConnectionInfo r = pair.responder().info();
        assertThat(i.rtr()).isEqualTo(form);
        assertThat(r.rtr()).isEqualTo(form);
        int send = form == RtrForm.SEND ? 2 : 1;
        int read = form == RtrForm.READ ? 2 : 1;
        assertThat(new int[] {i.nextOutboundSendMsn(), i.nextOutboundReadRequestMsn(), i.nextInboundSendMsn(),
                i.nextInboundReadRequestMsn()}).containsExactly(send, read, 1, 1);
        assertThat(new int[] {r.nextOutboundSendMsn(), r.nextOutboundReadRequestMsn(), r.nextInboundSendMsn(),
                r.nextInboundReadRequestMsn()}).containsExactly(1, 1, send, read);
        // The RTR is absorbed: the Responder's ULP sees only the data that follows it.
        exchangeSmall(pair);
        long[] counts = new long[3];
        TransportFixture.onLoop(pair.responder(), () -> counts[0] = pair.responder().fpdusReceived());
        TransportFixture.onLoop(pair.initiator(), () -> {
            counts[1] = pair.initiator().fpdusReceived();
            counts[2] = pair.initiator().readRtrOutstanding() ? 1 : 0;
        });
        long dataFpdus = TransportFixture.fpduCount(new int[] {5, 3000}, pair.initiator().mulpdu());
        assertThat(counts[0]).isEqualTo(dataFpdus + 1);                                  // + the RTR
        assertThat(counts[1]).isEqualTo(dataFpdus + (form == RtrForm.READ ? 1 : 0));     // + the Read Response
        assertThat(counts[2]).isZero();
    }

    @Test
    void noMatchingRtrSendsTerminateCode7() throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().rtrForms(RtrForm.WRITE).build(), r)) {
            Setup setup = new Setup();
            transport.connect(listener.localAddress(), settings().rtrForms(RtrForm.SEND).build(), null, setup);
            SetupFailure atInitiator = setup.failure();
            assertThat(atInitiator.kind()).isEqualTo(SetupFailure.Kind.NEGOTIATION_FAILED);
            assertThat(atInitiator.negotiation()).isEqualTo(NegotiationFailure.NO_MATCHING_RTR);
            assertThat(atInitiator.error().terminateCodeBits()).isEqualTo(0x2007);
            // RFC 6581 §9.2: the Terminate (Layer 2, EType 0, code 7) is the Initiator's first FPDU.
            SetupFailure atResponder = r.accepted.failure();
            assertThat(atResponder.kind()).isEqualTo(SetupFailure.Kind.PEER_TERMINATED);
            assertThat(atResponder.error().terminateCodeBits()).isEqualTo(0x2007);
        }
    }

    @Test
    void insufficientIrdSendsTerminateCode6ByteForByte() throws Exception {
        // A jrnic Responder never answers with an ORD above the Initiator's IRD, so a raw one does.
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Setup setup = new Setup();
            transport.connect(server.getLocalSocketAddress(), settings().ird(2).irdCap(4).build(), null, setup);
            try (Socket peer = server.accept()) {
                peer.setSoTimeout(10_000);
                peer.getInputStream().readNBytes(24);
                // Accepting Reply: C, S, Rev 2, A + IRD 16, Write RTR + ORD 10 (above the IRD cap of 4).
                peer.getOutputStream().write(RawFrames.hex(
                        "4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 50 02 00 04 80 10 80 0a"));
                SetupFailure f = setup.failure();
                assertThat(f.kind()).isEqualTo(SetupFailure.Kind.NEGOTIATION_FAILED);
                assertThat(f.negotiation()).isEqualTo(NegotiationFailure.INSUFFICIENT_IRD);
                assertThat(f.error().terminateCodeBits()).isEqualTo(0x2006);
                assertThat(f.peerOrd()).isEqualTo(10);
                // RFC 6581 §9.1: the Terminate (Layer 2, EType 0, code 6) is the first and only FPDU.
                byte[] terminate = readToEnd(peer);
                assertThat(terminate).isEqualTo(Arrays.copyOf(terminate, 28));
                assertThat(Arrays.copyOf(terminate, 24)).isEqualTo(RawFrames.hex(
                        "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 06 00 00"));
                assertThat(terminate).hasSize(28);
                assertThat(RawFrames.crcValid(terminate)).isTrue();
            }
        }
    }

    @Test
    void clientServerResponderSendsOnlyAfterTheFirstFpdu() throws Exception {
        MpaSettings rev1 = settings().revision(1).build();
        Pair pair = TransportFixture.connect(transport, rev1, rev1);
        int[] sizes = {100};
        Endpoint atInitiator = new Endpoint(100, 1);
        Endpoint atResponder = new Endpoint(100, 1);
        atInitiator.start(pair.initiator());
        atResponder.start(pair.responder());
        var fromResponder = TransportFixture.pattern(100, 21);
        // The Responder sends and flushes first: RFC 5044 §7.1.2 rule 4 holds it back.
        atResponder.send(fromResponder, sizes);
        boolean[] initiatorHadSent = new boolean[1];
        java.util.concurrent.CompletableFuture<Boolean> arrivedAfterOurSend = new java.util.concurrent.CompletableFuture<>();
        atInitiator.done.thenRun(() -> arrivedAfterOurSend.complete(initiatorHadSent[0]));
        TransportFixture.onLoop(pair.initiator(), () -> {
            assertThat(atInitiator.fpdus).isZero();
            initiatorHadSent[0] = true;
        });
        atInitiator.send(TransportFixture.pattern(100, 22), sizes);
        assertThat(await(arrivedAfterOurSend)).isTrue();
        await(atResponder.done);
        TransportFixture.assertSameBytes(atInitiator.received, fromResponder, 100);
    }

    @Test
    void pausesBeforeTheFirstFpduForSiw() throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().firstFpduDelay(Duration.ofMillis(200)).build());
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().build(), r)) {
            Setup setup = new Setup();
            long start = System.nanoTime();
            transport.connect(listener.localAddress(), settings().build(), null, setup);
            setup.channel();
            r.accepted.channel();
            // A lower bound only: the RTR cannot leave before the configured pause.
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
        }
    }

    // ------------------------------------------------------------------ failures with raw peers

    @Test
    void initiatorTimesOutOnASilentPeer() throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().setupTimeout(Duration.ofMillis(300)).build());
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Setup setup = new Setup();
            transport.connect(silent.getLocalSocketAddress(), settings().build(), null, setup);
            try (Socket accepted = silent.accept()) {
                assertThat(setup.failure().kind()).isEqualTo(SetupFailure.Kind.TIMEOUT);
                // The Request did arrive; then the Initiator closed.
                accepted.setSoTimeout(10_000);
                byte[] request = accepted.getInputStream().readNBytes(24);
                assertThat(Arrays.copyOf(request, 16)).isEqualTo("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
                assertThat(accepted.getInputStream().read()).isEqualTo(-1);
            }
        }
    }

    @Test
    void responderTimesOutOnASilentPeer() throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().setupTimeout(Duration.ofMillis(300)).build());
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().build(), r);
             Socket silent = new Socket()) {
            silent.connect(listener.localAddress());
            silent.setSoTimeout(10_000);
            assertThat(await(r.setupFailed).kind()).isEqualTo(SetupFailure.Kind.TIMEOUT);
            assertThat(silent.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void responderTimesOutWaitingForTheRtr() throws Exception {
        transport.close();
        transport = new IwarpTransport(TransportFixture.config().setupTimeout(Duration.ofMillis(300)).build());
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().build(), r);
             Socket raw = new Socket()) {
            raw.connect(listener.localAddress());
            raw.setSoTimeout(10_000);
            raw.getOutputStream().write(RawFrames.request(RtrForm.ALL, true));
            byte[] reply = raw.getInputStream().readNBytes(24);
            assertThat(Arrays.copyOf(reply, 16)).isEqualTo("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII));
            assertThat(r.accepted.failure().kind()).isEqualTo(SetupFailure.Kind.TIMEOUT);
            assertThat(raw.getInputStream().read()).isEqualTo(-1);
        }
    }

    @ParameterizedTest(name = "garbage of {0} bytes")
    @ValueSource(ints = {20, 24, 100})
    void responderClosesOnAnInvalidRequest(int length) throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().build(), r);
             Socket raw = new Socket()) {
            raw.connect(listener.localAddress());
            raw.setSoTimeout(10_000);
            raw.getOutputStream().write(bytes(length, 5));
            SetupFailure f = await(r.setupFailed);
            assertThat(f.kind()).isEqualTo(SetupFailure.Kind.INVALID_FRAME);
            assertThat(f.frameReason()).isEqualTo(StartupFrameReason.BAD_KEY);
            assertThat(f.error().terminateCodeBits()).isEqualTo(0x2004);
            // RFC 5044 §8 code 4: closed at once, no Reply.
            assertThat(readToEnd(raw)).isEmpty();
        }
    }

    @Test
    void initiatorClosesOnAnInvalidReply() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Setup setup = new Setup();
            transport.connect(server.getLocalSocketAddress(), settings().build(), null, setup);
            try (Socket peer = server.accept()) {
                peer.setSoTimeout(10_000);
                peer.getInputStream().readNBytes(24);
                // A Request where a Reply belongs: RFC 5044 §7.1.2 rule 8.
                peer.getOutputStream().write(RawFrames.request(RtrForm.ALL, true));
                SetupFailure f = setup.failure();
                assertThat(f.kind()).isEqualTo(SetupFailure.Kind.INVALID_FRAME);
                assertThat(f.frameReason()).isEqualTo(StartupFrameReason.INITIATOR_INITIATOR);
                assertThat(peer.getInputStream().read()).isEqualTo(-1);
            }
        }
    }

    @Test
    void connectToAClosedPortFails() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Setup setup = new Setup();
        transport.connect(new InetSocketAddress("127.0.0.1", port), settings().build(), null, setup);
        SetupFailure f = setup.failure();
        assertThat(f.kind()).isEqualTo(SetupFailure.Kind.CONNECT_FAILED);
        assertThat(f.cause()).isInstanceOf(IOException.class);
    }

    @Test
    void wrongFirstFpduGetsTerminateCode7ByteForByte() throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK, settings().rtrForms(RtrForm.WRITE).build(), r);
             Socket raw = new Socket()) {
            raw.connect(listener.localAddress());
            raw.setSoTimeout(10_000);
            raw.getOutputStream().write(RawFrames.request(RtrForm.ALL, true));
            byte[] reply = raw.getInputStream().readNBytes(24);
            assertThat(reply[16] & 0x40).as("C in the Reply").isEqualTo(0x40);
            // A zero-length Send, but only the Write RTR was announced.
            raw.getOutputStream().write(RawFrames.SEND_RTR_FPDU);
            byte[] terminate = readToEnd(raw);
            // wire-format.md §4.5/§6: Terminate QN 2 MSN 1, Layer 2 EType 0 code 7, M=D=R=0, CRC on.
            assertThat(Arrays.copyOf(terminate, 24)).isEqualTo(RawFrames.hex(
                    "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 07 00 00"));
            assertThat(terminate).hasSize(28);
            assertThat(RawFrames.crcValid(terminate)).isTrue();
            SetupFailure f = r.accepted.failure();
            assertThat(f.kind()).isEqualTo(SetupFailure.Kind.RTR_INVALID);
            assertThat(f.error().terminateCodeBits()).isEqualTo(0x2007);
        }
    }

    @Test
    void acceptsASiwStyleRequestAndItsWriteRtr() throws Exception {
        Responder r = Responder.accepting(null);
        try (MpaListener listener = transport.listen(LOOPBACK,
                settings().privateDataLimit(MpaSettings.LINUX_PRIVATE_DATA_LIMIT).build(), r);
             Socket raw = new Socket()) {
            raw.connect(listener.localAddress());
            raw.setSoTimeout(10_000);
            // interop README: siw sends Rev 2, C=0, the siw bit 0x08, IRD/ORD words 0x8001 / 0x8001.
            raw.getOutputStream().write(RawFrames.hex(
                    "4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 18 02 00 04 80 01 80 01"));
            byte[] reply = raw.getInputStream().readNBytes(24);
            // Reply: C=1 (our OPTIONAL policy), S=1, Rev 2, PD_Length 4, A + C(Write) with IRD 1, ORD 1.
            assertThat(reply).isEqualTo(RawFrames.hex(
                    "4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 50 02 00 04 80 01 80 01"));
            raw.getOutputStream().write(RawFrames.WRITE_RTR_FPDU);
            FpduChannel channel = r.accepted.channel();
            assertThat(channel.info().rtr()).isEqualTo(RtrForm.WRITE);
            assertThat(channel.info().parameters().crc()).isTrue();
            assertThat(channel.info().parameters().ird()).isEqualTo(1);
            assertThat(channel.info().parameters().ord()).isEqualTo(1);
        }
    }

    private static byte[] readToEnd(Socket socket) throws IOException {
        return socket.getInputStream().readAllBytes();
    }
}
