package io.jrnic.api.spi;

import io.jrnic.api.Rnic;
import io.jrnic.api.RnicConfig;

/**
 * The service an RNIC implementation provides, found by {@link java.util.ServiceLoader} when an
 * application calls {@link Rnic#open(RnicConfig)}: declared with {@code provides
 * io.jrnic.api.spi.RnicProvider with ...} on the module path and a
 * {@code META-INF/services/io.jrnic.api.spi.RnicProvider} entry on the class path. rnic-core
 * provides the software RNIC.
 *
 * <p>Thread safety: implementations must be thread safe.
 */
public interface RnicProvider {
    /**
     * Open RNIC (Verbs 1.0 §9.2.1.1).
     *
     * @param config the configuration (read once)
     * @return the open RNIC
     * @throws io.jrnic.api.VerbsException as {@link Rnic#open(RnicConfig)}
     */
    Rnic open(RnicConfig config);
}
