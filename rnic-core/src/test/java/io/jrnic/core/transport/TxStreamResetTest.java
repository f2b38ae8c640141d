package io.jrnic.core.transport;

import io.jrnic.api.IoTransport;
import io.jrnic.core.link.FpduLink;
import io.jrnic.core.transport.TransportFixture.Endpoint;
import io.jrnic.core.transport.TransportFixture.Responder;
import io.jrnic.mpa.MpaSettings;
import io.jrnic.mpa.RtrForm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.CompletableFuture;

import static io.jrnic.core.transport.TransportFixture.LOOPBACK;
import static io.jrnic.core.transport.TransportFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Verbs §6.4 #1 (V-TERM-4) at the channel: when framing an FPDU fails part way (its payload memory
 * is gone, so the CRC cannot be computed after the marker position and the header were committed),
 * nothing may follow on the stream: the channel resets the connection (RST, not FIN) and rethrows,
 * and reports a lost connection.
 */
class TxStreamResetTest {
    private IwarpTransport transport;
    private MpaListener listener;
    private Responder responder;
    private Socket raw;

    @BeforeEach
    void open() throws Exception {
        transport = new IwarpTransport(TransportFixture.config().build());
        responder = Responder.accepting(null);
        listener = transport.listen(LOOPBACK, MpaSettings.defaults(), responder);
        raw = new Socket();
        raw.connect(listener.localAddress());
        raw.setSoTimeout(10_000);
        raw.getOutputStream().write(RawFrames.request(RtrForm.ALL, true));
        assertThat(raw.getInputStream().readNBytes(24)[17]).as("Rev").isEqualTo((byte) 2);
        raw.getOutputStream().write(RawFrames.WRITE_RTR_FPDU);
    }

    @AfterEach
    void close() throws Exception {
        raw.close();
        listener.close();
        transport.close();
    }

    @Test
    void fpduWhoseMemoryVanishedWhileQueuedResetsTheStream_V_TERM_4() throws Exception {
        FpduChannel channel = responder.accepted.channel();
        Endpoint endpoint = new Endpoint(0, 0);
        endpoint.start(channel);
        int mulpdu = channel.mulpdu();
        MemorySegment header = MemorySegment.ofArray(new byte[14]);
        MemorySegment filler = Arena.ofAuto().allocate(mulpdu);
        Arena arena = Arena.ofShared();
        MemorySegment doomed = arena.allocate(mulpdu - 14);
        // the raw peer reads nothing yet: 16 MiB of FPDUs fill the socket buffers and netty's queue,
        // then one FPDU whose payload memory is closed while it waits in the queue
        TransportFixture.onLoop(channel, () -> {
            for (int i = 0; i < (16 << 20) / mulpdu; i++) {
                channel.send(header, 0, 14, filler, 0, mulpdu - 14);
            }
            channel.send(header, 0, 14, doomed, 0, mulpdu - 14);
            channel.flush();
        });
        arena.close();
        byte[] sink = new byte[1 << 16];
        if (transport.ioTransport() == IoTransport.EPOLL) {
            // epoll hands the kernel bare addresses, so memory the application may close is copied
            // when the FPDU is queued (docs/transport.md "Socket kinds"): closing it afterwards
            // changes nothing, every FPDU arrives and the stream stays up
            long expected = ((16L << 20) / mulpdu + 1) * mulpdu;
            long read = 0;
            while (read < expected) {
                int n = raw.getInputStream().read(sink);
                assertThat(n).as("stream ended after %d of at least %d bytes", read, expected).isPositive();
                read += n;
            }
            assertThat(channel.isOpen()).isTrue();
            assertThat(endpoint.closed).isNotDone();
            return;
        }
        try {
            while (raw.getInputStream().read(sink) >= 0) {
                // drain: netty writes on, reaches the doomed FPDU and fails in the middle of the stream
            }
        } catch (SocketException reset) {
            // the RST may overtake the FIN netty sends first
        }
        // not a half close: a partly written FPDU resets the stream (Verbs §6.4 #1)
        assertThat(await(endpoint.closed)).isEqualTo(FpduLink.Closure.CONNECTION_LOST);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void framingFailureResetsTheStream_V_TERM_4() throws Exception {
        FpduChannel channel = responder.accepted.channel();
        Endpoint endpoint = new Endpoint(0, 0);
        endpoint.start(channel);
        Arena arena = Arena.ofShared();
        MemorySegment payload = arena.allocate(1024);
        arena.close(); // the application freed the memory of the FPDU to send
        MemorySegment header = MemorySegment.ofArray(new byte[14]);
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        channel.executor().execute(() -> {
            try {
                channel.send(header, 0, 14, payload, 0, 1024);
                thrown.complete(null);
            } catch (RuntimeException e) {
                thrown.complete(e);
            }
        });
        assertThat(await(thrown)).isInstanceOf(IllegalStateException.class);
        assertThat(await(endpoint.closed)).isEqualTo(FpduLink.Closure.CONNECTION_LOST);
        // the peer sees a reset, and nothing of the FPDU
        assertThatThrownBy(() -> raw.getInputStream().read()).isInstanceOf(SocketException.class)
                .hasMessageContaining("reset");
    }
}
