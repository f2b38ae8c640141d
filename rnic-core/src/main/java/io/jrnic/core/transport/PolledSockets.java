package io.jrnic.core.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.EpollSocketChannel;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The epoll stream sockets of one {@link DrivableEventLoop}, which a non-blocking pass over the
 * loop (an application thread's drive, the I/O thread's spin after work or its
 * {@code IoMode.BUSY_POLLING} spin) reads with one {@code recv} each instead of first asking
 * {@code epoll_wait} which of them are readable (issue 11, docs/transport.md "Polled reads"). Such
 * passes come back to back; with a socket or two on the loop, a {@code recv} that finds nothing
 * costs what an empty {@code epoll_wait} costs, and one that finds an FPDU saves the
 * {@code epoll_wait} in front of it: one system call less per received message, as a raw-TCP
 * ping-pong that busy-polls its socket pays. With more sockets the reads of the idle ones would
 * cost more than they save, and the pass asks epoll as before ({@link #LIMIT}). The I/O thread's
 * blocking turn always waits in epoll.
 *
 * <p>epoll still runs, for what a read does not see: every {@link #EPOLL_EVERY}-th pass (a connect
 * finishing, an accept on a listening socket of this loop, netty's own wake-ups), and every pass
 * while a socket is not yet connected, has flushed bytes waiting for it to drain (EPOLLOUT), or
 * reads only on request (autoRead off: a paused receive, a connection not yet started), where the
 * EPOLLIN interest netty sets or drops says whether it may read, and a read of ours would not. A
 * read sees the rest: data, the peer's FIN (end of stream) and errors such as a reset. netty 4.2's
 * epoll is level-triggered (docs/transport.md), so a socket a read drained is not reported again,
 * and one a read left data in is reported by the next epoll pass: no event is lost.
 *
 * <p>The read is netty's own: the socket's {@link IoHandle} is handed an EPOLLIN event, as the epoll
 * handler would, so the channel reads, fires its pipeline and handles end of stream and errors as on
 * any event loop.
 *
 * <p>Thread safety: {@link #announce} from any thread; everything else on the loop's current thread
 * (the slot holder).
 */
final class PolledSockets {
    /** Sockets on a loop up to which a non-blocking pass reads each of them directly. */
    static final int LIMIT = 2;
    /** Passes that read directly still let epoll look once in this many. */
    static final int EPOLL_EVERY = 16;

    /** {@link #readEach}: the sockets were not read; the epoll handler must look. */
    static final int ASK_EPOLL = -1;

    private static final EpollIoEvent READABLE = () -> EpollIoOps.EPOLLIN;

    /** Socket channels being registered on the loop, by their handle (netty registers the channel's unsafe). */
    private final Map<Object, Channel> announced = new ConcurrentHashMap<>();
    private Channel[] channels = new Channel[LIMIT];
    private IoHandle[] handles = new IoHandle[LIMIT];
    private IoRegistration[] registrations = new IoRegistration[LIMIT];
    private int count;
    private int passesSinceEpoll;

    /**
     * A channel is about to register on the loop: an epoll stream socket is remembered until its
     * handle registers ({@link #registered}) or the registration fails. Any thread.
     *
     * @param channel      the channel
     * @param registration the promise of its registration
     */
    void announce(Channel channel, ChannelPromise registration) {
        if (channel instanceof EpollSocketChannel) {
            Object handle = channel.unsafe();
            announced.put(handle, channel);
            // a registration that fails before its handle reaches the loop (a closed channel, one
            // registered already, a loop shut down) must not leave the channel here
            registration.addListener(f -> announced.remove(handle));
        }
    }

    /** Channels announced whose handle has not registered (yet): none once registrations settle. */
    int announced() {
        return announced.size();
    }

    /**
     * A handle registered with the loop's epoll handler: an announced socket joins the polled ones
     * until it closes. Loop thread.
     *
     * @param handle       the handle
     * @param registration its registration, or null when registering failed
     */
    void registered(IoHandle handle, IoRegistration registration) {
        Channel channel = announced.remove(handle);
        if (channel == null || registration == null) {
            return;
        }
        if (count == channels.length) {
            channels = Arrays.copyOf(channels, 2 * count);
            handles = Arrays.copyOf(handles, 2 * count);
            registrations = Arrays.copyOf(registrations, 2 * count);
        }
        channels[count] = channel;
        handles[count] = handle;
        registrations[count] = registration;
        count++;
        channel.closeFuture().addListener(f -> remove(channel)); // runs on this loop
    }

    private void remove(Channel channel) {
        for (int i = 0; i < count; i++) {
            if (channels[i] == channel) {
                int last = --count;
                channels[i] = channels[last];
                handles[i] = handles[last];
                registrations[i] = registrations[last];
                channels[last] = null;
                handles[last] = null;
                registrations[last] = null;
                return;
            }
        }
    }

    /** Sockets registered now (package-private for tests). */
    int count() {
        return count;
    }

    /**
     * One non-blocking look at the sockets: reads each socket directly, or returns {@link #ASK_EPOLL}
     * without reading when epoll must look instead (see the class comment). Loop thread.
     *
     * @return the sockets whose read brought bytes (the loop's work, as the epoll handler counts
     *         its events), or {@link #ASK_EPOLL}
     */
    int readEach() {
        int n = count;
        if (n == 0 || n > LIMIT || ++passesSinceEpoll >= EPOLL_EVERY) {
            passesSinceEpoll = 0;
            return ASK_EPOLL;
        }
        for (int i = 0; i < n; i++) {
            Channel channel = channels[i];
            if (!channel.isActive() || !channel.config().isAutoRead() || waitsToWrite(channel)) {
                passesSinceEpoll = 0;
                return ASK_EPOLL;
            }
        }
        // Backwards: a read may close its channel (end of stream, an error), whose close listener
        // moves the last socket into its place at once; that one has been read already.
        int work = 0;
        for (int i = n - 1; i >= 0; i--) {
            if (i < count) {
                Channel channel = channels[i];
                long before = bytesRead(channel);
                handles[i].handle(registrations[i], READABLE);
                if (bytesRead(channel) != before) {
                    work++;
                }
            }
        }
        return work;
    }

    /**
     * The bytes a channel has read so far, as a connection's {@link PlacementRecvAllocator} counts
     * them (netty's own handle keeps no total); 0 for a channel without one, whose reads count as
     * no work.
     */
    private static long bytesRead(Channel channel) {
        return channel.config().getRecvByteBufAllocator() instanceof PlacementRecvAllocator placement
                ? placement.bytesRead : 0;
    }

    /** Flushed bytes the socket did not take: netty waits for EPOLLOUT to write them. */
    private static boolean waitsToWrite(Channel channel) {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out != null && !out.isEmpty();
    }
}
