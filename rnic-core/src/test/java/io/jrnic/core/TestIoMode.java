package io.jrnic.core;

import io.jrnic.api.IoMode;
import io.jrnic.api.RnicConfig;

/**
 * The I/O mode the loopback data-path tests run in: {@code -Djrnic.test.ioMode=POLLING} (the
 * rnic-core POM's {@code polling-mode} surefire execution) or the default, event-loop mode. Issue 11
 * asks for the data-path tests in every mode; the fixtures build their RNICs through this.
 */
public final class TestIoMode {
    private TestIoMode() {
    }

    /**
     * The mode asked for by the system property, else {@link IoMode#EVENT_LOOP}.
     *
     * @return the mode
     */
    public static IoMode mode() {
        String value = System.getProperty("jrnic.test.ioMode");
        return value == null || value.isBlank() ? IoMode.EVENT_LOOP : IoMode.valueOf(value.trim());
    }

    /**
     * A fresh RNIC configuration with this name in the mode and on the socket kind under test
     * ({@code TestIoTransport}).
     *
     * @param name the RNIC's name
     * @return the configuration
     */
    public static RnicConfig config(String name) {
        return new RnicConfig().name(name).ioMode(mode()).ioTransport(io.jrnic.core.transport.TestIoTransport.CHOICE);
    }
}
