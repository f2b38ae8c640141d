package io.jrnic.core;

import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.Counters;
import io.jrnic.api.MessageType;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletionStatus;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * jrnic's JFR events over real loopback TCP (issue 14, docs/observability.md): connection setup,
 * QP state changes, a Terminate sent by the QP that found a bad STag and received, decoded, by its
 * peer, the teardown, and a failed setup; with the matching Terminate counters.
 */
class JfrEventsLoopbackTest extends LoopbackFixture {
    /** DDP, Tagged Buffer Error, Invalid STag (RFC 5041 §7.2): the answer to a Write to a bad STag. */
    private static final int INVALID_STAG = 0x1100;

    private static boolean of(RecordedEvent e, Node node, QueuePair qp) {
        return e.getString("rnic").equals(node.rnic.name()) && e.getInt("qp") == qp.id();
    }

    private static String transition(RecordedEvent e) {
        return e.getString("from") + "->" + e.getString("to");
    }

    @Test
    void aConnectionItsTerminateAndItsTeardownAreRecorded() throws Exception {
        try (JfrCapture jfr = new JfrCapture()) {
            Pair p = connect(new ConnectionSettings());
            QueuePair qpA = p.qpA();
            QueuePair qpB = p.qpB();
            Buffer src = a.buffer(64);
            Buffer dst = b.buffer(64);
            // a wrong key: RFC 5041 §7.1 check 1, B terminates with 1/1/0x00 and A receives it
            qpA.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src.stag(), src.to(), 64)
                    .remote(dst.stag() ^ 0x01, dst.to()));
            await(p.passive().closed());
            await(p.active().closed());
            assertThat(qpA.state()).isEqualTo(QpState.ERROR);
            assertThat(qpB.state()).isEqualTo(QpState.ERROR);
            // a Write completes once the LLP took it (RFC 5040 §5.1), before the peer found the STag bad
            assertThat(a.completions(1)).extracting(wc -> wc.status()).containsExactly(WorkCompletionStatus.SUCCESS);

            List<RecordedEvent> established = jfr.events("io.jrnic.ConnectionEstablished", e -> true);
            assertThat(established).filteredOn(e -> of(e, a, qpA)).singleElement().satisfies(e -> {
                assertThat(e.getString("role")).isEqualTo(Connection.Role.INITIATOR.toString());
                assertThat(e.getString("remoteAddress")).isEqualTo(p.active().remoteAddress().toString());
                assertThat(e.getInt("mulpdu")).isEqualTo(p.active().mulpdu());
                assertThat(e.getBoolean("crc")).isEqualTo(p.active().parameters().crc());
                assertThat(e.getInt("revision")).isEqualTo(p.active().parameters().revision());
            });
            assertThat(established).filteredOn(e -> of(e, b, qpB)).singleElement()
                    .satisfies(e -> assertThat(e.getString("role")).isEqualTo(Connection.Role.RESPONDER.toString()));

            // Verbs §6.2: RTS on the stream, Terminate (sent or received), Error once the stream closed
            List<String> expected = List.of("IDLE->RTS", "RTS->TERMINATE", "TERMINATE->ERROR");
            assertThat(jfr.events("io.jrnic.QpStateChange", e -> of(e, a, qpA))).extracting(JfrEventsLoopbackTest::transition)
                    .containsExactlyElementsOf(expected);
            assertThat(jfr.events("io.jrnic.QpStateChange", e -> of(e, b, qpB))).extracting(JfrEventsLoopbackTest::transition)
                    .containsExactlyElementsOf(expected);

            TerminateMessage code = new TerminateMessage(INVALID_STAG, true, null);
            assertThat(jfr.events("io.jrnic.TerminateSent", e -> of(e, b, qpB))).singleElement().satisfies(e -> {
                assertThat(e.getInt("terminateControl")).isEqualTo(INVALID_STAG);
                assertThat(e.getString("layer")).isEqualTo(code.layerName()).isEqualTo("DDP");
                assertThat(e.getString("errorType")).isEqualTo(code.errorTypeName());
                assertThat(e.getString("errorCode")).isEqualTo(code.errorCodeName());
            });
            assertThat(jfr.events("io.jrnic.TerminateSent", e -> of(e, a, qpA))).as("never answered").isEmpty();
            assertThat(jfr.events("io.jrnic.TerminateReceived", e -> of(e, a, qpA))).singleElement().satisfies(e -> {
                assertThat(e.getInt("terminateControl")).isEqualTo(INVALID_STAG);
                assertThat(e.getString("layer")).isEqualTo("DDP");
                assertThat(e.getString("errorCode")).isEqualTo(code.errorCodeName());
                assertThat(e.getBoolean("valid")).isTrue();
            });
            List<RecordedEvent> closed = jfr.events("io.jrnic.ConnectionClosed", e -> true);
            assertThat(closed).filteredOn(e -> of(e, a, qpA)).singleElement()
                    .satisfies(e -> assertThat(e.getString("finalState")).isEqualTo(QpState.ERROR.toString()));
            assertThat(closed).filteredOn(e -> of(e, b, qpB)).singleElement()
                    .satisfies(e -> assertThat(e.getString("finalState")).isEqualTo(QpState.ERROR.toString()));
            assertThat(jfr.events("io.jrnic.CrcError", e -> true)).isEmpty();

            // the same Terminate in the counters
            Counters ca = qpA.counters();
            Counters cb = qpB.counters();
            assertThat(cb.terminatesSent()).isEqualTo(1);
            assertThat(cb.messagesSent(MessageType.TERMINATE)).isEqualTo(1);
            assertThat(ca.terminatesReceived()).isEqualTo(1);
            assertThat(ca.messagesReceived(MessageType.TERMINATE)).isEqualTo(1);
            assertThat(ca.bytesReceived(MessageType.TERMINATE)).isEqualTo(cb.bytesSent(MessageType.TERMINATE))
                    .as("Terminate header, DDP Segment Length and the copied tagged header (RFC 5040 §4.8)")
                    .isEqualTo(4 + 2 + 14);
            assertThat(ca.terminatesSent()).isZero();
            assertThat(cb.messagesReceived(MessageType.RDMA_WRITE)).as("the bad Write is not a valid message").isZero();
        }
    }

    @Test
    void aFailedSetupIsRecorded() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK.getAddress())) {
            port = s.getLocalPort(); // nothing listens there once it is closed
        }
        try (JfrCapture jfr = new JfrCapture()) {
            QueuePair qp = a.qp();
            ConnectionException f = failureOf(a.rnic.connectionManager().connect(qp,
                    new InetSocketAddress(LOOPBACK.getAddress(), port), new ConnectionSettings(), null));
            assertThat(f.reason()).isEqualTo(ConnectionException.Reason.CONNECT_FAILED);
            assertThat(jfr.events("io.jrnic.ConnectionSetupFailed", e -> of(e, a, qp))).singleElement()
                    .satisfies(e -> {
                        assertThat(e.getString("reason")).isEqualTo("CONNECT_FAILED");
                        assertThat(e.getString("role")).isEqualTo(Connection.Role.INITIATOR.toString());
                        assertThat(e.getString("message")).isEqualTo(f.getMessage());
                        assertThat(e.getInt("terminateCode")).isEqualTo(-1);
                    });
            assertThat(jfr.events("io.jrnic.QpStateChange", e -> of(e, a, qp))).isEmpty();
        }
    }
}
