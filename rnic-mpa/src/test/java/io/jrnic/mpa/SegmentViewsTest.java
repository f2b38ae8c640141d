package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The view cache behind allocation-free CRC and socket I/O: reuse, round-robin replacement, release. */
class SegmentViewsTest {

    /** {@return whether the referent was collected within a bounded number of full collections} */
    static boolean collected(WeakReference<?> ref) {
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
        }
        return ref.get() == null;
    }

    @Test
    void oneViewPerSegmentReusedUntilReplacedRoundRobin() {
        SegmentViews views = new SegmentViews(1);                      // the smallest cache
        MemorySegment a = MemorySegment.ofArray(new byte[] {1, 2, 3});
        MemorySegment b = MemorySegment.ofArray(new byte[] {4, 5});
        ByteBuffer va = views.of(a);
        assertThat(views.of(a)).isSameAs(va);
        assertThat(va.capacity()).isEqualTo(3);
        assertThat(va.get(2)).isEqualTo((byte) 3);
        ByteBuffer vb = views.of(b);
        assertThat(vb.get(1)).isEqualTo((byte) 5);
        assertThat(views.of(a)).as("a was replaced by b").isNotSameAs(va);
        assertThatThrownBy(() -> new SegmentViews(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(">= 1");
    }

    @Test
    void clearKeepsNoSegmentReachable() {
        SegmentViews views = new SegmentViews(4);
        WeakReference<byte[]> memory = viewOfGarbage(views);
        views.clear();
        assertThat(collected(memory)).isTrue();
    }

    private static WeakReference<byte[]> viewOfGarbage(SegmentViews views) {
        byte[] data = new byte[4096];
        views.of(MemorySegment.ofArray(data));
        return new WeakReference<>(data);
    }
}
