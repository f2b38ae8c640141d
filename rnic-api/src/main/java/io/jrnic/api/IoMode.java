package io.jrnic.api;

/**
 * How an RNIC's connections make progress: who runs the protocol work (framing, placement,
 * completions) and who waits on the sockets. Chosen per RNIC ({@link RnicConfig#ioMode}); every
 * mode keeps SQ order, one writer per QP, exactly-once completion and flow control, and none
 * allocates on the data path.
 *
 * <p>Thread safety: immutable enum, safe to share.
 */
public enum IoMode {
    /**
     * The RNIC's I/O threads run the protocol work and block on the sockets when idle (the
     * default): they read, place and complete everything that arrives, and the completion reaches
     * the polling thread through the CQ. No application thread spins; each hop that finds its thread
     * asleep pays a wake-up (docs/benchmarks.md). A post made while its connection's I/O thread waits
     * on the sockets frames and writes on the posting thread ({@link RnicConfig#callerTransmit}, on by
     * default); otherwise it is handed to the I/O thread.
     */
    EVENT_LOOP,

    /**
     * The application's threads run the protocol work themselves, without a wake-up between the
     * application and the socket: a post frames and writes its FPDUs on the posting thread when the
     * QP's connection is free (as Linux siw runs a post inside the system call), and a CQ poll that
     * finds the queue empty first runs the receive work of the connections whose QPs feed that CQ.
     * The RNIC's I/O thread of a connection takes over when no application thread has driven it for
     * a short while (the socket would block, nobody polls, a passive RDMA Read or Write target), so
     * progress never depends on the application polling; it then runs as in {@link #EVENT_LOOP}
     * until an application thread drives again.
     *
     * <p>The price is CPU: latency is lowest when the application busy-polls its CQs. Completion
     * handlers and asynchronous event handlers may run on the posting or polling thread.
     */
    POLLING,

    /**
     * Like {@link #POLLING}, and the RNIC's I/O threads never sleep: each spins over its
     * connections' sockets without blocking, so bytes that arrive are read, placed and completed at
     * once even when no application thread polls, and application threads that post or poll still
     * run the work themselves when they find the loop free. One core per I/O thread is the price;
     * it pays only on a machine with cores to spare (docs/benchmarks.md compares the modes).
     */
    BUSY_POLLING
}
