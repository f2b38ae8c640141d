package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.engine.RemoteAtomics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RFC 7306 §5.3 (A-ATOM-011, A-ATOM-046): atomics on one 64-bit word from several QPs of two
 * responder RNICs that registered the same memory, each QP served by its own event-loop thread.
 * Every FetchAdd must see a distinct original value and the final count must be exact; CmpSwap
 * increments (retried by the requesters on a failed compare) must not lose an update either.
 */
class EngineAtomicConcurrencyTest {
    private static final int REQUESTERS = 4;
    private static final int ROUNDS = 300;
    private static final int WINDOW = 24;

    private final List<SoftRnic> rnics = new ArrayList<>();
    private final List<MemoryLinkPair> links = new ArrayList<>();
    private final Arena arena = Arena.ofShared();

    private record Requester(SoftRnic rnic, QueuePair qp, CompletionQueue cq, MemoryRegion results,
                             MemorySegment memory) {
    }

    @AfterEach
    void close() {
        rnics.forEach(SoftRnic::close);
        links.forEach(MemoryLinkPair::close);
        arena.close();
    }

    private SoftRnic rnic(String name) {
        SoftRnic r = SoftRnic.open(new RnicConfig().name(name + "-" + System.identityHashCode(this)));
        rnics.add(r);
        return r;
    }

    /** Two responder RNICs, each registering {@code word}, two QPs each, one requester RNIC per QP. */
    private List<Requester> setUp(MemorySegment word, int[] stags, long[] tos) {
        List<Requester> out = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            SoftRnic responder = rnic("responder" + r);
            ProtectionDomain pd = responder.allocatePd();
            CompletionQueue cq = responder.createCq(64);
            MemoryRegion mr = pd.registerMemory(word, AccessRights.LOCAL | AccessRights.REMOTE_ATOMIC);
            for (int q = 0; q < REQUESTERS / 2; q++) {
                MemoryLinkPair link = new MemoryLinkPair(MemoryLinkPair.Options.defaults().withMaxChunk(200));
                links.add(link);
                QueuePair rqp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(64, 64)
                        .readDepths(WINDOW, WINDOW));
                rqp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(new QpEngine(link.a)));
                SoftRnic requester = rnic("requester" + r + q);
                ProtectionDomain rpd = requester.allocatePd();
                CompletionQueue rcq = requester.createCq(256);
                QueuePair qp = rpd.createQueuePair(new QueuePairConfig().cqs(rcq, rcq).depths(64, 64)
                        .readDepths(WINDOW, WINDOW));
                qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(new QpEngine(link.b)));
                MemorySegment results = requester.allocateMemory(8L * ROUNDS, 8);
                out.add(new Requester(requester, qp, rcq, rpd.registerMemory(results, AccessRights.LOCAL), results));
                stags[out.size() - 1] = mr.stag();
                tos[out.size() - 1] = mr.query().baseTo();
            }
        }
        return out;
    }

    @Test
    void fetchAddsFromFourQpsOnTwoRnicsNeverLoseAnUpdate_A_ATOM_011_A_ATOM_046_A_ATOM_082() {
        MemorySegment word = arena.allocate(8, 8);
        int[] stags = new int[REQUESTERS];
        long[] tos = new long[REQUESTERS];
        List<Requester> requesters = setUp(word, stags, tos);
        int[] posted = new int[REQUESTERS];
        int[] completed = new int[REQUESTERS];
        SendWorkRequest wr = new SendWorkRequest(1);
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (Arrays.stream(completed).sum() < REQUESTERS * ROUNDS) {
            assertThat(System.nanoTime()).as("all atomics complete").isLessThan(deadline);
            for (int i = 0; i < REQUESTERS; i++) {
                Requester q = requesters.get(i);
                while (posted[i] < ROUNDS && posted[i] - completed[i] < WINDOW) {
                    q.qp().postSend(wr.reset().wrId(posted[i]).fetchAdd(1).remote(stags[i], tos[i])
                            .sge(q.results().stag(), q.results().query().baseTo() + 8L * posted[i], 8));
                    posted[i]++;
                }
                while (q.cq().poll(wc)) {
                    assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                    completed[i]++;
                }
            }
            Thread.onSpinWait();
        }
        long total = (long) REQUESTERS * ROUNDS;
        assertThat(RemoteAtomics.read(word, 0)).isEqualTo(total);
        // each FetchAdd saw a different original: together exactly 0 .. total - 1
        long[] originals = requesters.stream()
                .flatMapToLong(q -> LongStream.range(0, ROUNDS).map(k -> RemoteAtomics.read(q.memory(), 8 * k)))
                .sorted().toArray();
        assertThat(originals).isEqualTo(LongStream.range(0, total).toArray());
    }

    @Test
    void compareSwapIncrementsFromFourQpsAreExact_A_ATOM_011_A_ATOM_018() {
        MemorySegment word = arena.allocate(8, 8);
        int[] stags = new int[REQUESTERS];
        long[] tos = new long[REQUESTERS];
        List<Requester> requesters = setUp(word, stags, tos);
        int perRequester = 60;
        long[] expected = new long[REQUESTERS];
        int[] done = new int[REQUESTERS];
        boolean[] busy = new boolean[REQUESTERS];
        SendWorkRequest wr = new SendWorkRequest(1);
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + 30_000_000_000L;
        // each requester increments by CmpSwap(expected -> expected + 1), retrying with the returned
        // original until its swap succeeded: lost updates would make the final value short
        while (Arrays.stream(done).sum() < REQUESTERS * perRequester) {
            assertThat(System.nanoTime()).as("all increments complete").isLessThan(deadline);
            for (int i = 0; i < REQUESTERS; i++) {
                Requester q = requesters.get(i);
                if (!busy[i] && done[i] < perRequester) {
                    q.qp().postSend(wr.reset().wrId(i).compareSwap(expected[i], expected[i] + 1)
                            .remote(stags[i], tos[i]).sge(q.results().stag(), q.results().query().baseTo(), 8));
                    busy[i] = true;
                }
                if (busy[i] && q.cq().poll(wc)) {
                    assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                    long original = RemoteAtomics.read(q.memory(), 0);
                    if (original == expected[i]) {
                        done[i]++;
                    }
                    expected[i] = original == expected[i] ? original + 1 : original;
                    busy[i] = false;
                }
            }
            Thread.onSpinWait();
        }
        assertThat(RemoteAtomics.read(word, 0)).isEqualTo((long) REQUESTERS * perRequester);
    }
}
