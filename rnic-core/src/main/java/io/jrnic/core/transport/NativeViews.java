package io.jrnic.core.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * {@link ByteBuffer} views of registered memory for the socket's gathering write, made so that the
 * JDK allocates nothing per write.
 *
 * <p><b>Why.</b> A view from {@link MemorySegment#asByteBuffer()} carries the segment's memory
 * session. The JDK's gathering write ({@code IOUtil.write(fd, ByteBuffer[], ...)}) acquires that
 * session for the duration of the system call and links a releaser object per such buffer: about
 * 40 bytes of garbage per payload piece per {@code writev}, i.e. per FPDU on the transmit path.
 * A plain direct buffer (no session) costs nothing. This class makes plain direct buffers over the
 * address of a registered segment, through {@code java.nio.DirectByteBuffer}'s (long, long)
 * constructor -- the one JNI's {@code NewDirectByteBuffer} uses. Reaching it needs
 * {@code --add-opens java.base/java.nio=ALL-UNNAMED} (or {@code =io.jrnic.core} on the module path);
 * without it {@link #view} falls back to the session view and everything still works, with the
 * 40 bytes per FPDU (docs/transport.md, "Allocation").
 *
 * <p><b>Safety.</b> A session-less view is not checked by the JDK: if the memory were freed while a
 * write is pending, the kernel would read freed memory (the JVM does not crash: only the kernel
 * touches these views, and it answers a bad address with EFAULT, but it could send stale bytes).
 * So plain views are made only for memory whose lifetime covers every write that can use it:
 * <ul>
 *   <li>the global scope (never freed), and
 *   <li>scopes {@linkplain #trust trusted} by their owner: a {@code SoftRnic} trusts the arena of
 *       the memory it allocates, because its {@code close()} ends every connection of its
 *       connection manager (and their event loops) before it frees that arena.
 * </ul>
 * Memory of the application's own arenas, which it may close at any time, keeps the checked view.
 *
 * <p>Thread safety: thread safe. The trusted set is copy-on-write (a few RNICs per JVM), so the
 * lookup on the data path is a lock-free scan of a small array.
 */
public final class NativeViews {

    /** {@code DirectByteBuffer(long address, long capacity)}, or null when java.nio is not open to us. */
    private static final MethodHandle PLAIN_DIRECT = plainDirectConstructor();

    private static volatile MemorySegment.Scope[] trusted = new MemorySegment.Scope[0];

    private NativeViews() {
    }

    private static MethodHandle plainDirectConstructor() {
        try {
            Class<?> direct = Class.forName("java.nio.DirectByteBuffer");
            var constructor = direct.getDeclaredConstructor(long.class, long.class);
            constructor.setAccessible(true);
            return MethodHandles.lookup().unreflectConstructor(constructor)
                    .asType(MethodType.methodType(ByteBuffer.class, long.class, long.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            // InaccessibleObjectException without --add-opens java.base/java.nio: use checked views
            return null;
        }
    }

    /**
     * Whether plain (session-less) views can be made in this JVM at all.
     *
     * @return true when {@code java.nio} is open to this module
     */
    public static boolean plainViewsAvailable() {
        return PLAIN_DIRECT != null;
    }

    /**
     * Declares that memory of this scope stays allocated until no connection can write from it any
     * more (see the class comment); {@link #distrust} before freeing it.
     *
     * @param scope an arena's scope, e.g. {@link Arena#scope()}
     */
    public static synchronized void trust(MemorySegment.Scope scope) {
        MemorySegment.Scope[] t = trusted;
        for (MemorySegment.Scope s : t) {
            if (s.equals(scope)) {
                return;
            }
        }
        MemorySegment.Scope[] n = Arrays.copyOf(t, t.length + 1);
        n[t.length] = scope;
        trusted = n;
    }

    /**
     * Withdraws {@link #trust}: views made afterwards are checked ones. Call it before the connections
     * that could still use plain views of this memory have ended only if none can (the owner's
     * close order guarantees it).
     *
     * @param scope a scope passed to {@link #trust} (others are ignored)
     */
    public static synchronized void distrust(MemorySegment.Scope scope) {
        MemorySegment.Scope[] t = trusted;
        for (int i = 0; i < t.length; i++) {
            if (t[i].equals(scope)) {
                MemorySegment.Scope[] n = new MemorySegment.Scope[t.length - 1];
                System.arraycopy(t, 0, n, 0, i);
                System.arraycopy(t, i + 1, n, i, t.length - i - 1);
                trusted = n;
                return;
            }
        }
    }

    /**
     * Whether {@link #view} makes a plain view of this segment.
     *
     * @param segment native memory
     * @return true for global or trusted native memory when plain views are available
     */
    public static boolean plain(MemorySegment segment) {
        return PLAIN_DIRECT != null && stable(segment);
    }

    /**
     * Whether the kernel may be handed this segment's bare address for a socket read or write:
     * native memory whose lifetime covers every such call (the global scope, or a
     * {@linkplain #trust trusted} one). netty's epoll transport passes addresses to the kernel
     * without acquiring the memory's session, so memory of an arena the application may close at
     * any time must not reach it (docs/transport.md, "Socket kinds").
     *
     * @param segment a segment
     * @return true for global or trusted native memory
     */
    public static boolean stable(MemorySegment segment) {
        if (!segment.isNative()) {
            return false;
        }
        MemorySegment.Scope scope = segment.scope();
        if (scope.equals(Arena.global().scope())) {
            return true;
        }
        for (MemorySegment.Scope s : trusted) {
            if (s.equals(scope)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A view of the whole segment for socket I/O: plain when {@link #plain} allows it, else
     * {@link MemorySegment#asByteBuffer()}.
     *
     * @param segment at most {@link Integer#MAX_VALUE} bytes
     * @return a new buffer over the segment's bytes, position 0, limit = capacity = its size
     */
    public static ByteBuffer view(MemorySegment segment) {
        if (segment.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("segment of " + segment.byteSize() + " bytes has no ByteBuffer view");
        }
        if (plain(segment)) {
            try {
                return (ByteBuffer) PLAIN_DIRECT.invokeExact(segment.address(), segment.byteSize());
            } catch (Throwable e) {
                throw new IllegalStateException("DirectByteBuffer(long, long) failed", e);
            }
        }
        return segment.asByteBuffer();
    }
}
