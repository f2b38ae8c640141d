package io.jrnic.core;

import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.spi.RnicProvider;

/**
 * The software RNIC as the {@link RnicProvider} service behind {@link Rnic#open(RnicConfig)}
 * (module-info {@code provides}, and META-INF/services for the class path).
 *
 * <p>Thread safety: stateless.
 */
public final class SoftRnicProvider implements RnicProvider {
    /** Called by {@link java.util.ServiceLoader}. */
    public SoftRnicProvider() {
    }

    @Override
    public Rnic open(RnicConfig config) {
        return SoftRnic.open(config);
    }
}
