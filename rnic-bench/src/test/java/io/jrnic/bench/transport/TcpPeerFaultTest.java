package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

/**
 * The consuming side notices every kind of damage, so that a harness that corrupts, reorders or
 * cuts messages cannot report a throughput.
 */
class TcpPeerFaultTest {

    private static final int SIZE = 64;
    private static final MessageOptions OPTIONS = new MessageOptions(SIZE, true, true);

    private final Crc32cTrailer trailer = new Crc32cTrailer();

    @Test
    void receiverCountsEachFaultSeparately() throws Exception {
        LoopbackTcp.Pair pair = LoopbackTcp.connect();
        TcpStreamReceiver receiver = new TcpStreamReceiver(pair.acceptor(), OPTIONS);
        receiver.start();
        try (SocketChannel sender = pair.initiator()) {
            write(sender, goodFrame(0));                     // intact
            ByteBuffer badCrc = goodFrame(1);
            badCrc.put(SIZE, (byte) (badCrc.get(SIZE) ^ 0x40));
            write(sender, badCrc);                           // CRC trailer damaged
            write(sender, goodFrame(7));                     // sequence 7 where 2 was due
            ByteBuffer badPayload = goodFrame(3);
            badPayload.put(40, (byte) (badPayload.get(40) ^ 0x01));
            trailer.append(badPayload, SIZE);                // CRC consistent, pattern not
            write(sender, badPayload);
            write(sender, goodFrame(4).limit(SIZE / 2));     // cut short by end of stream
            sender.shutdownOutput();
            receiver.awaitEnd(TcpMessageStream.DRAIN_TIMEOUT);
        }

        TransferReport report = receiver.report(5);

        assertThat(report).isEqualTo(new TransferReport(5, 4, 1, 1, 1, 1));
        assertThat(report.intact()).isFalse();
    }

    @Test
    void receiverWithoutCrcStillSeesReorderedMessages() throws Exception {
        MessageOptions noCrc = new MessageOptions(SIZE, false, false);
        LoopbackTcp.Pair pair = LoopbackTcp.connect();
        TcpStreamReceiver receiver = new TcpStreamReceiver(pair.acceptor(), noCrc);
        receiver.start();
        try (SocketChannel sender = pair.initiator()) {
            write(sender, frame(1, SIZE));
            write(sender, frame(0, SIZE));
            sender.shutdownOutput();
            receiver.awaitEnd(TcpMessageStream.DRAIN_TIMEOUT);
        }

        assertThat(receiver.report(2)).isEqualTo(new TransferReport(2, 2, 0, 2, 0, 0));
    }

    @Test
    void echoPeerChecksPingsAndRecomputesTheTrailer() throws Exception {
        MessageOptions ping = new MessageOptions(8, true, false);
        LoopbackTcp.Pair pair = LoopbackTcp.connect();
        TcpEchoPeer echo = new TcpEchoPeer(pair.acceptor(), ping);
        echo.start();
        ByteBuffer in = ByteBuffer.allocateDirect(ping.frameSize());
        try (SocketChannel client = pair.initiator()) {
            ByteBuffer damaged = frame(0, ping.frameSize());
            trailer.append(damaged, 8);
            damaged.put(8, (byte) (damaged.get(8) ^ 0xFF));
            write(client, damaged);
            assertThat(ChannelIo.readFully(client, in)).isEqualTo(ChannelIo.ReadOutcome.COMPLETE);
            client.shutdownOutput();
            echo.awaitEnd(TcpMessageStream.DRAIN_TIMEOUT);
        }

        // The echo counted the damaged ping, and its reply carries a correct trailer of its own.
        assertThat(echo.crcErrors).isEqualTo(1);
        assertThat(echo.delivered).isEqualTo(1);
        assertThat(trailer.verify(in, 8)).isTrue();
        assertThat(MessagePattern.sequence(in)).isZero();
    }

    private ByteBuffer goodFrame(long sequence) {
        ByteBuffer frame = frame(sequence, OPTIONS.frameSize());
        trailer.append(frame, SIZE);
        return frame;
    }

    private static ByteBuffer frame(long sequence, int capacity) {
        ByteBuffer frame = ByteBuffer.allocateDirect(capacity);
        for (int i = MessagePattern.PATTERN_OFFSET; i < Math.min(capacity, SIZE); i++) {
            frame.put(i, MessagePattern.patternByte(i));
        }
        MessagePattern.sequence(frame, sequence);
        return frame;
    }

    private static void write(SocketChannel channel, ByteBuffer frame) throws Exception {
        ChannelIo.writeFully(channel, frame);
    }
}
