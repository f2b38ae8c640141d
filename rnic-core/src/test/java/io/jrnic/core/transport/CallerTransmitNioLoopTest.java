package io.jrnic.core.transport;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.nio.NioIoHandle;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.nio.NioIoOps;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectableChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CallerTransmitLoopTest} on NIO sockets: the selector waits without the loop's slot as epoll
 * does, and a change to its keys that a holder makes meanwhile (an interest set, as a write the socket
 * did not take whole asks for OP_WRITE) wakes the I/O thread when the holder leaves -- a waiting
 * selector would only see it at its next selection.
 */
class CallerTransmitNioLoopTest extends CallerTransmitLoopTest {
    @Override
    IoHandlerFactory handlerFactory() {
        return NioIoHandler.newFactory();
    }

    @Override
    Class<? extends io.netty.channel.Channel> channelClass() {
        return io.netty.channel.socket.nio.NioSocketChannel.class;
    }

    @Test
    void anInterestTheHolderSetsWakesTheIoThreadWhenTheHolderLeaves() throws Exception {
        try (Connection connection = Connection.open()) {
            SocketChannel client = connection.client();
            WritableProbe probe = new WritableProbe(client);
            IoRegistration registration = loop.register(probe).get(WAIT_SECONDS, TimeUnit.SECONDS);
            awaitIoThreadWaiting(); // with no interest and nothing scheduled it waits up to a second
            AtomicLong askedAt = new AtomicLong();
            assertThat(loop.tryRun(() -> {
                askedAt.set(System.nanoTime());
                registration.submit(NioIoOps.WRITE); // the socket is writable: the next selection reports it
            })).isTrue();
            assertThat(probe.writable.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(probe.ranOn.get()).isEqualTo("caller-transmit-io");
            // without the wake-up the selector sees the interest when its idle wait of a second ends
            assertThat(TimeUnit.NANOSECONDS.toMillis(probe.at.get() - askedAt.get()))
                    .as("ms from asking for OP_WRITE to the event").isLessThan(700);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!loop.tryRun(registration::cancel)) { // the I/O thread may hold the loop a moment
                assertThat(System.nanoTime()).as("the loop is free again").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
    }

    /**
     * An abortive close by a holder (SO_LINGER 0, as a connection's reset): the JDK closes a socket
     * registered with a selector only once its cancelled key is deregistered, at the selector's next
     * selection, so the RST leaves when the I/O thread wakes -- at once, not at its wait's end.
     */
    @Test
    void aKeyTheHolderCancelsWakesTheIoThreadSoTheResetLeaves() throws Exception {
        try (Connection connection = Connection.open()) {
            SocketChannel client = connection.client();
            IoRegistration registration = loop.register(new WritableProbe(client)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            awaitIoThreadWaiting(); // with no interest and nothing scheduled it waits up to a second
            AtomicLong closedAt = new AtomicLong();
            assertThat(loop.tryRun(() -> {
                try {
                    client.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
                    client.close(); // netty's doClose, then its deregistration:
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                registration.cancel();
                closedAt.set(System.nanoTime());
            })).isTrue();
            connection.accepted().socket().setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            java.io.InputStream in = connection.accepted().socket().getInputStream();
            org.assertj.core.api.Assertions.assertThatThrownBy(in::read).as("the peer sees the reset")
                    .isInstanceOf(java.net.SocketException.class);
            // without the wake-up the socket is closed when the I/O thread's idle wait of a second ends
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt.get()))
                    .as("ms from the close to the reset at the peer").isLessThan(700);
        }
    }

    /** A loopback connection: the client's end non-blocking (to register), the accepted end blocking. */
    private record Connection(ServerSocketChannel server, SocketChannel client, SocketChannel accepted)
            implements AutoCloseable {
        static Connection open() throws java.io.IOException {
            ServerSocketChannel server = ServerSocketChannel.open()
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel client = SocketChannel.open(server.getLocalAddress());
            client.configureBlocking(false);
            return new Connection(server, client, server.accept());
        }

        @Override
        public void close() throws java.io.IOException {
            try (server; client; accepted) {
                // closed in reverse order
            }
        }
    }

    /** A socket registered with no interest: records the first writable event. */
    private static final class WritableProbe implements NioIoHandle {
        private final SocketChannel channel;
        final CountDownLatch writable = new CountDownLatch(1);
        final AtomicLong at = new AtomicLong();
        final AtomicReference<String> ranOn = new AtomicReference<>();

        WritableProbe(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public SelectableChannel selectableChannel() {
            return channel;
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            if (writable.getCount() > 0) {
                at.set(System.nanoTime());
                ranOn.set(Thread.currentThread().getName());
                writable.countDown();
            }
            registration.submit(NioIoOps.NONE); // once is enough: no busy selector
        }

        @Override
        public void close() {
            // the test closes the socket
        }
    }
}
