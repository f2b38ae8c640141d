package io.jrnic.test;

import io.jrnic.test.FaultProxy.Direction;
import io.jrnic.test.FaultProxy.Fault;
import io.jrnic.test.FaultProxy.Kind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fault proxy on plain sockets: each kind of fault, at a byte offset and at the close, seen
 * from both ends of the proxied connection.
 */
class FaultProxyTest {
    private static final int N = 100_000;
    private static final byte[] DATA = pattern(N);

    private ServerSocket target;
    private FaultProxy proxy;
    private Socket active;
    private Socket passive;

    @BeforeEach
    void listen() throws IOException {
        target = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void closeAll() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        for (AutoCloseable c : new AutoCloseable[]{active, passive, target}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // best effort
            }
        }
    }

    private void connect(Fault fault) throws IOException {
        proxy = FaultProxy.start(target.getLocalSocketAddress(), fault);
        active = new Socket(proxy.localAddress().getAddress(), proxy.localAddress().getPort());
        passive = target.accept();
        active.setSoTimeout(10_000);
        passive.setSoTimeout(10_000);
    }

    @Test
    void aFaultBeyondTheStreamNeverFiresAndEverythingPassesBothWaysWithTheFins() throws Exception {
        connect(Fault.of(Kind.RST, Direction.TO_PASSIVE, N + 1));
        active.getOutputStream().write(DATA);
        active.shutdownOutput();
        assertThat(readAll(passive.getInputStream())).isEqualTo(DATA);
        passive.getOutputStream().write(DATA, 0, 10);
        passive.shutdownOutput();
        assertThat(readAll(active.getInputStream())).isEqualTo(Arrays.copyOf(DATA, 10));
        assertThat(proxy.fired()).isFalse();
        assertThat(proxy.forwarded(Direction.TO_PASSIVE)).isEqualTo(N);
        assertThat(proxy.forwarded(Direction.TO_ACTIVE)).isEqualTo(10);
    }

    @Test
    void rstCutsTheDirectionAfterExactlyOffsetBytesAndBothEndsSeeAReset() throws Exception {
        connect(Fault.of(Kind.RST, Direction.TO_PASSIVE, 12_345));
        writeQuietly(active, DATA);
        InputStream in = passive.getInputStream();
        byte[] got = new byte[N];
        int n = 0;
        Exception failure = null;
        try {
            for (int r; (r = in.read(got, n, N - n)) > 0; ) {
                n += r;
            }
        } catch (SocketException e) {
            failure = e;
        }
        assertThat(n).isEqualTo(12_345);
        assertThat(Arrays.copyOf(got, n)).isEqualTo(Arrays.copyOf(DATA, n));
        assertThat(failure).as("the passive end sees a reset, not a FIN").isNotNull();
        assertThatThrownBy(() -> active.getInputStream().read()).isInstanceOf(SocketException.class);
        assertThat(proxy.fired()).isTrue();
    }

    @Test
    void finCutsBothDirectionsGracefully() throws Exception {
        connect(Fault.of(Kind.FIN, Direction.TO_ACTIVE, 500));
        passive.getOutputStream().write(DATA);
        assertThat(readAll(active.getInputStream())).isEqualTo(Arrays.copyOf(DATA, 500));
        // the other direction is cut too: the passive end reads the end of the stream
        assertThat(passive.getInputStream().read()).isEqualTo(-1);
        // what an end sends after the cut is dropped, not refused
        active.getOutputStream().write(DATA, 0, 1000);
        assertThat(proxy.forwarded(Direction.TO_PASSIVE)).isZero();
    }

    @Test
    void stallStopsOneDirectionWhileTheOtherFlows() throws Exception {
        connect(Fault.of(Kind.STALL, Direction.TO_PASSIVE, 1000));
        active.getOutputStream().write(DATA, 0, 5000);
        assertThat(passive.getInputStream().readNBytes(1000)).isEqualTo(Arrays.copyOf(DATA, 1000));
        assertThat(proxy.awaitFired(10, TimeUnit.SECONDS)).isTrue();
        passive.getOutputStream().write(DATA, 0, 3000);
        assertThat(active.getInputStream().readNBytes(3000)).isEqualTo(Arrays.copyOf(DATA, 3000));
        passive.setSoTimeout(200);
        assertThatThrownBy(() -> passive.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        proxy.close(); // ends the stall with a reset
        passive.setSoTimeout(10_000);
        assertThatThrownBy(() -> readAll(passive.getInputStream())).isInstanceOf(SocketException.class);
    }

    @Test
    void delayAndSliceChangeTimingAndSegmentsButNoByte() throws Exception {
        for (Fault fault : new Fault[]{
                new Fault(Kind.DELAY, Direction.TO_PASSIVE, 7, Duration.ofMillis(50), 0),
                new Fault(Kind.SLICE, Direction.TO_PASSIVE, 3, Duration.ZERO, 2000)}) {
            connect(fault);
            long start = System.nanoTime();
            active.getOutputStream().write(DATA);
            active.shutdownOutput();
            assertThat(readAll(passive.getInputStream())).as(fault.toString()).isEqualTo(DATA);
            assertThat(proxy.fired()).isTrue();
            if (fault.kind() == Kind.DELAY) {
                assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
            }
            assertThat(fault.benign()).isTrue();
            proxy.close();
            active.close();
            passive.close();
        }
    }

    @Test
    void halfCloseEndsOneDirectionAndTheOtherKeepsFlowing() throws Exception {
        connect(Fault.of(Kind.HALF_CLOSE, Direction.TO_PASSIVE, 64));
        active.getOutputStream().write(DATA, 0, 1000);
        assertThat(readAll(passive.getInputStream())).isEqualTo(Arrays.copyOf(DATA, 64));
        passive.getOutputStream().write(DATA);
        passive.shutdownOutput();
        assertThat(readAll(active.getInputStream())).isEqualTo(DATA);
    }

    @Test
    void aFaultAtTheCloseHitsTheFin() throws Exception {
        connect(Fault.of(Kind.RST, Direction.TO_PASSIVE, Fault.AT_CLOSE));
        active.getOutputStream().write(DATA, 0, 100);
        assertThat(passive.getInputStream().readNBytes(100)).isEqualTo(Arrays.copyOf(DATA, 100));
        assertThat(proxy.fired()).isFalse();
        active.shutdownOutput();
        // instead of the end of the stream the passive end sees a reset
        assertThatThrownBy(() -> passive.getInputStream().read()).isInstanceOf(SocketException.class);
        assertThat(proxy.fired()).isTrue();
        assertThat(proxy.fault().toString()).isEqualTo("RST TO_PASSIVE at close");
    }

    @Test
    void aStallAtTheCloseHoldsTheFin() throws Exception {
        connect(Fault.of(Kind.STALL, Direction.TO_ACTIVE, Fault.AT_CLOSE));
        passive.getOutputStream().write(DATA, 0, 10);
        passive.shutdownOutput();
        assertThat(active.getInputStream().readNBytes(10)).isEqualTo(Arrays.copyOf(DATA, 10));
        assertThat(proxy.awaitFired(10, TimeUnit.SECONDS)).isTrue();
        active.setSoTimeout(200);
        assertThatThrownBy(() -> active.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
    }

    @RepeatedTest(20)
    void closingTheProxyEndsAStalledCloseWithAResetNotTheHeldFin() throws Exception {
        connect(Fault.of(Kind.STALL, Direction.TO_ACTIVE, Fault.AT_CLOSE));
        active.shutdownOutput();
        assertThat(passive.getInputStream().read()).isEqualTo(-1);
        passive.shutdownOutput(); // held by the stall
        assertThat(proxy.awaitFired(10, TimeUnit.SECONDS)).isTrue();
        proxy.close();
        // the network ended the stall: a reset, never the FIN the proxy held back
        assertThatThrownBy(() -> active.getInputStream().read()).isInstanceOf(SocketException.class);
    }

    @Test
    void faultsRejectBadFields() {
        assertThatThrownBy(() -> Fault.of(Kind.FIN, Direction.TO_ACTIVE, -2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Fault(Kind.SLICE, Direction.TO_ACTIVE, 0, Duration.ZERO, -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Fault.of(Kind.DELAY, Direction.TO_ACTIVE, 5).toString()).isEqualTo("DELAY TO_ACTIVE at byte 5 for 100 ms");
    }

    private static void writeQuietly(Socket s, byte[] data) {
        try {
            s.getOutputStream().write(data);
        } catch (IOException e) {
            // the cut may come while writing
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + (i >>> 8));
        }
        return b;
    }
}
