package io.jrnic.core.transport;

import io.jrnic.core.link.FpduLink;
import io.jrnic.core.transport.TransportFixture.Endpoint;
import io.jrnic.core.transport.TransportFixture.Responder;
import io.jrnic.mpa.DeframeFault;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.RtrForm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.util.Arrays;

import static io.jrnic.core.transport.TransportFixture.LOOPBACK;
import static io.jrnic.core.transport.TransportFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/** An established Responder channel fed by a raw socket that plays a peer-to-peer Initiator. */
class RawPeerChannelTest {

    private IwarpTransport transport;
    private MpaListener listener;
    private Responder responder;
    private Socket raw;

    @BeforeEach
    void open() throws Exception {
        transport = new IwarpTransport(TransportFixture.config().closeTimeout(java.time.Duration.ofSeconds(1)).build());
        responder = Responder.accepting(null);
        listener = transport.listen(LOOPBACK, MpaSettings.defaults(), responder);
        raw = new Socket();
        raw.connect(listener.localAddress());
        raw.setSoTimeout(10_000);
        raw.getOutputStream().write(RawFrames.request(RtrForm.ALL, true));
        byte[] reply = raw.getInputStream().readNBytes(24);
        assertThat(reply[17]).as("Rev").isEqualTo((byte) 2);
    }

    @AfterEach
    void close() throws Exception {
        raw.close();
        listener.close();
        transport.close();
    }

    private static byte[] payload(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    @Test
    void keepsBytesThatFollowTheRtrUntilStart_V_QPS_15() throws Exception {
        byte[] first = payload(100);
        byte[] second = payload(1000);
        // RTR and two FPDUs in one TCP write: the RTR is absorbed, the rest waits for start().
        raw.getOutputStream().write(RawFrames.concat(RawFrames.WRITE_RTR_FPDU, RawFrames.writeFpdu(first, 0),
                RawFrames.writeFpdu(second, 100)));
        FpduChannel channel = responder.accepted.channel();
        assertThat(channel.info().rtr()).isEqualTo(RtrForm.WRITE);
        Endpoint endpoint = new Endpoint(1100, 2);
        endpoint.start(channel);
        await(endpoint.done);
        TransportFixture.assertSameBytes(endpoint.received, MemorySegment.ofArray(RawFrames.concat(first, second)), 1100);
    }

    @Test
    void reportsACorruptFpduToTheHandler_V_ERR_21() throws Exception {
        byte[] fpdu = RawFrames.writeFpdu(payload(64), 0);
        fpdu[30] ^= 0x01;
        raw.getOutputStream().write(RawFrames.concat(RawFrames.WRITE_RTR_FPDU, fpdu));
        Endpoint endpoint = new Endpoint(64, 1);
        endpoint.start(responder.accepted.channel());
        // RFC 5044 §8 code 2: nothing is delivered, the fault goes to the ULP (Terminate 0x2002).
        DeframeFault fault = await(endpoint.fault);
        assertThat(fault).isEqualTo(DeframeFault.CRC_MISMATCH);
        assertThat(fault.terminateCodeBits()).isEqualTo(0x2002);
        assertThat(endpoint.fpdus).isZero();
    }

    @Test
    void tellsAFinInsideAnFpduFromAFinBetweenFpdus() throws Exception {
        byte[] fpdu = RawFrames.writeFpdu(payload(64), 0);
        raw.getOutputStream().write(RawFrames.concat(RawFrames.WRITE_RTR_FPDU, Arrays.copyOf(fpdu, 30)));
        raw.shutdownOutput();
        Endpoint endpoint = new Endpoint(64, 1);
        endpoint.start(responder.accepted.channel());
        // RFC 5044 §8 code 1: a stream cut inside an FPDU is a lost connection, not a normal close.
        assertThat(await(endpoint.closed)).isEqualTo(FpduLink.Closure.REMOTE_CLOSE_MID_FPDU);
        assertThat(raw.getInputStream().read()).isEqualTo(-1);
    }

    /**
     * netty's epoll transport reads up to a half close (EPOLLRDHUP) even while reading is off before
     * start: the FIN must still come after the bytes it followed, a whole FPDU is delivered and the
     * cut one makes the closure a mid-FPDU one (V-QPS-15, RFC 5044 §8). On NIO nothing is read
     * before start and the test runs the same way.
     */
    @Test
    void aFinReadBeforeStartComesAfterTheBytesItFollowed_V_QPS_15() throws Exception {
        byte[] whole = RawFrames.writeFpdu(payload(64), 0);
        byte[] cut = Arrays.copyOf(RawFrames.writeFpdu(payload(64), 64), 30);
        raw.getOutputStream().write(RawFrames.concat(RawFrames.WRITE_RTR_FPDU, whole, cut));
        raw.shutdownOutput();
        FpduChannel channel = responder.accepted.channel();
        if (channel.ioTransport() == io.jrnic.api.IoTransport.EPOLL) {
            RawInitiator.await(() -> ((io.netty.channel.socket.SocketChannel) channel.nettyChannel()).isInputShutdown(),
                    "the peer's FIN read before start");
        }
        Endpoint endpoint = new Endpoint(64, 1);
        endpoint.start(channel);
        await(endpoint.done);
        assertThat(await(endpoint.closed)).isEqualTo(FpduLink.Closure.REMOTE_CLOSE_MID_FPDU);
    }

    @Test
    void gracefulCloseIsAHalfCloseThatStillDelivers_V_CM_9() throws Exception {
        raw.getOutputStream().write(RawFrames.WRITE_RTR_FPDU);
        FpduChannel channel = responder.accepted.channel();
        Endpoint endpoint = new Endpoint(64, 1);
        endpoint.start(channel);
        channel.close();
        assertThat(raw.getInputStream().read()).as("our FIN").isEqualTo(-1);
        // The peer may still send until it closes its half: the FPDU is delivered, then its FIN ends it.
        byte[] last = payload(64);
        raw.getOutputStream().write(RawFrames.writeFpdu(last, 0));
        raw.shutdownOutput();
        await(endpoint.done);
        TransportFixture.assertSameBytes(endpoint.received, MemorySegment.ofArray(last), 64);
        assertThat(await(endpoint.closed)).isEqualTo(FpduLink.Closure.LOCAL_CLOSE);
    }

    @Test
    void gracefulCloseThatTimesOutIsAConnectionLoss_V_QPS_79() throws Exception {
        raw.getOutputStream().write(RawFrames.WRITE_RTR_FPDU);
        FpduChannel channel = responder.accepted.channel();
        Endpoint endpoint = new Endpoint(0, 0);
        endpoint.start(channel);
        channel.close();
        assertThat(raw.getInputStream().read()).as("our FIN").isEqualTo(-1);
        // The raw peer never closes its half: closeTimeout (1 s here) ends the wait, as an error
        // (Verbs §6.2.5: a final timeout is an error): the connection is reset, not closed.
        assertThat(await(endpoint.closed)).isEqualTo(FpduLink.Closure.CONNECTION_LOST);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void answersAReadRtrWithAZeroLengthReadResponse() throws Exception {
        // wire-format.md §6: the zero-length Read RTR (QN 1, MSN 1), CRC on.
        raw.getOutputStream().write(RawFrames.hex("00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"
                + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 f2 c6 dd 3d"));
        FpduChannel channel = responder.accepted.channel();
        assertThat(channel.info().rtr()).isEqualTo(RtrForm.READ);
        assertThat(channel.info().nextInboundReadRequestMsn()).isEqualTo(2);
        // The zero-length Read Response: tagged, L=1, Read Response opcode, sink STag 0 and TO 0 echoed.
        byte[] response = raw.getInputStream().readNBytes(20);
        assertThat(Arrays.copyOf(response, 16)).isEqualTo(RawFrames.hex(
                "00 0e c1 42 00 00 00 00 00 00 00 00 00 00 00 00"));
        assertThat(RawFrames.crcValid(response)).isTrue();
    }
}
