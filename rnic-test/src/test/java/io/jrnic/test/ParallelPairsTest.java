package io.jrnic.test;

import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.RemoteBuffer;
import io.jrnic.api.SendWorkRequest;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Test methods of one class running at the same time, each with its own pair: four repetitions
 * meet at a barrier while their pairs are open (so they really overlap), then each moves data
 * through its own connection.
 */
@RnicTest
@Execution(ExecutionMode.CONCURRENT)
class ParallelPairsTest {
    private static final int PARALLEL = 4;
    private static final CyclicBarrier TOGETHER = new CyclicBarrier(PARALLEL);
    private static final Set<String> RNIC_NAMES = ConcurrentHashMap.newKeySet();

    @RepeatedTest(PARALLEL)
    void eachParallelTestHasItsOwnConnectedPair(RnicPair pair) throws Exception {
        assertThat(RNIC_NAMES.add(pair.active().rnic().name())).isTrue();
        assertThat(RNIC_NAMES.add(pair.passive().rnic().name())).isTrue();
        TOGETHER.await(10, TimeUnit.SECONDS); // all four pairs are open at once
        int n = 32 << 10;
        MemoryRegion source = pair.passive().allocate(n);
        RnicPairTest.fill(source.memory(), pair.active().qp().id());
        MemoryRegion sink = pair.active().allocate(n);
        pair.active().qp().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ)
                .sge(sink.stag(), sink.memory().address(), n).remote(RemoteBuffer.of(source)));
        pair.active().awaitSuccess(1);
        assertThat(sink.memory().mismatch(source.memory())).isEqualTo(-1);
    }
}
