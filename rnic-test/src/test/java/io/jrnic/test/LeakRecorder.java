package io.jrnic.test;

import io.netty.util.ResourceLeakDetector;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A netty leak detector that records every leak report (besides logging it) so that a test can
 * fail on it: installed for this module's tests by {@code -Dio.netty.customResourceLeakDetector}
 * (rnic-test's pom), together with {@code -Dio.netty.leakDetection.level=paranoid}, which tracks
 * every buffer. Netty reports a leak when a tracked buffer was garbage-collected without being
 * released, at the next buffer it tracks; {@link #detectors()} tells whether netty picked this
 * class up.
 *
 * @param <T> the tracked resource type
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static final AtomicInteger DETECTORS = new AtomicInteger();

    /**
     * The constructor netty's factory calls.
     *
     * @param resourceType     the tracked class
     * @param samplingInterval the sampling interval (ignored at paranoid level)
     * @param maxActive        unused by netty
     */
    public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval, maxActive);
        DETECTORS.incrementAndGet();
    }

    /**
     * The constructor of netty's newer factory path.
     *
     * @param resourceType     the tracked class
     * @param samplingInterval the sampling interval
     */
    public LeakRecorder(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
        DETECTORS.incrementAndGet();
    }

    /** How many detectors netty created of this class (0: the system property was not applied). */
    static int detectors() {
        return DETECTORS.get();
    }

    /** The leak reports so far. */
    static List<String> leaks() {
        return List.copyOf(LEAKS);
    }

    @Override
    protected boolean needReport() {
        return true; // record even when netty's logger would drop the report
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add("LEAK: " + resourceType + records);
        if (!records.contains(FaultInjectionTest.CANARY)) { // the judge's deliberate leak stays out of the log
            super.reportTracedLeak(resourceType, records);
        }
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add("LEAK: " + resourceType + " (untraced)");
        super.reportUntracedLeak(resourceType);
    }
}
