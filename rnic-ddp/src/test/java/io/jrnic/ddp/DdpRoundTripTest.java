package io.jrnic.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Segmenter and receiver together: messages cut by {@link DdpSegmenter} and placed as
 * {@link DdpReceiver} directs land byte-exact in the target buffers, whatever the MULPDU.
 */
class DdpRoundTripTest {

    private static final int IETF = DdpHeaderFlyweight.VERSION_IETF;
    private static final int STAG = 0x00ABCD00;
    private static final long REGION_BASE = 0x0000_7F22_D800_0E00L; // a virtual address, as siw uses
    private static final int REGION_LENGTH = 256 * 1024;
    private static final int RECEIVE_BUFFER = 64 * 1024;

    @ParameterizedTest(name = "MULPDU {0}")
    @ValueSource(ints = {19, 100, 1450, 1500, 9000, 65535})
    void placesEveryMessageByteExact(int mulpdu) {
        MemorySegment region = MemorySegment.ofArray(new byte[REGION_LENGTH]);
        MemorySegment receiveBuffer = MemorySegment.ofArray(new byte[RECEIVE_BUFFER]);
        DdpReceiver receiver = new DdpReceiver(IETF, DdpReceiver.rdmapQueueNumbers(false),
                (qn, msn) -> RECEIVE_BUFFER,
                (stag, rsvdUlp, descriptor) -> {
                    if (stag == STAG) {
                        descriptor.valid(REGION_BASE, REGION_LENGTH, true, region);
                    }
                });
        DdpSegmenter segmenter = new DdpSegmenter();
        MemorySegment wire = MemorySegment.ofArray(new byte[mulpdu]);
        SplittableRandom random = new SplittableRandom(mulpdu);

        int sendMsn = 1;
        for (int round = 0; round < 12; round++) {
            // A Write of random length at a random offset of the region...
            int writeLength = round == 0 ? 0 : random.nextInt(REGION_LENGTH / 4);
            long writeOffset = random.nextInt(REGION_LENGTH - writeLength + 1);
            byte[] writeData = randomBytes(random, writeLength);
            segmenter.resetTagged(mulpdu, IETF, 0x40, STAG, REGION_BASE + writeOffset, writeLength);
            transfer(segmenter, MemorySegment.ofArray(writeData), wire, receiver, region, receiveBuffer, -1);
            assertThat(region.asSlice(writeOffset, writeLength).mismatch(MemorySegment.ofArray(writeData)))
                    .as("write %d placed", round).isEqualTo(-1);

            // ...then a Send, each on its own MSN.
            int sendLength = round == 1 ? 0 : random.nextInt(RECEIVE_BUFFER + 1);
            byte[] sendData = randomBytes(random, sendLength);
            segmenter.resetUntagged(mulpdu, IETF, 0x43, 0, DdpReceiver.QN_SEND, sendMsn, 0, sendLength);
            transfer(segmenter, MemorySegment.ofArray(sendData), wire, receiver, region, receiveBuffer, sendLength);
            assertThat(receiveBuffer.asSlice(0, sendLength).mismatch(MemorySegment.ofArray(sendData)))
                    .as("send %d placed", round).isEqualTo(-1);
            sendMsn++;
            assertThat(receiver.expectedMsn(DdpReceiver.QN_SEND)).isEqualTo(sendMsn);
        }
        assertThat(receiver.stopped()).isFalse();
    }

    private static void transfer(DdpSegmenter segmenter, MemorySegment data, MemorySegment wire, DdpReceiver receiver,
                                 MemorySegment region, MemorySegment receiveBuffer, long expectedSendLength) {
        int completions = 0;
        while (segmenter.next(wire, 0)) {
            // What the transport would gather: header | payload slice.
            MemorySegment.copy(data, segmenter.payloadOffset(), wire, segmenter.headerLength(), segmenter.payloadLength());

            InboundSegment result = receiver.onSegment(wire, 0, segmenter.ulpduLength());

            assertThat(result.outcome()).as("%s", result).isEqualTo(InboundSegment.Outcome.ACCEPTED);
            if (result.tagged()) {
                if (result.payloadLength() > 0) {
                    assertThat(result.attachment()).isSameAs(region);
                    MemorySegment.copy(wire, result.payloadOffset(), region, result.bufferOffset(), result.payloadLength());
                }
            } else {
                MemorySegment.copy(wire, result.payloadOffset(), receiveBuffer, result.messageOffset(), result.payloadLength());
                if (result.messageComplete()) {
                    completions++;
                    assertThat(result.messageLength()).isEqualTo(expectedSendLength);
                }
            }
        }
        if (expectedSendLength >= 0) {
            assertThat(completions).isEqualTo(1);
        }
    }

    private static byte[] randomBytes(SplittableRandom random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
