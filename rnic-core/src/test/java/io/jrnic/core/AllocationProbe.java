package io.jrnic.core;

import java.lang.reflect.Method;

/**
 * The current thread's allocated bytes ({@code com.sun.management.ThreadMXBean}), for the tests
 * that assert an allocation-free steady state. Reached reflectively: the tests are compiled inside
 * module io.jrnic.core, which must not require java.management for production; surefire runs them
 * on the class path.
 */
final class AllocationProbe {
    private static final Object THREAD_MX_BEAN;
    private static final Method ALLOCATED_BYTES;

    static {
        try {
            THREAD_MX_BEAN = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            ALLOCATED_BYTES = Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getCurrentThreadAllocatedBytes");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private AllocationProbe() {
    }

    /** Bytes the current thread has allocated so far. */
    static long allocatedBytes() {
        try {
            return (long) ALLOCATED_BYTES.invoke(THREAD_MX_BEAN);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
