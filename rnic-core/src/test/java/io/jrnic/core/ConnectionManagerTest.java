package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionRequest;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RtrType;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.cm.SoftConnectionManager;
import io.jrnic.core.engine.QpEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Verbs-level connection management over real loopback TCP (Verbs 1.0 §6.6, RFC 5044 §7.1, RFC 6581
 * §9): setup with private data, rejection, the MPA options, IRD/ORD application, timeouts, and the
 * teardown kinds of §6.6.2 seen from both ends.
 */
class ConnectionManagerTest extends LoopbackFixture {

    @ParameterizedTest(name = "request {0} bytes, reply {1} bytes, limit {2}")
    @CsvSource({"0, 0, 512", "1, 1, 512", "508, 508, 512", "252, 252, 256"})
    void setupCarriesPrivateDataBothWays_V_CM_1_V_CM_3_V_CM_5_V_CM_7(int requestLength, int replyLength, int limit) throws Exception {
        ConnectionSettings settings = new ConnectionSettings().privateDataLimit(limit);
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        listen(settings);
        byte[] requestData = pattern(requestLength, 1);
        byte[] replyData = pattern(replyLength, 2);
        CompletionStage<Connection> active = a.rnic.connectionManager().connect(qpA, listener.localAddress(), settings,
                requestData);
        ConnectionRequest request = nextRequest();
        assertThat(request.privateData()).isEqualTo(requestData);
        assertThat(request.revision()).isEqualTo(2);
        assertThat(request.maxReplyPrivateData()).isEqualTo(limit - 4);
        assertThat(qpA.state()).isEqualTo(QpState.IDLE); // nothing moves before the setup completes
        Connection passive = await(request.accept(qpB, replyData));
        Connection conn = await(active);

        assertThat(conn.queuePair()).isSameAs(qpA);
        assertThat(conn.role()).isEqualTo(Connection.Role.INITIATOR);
        assertThat(conn.localPrivateData()).isEqualTo(requestData);
        assertThat(conn.peerPrivateData()).isEqualTo(replyData);
        assertThat(passive.queuePair()).isSameAs(qpB);
        assertThat(passive.role()).isEqualTo(Connection.Role.RESPONDER);
        assertThat(passive.peerPrivateData()).isEqualTo(requestData);
        assertThat(passive.localPrivateData()).isEqualTo(replyData);
        assertThat(conn.remoteAddress()).isEqualTo(listener.localAddress());
        assertThat(passive.remoteAddress()).isEqualTo(conn.localAddress());
        assertThat(qpA.state()).isEqualTo(QpState.RTS);
        assertThat(qpB.state()).isEqualTo(QpState.RTS);
        assertThat(qpA.query().llpStream()).isInstanceOf(QpEngine.class);
        assertThat(qpB.query().llpStream()).isInstanceOf(QpEngine.class);
    }

    @Test
    void workPostedWhileIdleFlowsOnceConnected_V_CM_5_V_CM_7() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        Buffer src = a.buffer(100);
        Buffer dst = b.buffer(100);
        fill(src.memory(), 12);
        // Verbs §6.6.1.1/§6.6.1.2: receives are posted before RTS; SQ work posted in Idle starts at RTS
        qpB.postReceive(new ReceiveWorkRequest().wrId(1).sge(dst.stag(), dst.to(), 100));
        qpA.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND).sge(src.stag(), src.to(), 100));
        connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        assertThat(b.completions(1)).extracting(WorkCompletion::wrId, WorkCompletion::byteLength)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, 100));
        assertThat(bytes(dst.memory(), 0, 100)).isEqualTo(bytes(src.memory(), 0, 100));
        assertThat(a.completions(1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void siwSettingsPauseBeforeTheFirstFpduAndStillCarryData() throws Exception {
        Pair p = connect(ConnectionSettings.linuxSiw(), ConnectionSettings.linuxSiw(), a.qp(), b.qp(),
                pattern(252, 3), pattern(252, 4));
        assertThat(p.passive().peerPrivateData()).isEqualTo(pattern(252, 3));
        assertThat(p.active().parameters().markersOnSend()).isFalse();
        assertThat(p.active().mulpdu()).isEqualTo(ConnectionSettings.ETHERNET_EMSS - 6);
        exchangeSends(p);
    }

    @Test
    void lateAcceptAfterTheSetupTimeoutFailsAndReleasesTheQueuePair() throws Exception {
        listen(new ConnectionSettings().setupTimeout(Duration.ofMillis(300)));
        CompletionStage<Connection> active = a.rnic.connectionManager().connect(a.qp(), listener.localAddress(),
                new ConnectionSettings(), null);
        ConnectionRequest request = nextRequest(); // and no answer within 300 ms
        assertThat(nextPassiveFailure().reason()).isEqualTo(ConnectionException.Reason.TIMEOUT);
        assertThat(failureOf(active).reason()).isEqualTo(ConnectionException.Reason.CONNECTION_LOST);
        QueuePair qpB = b.qp();
        assertThat(failureOf(request.accept(qpB, null)).reason()).isEqualTo(ConnectionException.Reason.CLOSED);
        assertThat(qpB.state()).isEqualTo(QpState.IDLE);
        // released: the QP can serve the next request
        CompletionStage<Connection> again = a.rnic.connectionManager().connect(a.qp(), listener.localAddress(),
                new ConnectionSettings(), null);
        await(nextRequest().accept(qpB, null));
        await(again);
        assertThat(qpB.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void privateDataOverTheLimitIsRefusedBeforeAnythingIsSent() throws Exception {
        ConnectionSettings rfc = new ConnectionSettings().privateDataLimit(ConnectionSettings.RFC_PRIVATE_DATA_LIMIT);
        listen(rfc);
        QueuePair qpA = a.qp();
        var cm = a.rnic.connectionManager();
        var address = listener.localAddress();
        assertThatThrownBy(() -> cm.connect(qpA, address, rfc, new byte[509]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("509 bytes exceeds the limit of 508");
        assertThatThrownBy(() -> cm.connect(qpA, address,
                new ConnectionSettings().privateDataLimit(ConnectionSettings.LINUX_PRIVATE_DATA_LIMIT), new byte[253]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("253 bytes exceeds the limit of 252");
        assertThatThrownBy(() -> cm.connect(qpA, address, new ConnectionSettings(), new byte[253]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("253 bytes exceeds the limit of 252"); // the default is Linux's 256
        assertThatThrownBy(() -> cm.connect(qpA, address,
                new ConnectionSettings().privateDataLimit(512).revision(1), new byte[513]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("513 bytes exceeds the limit of 512");
        assertThat(requests).isEmpty();

        // the QP is not left reserved: the same QP connects normally afterwards
        CompletionStage<Connection> active = cm.connect(qpA, address, rfc, new byte[508]);
        ConnectionRequest request = nextRequest();
        QueuePair qpB = b.qp();
        assertThatThrownBy(() -> request.accept(qpB, new byte[509]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reply private data of 509 bytes exceeds the limit of 508");
        assertThatThrownBy(() -> request.reject(new byte[509])).isInstanceOf(IllegalArgumentException.class);
        await(request.accept(qpB, null));
        assertThat(await(active).peerPrivateData()).isEmpty();
    }

    /**
     * Issue 9 item 4: the private data limit bounds what an endpoint sends, not what it accepts. A
     * listener with the default (Linux) limit of 256 accepts a Request with 512 bytes (RFC 5044
     * §7.1.1) and still answers within its own limit.
     */
    @Test
    void aListenerWithTheLinuxLimitAcceptsUpTo512BytesOfPrivateData() throws Exception {
        listen(new ConnectionSettings());
        byte[] requestData = pattern(508, 5);
        CompletionStage<Connection> active = a.rnic.connectionManager().connect(a.qp(), listener.localAddress(),
                new ConnectionSettings().privateDataLimit(ConnectionSettings.RFC_PRIVATE_DATA_LIMIT), requestData);
        ConnectionRequest request = nextRequest();
        assertThat(request.privateData()).isEqualTo(requestData);
        assertThat(request.maxReplyPrivateData()).isEqualTo(ConnectionSettings.LINUX_PRIVATE_DATA_LIMIT - 4);
        byte[] replyData = pattern(252, 6);
        Connection passive = await(request.accept(b.qp(), replyData));
        assertThat(passive.peerPrivateData()).isEqualTo(requestData);
        assertThat(await(active).peerPrivateData()).isEqualTo(replyData);
    }

    @Test
    void rejectReturnsThePassiveSidesPrivateData_V_CM_7() throws Exception {
        listen(new ConnectionSettings());
        QueuePair qpA = a.qp();
        CompletionStage<Connection> active = a.rnic.connectionManager().connect(qpA, listener.localAddress(),
                new ConnectionSettings(), "hello".getBytes());
        ConnectionRequest request = nextRequest();
        byte[] reason = "busy, try later".getBytes();
        request.reject(reason);
        assertThatThrownBy(() -> request.reject(null)).isInstanceOf(IllegalStateException.class);

        ConnectionException failure = failureOf(active);
        assertThat(failure.reason()).isEqualTo(ConnectionException.Reason.REJECTED_BY_PEER);
        assertThat(failure.peerPrivateData()).isEqualTo(reason);
        assertThat(failure.peerIrd()).isEqualTo(4); // RFC 6581 §9.1: the Reply's IRD (= our ORD 4) reaches the ULP
        assertThat(qpA.state()).isEqualTo(QpState.IDLE);

        // Verbs §6.6.1: the QP is still Idle and can be used for another connection
        CompletionStage<Connection> again = a.rnic.connectionManager().connect(qpA, listener.localAddress(),
                new ConnectionSettings(), null);
        await(nextRequest().accept(b.qp(), null));
        assertThat(await(again).queuePair().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void revisionOneIsClientServerWithoutIrdOrdWord() throws Exception {
        Pair p = connect(new ConnectionSettings().revision(1), new ConnectionSettings(), a.qp(2, 3), b.qp(5, 6),
                new byte[] {1}, new byte[] {2});
        for (Connection c : List.of(p.active(), p.passive())) {
            assertThat(c.parameters().revision()).isEqualTo(1);
            assertThat(c.parameters().enhanced()).isFalse();
            assertThat(c.parameters().peerToPeer()).isFalse();
            assertThat(c.parameters().rtr()).isNull();
            assertThat(c.parameters().peerIrd()).isEqualTo(-1);
        }
        // nothing negotiated: each QP keeps its own IRD/ORD
        assertThat(p.qpA().query().ird()).isEqualTo(2);
        assertThat(p.qpA().query().ord()).isEqualTo(3);
        assertThat(p.qpB().query().ird()).isEqualTo(5);
        assertThat(p.qpB().query().ord()).isEqualTo(6);
    }

    @Test
    void revisionTwoNegotiatesIrdOrdAndAppliesThemToBothQueuePairs_V_IRD_19() throws Exception {
        // Initiator IRD 2 / ORD 6, Responder QP IRD 8 / ORD 1 (RNIC limits 64)
        Pair p = connect(new ConnectionSettings(), new ConnectionSettings(), a.qp(2, 6), b.qp(8, 1), null, null);
        // RFC 6581 §9.1: Responder IRD = min(cap, Initiator ORD) = 6; Responder ORD <= Initiator IRD (2) and
        // <= its QP's ORD (1); Initiator IRD = max(2, Responder ORD); Initiator ORD = min(6, Responder IRD 6)
        assertThat(p.qpB().query().ird()).isEqualTo(6);
        assertThat(p.qpB().query().ord()).isEqualTo(1);
        assertThat(p.qpA().query().ird()).isEqualTo(2);
        assertThat(p.qpA().query().ord()).isEqualTo(6);
        assertThat(p.active().parameters().ird()).isEqualTo(2);
        assertThat(p.active().parameters().ord()).isEqualTo(6);
        assertThat(p.active().parameters().peerIrd()).isEqualTo(6);
        assertThat(p.passive().parameters().peerIrd()).isEqualTo(2);
        assertThat(p.passive().parameters().peerOrd()).isEqualTo(6);
        assertThat(p.active().parameters().enhanced()).isTrue();
        assertThat(p.active().parameters().peerToPeer()).isTrue();
        assertThat(p.active().parameters().rtr()).isEqualTo(RtrType.WRITE); // preferred when all are offered
    }

    @Test
    void withoutNegotiationEachQueuePairKeepsItsReadDepths() throws Exception {
        Pair p = connect(new ConnectionSettings().negotiateReadDepths(false), new ConnectionSettings(), a.qp(2, 6),
                b.qp(8, 1), null, null);
        assertThat(p.passive().parameters().peerIrd()).isEqualTo(0x3FFF);
        assertThat(p.qpA().query().ird()).isEqualTo(2);
        assertThat(p.qpA().query().ord()).isEqualTo(6);
        assertThat(p.qpB().query().ird()).isEqualTo(8);
        assertThat(p.qpB().query().ord()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(RtrType.class)
    void eachRtrTypeIsExchangedAndTheStreamWorksAfterIt_V_CM_4(RtrType rtr) throws Exception {
        ConnectionSettings settings = new ConnectionSettings().rtrTypes(rtr);
        Pair p = connect(settings, new ConnectionSettings(), a.qp(), b.qp(), null, null);
        assertThat(p.active().parameters().rtr()).isEqualTo(rtr);
        assertThat(p.passive().parameters().rtr()).isEqualTo(rtr);
        assertThat(p.passive().parameters().rtrTypes()).containsExactly(rtr);
        exchangeSends(p); // RFC 6581 §9.3: Send MSNs continue after a Send RTR
        exchangeReads(p); // and Read Request MSNs after a Read RTR
    }

    @ParameterizedTest(name = "active {0}, passive {1} -> CRC {2}")
    @CsvSource({"OFF, OFF, false", "OFF, OPTIONAL, true", "OPTIONAL, OFF, true", "REQUIRED, OPTIONAL, true",
            "OFF, REQUIRED_ACCEPTS_C, true"})
    void crcIsOnWhenEitherSideAsks(String active, String passive, boolean crc) throws Exception {
        // REQUIRED_ACCEPTS_C: a passive REQUIRED side facing C=0 would refuse, so it is paired with OPTIONAL's C=1 here
        CrcMode activeMode = CrcMode.valueOf(active);
        CrcMode passiveMode = passive.equals("REQUIRED_ACCEPTS_C") ? CrcMode.OPTIONAL : CrcMode.valueOf(passive);
        Pair p = connect(new ConnectionSettings().crc(activeMode), new ConnectionSettings().crc(passiveMode), a.qp(),
                b.qp(), null, null);
        assertThat(p.active().parameters().crc()).isEqualTo(crc);
        assertThat(p.passive().parameters().crc()).isEqualTo(crc);
        exchangeSends(p);
    }

    @Test
    void strictCrcRefusesAPeerWithoutCrc() throws Exception {
        // passive REQUIRED vs active OFF: Reply with R=1 (RFC 5044 §7.1.2 rule 2), reported at both ends
        listen(new ConnectionSettings().crc(CrcMode.REQUIRED));
        QueuePair qpA = a.qp();
        ConnectionException f = failureOf(a.rnic.connectionManager().connect(qpA, listener.localAddress(),
                new ConnectionSettings().crc(CrcMode.OFF), null));
        assertThat(f.reason()).isEqualTo(ConnectionException.Reason.REJECTED_BY_PEER);
        assertThat(nextPassiveFailure().reason()).isEqualTo(ConnectionException.Reason.NEGOTIATION_FAILED);
        assertThat(requests).isEmpty();
        assertThat(qpA.state()).isEqualTo(QpState.IDLE);
    }

    @Test
    void strictCrcAtTheActiveSideClosesOnAReplyWithoutCrc() throws Exception {
        listen(new ConnectionSettings().crc(CrcMode.OFF));
        CompletionStage<Connection> active = a.rnic.connectionManager().connect(a.qp(), listener.localAddress(),
                new ConnectionSettings().crc(CrcMode.REQUIRED), null);
        QueuePair qpB = b.qp();
        CompletionStage<Connection> passive = nextRequest().accept(qpB, null);
        ConnectionException f = failureOf(active);
        assertThat(f.reason()).isEqualTo(ConnectionException.Reason.NEGOTIATION_FAILED);
        assertThat(failureOf(passive).reason()).isEqualTo(ConnectionException.Reason.CONNECTION_LOST);
        assertThat(qpB.state()).isEqualTo(QpState.IDLE);
    }

    @ParameterizedTest(name = "active asks {0}, passive asks {1}")
    @CsvSource({"true, false", "false, true", "true, true"})
    void markersPerDirection(boolean activeAsks, boolean passiveAsks) throws Exception {
        Pair p = connect(new ConnectionSettings().markers(activeAsks, true),
                new ConnectionSettings().markers(passiveAsks, true), a.qp(), b.qp(), null, null);
        assertThat(p.active().parameters().markersOnReceive()).isEqualTo(activeAsks);
        assertThat(p.passive().parameters().markersOnSend()).isEqualTo(activeAsks);
        assertThat(p.passive().parameters().markersOnReceive()).isEqualTo(passiveAsks);
        assertThat(p.active().parameters().markersOnSend()).isEqualTo(passiveAsks);
        exchangeSends(p);
    }

    @Test
    void refusedMarkersRejectTheConnection() throws Exception {
        listen(ConnectionSettings.linuxSiw()); // like siw: markers neither asked nor accepted
        ConnectionException f = failureOf(a.rnic.connectionManager().connect(a.qp(), listener.localAddress(),
                new ConnectionSettings().markers(true, true), null));
        assertThat(f.reason()).isEqualTo(ConnectionException.Reason.REJECTED_BY_PEER);
        assertThat(nextPassiveFailure().reason()).isEqualTo(ConnectionException.Reason.NEGOTIATION_FAILED);
    }

    @Test
    void setupTimesOutTowardAPeerThatNeverAnswers() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, LOOPBACK.getAddress())) {
            QueuePair qpA = a.qp();
            CompletionStage<Connection> active = a.rnic.connectionManager().connect(qpA,
                    new InetSocketAddress(LOOPBACK.getAddress(), silent.getLocalPort()),
                    new ConnectionSettings().setupTimeout(Duration.ofMillis(300)), null);
            try (Socket accepted = silent.accept()) {
                ConnectionException f = failureOf(active);
                assertThat(f.reason()).isEqualTo(ConnectionException.Reason.TIMEOUT);
                assertThat(qpA.state()).isEqualTo(QpState.IDLE);
                assertThat(accepted.getInputStream().readNBytes(20)).hasSize(20); // our MPA Request header came
            }
        }
    }

    @Test
    void passiveSideTimesOutWhenTheRequestNeverComes() throws Exception {
        listen(new ConnectionSettings().setupTimeout(Duration.ofMillis(300)));
        try (Socket idle = new Socket()) {
            idle.connect(listener.localAddress());
            assertThat(nextPassiveFailure().reason()).isEqualTo(ConnectionException.Reason.TIMEOUT);
        }
    }

    @Test
    void connectToAClosedPortFails() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK.getAddress())) {
            port = s.getLocalPort();
        }
        ConnectionException f = failureOf(a.rnic.connectionManager().connect(a.qp(),
                new InetSocketAddress(LOOPBACK.getAddress(), port), new ConnectionSettings(), null));
        assertThat(f.reason()).isEqualTo(ConnectionException.Reason.CONNECT_FAILED);
        assertThat(f.getCause()).isNotNull();
    }

    @Test
    void onlyIdleQueuePairsOfTheSameRnicCanBeConnected() throws Exception {
        listen(new ConnectionSettings());
        var cm = a.rnic.connectionManager();
        var address = listener.localAddress();
        ConnectionSettings s = new ConnectionSettings();
        QueuePair foreign = b.qp();
        assertThatThrownBy(() -> cm.connect(foreign, address, s, null))
                .isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_HANDLE));
        QueuePair inError = a.qp();
        inError.modify(new QueuePairModification().nextState(QpState.ERROR));
        assertThatThrownBy(() -> cm.connect(inError, address, s, null))
                .isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_STATE));
        QueuePair destroyed = a.qp();
        destroyed.close();
        assertThatThrownBy(() -> cm.connect(destroyed, address, s, null))
                .isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_HANDLE));
        QueuePair qp = a.qp();
        CompletionStage<Connection> first = cm.connect(qp, address, s, null);
        assertThatThrownBy(() -> cm.connect(qp, address, s, null))
                .isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_STATE));
        ConnectionRequest request = nextRequest();
        assertThatThrownBy(() -> request.accept(a.qp(), null)) // a QP of the other RNIC
                .isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_HANDLE));
        await(request.accept(b.qp(), null));
        await(first);
        assertThatThrownBy(() -> request.accept(b.qp(), null)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void queuePairModifiedDuringSetupFailsTheSetupAndAbortsTheStream() throws Exception {
        listen(new ConnectionSettings());
        QueuePair qpA = a.qp();
        CompletionStage<Connection> active = a.rnic.connectionManager().connect(qpA, listener.localAddress(),
                new ConnectionSettings(), null);
        ConnectionRequest request = nextRequest();
        qpA.modify(new QueuePairModification().nextState(QpState.ERROR)); // the ULP changes its mind
        QueuePair qpB = b.qp();
        CompletionStage<Connection> passive = request.accept(qpB, null);
        ConnectionException f = failureOf(active);
        assertThat(f.reason()).isEqualTo(ConnectionException.Reason.QUEUE_PAIR_UNUSABLE);
        // the passive QP either never got the stream or lost it at once
        try {
            await(passive);
            b.awaitEvent(AsyncEventType.LLP_CONNECTION_RESET, qpB);
            assertThat(qpB.state()).isEqualTo(QpState.ERROR);
        } catch (ConnectionException e) {
            assertThat(qpB.state()).isEqualTo(QpState.IDLE);
        }
    }

    @Test
    void gracefulDisconnectBringsBothQueuePairsToIdle_V_CM_9_V_CM_10_V_EV_2() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        Buffer bufA = a.buffer(64);
        Buffer bufB = b.buffer(64);
        qpA.postReceive(rr.reset().wrId(11).sge(bufA.stag(), bufA.to(), 64));
        qpB.postReceive(rr.reset().wrId(21).sge(bufB.stag(), bufB.to(), 64));
        Pair p = connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);

        p.active().disconnect(); // Verbs §6.6.2.1: Modify -> Closing with empty SQ
        assertThat(qpA.state()).isIn(QpState.CLOSING, QpState.IDLE);
        a.awaitEvent(AsyncEventType.LLP_CLOSE_COMPLETE, qpA);
        b.awaitEvent(AsyncEventType.LLP_CLOSE_COMPLETE, qpB); // V-CM-10: remote FIN with empty SQ
        assertThat(qpA.state()).isEqualTo(QpState.IDLE);
        assertThat(qpB.state()).isEqualTo(QpState.IDLE);
        assertThat(qpA.query().llpStream()).isNull();
        // the receive queues were flushed, each WR exactly once
        assertThat(a.completions(1)).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(11L, WorkCompletionStatus.FLUSHED));
        assertThat(b.completions(1)).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(21L, WorkCompletionStatus.FLUSHED));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.LLP_CLOSE_COMPLETE);

        // V-CM-9: the QP is reusable for a new stream
        QueuePair qpB2 = b.qp();
        CompletionStage<Connection> again = a.rnic.connectionManager().connect(qpA, listener.localAddress(),
                new ConnectionSettings(), null);
        await(nextRequest().accept(qpB2, null));
        assertThat(await(again).queuePair().state()).isEqualTo(QpState.RTS);
        assertThat(a.drain()).isEmpty();
    }

    @Test
    void abortiveTeardownFlushesOutstandingWorkExactlyOnce_V_CM_12_V_CM_13_V_CM_16_V_CM_18() throws Exception {
        QueuePair qpA = a.qp();
        QueuePair qpB = b.qp();
        Buffer bufA = a.buffer(4096);
        Buffer bufB = b.buffer(4096);
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        for (int i = 0; i < 5; i++) {
            qpA.postReceive(rr.reset().wrId(100 + i).sge(bufA.stag(), bufA.to(), 4096));
            qpB.postReceive(rr.reset().wrId(200 + i).sge(bufB.stag(), bufB.to(), 4096));
        }
        Pair p = connect(new ConnectionSettings(), new ConnectionSettings(), qpA, qpB, null, null);
        // SQ work in flight: a 32 MiB Write and three small Writes behind it (they consume no receives)
        int big = 32 << 20;
        Buffer src = a.buffer(big);
        Buffer sink = b.buffer(big);
        SendWorkRequest wr = new SendWorkRequest();
        qpA.postSend(wr.reset().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), big)
                .remote(sink.stag(), sink.to()));
        for (int i = 2; i <= 4; i++) {
            qpA.postSend(wr.reset().wrId(i).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), 8)
                    .remote(sink.stag(), sink.to()));
        }

        p.active().abort(); // Verbs §6.6.2.3: Modify -> Error, LLP reset, no Terminate
        assertThat(qpA.state()).isEqualTo(QpState.ERROR);
        List<WorkCompletion> atA = a.completions(9);
        // every WR completes exactly once, SQ and RQ each in posting order; what had not completed is flushed
        assertThat(atA).extracting(WorkCompletion::wrId)
                .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 100L, 101L, 102L, 103L, 104L);
        List<WorkCompletion> sq = atA.stream().filter(wc -> wc.wrId() < 100).toList();
        assertThat(sq).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L, 4L);
        int firstFlushed = sq.size();
        for (int i = 0; i < sq.size(); i++) {
            if (sq.get(i).status() != WorkCompletionStatus.SUCCESS) {
                firstFlushed = Math.min(firstFlushed, i);
            }
        }
        assertThat(sq.subList(firstFlushed, sq.size())).allMatch(wc -> wc.status() == WorkCompletionStatus.FLUSHED);
        assertThat(sq.getLast().status()).isEqualTo(WorkCompletionStatus.FLUSHED); // queued behind 32 MiB
        List<WorkCompletion> rq = atA.stream().filter(wc -> wc.wrId() >= 100).toList();
        assertThat(rq).extracting(WorkCompletion::wrId).containsExactly(100L, 101L, 102L, 103L, 104L);
        assertThat(rq).allMatch(wc -> wc.status() == WorkCompletionStatus.FLUSHED);

        // the peer sees the reset (remote abortive teardown, V-CM-16): Error, its receives flushed
        b.awaitEvent(AsyncEventType.LLP_CONNECTION_RESET, qpB);
        assertThat(qpB.state()).isEqualTo(QpState.ERROR);
        List<WorkCompletion> flushedB = b.completions(5);
        assertThat(flushedB).extracting(WorkCompletion::wrId).containsExactly(200L, 201L, 202L, 203L, 204L);
        assertThat(flushedB).allMatch(wc -> wc.status() == WorkCompletionStatus.FLUSHED);
        assertThat(qpB.query().terminateMessage()).isNull(); // no Terminate on an abortive teardown

        // exactly once: a marker posted in Error is flushed next, and nothing else is left
        SendWorkRequest marker = new SendWorkRequest().wrId(999).opcode(Opcode.SEND);
        qpA.postSend(marker);
        assertThat(a.completions(1)).extracting(WorkCompletion::wrId).containsExactly(999L);
        assertThat(a.drain()).isEmpty();
        qpB.postSend(marker);
        assertThat(b.completions(1)).extracting(WorkCompletion::wrId).containsExactly(999L);
        assertThat(b.drain()).isEmpty();
        // V-CM-13: Error -> Idle, reusable
        qpA.modify(new QueuePairModification().nextState(QpState.IDLE));
        assertThat(qpA.state()).isEqualTo(QpState.IDLE);
    }

    @Test
    void closingTheRnicEndsItsConnectionsAndEventLoops_V_RNIC_12() throws Exception {
        Pair p = connect(new ConnectionSettings());
        QueuePair qpB = p.qpB();
        SoftConnectionManager cm = (SoftConnectionManager) a.rnic.connectionManager();
        assertThat(a.rnic.connectionManager()).isSameAs(cm);
        assertThat(cm.transportCount()).isEqualTo(1);
        a.rnic.close();
        assertThat(cm.transportCount()).isZero();
        assertThatThrownBy(() -> a.rnic.connectionManager())
                .isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE));
        // the peer sees the stream end: a FIN with nothing outstanding is a normal remote close (V-CM-10)
        b.awaitEvent(AsyncEventType.LLP_CLOSE_COMPLETE, qpB);
        assertThat(qpB.state()).isEqualTo(QpState.IDLE);
    }

    @Test
    void closedListenerAcceptsNothing() throws Exception {
        listen(new ConnectionSettings());
        var address = listener.localAddress();
        listener.close();
        assertThat(listener.isOpen()).isFalse();
        ConnectionException f = failureOf(a.rnic.connectionManager().connect(a.qp(), address,
                new ConnectionSettings(), null));
        assertThat(f.reason()).isEqualTo(ConnectionException.Reason.CONNECT_FAILED);
    }

    @Test
    void settingsThatNeedTheirOwnTransportGetOne() throws Exception {
        Pair p = connect(new ConnectionSettings().emss(ConnectionSettings.MAX_EMSS),
                new ConnectionSettings().emss(ConnectionSettings.ETHERNET_EMSS), a.qp(), b.qp(), null, null);
        assertThat(p.active().mulpdu()).isEqualTo(64768); // RFC 5044 §4.1: a sender's MULPDU stops at 64768
        assertThat(p.passive().mulpdu()).isEqualTo(1460 - 6);
        QueuePair qpA = a.qp();
        CompletionStage<Connection> second = a.rnic.connectionManager().connect(qpA, listener.localAddress(),
                new ConnectionSettings().firstFpduDelay(Duration.ofMillis(20)), null);
        await(nextRequest().accept(b.qp(), null));
        assertThat(await(second).queuePair()).isSameAs(qpA);
        assertThat(((SoftConnectionManager) a.rnic.connectionManager()).transportCount()).isEqualTo(2);
    }

    @Test
    void byDefaultFpdusAreSizedByTheConnectionsOwnMss_RFC5044_5_1() throws Exception {
        Pair p = connect(new ConnectionSettings(), new ConnectionSettings(), a.qp(), b.qp(), null, null);
        // loopback's MSS as the kernel reports it (32768 to 65483 on Linux, by the peer's window at
        // the time; the MTU less the headers on NIO), where the old fixed 1460 gave 1454
        assertThat(p.active().mulpdu()).isGreaterThan(ConnectionSettings.ETHERNET_EMSS).isLessThanOrEqualTo(64768);
        assertThat(p.passive().mulpdu()).isGreaterThan(ConnectionSettings.ETHERNET_EMSS).isLessThanOrEqualTo(64768);
        exchangeSends(p);
    }

    /** An RDMA Read each way, checked byte for byte. */
    void exchangeReads(Pair p) {
        Buffer srcA = a.buffer(5000);
        Buffer dstA = a.buffer(5000);
        Buffer srcB = b.buffer(5000);
        Buffer dstB = b.buffer(5000);
        fill(srcA.memory(), 7);
        fill(srcB.memory(), 8);
        SendWorkRequest wr = new SendWorkRequest();
        p.qpA().postSend(wr.reset().wrId(5).opcode(Opcode.RDMA_READ).sge(dstA.stag(), dstA.to(), 5000)
                .remote(srcB.stag(), srcB.to()));
        p.qpB().postSend(wr.reset().wrId(6).opcode(Opcode.RDMA_READ).sge(dstB.stag(), dstB.to(), 5000)
                .remote(srcA.stag(), srcA.to()));
        assertThat(a.completions(1)).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(5L, WorkCompletionStatus.SUCCESS));
        assertThat(b.completions(1)).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(6L, WorkCompletionStatus.SUCCESS));
        assertThat(Arrays.equals(bytes(dstA.memory(), 0, 5000), bytes(srcB.memory(), 0, 5000))).isTrue();
        assertThat(Arrays.equals(bytes(dstB.memory(), 0, 5000), bytes(srcA.memory(), 0, 5000))).isTrue();
    }

    /** A Send each way, checked byte for byte: the stream works after setup (MSNs continue after the RTR). */
    void exchangeSends(Pair p) {
        Buffer srcA = a.buffer(3000);
        Buffer dstA = a.buffer(3000);
        Buffer srcB = b.buffer(3000);
        Buffer dstB = b.buffer(3000);
        fill(srcA.memory(), 5);
        fill(srcB.memory(), 6);
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        p.qpA().postReceive(rr.reset().wrId(1).sge(dstA.stag(), dstA.to(), 3000));
        p.qpB().postReceive(rr.reset().wrId(2).sge(dstB.stag(), dstB.to(), 3000));
        SendWorkRequest wr = new SendWorkRequest();
        // V-CM-6: the active side sends first (in client/server mode the passive side waits for it)
        p.qpA().postSend(wr.reset().wrId(3).opcode(Opcode.SEND).sge(srcA.stag(), srcA.to(), 3000));
        p.qpB().postSend(wr.reset().wrId(4).opcode(Opcode.SEND).sge(srcB.stag(), srcB.to(), 3000));
        assertThat(a.completions(2)).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(1L, WorkCompletionStatus.SUCCESS),
                        org.assertj.core.groups.Tuple.tuple(3L, WorkCompletionStatus.SUCCESS));
        assertThat(b.completions(2)).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(2L, WorkCompletionStatus.SUCCESS),
                        org.assertj.core.groups.Tuple.tuple(4L, WorkCompletionStatus.SUCCESS));
        assertThat(Arrays.equals(bytes(dstB.memory(), 0, 3000), bytes(srcA.memory(), 0, 3000))).isTrue();
        assertThat(Arrays.equals(bytes(dstA.memory(), 0, 3000), bytes(srcB.memory(), 0, 3000))).isTrue();
    }
}
