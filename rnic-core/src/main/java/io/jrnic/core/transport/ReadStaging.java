package io.jrnic.core.transport;

import io.netty.buffer.ByteBuf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The receive staging memory of one event loop, shared by the connections it serves: the buffer a
 * socket read lands in when it does not go straight to a placement target. A loop runs one
 * connection's read at a time (its thread, or the one application thread that drives it in polling
 * mode), and what a read brings is consumed before the read returns: FPDUs lying whole in it are
 * handed on as slices and handled at once, the rest is copied out (the deframer's reassembly, the
 * setup handler's pending bytes). So no connection needs staging of its own between two of its
 * reads, and a thousand idle connections on two loops hold two staging areas instead of a
 * thousand (64 KiB of native memory per connection end before, issue 11: memory per idle QP).
 *
 * <p>Thread safety: created on any thread ({@link IwarpTransport#stagingFor}); used by the loop's
 * current thread only.
 */
final class ReadStaging {
    /** The staging memory. */
    final MemorySegment memory;
    /** All of it, as netty reads into it ({@link RxWindow}: by its address on epoll). */
    final ByteBuf whole;
    /** Its first bytes, as many as a cut read takes ({@link #cut}). */
    private final RxWindow head = new RxWindow();

    ReadStaging(int size) {
        this.memory = Arena.ofAuto().allocate(size);
        this.whole = new RxWindow().open(memory, 0, size);
    }

    /**
     * The staging memory's first {@code length} bytes (at most all of it) as the buffer of one read
     * that must stop there: a read cut after a header, so that the payload behind it can be read
     * into its target. Reference count 1; the release after the read frees nothing.
     */
    ByteBuf cut(int length) {
        return head.open(memory, 0, (int) Math.min(length, memory.byteSize()));
    }

    /** Whether {@code buf} is this staging memory (whole or cut). */
    boolean holds(ByteBuf buf) {
        return buf == whole || buf == head;
    }
}
