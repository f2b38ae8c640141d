package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Crc32cTrailerTest {

    private final Crc32cTrailer trailer = new Crc32cTrailer();

    @Test
    void computesCatalogueCheckValue() {
        ByteBuffer frame = ByteBuffer.allocateDirect(9 + Crc32cTrailer.LENGTH);
        frame.put("123456789".getBytes(StandardCharsets.US_ASCII));

        // wire-format.md §2.5: crc("123456789") = 0xE3069283
        assertThat(trailer.compute(frame, 9)).isEqualTo(0xE3069283);
    }

    @Test
    void appendsRfc3720VectorLeastSignificantByteFirst() {
        // wire-format.md §2.5, RFC 3720 B.4: 32 bytes 0x00..0x1F -> 0x46DD794E, sent 4e 79 dd 46
        ByteBuffer frame = ByteBuffer.allocateDirect(32 + Crc32cTrailer.LENGTH);
        for (int i = 0; i < 32; i++) {
            frame.put(i, (byte) i);
        }

        trailer.append(frame, 32);

        assertThat(new byte[] {frame.get(32), frame.get(33), frame.get(34), frame.get(35)})
                .containsExactly(0x4e, 0x79, 0xdd, 0x46);
        assertThat(trailer.verify(frame, 32)).isTrue();
    }

    @Test
    void wireOrderDoesNotDependOnBufferOrder() {
        // wire-format.md §2.5, RFC 3720 B.4: 32 zero bytes -> sent aa 36 91 8a
        ByteBuffer frame = ByteBuffer.allocate(32 + Crc32cTrailer.LENGTH).order(ByteOrder.LITTLE_ENDIAN);

        trailer.append(frame, 32);

        assertThat(new byte[] {frame.get(32), frame.get(33), frame.get(34), frame.get(35)})
                .containsExactly(0xaa, 0x36, 0x91, 0x8a);
        assertThat(trailer.verify(frame, 32)).isTrue();
    }

    @Test
    void detectsFlippedPayloadBitAndFlippedTrailerBit() {
        ByteBuffer frame = ByteBuffer.allocateDirect(64 + Crc32cTrailer.LENGTH);
        trailer.append(frame, 64);

        frame.put(17, (byte) 0x08);
        assertThat(trailer.verify(frame, 64)).isFalse();

        trailer.append(frame, 64);
        frame.put(66, (byte) (frame.get(66) ^ 0x01));
        assertThat(trailer.verify(frame, 64)).isFalse();
    }

    @Test
    void restoresPositionAndLimit() {
        ByteBuffer frame = ByteBuffer.allocateDirect(100);
        frame.position(7).limit(80);

        trailer.append(frame, 60);
        trailer.verify(frame, 60);

        assertThat(frame.position()).isEqualTo(7);
        assertThat(frame.limit()).isEqualTo(80);
    }

    @Test
    void offsetFormsCoverOnlyTheirMessage() {
        // wire-format.md §2.5, RFC 3720 B.4 at offset 5 of a larger buffer, other bytes nonzero
        ByteBuffer packed = ByteBuffer.allocateDirect(5 + 32 + Crc32cTrailer.LENGTH + 3);
        for (int i = 0; i < packed.capacity(); i++) {
            packed.put(i, (byte) 0x5A);
        }
        for (int i = 0; i < 32; i++) {
            packed.put(5 + i, (byte) i);
        }
        packed.limit(43).position(2); // position and limit are restored; absolute access needs the limit past the trailer

        trailer.append(packed, 5, 32);

        assertThat(new byte[] {packed.get(37), packed.get(38), packed.get(39), packed.get(40)})
                .containsExactly(0x4e, 0x79, 0xdd, 0x46);
        assertThat(packed.get(41)).isEqualTo((byte) 0x5A);
        assertThat(trailer.verify(packed, 5, 32)).isTrue();
        assertThat(packed.position()).isEqualTo(2);
        assertThat(packed.limit()).isEqualTo(43);
        packed.put(4, (byte) 0); // a byte before the message is not covered
        assertThat(trailer.verify(packed, 5, 32)).isTrue();
        packed.put(5, (byte) 1); // a byte of the message is
        assertThat(trailer.verify(packed, 5, 32)).isFalse();
    }
}
