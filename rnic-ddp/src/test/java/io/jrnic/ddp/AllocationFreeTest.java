package io.jrnic.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hot paths (segmenting, validating, STag and buffer lookup, dropping) allocate nothing per
 * segment: thousands of iterations may not allocate more than a small constant.
 */
class AllocationFreeTest {

    private static final int ITERATIONS = 20_000;
    // Far below one object per iteration; leaves room for the measuring call itself.
    private static final long ALLOWANCE_BYTES = 4096;

    // The module io.jrnic.ddp does not read java.management / jdk.management (and should not for a
    // test), so the thread MX bean is reached reflectively; tests run on the class path.
    private static MethodHandle allocatedBytes;

    private final Object region = new Object();
    private final DdpReceiver receiver = new DdpReceiver(DdpHeaderFlyweight.VERSION_IETF,
            DdpReceiver.rdmapQueueNumbers(true),
            (qn, msn) -> 1 << 20,
            (stag, rsvdUlp, descriptor) -> descriptor.valid(0, 1L << 40, true, region));
    private final DdpSegmenter segmenter = new DdpSegmenter();
    private final MemorySegment wire = MemorySegment.ofArray(new byte[1500]);

    @BeforeAll
    static void findAllocationCounter() throws Throwable {
        Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        Class<?> beanType = Class.forName("com.sun.management.ThreadMXBean");
        Assumptions.assumeTrue(beanType.isInstance(threads), "no per-thread allocation counter in this JVM");
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        boolean enabled = (boolean) lookup.findVirtual(beanType, "isThreadAllocatedMemoryEnabled",
                MethodType.methodType(boolean.class)).invoke(beanType.cast(threads));
        Assumptions.assumeTrue(enabled, "per-thread allocation counting is disabled");
        allocatedBytes = lookup.findVirtual(beanType, "getCurrentThreadAllocatedBytes", MethodType.methodType(long.class))
                .bindTo(threads);
    }

    private static long allocated() {
        try {
            return (long) allocatedBytes.invokeExact();
        } catch (Throwable e) {
            throw new AssertionError("cannot read the thread's allocation counter", e);
        }
    }

    @Test
    void segmentingAndValidatingDoNotAllocate() {
        roundTrips(ITERATIONS); // warm up: class loading and lambda linkage allocate once

        long before = allocated();
        int accepted = roundTrips(ITERATIONS);
        long allocated = allocated() - before;

        assertThat(accepted).isEqualTo(ITERATIONS * 4);
        assertThat(allocated).as("bytes allocated by %d round trips", ITERATIONS).isLessThan(ALLOWANCE_BYTES);
    }

    @Test
    void droppingDoesNotAllocate() {
        receiver.stop();
        new UntaggedHeaderFlyweight().wrap(wire, 0).encode(true, 1, 0x43, 0, 0, 1, 0);
        for (int i = 0; i < ITERATIONS; i++) {
            receiver.onSegment(wire, 0, 100);
        }

        long before = allocated();
        for (int i = 0; i < ITERATIONS; i++) {
            receiver.onSegment(wire, 0, 100);
        }
        long allocated = allocated() - before;

        assertThat(receiver.droppedSegments()).isEqualTo(2L * ITERATIONS);
        assertThat(allocated).isLessThan(ALLOWANCE_BYTES);
    }

    private int roundTrips(int messages) {
        int accepted = 0;
        for (int i = 0; i < messages; i++) {
            // A two-segment Write and a two-segment Send per iteration.
            segmenter.resetTagged(1500, 1, 0x40, 0x100, 4096L * i, 2048);
            while (segmenter.next(wire, 0)) {
                accepted += receiver.onSegment(wire, 0, segmenter.ulpduLength()).accepted() ? 1 : 0;
            }
            segmenter.resetUntagged(1500, 1, 0x43, 0, DdpReceiver.QN_SEND, receiver.expectedMsn(0), 0, 2048);
            while (segmenter.next(wire, 0)) {
                accepted += receiver.onSegment(wire, 0, segmenter.ulpduLength()).accepted() ? 1 : 0;
            }
        }
        return accepted;
    }
}
