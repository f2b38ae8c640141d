package io.jrnic.core.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoEvent;
import io.netty.channel.nio.NioIoOps;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stream sockets (epoll and NIO) of one {@link DrivableEventLoop}, which a non-blocking pass
 * over the loop (an application thread's drive, the I/O thread's spin after work or its
 * {@code IoMode.BUSY_POLLING} spin) reads with one {@code recv} each instead of first asking
 * {@code epoll_wait} (NIO: the selector's {@code selectNow}) which of them are readable (issue 11,
 * docs/transport.md "Polled reads"). Such passes come back to back; with a socket or two on the
 * loop, a {@code recv} that finds nothing costs what an empty {@code epoll_wait} costs, and one
 * that finds an FPDU saves the {@code epoll_wait} in front of it: one system call less per received
 * message, as a raw-TCP ping-pong that busy-polls its socket pays. With more sockets the reads of
 * the idle ones would cost more than they save, and the pass asks epoll as before ({@link #LIMIT}).
 * The I/O thread's blocking turn always waits in epoll.
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
 * <p>While application threads drive the loop, its polled epoll sockets also leave the epoll set
 * (issue 11; a NIO selector keeps its keys): the kernel runs epoll's wake-up callback for every
 * segment that reaches a socket in an epoll set, whatever its interest, which cost about 0.2 µs of
 * a loopback half round trip (docs/benchmarks.md, "Issue 11, 2026-11-25 04:40-06:30 UTC"). Each
 * socket's registration, as its channel holds it, is a {@link Suspendable} on epoll: an
 * application's pass gives netty's registration up ({@code epoll_ctl(DEL)}), and the socket
 * registers again, with the interest netty asked for meanwhile, before anything needs epoll to see
 * it: a pass that must ask epoll for its sake (the conditions above), the I/O thread's blocking
 * turn, the loop's shutdown. The periodic epoll pass reads the sockets directly as well, so a
 * suspended socket is never left unread. The I/O thread's own non-blocking passes read them as they
 * are and suspend nothing: it serves when no application does, and takes a blocking turn soon.
 *
 * <p>The read is netty's own: the socket's {@link IoHandle} is handed an EPOLLIN event (NIO: an
 * OP_READ one), as the handler would, so the channel reads, fires its pipeline and handles end of
 * stream and errors as on any event loop.
 *
 * <p>Thread safety: {@link #announce} from any thread; everything else on the loop's current thread
 * (the slot holder).
 */
final class PolledSockets {
    private static final Logger LOG = LoggerFactory.getLogger(PolledSockets.class);
    /** Sockets on a loop up to which a non-blocking pass reads each of them directly. */
    static final int LIMIT = 2;
    /** Passes that read directly still let epoll look once in this many. */
    static final int EPOLL_EVERY = 16;

    /** {@link #readEach}: the sockets were not read; the epoll handler must look. */
    static final int ASK_EPOLL = -1;

    private static final EpollIoEvent EPOLL_READABLE = () -> EpollIoOps.EPOLLIN;
    private static final NioIoEvent NIO_READABLE = () -> NioIoOps.READ;

    /** Socket channels being registered on the loop, by their handle (netty registers the channel's unsafe). */
    private final Map<Object, Channel> announced = new ConcurrentHashMap<>();
    private Channel[] channels = new Channel[LIMIT];
    private IoHandle[] handles = new IoHandle[LIMIT];
    private IoRegistration[] registrations = new IoRegistration[LIMIT];
    /** The event that has a socket's handle read: epoll's EPOLLIN or NIO's OP_READ. */
    private IoEvent[] readable = new IoEvent[LIMIT];
    private int count;
    private int passesSinceEpoll;
    /**
     * Whether {@link #suspendAll} ran since the last {@link #resumeAll}: only then may a socket be
     * out of the epoll set. A loop with more than {@link #LIMIT} sockets never suspends, and its
     * passes call {@code resumeAll} every time: without this, each pass visited every socket's
     * registration, a thousand cold objects per pass on a loop of a thousand QPs (issue 11).
     */
    private boolean anySuspended;
    /** Registrations {@link #resumeAll} has visited (tests: not one per pass per socket). */
    long resumeVisits;
    /** The loop's epoll handler, with which a suspended socket registers again to resume. */
    private final IoHandler handler;

    /**
     * @param handler the loop's I/O handler (a socket leaves and rejoins its epoll set)
     */
    PolledSockets(IoHandler handler) {
        this.handler = handler;
    }

    /**
     * A channel is about to register on the loop: a stream socket (epoll or NIO) is remembered until
     * its handle registers ({@link #registered}) or the registration fails. Any thread.
     *
     * @param channel      the channel
     * @param registration the promise of its registration
     */
    void announce(Channel channel, ChannelPromise registration) {
        if (channel instanceof EpollSocketChannel || channel instanceof NioSocketChannel) {
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
     * A handle registered with the loop's handler: an announced socket joins the polled ones
     * until it closes. Loop thread.
     *
     * @param handle       the handle
     * @param registration its registration, or null when registering failed
     */
    IoRegistration registered(IoHandle handle, IoRegistration registration) {
        Channel channel = announced.remove(handle);
        if (channel == null || registration == null) {
            return registration;
        }
        // An epoll socket may leave the epoll set while applications poll it (suspendAll); NIO's
        // selector keeps its keys, and the channel keeps netty's registration.
        boolean epoll = channel instanceof EpollSocketChannel;
        IoRegistration kept = epoll ? new Suspendable(handle, registration) : registration;
        if (count == channels.length) {
            channels = Arrays.copyOf(channels, 2 * count);
            handles = Arrays.copyOf(handles, 2 * count);
            registrations = Arrays.copyOf(registrations, 2 * count);
            readable = Arrays.copyOf(readable, 2 * count);
        }
        channels[count] = channel;
        handles[count] = handle;
        registrations[count] = kept;
        readable[count] = epoll ? EPOLL_READABLE : NIO_READABLE;
        count++;
        channel.closeFuture().addListener(f -> remove(channel)); // runs on this loop
        return kept;
    }

    private void remove(Channel channel) {
        for (int i = 0; i < count; i++) {
            if (channels[i] == channel) {
                int last = --count;
                channels[i] = channels[last];
                handles[i] = handles[last];
                registrations[i] = registrations[last];
                readable[i] = readable[last];
                channels[last] = null;
                handles[last] = null;
                registrations[last] = null;
                readable[last] = null;
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
     * without reading when epoll must look instead (see the class comment). An application's pass
     * then takes the sockets out of the epoll set ({@link #suspendAll}). Loop thread.
     *
     * @param application whether an application thread drives (not the I/O thread)
     * @return the sockets whose read brought bytes (the loop's work, as the epoll handler counts
     *         its events), or {@link #ASK_EPOLL}
     */
    int readEach(boolean application) {
        int n = count;
        if (n == 0 || n > LIMIT) {
            resumeAll();
            return ASK_EPOLL;
        }
        for (int i = 0; i < n; i++) {
            Channel channel = channels[i];
            if (!channel.isActive() || !channel.config().isAutoRead() || waitsToWrite(channel)) {
                passesSinceEpoll = 0;
                resumeAll(); // epoll must see this socket's interest now
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
                handles[i].handle(registrations[i], readable[i]);
                if (bytesRead(channel) != before) {
                    work++;
                }
            }
        }
        if (application) {
            suspendAll();
        }
        return work;
    }

    /**
     * Whether this pass should also let epoll look, for what a read does not see (every
     * {@value #EPOLL_EVERY}-th pass): a connect finishing, an accept, netty's own wake-ups. Loop thread.
     */
    boolean epollDue() {
        if (++passesSinceEpoll >= EPOLL_EVERY) {
            passesSinceEpoll = 0;
            return true;
        }
        return false;
    }

    /**
     * Takes the polled sockets out of the loop's epoll set while application threads read them:
     * the kernel runs a wake-up callback for every segment of a socket in an epoll set (about 0.2
     * µs of a loopback half round trip, issue 11; docs/transport.md "Polled reads"). Loop thread.
     */
    private void suspendAll() {
        anySuspended = true;
        for (int i = 0; i < count; i++) {
            if (registrations[i] instanceof Suspendable epoll) {
                epoll.suspend();
            }
        }
    }

    /**
     * Puts every suspended socket back into the epoll set, with the interest netty last asked for:
     * before anything waits on epoll or needs it to see these sockets. Loop thread.
     */
    void resumeAll() {
        if (!anySuspended) {
            return;
        }
        anySuspended = false;
        resumeVisits += count;
        for (int i = 0; i < count; i++) {
            if (registrations[i] instanceof Suspendable epoll) {
                epoll.resume();
            }
        }
    }

    /** Sockets out of the epoll set now (tests). */
    int suspended() {
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (registrations[i] instanceof Suspendable epoll && epoll.inner == null) {
                n++;
            }
        }
        return n;
    }

    /**
     * A polled socket's registration as its channel sees it: netty's registration with the loop's
     * epoll handler, which this one can give up ({@link #suspend}: the socket leaves the epoll set)
     * and take again ({@link #resume}), keeping the interest netty submits meanwhile and handing it
     * on at the resume. What needs epoll for such a socket resumes it first: the next pass finds
     * it waiting to write (EPOLLOUT) or reading on request only (EPOLLIN dropped), or the I/O thread
     * is about to wait. Loop thread, but {@link #cancel} (netty's, any thread).
     */
    private final class Suspendable implements IoRegistration {
        private final IoHandle handle;
        private final Object attachment;
        /** netty's registration, or null while the socket is out of the epoll set. */
        private IoRegistration inner;
        /** The interest netty last submitted, or null. */
        private IoOps ops;
        private volatile boolean cancelled;

        Suspendable(IoHandle handle, IoRegistration inner) {
            this.handle = handle;
            this.inner = inner;
            this.attachment = inner.attachment();
        }

        void suspend() {
            IoRegistration current = inner;
            if (current == null || cancelled) {
                return;
            }
            inner = null;
            current.cancel(); // on the loop: epoll_ctl(DEL) now (the slot holder is the executor thread)
        }

        void resume() {
            if (inner != null || cancelled) {
                return;
            }
            try {
                IoRegistration again = handler.register(handle);
                inner = again;
                if (ops != null) {
                    again.submit(ops);
                }
            } catch (Exception e) {
                // the socket is gone (closed under us): its close reports it; nothing to wait on
                LOG.debug("a polled socket could not rejoin the epoll set", e);
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) attachment;
        }

        @Override
        public long submit(IoOps next) {
            ops = next;
            IoRegistration current = inner;
            return current == null ? ((EpollIoOps) next).value() : current.submit(next); // suspended: at the resume
        }

        @Override
        public boolean isValid() {
            return !cancelled;
        }

        @Override
        public boolean cancel() {
            cancelled = true;
            IoRegistration current = inner;
            return current == null || current.cancel(); // suspended: out of the set already; netty's is idempotent
        }
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
