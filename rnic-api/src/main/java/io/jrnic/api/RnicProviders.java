package io.jrnic.api;

import io.jrnic.api.spi.RnicProvider;

import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * Finds the RNIC implementation for {@link Rnic#open(RnicConfig)} once: the first
 * {@link RnicProvider} of {@link ServiceLoader}, through the thread's context class loader and
 * then the API's own loader (containers may set a context loader that does not see rnic-core).
 *
 * <p>Thread safety: thread safe (lazy holder).
 */
final class RnicProviders {
    private RnicProviders() {
    }

    private static final class Holder {
        static final RnicProvider PROVIDER = find();
    }

    static RnicProvider provider() {
        RnicProvider p = Holder.PROVIDER;
        if (p == null) {
            throw new IllegalStateException("no RNIC implementation found: put rnic-core (io.jrnic:rnic-core) on the"
                    + " class path or module path (it provides io.jrnic.api.spi.RnicProvider)");
        }
        return p;
    }

    private static RnicProvider find() {
        RnicProvider p = first(ServiceLoader.load(RnicProvider.class));
        return p != null ? p : first(ServiceLoader.load(RnicProvider.class, RnicProviders.class.getClassLoader()));
    }

    private static RnicProvider first(ServiceLoader<RnicProvider> loader) {
        Iterator<RnicProvider> it = loader.iterator();
        return it.hasNext() ? it.next() : null;
    }
}
