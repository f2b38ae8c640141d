package io.jrnic.core.transport;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RxWindow}: the address netty's epoll read writes to, and the window it may not run past.
 * The loopback data-path tests read every byte through it (staging and direct placement).
 */
class RxWindowTest {

    @Test
    void aWindowOfNativeMemoryExposesTheAddressOfItsFirstByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(4096);
            RxWindow window = new RxWindow().open(target, 100, 512);
            assertThat(window.hasMemoryAddress()).isTrue();
            assertThat(window.memoryAddress()).isEqualTo(target.address() + 100);
            assertThat(window.capacity()).as("epoll reads up to the capacity").isEqualTo(512);
        }
    }

    @Test
    void aWindowOfHeapMemoryHasNoAddressAndIsReadThroughItsByteBufferView() {
        RxWindow window = new RxWindow().open(MemorySegment.ofArray(new byte[4096]), 100, 512);
        assertThat(window.hasMemoryAddress()).isFalse();
        assertThatThrownBy(window::memoryAddress).isInstanceOf(UnsupportedOperationException.class);
        assertThat(window.internalNioBuffer(0, 512).remaining()).isEqualTo(512);
    }

    @Test
    void whatTheKernelWroteAtTheAddressIsTheWindowsContent() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(4096);
            RxWindow window = new RxWindow().open(target, 64, 16);
            // as recv would: bytes at memoryAddress() + writerIndex()
            MemorySegment.ofAddress(window.memoryAddress()).reinterpret(16).set(ValueLayout.JAVA_BYTE, 3, (byte) 0x5A);
            window.writerIndex(16);
            assertThat(window.getByte(3)).isEqualTo((byte) 0x5A);
            assertThat(target.get(ValueLayout.JAVA_BYTE, 67)).isEqualTo((byte) 0x5A);
        }
    }
}
