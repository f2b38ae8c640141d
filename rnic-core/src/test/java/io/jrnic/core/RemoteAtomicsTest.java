package io.jrnic.core;

import io.jrnic.core.engine.RemoteAtomics;
import io.jrnic.rdmap.AtomicOpcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RemoteAtomics}: the responder's read-modify-write in memory byte order, on native memory
 * (VarHandle CAS) and on a {@code byte[]} heap segment (striped lock), atomic against concurrent
 * threads (A-ATOM-011, A-ATOM-021, AMB-27).
 */
class RemoteAtomicsTest {

    @Test
    void memoryOrderIsTheNativeOrderOfLocalCpuAccess_A_ATOM_021_AMB_27() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(16, 8);
            m.set(ValueLayout.JAVA_LONG, 8, 0x0102_0304_0506_0708L); // the local CPU's view
            long original = RemoteAtomics.execute(m, 8, AtomicOpcode.FETCH_ADD, 0x10, 0, 0, -1L);
            assertThat(original).isEqualTo(0x0102_0304_0506_0708L);
            assertThat(m.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(0x0102_0304_0506_0718L);
        }
    }

    @Test
    void failedCompareSwapStoresNothingOnHeapAndNativeMemory_A_ATOM_018() {
        MemorySegment heap = MemorySegment.ofArray(new byte[16]);
        try (Arena arena = Arena.ofConfined()) {
            for (MemorySegment m : List.of(heap, arena.allocate(16, 8))) {
                RemoteAtomics.writeResult(m, 8, 5);
                assertThat(RemoteAtomics.execute(m, 8, AtomicOpcode.COMPARE_SWAP, 9, -1L, 4, -1L)).isEqualTo(5L);
                assertThat(RemoteAtomics.read(m, 8)).isEqualTo(5L);
                assertThat(RemoteAtomics.execute(m, 8, AtomicOpcode.COMPARE_SWAP, 9, -1L, 5, -1L)).isEqualTo(5L);
                assertThat(RemoteAtomics.read(m, 8)).isEqualTo(9L);
                assertThat(RemoteAtomics.read(m, 0)).isZero();
            }
        }
    }

    @Test
    void concurrentFetchAddsOnHeapAndNativeMemoryAreExact_A_ATOM_011() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            for (MemorySegment m : List.of(MemorySegment.ofArray(new byte[8]), arena.allocate(8, 8))) {
                int threads = 4;
                int adds = 20_000;
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Thread> workers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    Thread w = new Thread(() -> {
                        try {
                            start.await();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        for (int i = 0; i < adds; i++) {
                            RemoteAtomics.execute(m, 0, AtomicOpcode.FETCH_ADD, 1, 0, 0, -1L);
                        }
                    });
                    workers.add(w);
                    w.start();
                }
                for (Thread w : workers) {
                    w.join();
                }
                assertThat(RemoteAtomics.read(m, 0)).as(m.isNative() ? "native" : "heap")
                        .isEqualTo((long) threads * adds);
            }
        }
    }
}
