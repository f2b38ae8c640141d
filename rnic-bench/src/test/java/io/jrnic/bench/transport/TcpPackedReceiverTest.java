package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packed receiver walks messages across read boundaries and notices every kind of damage, so
 * that a packer (or walker) that loses, repeats or corrupts a message cannot report a message rate.
 *
 * <p>The bytes are written and the output shut down before the receiver starts, so what a read
 * returns is deterministic: with a chunk that is not a multiple of the frame every read returns a
 * full chunk and cuts a message at a different place; with a chunk larger than the stream one read
 * returns everything.
 */
class TcpPackedReceiverTest {

    private static final int SIZE = 64;
    private static final MessageOptions OPTIONS = new MessageOptions(SIZE, true, true);
    /** One and a half frames, plus one byte: each read ends at another offset within a message. */
    private static final int CHUNK = (SIZE + Crc32cTrailer.LENGTH) * 3 / 2 + 1;

    private final Crc32cTrailer trailer = new Crc32cTrailer();

    @Test
    void messagesCutByEveryReadArriveIntact() throws Exception {
        int messages = 500;
        ByteBuffer stream = ByteBuffer.allocateDirect(messages * OPTIONS.frameSize());
        for (int i = 0; i < messages; i++) {
            put(stream, goodFrame(i));
        }

        TransferReport report = receive(stream.flip(), messages, CHUNK);

        assertThat(report).isEqualTo(new TransferReport(messages, messages, 0, 0, 0, 0));
    }

    /**
     * With the odd chunk each read completes one message, cut anywhere; with a large one, one read
     * holds them all and every message is checked at its own offset, not at the chunk's start.
     */
    @ParameterizedTest
    @ValueSource(ints = {CHUNK, 1 << 16})
    void receiverCountsEachFaultSeparately(int chunk) throws Exception {
        ByteBuffer stream = ByteBuffer.allocateDirect(6 * OPTIONS.frameSize());
        put(stream, goodFrame(0));                          // intact
        ByteBuffer badCrc = goodFrame(1);
        badCrc.put(SIZE, (byte) (badCrc.get(SIZE) ^ 0x40));
        put(stream, badCrc);                                // CRC trailer damaged
        put(stream, goodFrame(7));                          // sequence 7 where 2 was due (one lost)
        ByteBuffer badPayload = goodFrame(3);
        badPayload.put(40, (byte) (badPayload.get(40) ^ 0x01));
        trailer.append(badPayload, SIZE);                   // CRC consistent, pattern not
        put(stream, badPayload);
        put(stream, goodFrame(4).limit(SIZE / 2));          // cut short by end of stream

        TransferReport report = receive(stream.flip(), 5, chunk);

        assertThat(report).isEqualTo(new TransferReport(5, 4, 1, 1, 1, 1));
        assertThat(report.intact()).isFalse();
    }

    @Test
    void aRepeatedMessageShiftsEverySequenceAfterIt() throws Exception {
        ByteBuffer stream = ByteBuffer.allocateDirect(4 * OPTIONS.frameSize());
        put(stream, goodFrame(0));
        put(stream, goodFrame(1));
        put(stream, goodFrame(1));                          // a batch slot written twice
        put(stream, goodFrame(2));

        assertThat(receive(stream.flip(), 3, CHUNK)).isEqualTo(new TransferReport(3, 4, 0, 2, 0, 0));
    }

    /** Writes all bytes, shuts the output down, then runs a receiver with the given chunk over them. */
    private static TransferReport receive(ByteBuffer bytes, long sent, int chunk) throws Exception {
        LoopbackTcp.Pair pair = LoopbackTcp.connect();
        TcpPackedReceiver receiver = new TcpPackedReceiver(pair.acceptor(), OPTIONS, chunk);
        try (SocketChannel sender = pair.initiator()) {
            // a few KiB: the socket buffers hold them all before the receiver reads anything
            ChannelIo.writeFully(sender, bytes);
            sender.shutdownOutput();
            receiver.start();
            receiver.awaitEnd(TcpMessageStream.DRAIN_TIMEOUT);
        }
        return receiver.report(sent);
    }

    private ByteBuffer goodFrame(long sequence) {
        ByteBuffer frame = ByteBuffer.allocateDirect(OPTIONS.frameSize());
        for (int i = MessagePattern.PATTERN_OFFSET; i < SIZE; i++) {
            frame.put(i, MessagePattern.patternByte(i));
        }
        MessagePattern.sequence(frame, sequence);
        trailer.append(frame, SIZE);
        return frame;
    }

    private static void put(ByteBuffer stream, ByteBuffer frame) {
        stream.put(frame.position(0));
    }
}
