package io.jrnic.core.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Socket views of registered memory: plain (session-less) only for memory whose owner vouches for
 * its lifetime, checked views for the application's own arenas, and the same bytes either way.
 * rnic-core's tests run with {@code --add-opens java.base/java.nio}, so plain views are available.
 */
class NativeViewsTest {

    @Test
    void plainViewsAreAvailableWithTheRecommendedJvmOptions() {
        assertThat(NativeViews.plainViewsAvailable()).isTrue();
    }

    @Test
    void trustedArenaGetsPlainViewsUntilDistrusted() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(4096);
            assertThat(NativeViews.plain(memory)).as("before trust").isFalse();
            NativeViews.trust(arena.scope());
            NativeViews.trust(arena.scope());      // idempotent
            try {
                assertThat(NativeViews.plain(memory)).isTrue();
                assertThat(NativeViews.plain(memory.asSlice(100, 200))).as("a slice shares the scope").isTrue();
            } finally {
                NativeViews.distrust(arena.scope());
            }
            assertThat(NativeViews.plain(memory)).as("after distrust").isFalse();
        }
    }

    @Test
    void applicationArenasAndHeapMemoryKeepCheckedViews() {
        try (Arena confined = Arena.ofConfined(); Arena shared = Arena.ofShared()) {
            assertThat(NativeViews.plain(confined.allocate(64))).isFalse();
            assertThat(NativeViews.plain(shared.allocate(64))).isFalse();
            assertThat(NativeViews.plain(Arena.ofAuto().allocate(64))).isFalse();
            assertThat(NativeViews.plain(MemorySegment.ofArray(new byte[64]))).isFalse();
            assertThat(NativeViews.view(MemorySegment.ofArray(new byte[64])).isDirect()).isFalse();
        }
    }

    @Test
    void globalMemoryIsNeverFreedSoItsViewsArePlain() {
        MemorySegment memory = Arena.global().allocate(16);
        assertThat(NativeViews.plain(memory)).isTrue();
    }

    @Test
    void plainViewSeesAndSpansExactlyTheSegmentsBytes() {
        try (Arena arena = Arena.ofShared()) {
            NativeViews.trust(arena.scope());
            try {
                MemorySegment memory = arena.allocate(1024);
                for (int i = 0; i < 1024; i++) {
                    memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
                }
                MemorySegment slice = memory.asSlice(300, 500);
                ByteBuffer view = NativeViews.view(slice);
                assertThat(view.isDirect()).isTrue();
                assertThat(view.position()).isZero();
                assertThat(view.capacity()).isEqualTo(500);
                assertThat(view.limit()).isEqualTo(500);
                for (int i = 0; i < 500; i++) {
                    assertThat(view.get(i)).isEqualTo((byte) ((300 + i) * 7));
                }
                assertThat(MemorySegment.ofBuffer(view).address()).isEqualTo(slice.address());
            } finally {
                NativeViews.distrust(arena.scope());
            }
        }
    }

    @Test
    void distrustOfAnUnknownScopeChangesNothing() {
        try (Arena a = Arena.ofShared(); Arena b = Arena.ofShared()) {
            NativeViews.trust(a.scope());
            try {
                NativeViews.distrust(b.scope());
                assertThat(NativeViews.plain(a.allocate(8))).isTrue();
            } finally {
                NativeViews.distrust(a.scope());
            }
        }
    }

    @Test
    void segmentsBeyondTwoGibibytesHaveNoView() {
        MemorySegment huge = MemorySegment.NULL.reinterpret(1L << 31);
        assertThatThrownBy(() -> NativeViews.view(huge)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2147483648 bytes");
    }
}
