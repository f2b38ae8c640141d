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
 * Graceful receive overflow over real TCP (V-WRP-66): the engine pauses the netty channel
 * ({@link FpduChannel#pauseReceive()}: autoRead off), so the socket is not read any more, TCP flow
 * control stops the sender (whose Sends stay uncompleted because the LLP does not take their
 * bytes), and posting receives lets every message through byte for byte.
 */
class RxChannelOverflowTest extends ChannelEngineFixture {
    private static final int MESSAGE = 128 * 1024;
    private static final int MESSAGES = 96; // 12 MiB: more than the socket buffers hold


    /** One RNIC with a QP on an {@link FpduChannel}. */
    private final class Node {
        final SoftRnic rnic;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final QpEngine engine;
        final List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        final List<WorkCompletion> completions = new ArrayList<>();

        Node(String name, FpduChannel channel, boolean graceful) {
            rnic = SoftRnic.open(new RnicConfig().name(name));
            rnics.add(rnic);
            rnic.setAsyncEventHandler((r, e) -> events.add(e));
            pd = rnic.allocatePd();
            cq = rnic.createCq(1024);
            qp = pd.createQueuePair(new QueuePairConfig().cqs(cq, cq).depths(MESSAGES, MESSAGES).sges(2, 2, 2, 0));
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
    void pausedChannelStopsReadingAndResumesWithoutLoss_V_WRP_65_V_WRP_66() throws Exception {
        transport = new IwarpTransport(TransportConfig.builder().eventLoopThreads(2)
                .setupTimeout(Duration.ofSeconds(10)).build());
        Established passive = new Established();
        MpaRequestHandler accept = req -> req.accept(new byte[0], passive);
        FpduChannel active;
        try (MpaListener listener = transport.listen(new InetSocketAddress("127.0.0.1", 0),
                MpaSettings.builder().build(), accept)) {
            Established setup = new Established();
            transport.connect(listener.localAddress(), MpaSettings.builder().build(), null, setup);
            active = get(setup.channel);
        }
        FpduChannel passiveChannel = get(passive.channel);
        Node a = new Node("rx-tcp-a", active, false);
        Node b = new Node("rx-tcp-b", passiveChannel, true);
        int rights = AccessRights.LOCAL_READ | AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE
                | AccessRights.REMOTE_READ;
        MemoryRegion src = a.pd.registerMemory(a.rnic.allocateMemory((long) MESSAGE * MESSAGES, 4096), rights);
        MemorySegment srcMemory = a.rnic.stags.resolveMemory(src.stag(), src.query().baseTo());
        EngineFixture.fill(srcMemory, 11);
        MemoryRegion dst = b.pd.registerMemory(b.rnic.allocateMemory((long) MESSAGE * MESSAGES, 4096), rights);
        MemorySegment dstMemory = b.rnic.stags.resolveMemory(dst.stag(), dst.query().baseTo());
        for (int i = 0; i < MESSAGES; i++) {
            a.qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND)
                    .sge(src.stag(), src.query().baseTo() + (long) i * MESSAGE, MESSAGE));
        }
        await(() -> b.engine.rx.receivePauses == 1, "the receiver pausing");
        long readWhenPaused = passiveChannel.bytesReceived();
        for (int i = 0; i < 8; i++) {
            turn(passiveChannel);
            turn(active);
        }
        // the socket is not read any more; the sender's LLP does not take the rest
        assertThat(passiveChannel.bytesReceived()).isEqualTo(readWhenPaused);
        assertThat(readWhenPaused).isLessThan((long) MESSAGE * MESSAGES);
        assertThat(a.poll()).isLessThan(MESSAGES);
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
        assertThat(b.poll()).isZero();

        for (int i = 0; i < MESSAGES; i++) {
            b.qp.postReceive(new ReceiveWorkRequest().wrId(1000 + i)
                    .sge(dst.stag(), dst.query().baseTo() + (long) i * MESSAGE, MESSAGE));
        }
        await(() -> b.poll() == MESSAGES && a.poll() == MESSAGES, "every message through");
        for (int i = 0; i < MESSAGES; i++) {
            WorkCompletion wc = b.completions.get(i);
            assertThat(wc.wrId()).isEqualTo(1000 + i);
            assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(wc.byteLength()).isEqualTo(MESSAGE);
        }
        assertThat(a.completions).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(dstMemory.mismatch(srcMemory)).isEqualTo(-1L); // byte for byte
        assertThat(a.events).isEmpty();
        assertThat(b.events).isEmpty();
        assertThat(b.qp.state()).isEqualTo(QpState.RTS);
    }
}
