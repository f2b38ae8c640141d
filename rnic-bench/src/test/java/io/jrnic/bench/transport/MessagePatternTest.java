package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class MessagePatternTest {

    @Test
    void sequenceIsBigEndianAtOffsetZero() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = MessagePattern.allocate(arena, 16);

            MessagePattern.sequence(message.asByteBuffer(), 0x0102030405060708L);

            assertThat(message.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE))
                    .containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
            assertThat(MessagePattern.sequence(message.asByteBuffer())).isEqualTo(0x0102030405060708L);
        }
    }

    @Test
    void patternDoesNotRepeatWhereALostChunkWouldHide() {
        // A lost or repeated 256-, 4096- or 32768-byte chunk must change the bytes seen at an offset.
        for (int shift : new int[] {256, 4096, 32768}) {
            int differing = 0;
            for (int i = 8; i < 65536 - shift; i++) {
                if (MessagePattern.patternByte(i) != MessagePattern.patternByte(i + shift)) {
                    differing++;
                }
            }
            assertThat(differing).as("shift %d", shift).isGreaterThan((65536 - shift) / 2);
        }
    }

    @Test
    void patternMatchesIgnoresTheSequenceAndSeesOneChangedByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment expected = MessagePattern.allocate(arena, 4096);
            MemorySegment received = MessagePattern.allocate(arena, 4096);
            MessagePattern.sequence(received.asByteBuffer(), 99);

            assertThat(MessagePattern.patternMatches(received, expected, 4096)).isTrue();

            received.set(ValueLayout.JAVA_BYTE, 4095, (byte) ~received.get(ValueLayout.JAVA_BYTE, 4095));
            assertThat(MessagePattern.patternMatches(received, expected, 4096)).isFalse();
        }
    }

    @Test
    void offsetFormsReadAndCheckAMessagePackedBehindAnother() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packed = arena.allocate(2 * 24, 8);
            MessagePattern.fill(packed.asSlice(0, 24), 24);
            MessagePattern.fill(packed.asSlice(24, 24), 24);
            MemorySegment expected = MessagePattern.allocate(arena, 24);
            java.nio.ByteBuffer buffer = packed.asByteBuffer();

            MessagePattern.sequence(buffer, 24, 0x1122334455667788L);

            assertThat(MessagePattern.sequence(buffer, 24)).isEqualTo(0x1122334455667788L);
            assertThat(MessagePattern.sequence(buffer, 0)).isZero();
            assertThat(MessagePattern.patternMatches(packed, 24, expected, 24)).isTrue();
            packed.set(ValueLayout.JAVA_BYTE, 24 + 23, (byte) ~MessagePattern.patternByte(23));
            assertThat(MessagePattern.patternMatches(packed, 24, expected, 24)).isFalse();
            assertThat(MessagePattern.patternMatches(packed, 0, expected, 24)).isTrue();
        }
    }
}
