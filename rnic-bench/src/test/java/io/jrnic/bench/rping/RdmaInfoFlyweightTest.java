package io.jrnic.bench.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class RdmaInfoFlyweightTest {

    @Test
    void encodesStructRpingRdmaInfoBigEndian() {
        byte[] bytes = new byte[RdmaInfoFlyweight.LENGTH + 2];
        new RdmaInfoFlyweight().wrap(MemorySegment.ofArray(bytes), 1)
                .buf(0x00007f22d8000e00L).rkey(0x0b929700).size(65535);

        assertThat(bytes).containsExactly(0,
                0x00, 0x00, 0x7f, 0x22, 0xd8, 0x00, 0x0e, 0x00, // buf
                0x0b, 0x92, 0x97, 0x00,                         // rkey = index << 8 | key
                0x00, 0x00, 0xff, 0xff,                         // size
                0);
    }

    @Test
    void decodesWhatItEncodes() {
        MemorySegment m = MemorySegment.ofArray(new byte[16]);
        RdmaInfoFlyweight info = new RdmaInfoFlyweight().wrap(m, 0).buf(-2L).rkey(0xdeadbe00).size(-1);

        assertThat(info.buf()).isEqualTo(-2L);
        assertThat(info.rkey()).isEqualTo(0xdeadbe00);
        assertThat(info.size()).isEqualTo(0xffffffffL); // unsigned
    }

    @Test
    void theServersGoAheadIsSixteenZeroBytes() {
        RdmaInfoFlyweight info = new RdmaInfoFlyweight().wrap(MemorySegment.ofArray(new byte[16]), 0);
        assertThat(info.buf()).isZero();
        assertThat(info.rkey()).isZero();
        assertThat(info.size()).isZero();
    }

    @Test
    void refusesASegmentShorterThanSixteenBytes() {
        assertThatThrownBy(() -> new RdmaInfoFlyweight().wrap(MemorySegment.ofArray(new byte[20]), 5))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
