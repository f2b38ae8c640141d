/**
 * The software RNIC behind the Verbs facade: QP engine, memory and STag tables, completion
 * queues, and the netty transport. Applications reach it through
 * {@code io.jrnic.api.Rnic.open}, which finds it as the {@code io.jrnic.api.spi.RnicProvider}
 * service.
 */
module io.jrnic.core {
    requires transitive io.jrnic.api;
    requires io.jrnic.rdmap;
    requires io.netty.buffer;
    // netty's modules do not re-export it, yet its types (io.netty.util.concurrent.Future, ...)
    // appear in the transport's code: without this the module path fails with IllegalAccessError
    requires io.netty.common;
    requires io.netty.transport;
    // JFR events (docs/observability.md)
    requires jdk.jfr;
    requires org.slf4j;

    exports io.jrnic.core;
    // The FPDU link seam: QpEngine's public constructor takes an FpduLink, which was exported with
    // io.jrnic.core before it moved to its own package (issue 10).
    exports io.jrnic.core.link;

    provides io.jrnic.api.spi.RnicProvider with io.jrnic.core.SoftRnicProvider;
}
