package io.jrnic.ddp;

/**
 * The ULP's answer to "is there an untagged buffer for this message, and how large is it?"
 * (RFC 5041 §5.1.2, §7.1 checks 2 to 4).
 *
 * <p>Untagged buffers (receive queue WQEs, the IRRQ slots of QN 1, the Terminate buffer of QN 2) belong
 * to the QP layer in rnic-core, so DDP asks through this interface instead of owning them.
 * {@link DdpReceiver} calls it exactly once per untagged message, on the message's first segment and
 * only after the QN and MSN have passed their checks; the implementation may therefore bind (dequeue)
 * the buffer for {@code (queueNumber, msn)} in that call. (After {@link #DEFER} it is asked again
 * when the segment is presented again.) Zero-length messages are asked about too,
 * because they consume a buffer as well (RFC 5040 §5.3).
 *
 * <p>Implementations are called on the thread that drives the {@link DdpReceiver} and must not
 * allocate on that path.
 */
@FunctionalInterface
public interface UntaggedBufferResolver {

    /** Returned by {@link #bufferCapacity} when no buffer is available: UNTAGGED_NO_BUFFER. */
    long NO_BUFFER = -1;

    /**
     * Returned by {@link #bufferCapacity} when no buffer is available yet but the ULP prefers to wait
     * for one instead of failing the stream: the "recover by LLP means" option of RFC 5041 §7.1
     * check 2 (for example, stop reading the socket until a receive WQE is posted). The receiver then
     * changes no state and answers {@link InboundSegment.Outcome#DEFERRED}; the caller presents the
     * same segment again later.
     */
    long DEFER = -2;

    /**
     * The capacity of the buffer for the message {@code msn} on queue {@code queueNumber}.
     *
     * @param queueNumber the QN of the message, one of the receiver's configured queue numbers
     * @param msn         the message's MSN, an unsigned 32-bit value
     * @return the buffer capacity in octets ({@code >= 0}), {@link #NO_BUFFER} or {@link #DEFER}
     */
    long bufferCapacity(int queueNumber, int msn);
}
