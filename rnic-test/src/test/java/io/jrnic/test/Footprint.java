package io.jrnic.test;

import javax.management.ObjectName;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The memory a JVM holds at one moment, for the soak and scale judges: live heap after a full
 * collection, and native memory from Native Memory Tracking ({@code -XX:NativeMemoryTracking=summary},
 * set by rnic-test's pom): the committed total and the "Other" category, where
 * {@code Unsafe.allocateMemory} puts RNIC memory (MemorySegments), direct buffers and netty's
 * unsafe direct buffers. Values are -1 when NMT is off.
 *
 * @param heapBytes   heap used after {@link System#gc()}
 * @param nativeBytes NMT committed total without the Java heap
 * @param otherBytes  NMT committed "Other"
 * @param directBytes the JDK's direct buffer pool
 */
record Footprint(long heapBytes, long nativeBytes, long otherBytes, long directBytes) {
    private static final Pattern TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern HEAP = Pattern.compile("-\\s+Java Heap \\(reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern OTHER = Pattern.compile("-\\s+Other \\(reserved=(\\d+)KB, committed=(\\d+)KB");

    static Footprint now() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = pool.getMemoryUsed();
            }
        }
        long total = -1;
        long other = -1;
        try {
            String summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[]{new String[]{"summary"}}, new String[]{String[].class.getName()});
            Matcher t = TOTAL.matcher(summary);
            if (t.find()) {
                total = Long.parseLong(t.group(2)) << 10;
            }
            Matcher h = HEAP.matcher(summary);
            if (total >= 0 && h.find()) {
                total -= Long.parseLong(h.group(2)) << 10; // the heap is measured apart; its committed size floats
            }
            Matcher o = OTHER.matcher(summary);
            if (o.find()) {
                other = Long.parseLong(o.group(2)) << 10;
            }
        } catch (Exception e) {
            // NMT off or the MBean unavailable: native figures stay -1
        }
        return new Footprint(heap, total, other, direct);
    }

    Footprint minus(Footprint o) {
        return new Footprint(heapBytes - o.heapBytes, nativeBytes - o.nativeBytes, otherBytes - o.otherBytes,
                directBytes - o.directBytes);
    }

    @Override
    public String toString() {
        return String.format("heap %.1f MiB, native %.1f MiB (Other %.1f MiB), direct %.1f MiB",
                heapBytes / 1048576.0, nativeBytes / 1048576.0, otherBytes / 1048576.0, directBytes / 1048576.0);
    }
}
