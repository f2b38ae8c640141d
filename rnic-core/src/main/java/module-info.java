/**
 * The software RNIC behind the Verbs facade: memory and STag tables, work queues, the QP engine,
 * queue pairs, completion queues, connection management and the netty transport. Applications reach it through
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
    // netty's native epoll transport (docs/transport.md "Socket kinds"); its native library is the
    // separate module io.netty.transport.epoll.linux.<arch>, found as a resource when it is on the
    // module path and resolved (docs/packaging.md)
    requires io.netty.transport.classes.epoll;
    // its native layer: writev of bare addresses (DirectWriter)
    requires io.netty.transport.unix.common;
    // JFR events (docs/observability.md)
    requires jdk.jfr;
    requires org.slf4j;

    // Only the RNIC itself: its layers (mem, wq, link, engine, qp, transport, cm) are internal
    // (docs/architecture.md "Inside rnic-core").
    exports io.jrnic.core;

    provides io.jrnic.api.spi.RnicProvider with io.jrnic.core.SoftRnicProvider;
}
