package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePair;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.QueuePairModification;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.SharedReceiveQueue;
import io.jrnic.api.SrqFairShare;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.link.FpduLink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The S-RQ fair-share attack over the real engine (RFC 5040 §8.1.2 item 8, RFC 5042 §6.4.3.1):
 * a server RNIC whose QPs share one S-RQ, each QP on its own {@link MemoryLinkPair} to a QP of a
 * client RNIC (or to a raw peer that crafts segments). One client floods minimum-size Sends; the
 * policy refuses it its share's excess, its stream is terminated with "no buffer available"
 * (0x1202), and the other clients are still served from the WQEs it did not get. The lines that
 * build two sides are those of {@link EngineFixture}, repeated here for several links.
 */
class SrqFairShareEngineTest {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final int QPS = 3;
    private static final int DEPTH = 12;

    private final List<MemoryLinkPair> links = new ArrayList<>();
    private final List<SoftRnic> rnics = new ArrayList<>();
    private final List<AsyncEvent> serverEvents = new CopyOnWriteArrayList<>();
    private final List<AsyncEvent> clientEvents = new CopyOnWriteArrayList<>();
    private final List<WorkCompletion> serverCompletions = new ArrayList<>();
    private SoftRnic server;
    private CompletionQueue serverCq;
    private SharedReceiveQueue srq;
    private final QueuePair[] serverQps = new QueuePair[QPS];
    private final QueuePair[] clientQps = new QueuePair[QPS];
    private SoftRnic client;
    private CompletionQueue clientCq;

    private SoftRnic open(List<AsyncEvent> events) {
        SoftRnic r = SoftRnic.open(new RnicConfig().name("srq-engine-" + NAMES.incrementAndGet()));
        r.setAsyncEventHandler((rnic, e) -> events.add(e));
        rnics.add(r);
        return r;
    }

    /** The server: one S-RQ with DEPTH posted 64-byte receives and the given policy. */
    private ProtectionDomain server(SrqFairShare policy) {
        server = open(serverEvents);
        ProtectionDomain pd = server.allocatePd();
        serverCq = server.createCq(256);
        srq = pd.createSharedReceiveQueue(DEPTH, 1, 0);
        srq.fairShare(policy);
        MemorySegment m = server.allocateMemory(64L * DEPTH, 8);
        MemoryRegion mr = pd.registerMemory(m, AccessRights.LOCAL_WRITE);
        for (int i = 0; i < DEPTH; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(100 + i).sge(mr.stag(), m.address() + 64L * i, 64));
        }
        return pd;
    }

    private QueuePair serverQp(ProtectionDomain pd, FpduLink link) {
        QueuePair qp = pd.createQueuePair(new QueuePairConfig().cqs(serverCq, serverCq).depths(16, 0)
                .sges(4, 4, 0, 64).readDepths(4, 4).srq(srq, 0));
        qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(new QpEngine(link)));
        return qp;
    }

    /** QPS server QPs on the S-RQ, each connected to a client QP. */
    private void connectAll(SrqFairShare policy) {
        ProtectionDomain spd = server(policy);
        client = open(clientEvents);
        ProtectionDomain cpd = client.allocatePd();
        clientCq = client.createCq(256);
        for (int i = 0; i < QPS; i++) {
            MemoryLinkPair link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
            links.add(link);
            serverQps[i] = serverQp(spd, link.a);
            clientQps[i] = cpd.createQueuePair(new QueuePairConfig().cqs(clientCq, clientCq).depths(32, 4)
                    .sges(4, 4, 4, 64).readDepths(4, 4));
            clientQps[i].modify(new QueuePairModification().nextState(QpState.RTS).llpStream(new QpEngine(link.b)));
        }
    }

    @AfterEach
    void tearDown() {
        for (SoftRnic r : rnics) {
            r.close();
        }
        for (MemoryLinkPair l : links) {
            l.close();
        }
    }

    /** Bounded, sleep-free wait that lets every event loop run (as EngineFixture#await). */
    private void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            for (MemoryLinkPair l : links) {
                l.a.barrier();
                l.b.barrier();
            }
            Thread.onSpinWait();
        }
    }

    private void settle() {
        for (MemoryLinkPair l : links) {
            l.settle();
        }
    }

    private List<WorkCompletion> serverCompletions(int n) {
        await(() -> {
            WorkCompletion wc = new WorkCompletion();
            while (serverCq.poll(wc)) {
                serverCompletions.add(new WorkCompletion().copyFrom(wc));
            }
            return serverCompletions.size() >= n;
        }, n + " server completions");
        return serverCompletions;
    }

    private void sends(QueuePair qp, int n, long firstId) {
        for (int i = 0; i < n; i++) {
            qp.postSend(new SendWorkRequest().wrId(firstId + i).opcode(Opcode.SEND)); // zero-length: minimum size
        }
    }

    /**
     * Posts up to {@code n} Sends from a peer that exceeds its share: the Terminate that answers the
     * Send past the share may reach it before its last posts, which are then refused (PostSQ in
     * Terminate, V-QPS-49).
     *
     * @param share the Sends the responder takes before it terminates the stream
     */
    private void flood(QueuePair qp, int n, long firstId, int share) {
        for (int i = 0; i < n; i++) {
            try {
                qp.postSend(new SendWorkRequest().wrId(firstId + i).opcode(Opcode.SEND));
            } catch (VerbsException e) {
                assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_STATE);
                assertThat(i).as("refused only once a Send past the share was posted").isGreaterThan(share);
                return;
            }
        }
    }

    private static List<AsyncEventType> types(List<AsyncEvent> events, QueuePair qp) {
        return events.stream().filter(e -> e.resource() == qp).map(AsyncEvent::type).toList();
    }

    private long successesOf(QueuePair qp) {
        return serverCompletions.stream().filter(wc -> wc.qpId() == qp.id()
                && wc.status() == WorkCompletionStatus.SUCCESS).count();
    }

    @Test
    void floodingPeerIsTerminatedWithNoBufferWhileTheOtherPeersAreServed_R_SEC_026_V_SEC_20() {
        connectAll(SrqFairShare.share(0.5, true)); // window 12 takes, at most 6 per QP
        flood(clientQps[0], 10, 1, 6);
        await(() -> serverQps[0].state() == QpState.ERROR, "the flooder's stream to be terminated");
        await(() -> clientQps[0].state() == QpState.ERROR, "the flooding peer to reach Error");
        settle();
        assertThat(types(serverEvents, serverQps[0])).containsExactly(AsyncEventType.SRQ_FAIR_SHARE_EXCEEDED,
                AsyncEventType.RQ_INVALID_MSN_RANGE);
        assertThat(serverQps[0].query().terminateMessage().terminateControl()).isEqualTo(0x1202); // no buffer
        assertThat(clientQps[0].query().terminateMessage().terminateControl()).isEqualTo(0x1202);
        assertThat(types(clientEvents, clientQps[0])).contains(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        assertThat(serverCompletions(6)).hasSize(6);
        assertThat(successesOf(serverQps[0])).isEqualTo(6); // its share, then nothing
        assertThat(srq.query().available()).isEqualTo(DEPTH - 6);
        assertThat(srq.consumption(serverQps[0]).exceeded()).isEqualTo(1);

        sends(clientQps[1], 3, 20);
        sends(clientQps[2], 3, 30);
        serverCompletions(12);
        assertThat(successesOf(serverQps[1])).isEqualTo(3);
        assertThat(successesOf(serverQps[2])).isEqualTo(3);
        for (int i = 1; i < QPS; i++) {
            assertThat(serverQps[i].state()).isEqualTo(QpState.RTS);
            assertThat(clientQps[i].state()).isEqualTo(QpState.RTS);
            assertThat(types(serverEvents, serverQps[i])).isEmpty();
        }
    }

    @Test
    void withoutAPolicyTheFloodStarvesTheOtherStreams_V_SEC_20() {
        connectAll(SrqFairShare.UNLIMITED); // the Verbs 1.0 behaviour: the attack RFC 5042 §6.4.3.1 describes
        sends(clientQps[0], DEPTH, 1);
        assertThat(serverCompletions(DEPTH)).allMatch(wc -> wc.qpId() == serverQps[0].id());
        assertThat(srq.consumption(serverQps[0]).inWindow()).isEqualTo(DEPTH); // counted: it took all
        sends(clientQps[1], 1, 20);
        await(() -> serverQps[1].state() == QpState.ERROR, "the victim's stream to be terminated");
        settle();
        assertThat(serverQps[1].query().terminateMessage().terminateControl()).isEqualTo(0x1202);
        assertThat(serverQps[0].state()).isEqualTo(QpState.RTS); // the flooder is untouched
        assertThat(serverEvents).extracting(AsyncEvent::type).doesNotContain(AsyncEventType.SRQ_FAIR_SHARE_EXCEEDED);
    }

    @Test
    void arrivalOrderingAttackPullsAtMostOneWqePerStreamAndTheOthersAreServed_V_SEC_27_R_SEC_026() {
        ProtectionDomain spd = server(SrqFairShare.inProcess(2, true));
        MemoryLinkPair link = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        links.add(link);
        EngineFixture.RawPeer raw = new EngineFixture.RawPeer(link.b);
        serverQps[0] = serverQp(spd, link.a);
        MemoryLinkPair other = new MemoryLinkPair(MemoryLinkPair.Options.defaults());
        links.add(other);
        EngineFixture.RawPeer honest = new EngineFixture.RawPeer(other.b);
        serverQps[1] = serverQp(spd, other.a);
        byte[] part = new byte[8];
        // first segments (L=0) of Sends 1, 2, 3: each would pull an S-RQ WQE that never completes
        byte[] second = Wire.untagged(Wire.SEND, false, 0, 0, 2, 0, part);
        raw.send(Wire.untagged(Wire.SEND, false, 0, 0, 1, 0, part), second,
                Wire.untagged(Wire.SEND, false, 0, 0, 3, 0, part));
        await(() -> serverQps[0].state() == QpState.ERROR, "the attacker's stream to be terminated");
        settle();
        // over TCP the receive engine accepts one untagged message in progress per stream: the second
        // is an MSN range error (RFC 5041 §7.2, 0x1203) before it can take a WQE; the in-process
        // limit is the S-RQ's own bound for any path that lets more than one be in progress
        assertThat(serverQps[0].query().terminateMessage().terminateControl()).isEqualTo(0x1203);
        assertThat(serverQps[0].query().terminateMessage().headers()).isEqualTo(Arrays.copyOf(second, 18));
        assertThat(srq.consumption(serverQps[0])).extracting(c -> c.taken(), c -> c.inProcess())
                .containsExactly(1L, 0); // one WQE pulled, returned FLUSHED on Error
        assertThat(serverCompletions(1)).extracting(WorkCompletion::status)
                .containsExactly(WorkCompletionStatus.FLUSHED);
        assertThat(srq.query().available()).isEqualTo(DEPTH - 1);
        honest.send(Wire.send(1, part), Wire.send(2, part));
        serverCompletions(3);
        assertThat(successesOf(serverQps[1])).isEqualTo(2);
        assertThat(serverQps[1].state()).isEqualTo(QpState.RTS);
    }
}
