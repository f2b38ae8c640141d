package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
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
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.qp.SoftSharedReceiveQueue;
import io.jrnic.core.transport.FpduChannel;
import io.jrnic.core.transport.IwarpTransport;
import io.jrnic.core.transport.MpaListener;
import io.jrnic.core.transport.MpaRequestHandler;
import io.jrnic.core.transport.TransportConfig;
import io.jrnic.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Graceful receive overflow on a shared receive queue over real TCP (V-WRP-65/66): two QPs of one
 * S-RQ, each on its own loopback connection, hold their first Send and stop reading their sockets
 * (netty autoRead off); TCP flow control stalls both senders; WQEs posted to the S-RQ wake the held
 * QPs, and every message of both streams arrives byte for byte, in order on each QP.
 */
class SrqChannelOverflowTest extends ChannelEngineFixture {
    private static final int MESSAGE = 128 * 1024;
    private static final int MESSAGES = 40; // per stream: 5 MiB each, more than the socket buffers hold


    /** A QP on an {@link FpduChannel} with its own CQ, and what it completed. */
    private static final class Endpoint {
        final CompletionQueue cq;
        final QueuePair qp;
        final QpEngine engine;
        final FpduChannel channel;
        final List<WorkCompletion> completions = new ArrayList<>();

        Endpoint(SoftRnic rnic, ProtectionDomain pd, QueuePairConfig config, FpduChannel channel, boolean graceful) {
            this.channel = channel;
            cq = rnic.createCq(1024);
            qp = pd.createQueuePair(config.cqs(cq, cq));
            channel.gracefulReceiveOverflow(graceful);
            engine = new QpEngine(channel);
            qp.modify(new QueuePairModification().nextState(QpState.RTS).llpStream(engine));
        }

        int poll() {
            WorkCompletion wc = new WorkCompletion();
            while (cq.poll(wc)) {
                completions.add(new WorkCompletion().copyFrom(wc));
            }
            return completions.size();
        }
    }

    @Test
    void twoPausedChannelsOnOneSrqResumeWithoutLoss_V_WRP_65_V_WRP_66() throws Exception {
        transport = new IwarpTransport(TransportConfig.builder().eventLoopThreads(2)
                .setupTimeout(Duration.ofSeconds(10)).build());
        List<Established> passive = List.of(new Established(), new Established());
        int[] accepted = {0};
        MpaRequestHandler accept = req -> req.accept(new byte[0], passive.get(accepted[0]++));
        List<FpduChannel> active = new ArrayList<>();
        try (MpaListener listener = transport.listen(new InetSocketAddress("127.0.0.1", 0),
                MpaSettings.builder().build(), accept)) {
            for (int i = 0; i < 2; i++) { // one after the other: the accept order is the connect order
                Established setup = new Established();
                transport.connect(listener.localAddress(), MpaSettings.builder().build(), null, setup);
                active.add(get(setup.channel));
                get(passive.get(i).channel);
            }
        }
        int rights = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE
                | AccessRights.REMOTE_READ;

        SoftRnic sender = SoftRnic.open(new RnicConfig().name("srq-tcp-a"));
        rnics.add(sender);
        List<AsyncEvent> senderEvents = new CopyOnWriteArrayList<>();
        sender.setAsyncEventHandler((r, e) -> senderEvents.add(e));
        ProtectionDomain pdA = sender.allocatePd();
        long size = (long) MESSAGE * MESSAGES;
        MemoryRegion src = pdA.registerMemory(sender.allocateMemory(2 * size, 4096), rights);
        MemorySegment srcMemory = sender.stags.resolveMemory(src.stag(), src.query().baseTo());
        EngineFixture.fill(srcMemory, 17);

        SoftRnic receiver = SoftRnic.open(new RnicConfig().name("srq-tcp-b"));
        rnics.add(receiver);
        List<AsyncEvent> receiverEvents = new CopyOnWriteArrayList<>();
        receiver.setAsyncEventHandler((r, e) -> receiverEvents.add(e));
        ProtectionDomain pdB = receiver.allocatePd();
        SoftSharedReceiveQueue srq = (SoftSharedReceiveQueue) pdB.createSharedReceiveQueue(2 * MESSAGES, 1, 0);
        MemoryRegion dst = pdB.registerMemory(receiver.allocateMemory(2 * size, 4096), rights);
        MemorySegment dstMemory = receiver.stags.resolveMemory(dst.stag(), dst.query().baseTo());

        List<Endpoint> senders = new ArrayList<>();
        List<Endpoint> receivers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            senders.add(new Endpoint(sender, pdA, new QueuePairConfig().depths(MESSAGES, 1).sges(1, 1, 1, 0),
                    active.get(i), false));
            receivers.add(new Endpoint(receiver, pdB, new QueuePairConfig().srq(srq, 0).depths(1, 1).sges(1, 1, 1, 0),
                    passive.get(i).channel.join(), true));
        }
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < MESSAGES; i++) {
                senders.get(k).qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND)
                        .sge(src.stag(), src.query().baseTo() + k * size + (long) i * MESSAGE, MESSAGE));
            }
        }
        await(() -> receivers.get(0).engine.rx.receivePauses == 1 && receivers.get(1).engine.rx.receivePauses == 1,
                "both receivers pausing");
        long[] readWhenPaused = new long[2];
        for (int k = 0; k < 2; k++) {
            readWhenPaused[k] = receivers.get(k).channel.bytesReceived();
        }
        for (int i = 0; i < 8; i++) {
            for (int k = 0; k < 2; k++) {
                turn(receivers.get(k).channel);
                turn(senders.get(k).channel);
            }
        }
        assertThat(srq.waiters()).hasSize(2);
        for (int k = 0; k < 2; k++) {
            // the socket is not read any more; the sender's LLP does not take the rest
            assertThat(receivers.get(k).channel.bytesReceived()).isEqualTo(readWhenPaused[k]);
            assertThat(readWhenPaused[k]).isLessThan(size);
            assertThat(senders.get(k).poll()).isLessThan(MESSAGES);
            assertThat(receivers.get(k).poll()).isZero();
            assertThat(receivers.get(k).qp.state()).isEqualTo(QpState.RTS);
        }

        // one WQE per slot of the sink; which QP takes which is decided by the S-RQ
        for (int i = 0; i < 2 * MESSAGES; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(1000 + i)
                    .sge(dst.stag(), dst.query().baseTo() + (long) i * MESSAGE, MESSAGE));
        }
        await(() -> receivers.get(0).poll() == MESSAGES && receivers.get(1).poll() == MESSAGES
                && senders.get(0).poll() == MESSAGES && senders.get(1).poll() == MESSAGES, "every message through");
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < MESSAGES; i++) {
                WorkCompletion wc = receivers.get(k).completions.get(i);
                assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(wc.byteLength()).isEqualTo(MESSAGE);
                long slot = (wc.wrId() - 1000) * MESSAGE;
                // the i-th message of stream k, byte for byte
                assertThat(dstMemory.asSlice(slot, MESSAGE)
                        .mismatch(srcMemory.asSlice(k * size + (long) i * MESSAGE, MESSAGE))).isEqualTo(-1L);
            }
            assertThat(senders.get(k).completions).extracting(WorkCompletion::status)
                    .containsOnly(WorkCompletionStatus.SUCCESS);
            assertThat(receivers.get(k).qp.state()).isEqualTo(QpState.RTS);
        }
        assertThat(srq.waiters()).isEmpty();
        assertThat(srq.reserved()).isZero();
        assertThat(senderEvents).isEmpty();
        assertThat(receiverEvents).isEmpty();
    }
}
