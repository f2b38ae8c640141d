package io.jrnic.core;

import io.jrnic.core.transport.ChannelClosure;
import io.jrnic.core.transport.ChannelListener;
import io.jrnic.core.transport.ConnectionInfo;
import io.jrnic.core.transport.FpduChannel;
import io.jrnic.mpa.FpduHandler;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;

/**
 * The {@link FpduLink} of a netty {@link FpduChannel}: what a {@link QpEngine} runs on once MPA setup
 * has finished. A thin adapter: every call goes straight through; the channel's closure is mapped
 * one to one, and the first MSNs come from the setup hand-off, which knows what the RTR consumed
 * (RFC 6581 §9.3, {@link ConnectionInfo}). The engine's handler is passed through unchanged, so a
 * {@link io.jrnic.mpa.PlacementHandler} keeps direct placement into registered memory.
 *
 * <p>Thread safety: as {@link FpduChannel}: {@link #start}, {@link #send} and {@link #flush} on
 * {@link #executor()}, {@link #close()} and {@link #abort()} from any thread.
 */
final class ChannelLink implements FpduLink {
    private final FpduChannel channel;
    private final ConnectionInfo info;
    private final boolean gracefulReceiveOverflow;

    /**
     * Wraps an established channel that has not been started; a Send finding no receive WQE
     * terminates the stream (RFC 5040 §5.3).
     *
     * @param channel the channel
     * @throws IllegalArgumentException if channel is null
     */
    ChannelLink(FpduChannel channel) {
        this(channel, false);
    }

    /**
     * Wraps an established channel that has not been started.
     *
     * @param channel                 the channel
     * @param gracefulReceiveOverflow pause reading instead of terminating when a Send finds no
     *                                receive WQE (V-WRP-65, see {@link FpduLink#gracefulReceiveOverflow()})
     * @throws IllegalArgumentException if channel is null
     */
    ChannelLink(FpduChannel channel, boolean gracefulReceiveOverflow) {
        if (channel == null) {
            throw new IllegalArgumentException("channel must not be null");
        }
        this.channel = channel;
        this.info = channel.info();
        this.gracefulReceiveOverflow = gracefulReceiveOverflow;
    }

    /** The wrapped channel (statistics, addresses). */
    FpduChannel channel() {
        return channel;
    }

    @Override
    public Executor executor() {
        return channel.executor();
    }

    @Override
    public int mulpdu() {
        return channel.mulpdu();
    }

    @Override
    public int firstOutboundSendMsn() {
        return info.nextOutboundSendMsn();
    }

    @Override
    public int firstOutboundReadRequestMsn() {
        return info.nextOutboundReadRequestMsn();
    }

    @Override
    public int firstInboundSendMsn() {
        return info.nextInboundSendMsn();
    }

    @Override
    public int firstInboundReadRequestMsn() {
        return info.nextInboundReadRequestMsn();
    }

    @Override
    public boolean gracefulReceiveOverflow() {
        return gracefulReceiveOverflow;
    }

    /** Stops socket reads: netty's autoRead goes off, TCP flow control holds the peer (V-WRP-66). */
    @Override
    public void pauseReceive() {
        channel.receivePaused(true);
    }

    @Override
    public void resumeReceive() {
        channel.receivePaused(false);
    }

    @Override
    public long bytesPlacedDirect() {
        return channel.bytesPlacedDirect();
    }

    @Override
    public void start(FpduHandler handler, Listener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        channel.start(handler, new ChannelListener() {
            @Override
            public void onWritable() {
                listener.onWritable();
            }

            @Override
            public void onSent(long token) {
                listener.onSent(token);
            }

            @Override
            public void onClosed(ChannelClosure closure) {
                listener.onClosed(closure(closure));
            }
        });
    }

    /** The link's name for a channel closure (the two enums mirror each other). */
    static Closure closure(ChannelClosure c) {
        return switch (c) {
            case LOCAL_CLOSE -> Closure.LOCAL_CLOSE;
            case LOCAL_ABORT -> Closure.LOCAL_ABORT;
            case REMOTE_CLOSE -> Closure.REMOTE_CLOSE;
            case REMOTE_CLOSE_MID_FPDU -> Closure.REMOTE_CLOSE_MID_FPDU;
            case REMOTE_RESET -> Closure.REMOTE_RESET;
            case CONNECTION_LOST -> Closure.CONNECTION_LOST;
            case TRANSPORT_CLOSED -> Closure.TRANSPORT_CLOSED;
        };
    }

    @Override
    public boolean send(MemorySegment header, long headerOffset, int headerLength,
                        MemorySegment payload, long payloadOffset, int payloadLength) {
        return channel.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
    }

    @Override
    public boolean send(MemorySegment header, long headerOffset, int headerLength,
                        MemorySegment payload, long payloadOffset, int payloadLength, long token) {
        return channel.send(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, token);
    }

    @Override
    public void flush() {
        channel.flush();
    }

    @Override
    public void close() {
        channel.close();
    }

    @Override
    public void abort() {
        channel.abort();
    }

    @Override
    public String toString() {
        return "ChannelLink[" + channel + "]";
    }
}
