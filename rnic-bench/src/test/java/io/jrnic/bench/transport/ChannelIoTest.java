package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ChannelIo}'s bounded writes, on a channel that records every {@code write} it is given. */
class ChannelIoTest {

    /** Takes at most {@code take} bytes per call, as a socket with a full send buffer may. */
    private static final class RecordingChannel implements WritableByteChannel {
        final List<Integer> offered = new ArrayList<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int take;

        RecordingChannel(int take) {
            this.take = take;
        }

        @Override
        public int write(ByteBuffer src) {
            offered.add(src.remaining());
            int n = Math.min(take, src.remaining());
            for (int i = 0; i < n; i++) {
                bytes.write(src.get());
            }
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private static ByteBuffer counting(int length) {
        ByteBuffer buffer = ByteBuffer.allocate(length + 10);
        for (int i = 0; i < buffer.capacity(); i++) {
            buffer.put(i, (byte) i);
        }
        return buffer.position(3).limit(3 + length);
    }

    @Test
    void aBoundedWriteSplitsTheBytesEvenlyInPiecesOfAtMostTheBoundAndRestoresTheLimit() throws Exception {
        RecordingChannel channel = new RecordingChannel(Integer.MAX_VALUE);
        ByteBuffer buffer = counting(65536 + 4);

        assertThat(ChannelIo.writeFully(channel, buffer, TcpPackedStream.WRITE_BYTES)).isEqualTo(3);
        assertThat(channel.offered).containsExactly(21847, 21847, 21846); // no 4-byte piece at the end
        assertThat(buffer.position()).isEqualTo(3 + 65540);
        assertThat(buffer.limit()).isEqualTo(3 + 65540);
        byte[] expected = new byte[65540];
        counting(65540).get(expected);
        assertThat(channel.bytes.toByteArray()).isEqualTo(expected);
    }

    @Test
    void aBoundedWriteGoesOnAfterAShortWrite() throws Exception {
        RecordingChannel channel = new RecordingChannel(5000);
        ByteBuffer buffer = counting(12000);

        assertThat(ChannelIo.writeFully(channel, buffer, 8000)).isEqualTo(2);

        // the kernel took 5000 of the first piece of 6000: the rest of that piece; so again for the next one
        assertThat(channel.offered).containsExactly(6000, 1000, 6000, 1000);
        assertThat(channel.bytes.size()).isEqualTo(12000);
        assertThat(buffer.hasRemaining()).isFalse();
    }

    @Test
    void bytesWithinTheBoundGoInOneWriteAndNoBytesInNone() throws Exception {
        RecordingChannel channel = new RecordingChannel(Integer.MAX_VALUE);

        assertThat(ChannelIo.writeFully(channel, counting(32768), 32768)).isEqualTo(1);
        assertThat(ChannelIo.writeFully(channel, counting(0), 32768)).isZero();
        assertThat(channel.offered).containsExactly(32768);
    }

    @Test
    void aBoundOfOneWritesByteByByte() throws Exception {
        RecordingChannel channel = new RecordingChannel(Integer.MAX_VALUE);

        assertThat(ChannelIo.writeFully(channel, counting(3), 1)).isEqualTo(3);
        assertThat(channel.offered).containsExactly(1, 1, 1);
    }

    @Test
    void aBoundBelowOneIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ChannelIo.writeFully(new RecordingChannel(1), ByteBuffer.allocate(1), 0))
                .withMessageContaining("maxWrite");
    }
}
