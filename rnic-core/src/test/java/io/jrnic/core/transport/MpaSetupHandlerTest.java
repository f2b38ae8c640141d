package io.jrnic.core.transport;

import io.jrnic.core.link.FpduLink;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.FpduHandler;
import io.jrnic.mpa.MpaNegotiator;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.Negotiation;
import io.jrnic.mpa.RtrForm;
import io.jrnic.mpa.StartupFrame;
import io.jrnic.mpa.StartupFrameParser;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.jrnic.core.transport.EmbeddedReads.read;
import static io.jrnic.core.transport.EmbeddedReads.written;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MpaSetupHandler} alone on an {@link EmbeddedChannel}: the startup frames it writes and
 * answers (RFC 5044 §7.1), reject, the setup timeout and the Initiator's pause on the embedded
 * clock, and the swap to the {@link FpduFramingHandler} at Full Operation with the bytes that
 * followed the frame or the RTR handed over intact. The same behaviour over loopback TCP is in
 * {@link MpaSetupTest}.
 */
class MpaSetupHandlerTest {

    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(10);

    private final IwarpTransport transport = new IwarpTransport(TransportFixture.config()
            .setupTimeout(SETUP_TIMEOUT).firstFpduDelay(Duration.ofMillis(50)).build());

    @AfterEach
    void close() {
        transport.close();
    }

    /** Stands where the capture handler stands: first in the pipeline, next to the socket. */
    private static final class First extends ChannelInboundHandlerAdapter {
    }

    /** A connect or accept callback that records what it is told. */
    private static final class Callback implements ConnectCallback {
        FpduChannel channel;
        SetupFailure failure;

        @Override
        public void onEstablished(FpduChannel c) {
            channel = c;
        }

        @Override
        public void onFailed(SetupFailure f) {
            failure = f;
        }
    }

    /** A request handler that keeps the request for the test to answer. */
    private static final class Requests implements MpaRequestHandler {
        MpaRequest request;
        SetupFailure failure;

        @Override
        public void onRequest(MpaRequest r) {
            request = r;
        }

        @Override
        public void onSetupFailed(SocketAddress remote, SetupFailure f) {
            failure = f;
        }
    }

    /** Collects ULPDUs as byte arrays. */
    static class Ulpdus implements FpduHandler, FpduLink.Listener {
        final List<byte[]> ulpdus = new ArrayList<>();
        DeframeFault fault;
        FpduLink.Closure closure;

        @Override
        public void onUlpdu(MemorySegment segment, long offset, int length) {
            ulpdus.add(segment.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }

        @Override
        public void onError(DeframeFault f) {
            fault = f;
        }

        @Override
        public void onClosed(FpduLink.Closure c) {
            closure = c;
        }
    }

    private static MpaSettings.Builder clientServer() {
        return MpaSettings.builder().peerToPeer(false).crcPolicy(CrcPolicy.REQUIRED);
    }

    private static StartupFrameParser parse(StartupFrame.Kind kind, byte[] bytes) {
        StartupFrameParser p = new StartupFrameParser(kind, StartupFrame.MAX_PRIVATE_DATA_LENGTH);
        int taken = p.consume(MemorySegment.ofArray(bytes), 0, bytes.length);
        assertThat(p.state()).as("a whole %s", kind).isEqualTo(StartupFrameParser.State.COMPLETE);
        assertThat(taken).as("nothing after the %s", kind).isEqualTo(bytes.length);
        return p;
    }

    /** The peer's Reply to the Request the handler wrote. */
    private static byte[] replyTo(byte[] request, MpaSettings peer, byte[] privateData) {
        StartupFrameParser p = parse(StartupFrame.Kind.REQUEST, request);
        MpaNegotiator negotiator = new MpaNegotiator(peer);
        Negotiation d = negotiator.onRequest(p.frame(), p.received());
        byte[] frame = new byte[StartupFrame.MAX_FRAME_LENGTH];
        int n = negotiator.writeReply(d, false, MemorySegment.ofArray(frame), 0, MemorySegment.ofArray(privateData), 0,
                privateData.length);
        return Arrays.copyOf(frame, n);
    }

    private static byte[] ulpduOf(byte[] fpdu) {
        int length = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
        return Arrays.copyOfRange(fpdu, 2, 2 + length);
    }

    @Test
    void initiatorSwapsToFramingAtFullOperationAndHandsOnTheBytesAfterTheReply() {
        Callback callback = new Callback();
        MpaSetupHandler setup = MpaSetupHandler.initiator(transport, new MpaNegotiator(clientServer().build()),
                new byte[] {1, 2, 3}, callback);
        First first = new First();
        EmbeddedChannel ch = new EmbeddedChannel(first, setup);
        byte[] requestBytes = written(ch);
        StartupFrameParser request = parse(StartupFrame.Kind.REQUEST, requestBytes);
        assertThat(MpaNegotiator.ulpPrivateData(request.frame())).containsExactly(1, 2, 3);

        byte[] fpdu = RawFrames.writeFpdu(new byte[] {10, 11, 12, 13, 14}, 0);
        // client/server: no RTR, no pause; the Responder's first FPDU may follow its Reply in one read
        read(ch, setup.allocator(), RawFrames.concat(replyTo(requestBytes, clientServer().build(), new byte[] {4, 5}),
                fpdu));
        assertThat(callback.channel).as("paused before Full Operation").isNull();
        assertThat(setup.state()).isEqualTo(MpaSetupHandler.State.PAUSING);

        ch.advanceTimeBy(50, TimeUnit.MILLISECONDS);      // the Initiator's pause (firstFpduDelay)
        ch.runScheduledPendingTasks();
        assertThat(callback.failure).isNull();
        assertThat(callback.channel).isNotNull();
        assertThat(ch.pipeline().get(MpaSetupHandler.class)).as("the setup handler removed itself").isNull();
        assertThat(ch.pipeline().first()).as("the capture handler's place stays first").isSameAs(first);
        assertThat(ch.pipeline().get(MpaSetupHandler.FRAMING_HANDLER_NAME)).isInstanceOf(FpduFramingHandler.class);
        assertThat(ch.config().isAutoRead()).as("no reads before start (V-QPS-15)").isFalse();
        assertThat(callback.channel.info().peerPrivateData()).containsExactly(4, 5);
        assertThat(callback.channel.info().localPrivateData()).containsExactly(1, 2, 3);
        assertThat(written(ch)).as("client/server Initiator: nothing before the ULP sends").isEmpty();

        Ulpdus rx = new Ulpdus();
        callback.channel.start(rx, rx);
        assertThat(rx.ulpdus).as("the FPDU read with the Reply, intact").hasSize(1);
        assertThat(rx.ulpdus.get(0)).isEqualTo(ulpduOf(fpdu));
        assertThat(callback.channel.bytesReceived()).isEqualTo(fpdu.length);
        assertThat(ch.config().isAutoRead()).isTrue();
    }

    private EmbeddedChannel responder(MpaSetupHandler setup) {
        return new EmbeddedChannel(new First(), setup);
    }

    @ParameterizedTest(name = "reads of at most {0} bytes")
    @ValueSource(ints = {1, 5, 23, 1000})
    void responderAnswersTheRequestAndSwapsAfterTheRtrWithTheNextFpduIntact(int chunk) {
        Requests requests = new Requests();
        MpaSetupHandler setup = MpaSetupHandler.responder(transport, new MpaNegotiator(MpaSettings.defaults()), requests);
        EmbeddedChannel ch = responder(setup);
        read(ch, setup.allocator(), RawFrames.request(RtrForm.SEND.flag(), true), chunk);
        assertThat(requests.request).as("the ULP is asked").isNotNull();
        assertThat(requests.request.parameters().peerToPeer()).isTrue();
        assertThat(ch.config().isAutoRead()).as("no reads while the ULP decides").isFalse();

        Callback accepted = new Callback();
        requests.request.accept(new byte[] {9, 8}, accepted);
        ch.runPendingTasks();                     // accept() hops onto the event loop
        StartupFrameParser reply = parse(StartupFrame.Kind.REPLY, written(ch));
        assertThat(reply.frame().reject()).isFalse();
        assertThat(MpaNegotiator.ulpPrivateData(reply.frame())).containsExactly(9, 8);
        assertThat(setup.state()).isEqualTo(MpaSetupHandler.State.AWAIT_RTR);
        assertThat(accepted.channel).as("RFC 6581 §9.2: nothing reported before the RTR").isNull();

        byte[] fpdu = RawFrames.writeFpdu(new byte[] {1, 2, 3, 4, 5, 6, 7}, 0);
        read(ch, setup.allocator(), RawFrames.concat(RawFrames.SEND_RTR_FPDU, fpdu), chunk);
        assertThat(accepted.failure).isNull();
        assertThat(accepted.channel).isNotNull();
        assertThat(accepted.channel.info().rtr()).isEqualTo(RtrForm.SEND);
        assertThat(ch.pipeline().get(MpaSetupHandler.class)).isNull();
        assertThat(ch.pipeline().get(FpduFramingHandler.class)).isNotNull();
        assertThat(written(ch)).as("a Send RTR needs no answer").isEmpty();

        Ulpdus rx = new Ulpdus();
        accepted.channel.start(rx, rx);
        assertThat(rx.fault).isNull();
        assertThat(rx.ulpdus).as("the FPDU after the RTR, whichever handler read it").hasSize(1);
        assertThat(rx.ulpdus.get(0)).isEqualTo(ulpduOf(fpdu));
        assertThat(accepted.channel.fpdusReceived()).as("the RTR counts").isEqualTo(2);
    }

    @Test
    void initiatorSendsItsRtrAfterThePauseAsTheFirstFpdu() {
        Callback callback = new Callback();
        MpaSetupHandler setup = MpaSetupHandler.initiator(transport, new MpaNegotiator(MpaSettings.defaults()),
                new byte[0], callback);
        EmbeddedChannel ch = responder(setup);
        ch.freezeTime(); // only advanceTimeBy moves the clock: a slow millisecond of the machine's must not end the pause
        byte[] reply = replyTo(written(ch), MpaSettings.builder().rtrForms(RtrForm.SEND).build(), new byte[0]);
        read(ch, setup.allocator(), reply);
        assertThat(written(ch)).as("nothing during the pause").isEmpty();
        ch.advanceTimeBy(49, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(callback.channel).isNull();
        ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(callback.channel).isNotNull();
        assertThat(written(ch)).as("RFC 6581 §9.2: the Send RTR, wire-format.md §6").isEqualTo(RawFrames.SEND_RTR_FPDU);
        assertThat(callback.channel.fpdusSent()).isEqualTo(1);
        assertThat(callback.channel.info().nextOutboundSendMsn()).isEqualTo(ConnectionInfo.FIRST_MSN + 1);
    }

    @Test
    void responderRejectSendsARejectingReplyAndCloses() {
        Requests requests = new Requests();
        MpaSetupHandler setup = MpaSetupHandler.responder(transport, new MpaNegotiator(MpaSettings.defaults()), requests);
        EmbeddedChannel ch = responder(setup);
        read(ch, setup.allocator(), RawFrames.request(RtrForm.SEND.flag(), true));
        requests.request.reject(new byte[] {7});
        ch.runPendingTasks();
        StartupFrameParser reply = parse(StartupFrame.Kind.REPLY, written(ch));
        assertThat(reply.frame().reject()).as("RFC 5044 §7.1.2 rule 2: R=1").isTrue();
        assertThat(MpaNegotiator.ulpPrivateData(reply.frame())).containsExactly(7);
        assertThat(ch.isOpen()).as("closed once the Reply is written").isFalse();
        assertThat(requests.failure).as("the ULP's own reject is not reported back").isNull();
        assertThat(ch.pipeline().get(FpduFramingHandler.class)).isNull();
    }

    @Test
    void setupTimesOutOnTheEmbeddedClock() {
        Requests requests = new Requests();
        MpaSetupHandler setup = MpaSetupHandler.responder(transport, new MpaNegotiator(MpaSettings.defaults()), requests);
        EmbeddedChannel ch = responder(setup);
        ch.freezeTime(); // as in the pause test: the clock moves by advanceTimeBy alone
        read(ch, setup.allocator(), Arrays.copyOf(RawFrames.request(RtrForm.SEND.flag(), true), 10));
        ch.advanceTimeBy(SETUP_TIMEOUT.toMillis() - 1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();
        assertThat(requests.failure).isNull();
        ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(requests.failure).isNotNull();
        assertThat(requests.failure.kind()).isEqualTo(SetupFailure.Kind.TIMEOUT);
        assertThat(ch.isOpen()).isFalse();
        assertThat(setup.state()).isEqualTo(MpaSetupHandler.State.CLOSED);
    }

    @Test
    void anInvalidStartupFrameClosesAtOnce() {
        Requests requests = new Requests();
        MpaSetupHandler setup = MpaSetupHandler.responder(transport, new MpaNegotiator(MpaSettings.defaults()), requests);
        EmbeddedChannel ch = responder(setup);
        byte[] garbage = new byte[StartupFrame.HEADER_LENGTH];
        Arrays.fill(garbage, (byte) 'x');
        read(ch, setup.allocator(), garbage);
        assertThat(requests.failure.kind()).isEqualTo(SetupFailure.Kind.INVALID_FRAME);
        assertThat(written(ch)).as("RFC 5044 §8 code 4: no answer, TCP closed").isEmpty();
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void aFinDuringSetupIsALostConnection() {
        Callback callback = new Callback();
        MpaSetupHandler setup = MpaSetupHandler.initiator(transport, new MpaNegotiator(MpaSettings.defaults()),
                new byte[0], callback);
        EmbeddedChannel ch = responder(setup);
        written(ch);
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertThat(callback.failure.kind()).isEqualTo(SetupFailure.Kind.CONNECTION_LOST);
        assertThat(ch.isOpen()).isFalse();
        assertThat(callback.channel).isNull();
    }

    @Test
    void theReceiveBufferPolicyFollowsTheSwap() {
        Callback callback = new Callback();
        MpaSetupHandler setup = MpaSetupHandler.initiator(transport, new MpaNegotiator(clientServer().build()),
                new byte[0], callback);
        EmbeddedChannel ch = responder(setup);
        read(ch, setup.allocator(), replyTo(written(ch), clientServer().build(), new byte[0]));
        ch.advanceTimeBy(50, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        FpduFramingHandlerTest.Placing rx = new FpduFramingHandlerTest.Placing();
        callback.channel.start(rx, rx);
        byte[] a = new byte[5000];
        Arrays.fill(a, (byte) 0x5a);
        // the allocator installed with the setup handler now asks the framing handler: after the
        // header it hands out a window of the placement target
        read(ch, setup.allocator(), RawFrames.writeFpdu(a, 0), TransportConfig.HEADER_READ_LENGTH);
        assertThat(rx.placed).isEqualTo(1);
        assertThat(rx.target.asSlice(0, a.length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(a);
        assertThat(callback.channel.bytesPlacedDirect()).isGreaterThan(4900);
    }

    @Test
    void theRtrHandsOnTheReceiveStreamPositionForMarkers() {
        Requests requests = new Requests();
        // we ask for markers (RFC 5044 §7.1.1 M=1): the peer's FPDUs carry one every 512 stream octets
        MpaSetupHandler setup = MpaSetupHandler.responder(transport,
                new MpaNegotiator(MpaSettings.builder().requestMarkers(true).build()), requests);
        EmbeddedChannel ch = responder(setup);
        read(ch, setup.allocator(), RawFrames.request(MpaSettings.builder().rtrForms(RtrForm.SEND).build()));
        Callback accepted = new Callback();
        requests.request.accept(new byte[0], accepted);
        ch.runPendingTasks();
        StartupFrameParser reply = parse(StartupFrame.Kind.REPLY, written(ch));
        assertThat(reply.frame().markers()).isTrue();

        io.jrnic.mpa.FpduWriter peer = new io.jrnic.mpa.FpduWriter(true, true);
        byte[] rtrUlpdu = ulpduOf(RawFrames.SEND_RTR_FPDU);
        byte[] rtr = new byte[peer.wireLength(rtrUlpdu.length)];
        peer.write(MemorySegment.ofArray(rtrUlpdu), 0, rtrUlpdu.length, MemorySegment.ofArray(rtr), 0);
        byte[] ulpdu = ulpduOf(RawFrames.writeFpdu(new byte[600], 0));   // crosses the marker at 512
        byte[] data = new byte[peer.wireLength(ulpdu.length)];
        peer.write(MemorySegment.ofArray(ulpdu), 0, ulpdu.length, MemorySegment.ofArray(data), 0);
        read(ch, setup.allocator(), RawFrames.concat(rtr, data), 7);
        assertThat(accepted.failure).isNull();
        assertThat(accepted.channel).isNotNull();

        Ulpdus rx = new Ulpdus();
        accepted.channel.start(rx, rx);
        assertThat(rx.fault).as("markers found where the stream position says").isNull();
        assertThat(rx.ulpdus).hasSize(1);
        assertThat(rx.ulpdus.get(0)).isEqualTo(ulpdu);
    }
}
