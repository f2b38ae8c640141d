package io.jrnic.core.engine;

import io.jrnic.api.Connection;
import io.jrnic.api.ConnectionException;
import io.jrnic.api.ConnectionParameters;
import io.jrnic.api.QpState;
import io.jrnic.api.TerminateMessage;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

import java.net.SocketAddress;

/**
 * The JDK Flight Recorder events of jrnic (docs/observability.md): QP state changes, Terminates
 * sent and received (decoded), connection setup and teardown, MPA CRC errors, progress timeouts.
 * They are raised on control and error paths only, never per FPDU, and each helper creates, fills
 * and commits its event only when the event type is enabled in a running recording ({@link Event#isEnabled()} of a
 * preallocated probe), so with JFR off a helper allocates nothing (JfrEventsAllocationTest). Enable them with
 * {@code -XX:StartFlightRecording} or {@code jcmd <pid> JFR.start}; they are on by default in any
 * recording and carry no stack trace.
 *
 * <p>Thread safety: the helpers may be called from any thread.
 */
public final class JfrEvents {
    private static final String CATEGORY = "jrnic";

    // Never committed: Event.isEnabled() reads the event type's state, not the instance's, so one
    // instance per type answers "is a recording taking it?" without allocating (JFR off: nothing).
    private static final QpStateChange QP_STATE_CHANGE = new QpStateChange();
    private static final TerminateSent TERMINATE_SENT = new TerminateSent();
    private static final TerminateReceived TERMINATE_RECEIVED = new TerminateReceived();
    private static final ConnectionEstablished CONNECTION_ESTABLISHED = new ConnectionEstablished();
    private static final ConnectionClosed CONNECTION_CLOSED = new ConnectionClosed();
    private static final ConnectionSetupFailed CONNECTION_SETUP_FAILED = new ConnectionSetupFailed();
    private static final CrcError CRC_ERROR = new CrcError();
    private static final ProgressTimeout PROGRESS_TIMEOUT = new ProgressTimeout();

    private JfrEvents() {
    }

    /** Fields common to the queue pair events. */
    abstract static class QpEvent extends Event {
        @Label("RNIC")
        @Description("Name of the RNIC (Rnic.name())")
        String rnic;

        @Label("QP")
        @Description("QP number (QueuePair.id())")
        int qp;
    }

    /** Verbs 1.0 §6.2: the QP moved from one state to another. */
    @Name("io.jrnic.QpStateChange")
    @Label("QP State Change")
    @Category(CATEGORY)
    @Description("A queue pair changed state (Verbs 1.0 §6.2 Figure 4)")
    @StackTrace(false)
    static final class QpStateChange extends QpEvent {
        @Label("From")
        String from;

        @Label("To")
        String to;
    }

    /** Fields of a Terminate message (RFC 5040 §4.8). */
    abstract static class TerminateEvent extends QpEvent {
        @Label("Terminate Control")
        @Description("Layer << 12 | EType << 8 | Error Code (RFC 5040 §4.8)")
        int terminateControl;

        @Label("Layer")
        String layer;

        @Label("Error Type")
        String errorType;

        @Label("Error Code")
        String errorCode;

        @Label("Description")
        String description;
    }

    /** RFC 5040 §5.4: this QP sent a Terminate. */
    @Name("io.jrnic.TerminateSent")
    @Label("Terminate Sent")
    @Category(CATEGORY)
    @Description("A queue pair sent a Terminate message (RFC 5040 §5.4)")
    @StackTrace(false)
    static final class TerminateSent extends TerminateEvent {
    }

    /** RFC 5040 §5.4: a Terminate arrived from the peer. */
    @Name("io.jrnic.TerminateReceived")
    @Label("Terminate Received")
    @Category(CATEGORY)
    @Description("A Terminate message arrived from the peer (RFC 5040 §5.4)")
    @StackTrace(false)
    static final class TerminateReceived extends TerminateEvent {
        @Label("Valid")
        @Description("Whether the Terminate passed DDP and RDMAP validation (RFC 5040 §7.1)")
        boolean valid;

        @Label("Validation Error")
        @Description("What an invalid Terminate failed, else empty")
        String validationError;
    }

    /** Fields of a connection. */
    abstract static class ConnectionEvent extends QpEvent {
        @Label("Role")
        String role;

        @Label("Local Address")
        String localAddress;

        @Label("Remote Address")
        String remoteAddress;
    }

    /** Verbs §6.6.1: MPA setup finished and the QP entered RTS on the stream. */
    @Name("io.jrnic.ConnectionEstablished")
    @Label("Connection Established")
    @Category(CATEGORY)
    @Description("MPA setup finished and the queue pair entered RTS (Verbs 1.0 §6.6.1, RFC 5044 §7)")
    @StackTrace(false)
    static final class ConnectionEstablished extends ConnectionEvent {
        @Label("MPA Revision")
        int revision;

        @Label("CRC")
        boolean crc;

        @Label("Markers")
        @Description("Markers on send / on receive")
        String markers;

        @Label("RTR")
        @Description("The RTR exchanged (RFC 6581), empty in the client/server model")
        String rtr;

        @Label("IRD")
        int ird;

        @Label("ORD")
        int ord;

        @Label("MULPDU")
        int mulpdu;
    }

    /** Verbs §6.6.2: the QP left the connection's stream. */
    @Name("io.jrnic.ConnectionClosed")
    @Label("Connection Closed")
    @Category(CATEGORY)
    @Description("The queue pair left the connection's LLP stream (Verbs 1.0 §6.6.2)")
    @StackTrace(false)
    static final class ConnectionClosed extends ConnectionEvent {
        @Label("Final State")
        @Description("Idle after a graceful close, Error after any other end")
        String finalState;
    }

    /** A connection setup failed (active or passive side). */
    @Name("io.jrnic.ConnectionSetupFailed")
    @Label("Connection Setup Failed")
    @Category(CATEGORY)
    @Description("A connection setup failed (RFC 5044 §7, RFC 6581 §9)")
    @StackTrace(false)
    static final class ConnectionSetupFailed extends ConnectionEvent {
        @Label("Reason")
        String reason;

        @Label("Message")
        String message;

        @Label("Terminate Code")
        @Description("The Terminate code sent or received during setup, -1 for none")
        int terminateCode;
    }

    /** RFC 5044 §8: an FPDU's CRC did not match. */
    @Name("io.jrnic.CrcError")
    @Label("MPA CRC Error")
    @Category(CATEGORY)
    @Description("An FPDU's CRC32c did not match; the stream is terminated (RFC 5044 §8, Verbs Figure 24)")
    @StackTrace(false)
    static final class CrcError extends QpEvent {
    }

    /** Issue 13, ConnectionSettings.progressTimeout: a stalled peer's connection was treated as lost. */
    @Name("io.jrnic.ProgressTimeout")
    @Label("Progress Timeout")
    @Category(CATEGORY)
    @Description("No FPDU moved either way for the progress timeout with work outstanding: the connection was "
            + "reset and the queue pair went to Error with LLP Connection Lost (ConnectionSettings.progressTimeout)")
    @StackTrace(false)
    static final class ProgressTimeout extends QpEvent {
        @Label("Stalled")
        @Description("How long nothing moved with work outstanding")
        @Timespan(Timespan.NANOSECONDS)
        long stalled;

        @Label("Timeout")
        @Description("The connection's progress timeout")
        @Timespan(Timespan.NANOSECONDS)
        long timeout;

        @Label("SQ Messages Not Taken")
        @Description("SQ messages not yet taken whole by the LLP (in progress, queued, last FPDU unsent)")
        int messagesNotTaken;

        @Label("Requests Awaiting Response")
        @Description("Read, atomic and commit requests sent and not answered (ORD in use)")
        int requestsAwaitingResponse;

        @Label("Responses Owed")
        @Description("Inbound Read, atomic and commit requests not yet answered in full (IRD in use)")
        int responsesOwed;
    }

    public static void qpStateChange(String rnic, int qp, QpState from, QpState to) {
        if (QP_STATE_CHANGE.isEnabled()) {
            QpStateChange e = new QpStateChange();
            e.rnic = rnic;
            e.qp = qp;
            e.from = from.toString();
            e.to = to.toString();
            e.commit();
        }
    }

    public static void terminateSent(String rnic, int qp, TerminateMessage m) {
        if (TERMINATE_SENT.isEnabled()) {
            TerminateSent e = new TerminateSent();
            terminate(e, rnic, qp, m);
            e.commit();
        }
    }

    /**
     * @param validationError what an invalid Terminate failed, or null for a valid one
     */
    public static void terminateReceived(String rnic, int qp, TerminateMessage m, String validationError) {
        if (TERMINATE_RECEIVED.isEnabled()) {
            TerminateReceived e = new TerminateReceived();
            terminate(e, rnic, qp, m);
            e.valid = validationError == null;
            e.validationError = validationError == null ? "" : validationError;
            e.commit();
        }
    }

    private static void terminate(TerminateEvent e, String rnic, int qp, TerminateMessage m) {
        e.rnic = rnic;
        e.qp = qp;
        e.terminateControl = m.terminateControl();
        e.layer = m.layerName();
        e.errorType = m.errorTypeName();
        e.errorCode = m.errorCodeName();
        e.description = m.toString();
    }

    public static void connectionEstablished(String rnic, Connection c) {
        if (CONNECTION_ESTABLISHED.isEnabled()) {
            ConnectionEstablished e = new ConnectionEstablished();
            connection(e, rnic, c.queuePair().id(), c.role(), c.localAddress(), c.remoteAddress());
            ConnectionParameters p = c.parameters();
            e.revision = p.revision();
            e.crc = p.crc();
            e.markers = p.markersOnSend() + "/" + p.markersOnReceive();
            e.rtr = p.rtr() == null ? "" : p.rtr().toString();
            e.ird = p.ird();
            e.ord = p.ord();
            e.mulpdu = c.mulpdu();
            e.commit();
        }
    }

    public static void connectionClosed(String rnic, Connection c, QpState finalState) {
        if (CONNECTION_CLOSED.isEnabled()) {
            ConnectionClosed e = new ConnectionClosed();
            connection(e, rnic, c.queuePair().id(), c.role(), c.localAddress(), c.remoteAddress());
            e.finalState = finalState.toString();
            e.commit();
        }
    }

    /**
     * @param qp     the QP being connected, or -1 (a passive setup that failed before accept)
     * @param role   the side, or null when unknown
     * @param remote the peer, or null when unknown
     */
    public static void connectionSetupFailed(String rnic, int qp, Connection.Role role, SocketAddress remote,
                                      ConnectionException failure) {
        if (CONNECTION_SETUP_FAILED.isEnabled()) {
            ConnectionSetupFailed e = new ConnectionSetupFailed();
            connection(e, rnic, qp, role, null, remote);
            e.reason = failure.reason().toString();
            e.message = failure.getMessage();
            e.terminateCode = failure.terminateCode();
            e.commit();
        }
    }

    private static void connection(ConnectionEvent e, String rnic, int qp, Connection.Role role, SocketAddress local,
                                   SocketAddress remote) {
        e.rnic = rnic;
        e.qp = qp;
        e.role = role == null ? "" : role.toString();
        e.localAddress = local == null ? "" : local.toString();
        e.remoteAddress = remote == null ? "" : remote.toString();
    }

    public static void crcError(String rnic, int qp) {
        if (CRC_ERROR.isEnabled()) {
            CrcError e = new CrcError();
            e.rnic = rnic;
            e.qp = qp;
            e.commit();
        }
    }

    /**
     * @param stalledNanos how long nothing moved with work outstanding
     * @param timeoutNanos the connection's progress timeout
     */
    public static void progressTimeout(String rnic, int qp, long stalledNanos, long timeoutNanos, int messagesNotTaken,
                                       int requestsAwaitingResponse, int responsesOwed) {
        if (PROGRESS_TIMEOUT.isEnabled()) {
            ProgressTimeout e = new ProgressTimeout();
            e.rnic = rnic;
            e.qp = qp;
            e.stalled = stalledNanos;
            e.timeout = timeoutNanos;
            e.messagesNotTaken = messagesNotTaken;
            e.requestsAwaitingResponse = requestsAwaitingResponse;
            e.responsesOwed = responsesOwed;
            e.commit();
        }
    }
}
