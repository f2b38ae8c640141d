package io.jrnic.mpa;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CRC over an FPDU alternates between a few buffers (framing bytes, reassembly buffer, registered
 * memory); after the first view of each, that must allocate nothing. The counter is reached by
 * reflection because the module does not read java.management.
 */
class Crc32cAllocationTest {
    private static MethodHandle allocatedBytes;

    @BeforeAll
    static void findAllocationCounter() throws Throwable {
        Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        Class<?> beanType = Class.forName("com.sun.management.ThreadMXBean");
        allocatedBytes = MethodHandles.publicLookup()
                .findVirtual(beanType, "getCurrentThreadAllocatedBytes", MethodType.methodType(long.class))
                .bindTo(threads);
    }

    private static long allocated() throws Throwable {
        return (long) allocatedBytes.invokeExact();
    }

    @Test
    void alternatingBetweenThreeSegmentsDoesNotAllocate() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(64);
            MemorySegment payload = arena.allocate(65536);
            MemorySegment trailer = MemorySegment.ofArray(new byte[8]);
            Crc32c crc = new Crc32c();
            int value = 0;
            for (int i = 0; i < 20_000; i++) { // warm up: one view per segment, JIT
                value ^= fpdu(crc, header, payload, trailer);
            }
            long before = allocated();
            for (int i = 0; i < 20_000; i++) {
                value ^= fpdu(crc, header, payload, trailer);
            }
            long perFpdu = (allocated() - before) / 20_000;
            assertThat(perFpdu).isZero();
            assertThat(value).isNotEqualTo(1); // keeps the loop's result alive
        }
    }

    private static int fpdu(Crc32c crc, MemorySegment header, MemorySegment payload, MemorySegment trailer) {
        crc.reset();
        crc.update(header, 0, 20);
        crc.update(payload, 128, 1400);
        crc.update(trailer, 0, 3);
        return crc.value();
    }
}
