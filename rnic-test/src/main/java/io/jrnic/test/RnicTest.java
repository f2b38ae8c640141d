package io.jrnic.test;

import io.jrnic.api.RnicExtension;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives a JUnit Jupiter test two connected RNICs: registers {@link RnicPairExtension}, which
 * resolves {@link RnicPair} (and {@link io.jrnic.api.Connection}) parameters, and configures the
 * pair it opens. On a class it applies to every test method; on a method it replaces the class's
 * settings for that method (the nearest annotation wins as a whole, attributes are not merged).
 *
 * <pre>{@code
 * @RnicTest(crc = false, markers = true, ird = 8, ord = 8)
 * class MarkersTest {
 *     @Test
 *     void readBack(RnicPair pair) throws Exception { ... }
 * }
 * }</pre>
 *
 * <p>Every attribute has the default that jrnic's own loopback tests use. Settings that the
 * annotation does not name keep the library defaults ({@link io.jrnic.api.ConnectionSettings},
 * {@link io.jrnic.api.QueuePairConfig}, {@link io.jrnic.api.RnicConfig}).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@ExtendWith(RnicPairExtension.class)
public @interface RnicTest {
    /**
     * Whether FPDUs carry CRC32c (RFC 5044 §4.4): true makes both ends send C=1
     * ({@link io.jrnic.api.CrcMode#OPTIONAL}), false makes both send C=0
     * ({@link io.jrnic.api.CrcMode#OFF}), which turns CRCs off on the wire.
     *
     * @return the CRC setting of both ends
     */
    boolean crc() default true;

    /**
     * Whether both ends ask for markers (RFC 5044 §5, M=1), so that FPDUs carry them in both
     * directions.
     *
     * @return true for markers both ways
     */
    boolean markers() default false;

    /**
     * Send queue depth of both queue pairs.
     *
     * @return maximum outstanding send work requests
     */
    int sqDepth() default 256;

    /**
     * Receive queue depth of both queue pairs.
     *
     * @return maximum outstanding receive work requests
     */
    int rqDepth() default 256;

    /**
     * Entries of each end's completion queue (shared by its send and receive queue).
     *
     * @return the minimum CQ size
     */
    int cqDepth() default 1024;

    /**
     * Inbound RDMA Read depth of both queue pairs, proposed in the MPA frames (RFC 6581 §9.1).
     *
     * @return the IRD
     */
    int ird() default 4;

    /**
     * Outbound RDMA Read depth of both queue pairs, proposed in the MPA frames (RFC 6581 §9.1).
     *
     * @return the ORD
     */
    int ord() default 4;

    /**
     * The protocol extensions both RNICs support ({@link io.jrnic.api.RnicConfig#extensions}).
     *
     * @return the extensions, all of them by default
     */
    RnicExtension[] extensions() default {RnicExtension.ATOMICS, RnicExtension.IMMEDIATE_DATA,
            RnicExtension.RDMA_FLUSH, RnicExtension.RDMA_VERIFY, RnicExtension.ATOMIC_WRITE,
            RnicExtension.INLINE_DATA};

    /**
     * Inline bytes per send work request of both queue pairs (0 disables inline data); ignored
     * (0) when {@link #extensions()} leaves out {@link RnicExtension#INLINE_DATA}.
     *
     * @return the inline limit
     */
    int maxInlineData() default 64;

    /**
     * What carries the stream between the two ends; {@link Link#LOOPBACK} is the only link today.
     *
     * @return the link
     */
    Link link() default Link.LOOPBACK;

    /**
     * The bound, in seconds, of the kit's waits: connection setup, and the completion and event
     * waits of {@link RnicPair.Endpoint}. (The graceful close after a test is bounded by the
     * connection's own close timeout, ten seconds and a margin, see
     * {@link io.jrnic.api.Connection#close()}.)
     *
     * @return seconds
     */
    long timeoutSeconds() default 10;

    /**
     * Whether a test that passed fails when it leaves completions unreaped: a completion nobody
     * looked at is usually a result nobody checked (an error completion, a Send that never
     * completed). After the test the kit closes both connections gracefully (Verbs §6.6.2.1), so
     * that every work request the test posted has its completion in the CQ whatever the timing (an
     * outstanding one is flushed by the Bad Close), then fails the test if a completion is left
     * other than a flushed receive (posting more receives than a test consumes is normal). Reap
     * completions with the endpoint's {@code await} methods or discard them with
     * {@link RnicPair.Endpoint#drain()}. Off, the connections are not closed gracefully: the RNICs
     * are closed at once, as after a failed test.
     *
     * @return true to fail tests that leave completions
     */
    boolean requireReaped() default true;
}
