package io.jrnic.core.engine;

import io.jrnic.core.MemoryLinkPair;
import io.jrnic.core.mem.MemoryFixture.FakeRnic;
import io.jrnic.core.mem.SoftProtectionDomain;
import io.jrnic.core.mem.StagTable;

/**
 * Two started {@link QpEngine}s over a {@link MemoryLinkPair} that runs on the test's thread
 * (nothing runs until the test settles the link), each with the memory of a fake RNIC and one PD,
 * and {@link RecordingUpcalls} in place of their QPs. Close it after the test.
 */
final class EnginePair implements AutoCloseable {
    final FakeRnic memA = new FakeRnic();
    final FakeRnic memB = new FakeRnic();
    final SoftProtectionDomain pdA = memA.pd();
    final SoftProtectionDomain pdB = memB.pd();
    final MemoryLinkPair link = MemoryLinkPair.onCallerThread(MemoryLinkPair.Options.defaults());
    final RecordingUpcalls upcallsA = new RecordingUpcalls(pdA);
    final RecordingUpcalls upcallsB = new RecordingUpcalls(pdB);
    final QpEngine a = new QpEngine(link.a);
    final QpEngine b = new QpEngine(link.b);

    /** Starts both engines, side A resolving its STags in its own table, and settles the link. */
    EnginePair start() {
        return start(memA.table);
    }

    /**
     * Starts both engines and settles the link.
     *
     * @param tableA the STag table side A resolves its SGEs in (one with physical memory, say)
     */
    EnginePair start(StagTable tableA) {
        upcallsA.engine = a;
        upcallsB.engine = b;
        a.start(new FakeQpContext(1, pdA, tableA), upcallsA, null);
        b.start(new FakeQpContext(2, pdB, memB.table), upcallsB, null);
        link.settle();
        return this;
    }

    @Override
    public void close() {
        link.close();
        memA.close();
        memB.close();
    }
}
